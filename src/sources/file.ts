/** Reads a log file (or stdin) into the core, in fixed-size chunks so memory does not grow with the file. */
import fs from 'node:fs';
import { UsageError } from '../cli/errors.js';
import { type AnalyzerOptions, LogAnalyzer } from '../core/analyzer.js';
import type { AnalysisReport } from '../core/report.js';

const CHUNK = 4 << 20;

export function describeFsError(path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return `${path}: no such file (check the path; for a remote log use host:path)`;
    case 'EACCES':
    case 'EPERM':
      return `${path}: permission denied (run as a user who can read it)`;
    case 'EISDIR':
      return `${path}: is a directory, not a log file (name the log file inside it)`;
    case 'ENOTDIR':
      return `${path}: a parent of this path is not a directory`;
    case 'ELOOP':
      return `${path}: too many symbolic links`;
    case 'EMFILE':
    case 'ENFILE':
      return `${path}: too many open files`;
    default:
      return `${path}: cannot read (${code ?? (err as Error)?.message ?? err})`;
  }
}

export interface ReadResult {
  report: AnalysisReport;
  analyzer: LogAnalyzer;
  size: number;
  mtimeMs: number | null;
}

export function analyzeFile(path: string, opts: AnalyzerOptions = {}): ReadResult {
  let fd: number;
  let st: fs.Stats;
  try {
    st = fs.statSync(path);
    if (st.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    fd = fs.openSync(path, 'r');
  } catch (err) {
    throw new UsageError(describeFsError(path, err));
  }
  const year = opts.year ?? new Date(st.mtimeMs).getUTCFullYear();
  const analyzer = new LogAnalyzer({ ...opts, year });
  const buf = Buffer.allocUnsafe(CHUNK);
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      analyzer.push(buf.subarray(0, n));
    }
  } catch (err) {
    throw new UsageError(describeFsError(path, err));
  } finally {
    fs.closeSync(fd);
  }
  return { report: analyzer.end(), analyzer, size: st.size, mtimeMs: st.mtimeMs };
}

export async function analyzeStream(
  stream: NodeJS.ReadableStream,
  opts: AnalyzerOptions = {},
): Promise<ReadResult> {
  const analyzer = new LogAnalyzer({ year: new Date().getUTCFullYear(), ...opts });
  for await (const chunk of stream)
    analyzer.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return { report: analyzer.end(), analyzer, size: analyzer.bytes, mtimeMs: null };
}
