/** Turns a log argument (path or `-`) into an analysis, with one-line errors for everything a user can get wrong. */
import fs from 'node:fs';
import type { AnalyzerOptions } from '../core/analyzer.js';
import { ENGINES, type EngineId } from '../core/types.js';
import { analyzeFileParallel, analyzeStream, type ReadResult } from '../sources/file.js';
import { UsageError } from './errors.js';

export function engineFlag(v: unknown): EngineId | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string' && (ENGINES as readonly string[]).includes(v)) return v as EngineId;
  throw new UsageError(`--engine ${String(v)}: unknown engine (one of ${ENGINES.join(', ')})`);
}

export async function readLog(target: string, opts: AnalyzerOptions): Promise<ReadResult> {
  if (target === '-') return analyzeStream(process.stdin, opts);
  return analyzeFileParallel(target, opts);
}

/** Says why a file gave no launch, when the reason is the file itself. */
export function explainNoLaunch(target: string, res: ReadResult): string {
  if (res.size === 0) return `${target}: empty file, nothing to report`;
  if (target !== '-' && looksBinary(target)) return `${target}: looks like a binary file, not a text log`;
  return `${target}: no server launch recognised in ${res.report.lines} line${res.report.lines === 1 ? '' : 's'} (not an SGLang, vLLM, TensorRT-LLM, TGI or llama.cpp log? --engine forces one)`;
}

function looksBinary(path: string): boolean {
  try {
    const fd = fs.openSync(path, 'r');
    const buf = Buffer.alloc(8192);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    fs.closeSync(fd);
    let odd = 0;
    for (let i = 0; i < n; i++) {
      const c = buf[i]!;
      if (c === 0 || (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 27)) odd++;
    }
    return n > 0 && odd / n > 0.05;
  } catch {
    return false;
  }
}
