/**
 * Reads benchmark output of `sglang.bench_serving` and `vllm bench serve` — printed summary blocks, JSONL
 * (one run per line) or a `--save-result` JSON file — and returns every run in the order the file holds them.
 */
import { parsePythonJson } from './fields.js';
import { isSglangBlock, isSglangJson, sglangFromJson, sglangFromText } from './sglang.js';
import { textBlocks } from './text-block.js';
import { BenchParseError, type ParsedBench } from './types.js';
import { vllmFromJson, vllmFromText } from './vllm.js';

export { BenchParseError, type ParsedBench } from './types.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A run's result, not some other JSON (server_info dumps, configs): it says how fast or how many. */
const isResult = (o: Obj): boolean =>
  'output_throughput' in o || (typeof o.completed === 'number' && typeof o.duration === 'number');

function fromJson(o: Obj, source: string, runText: string): ParsedBench {
  return isSglangJson(o) ? sglangFromJson(o, source, runText) : vllmFromJson(o, source, runText);
}

/** A whole-file JSON document (vLLM's --save-result, pretty-printed or not, or an array of results), else null. */
function wholeJson(text: string, name: string): ParsedBench[] | null {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return null;
  let v: unknown;
  try {
    v = parsePythonJson(t);
  } catch {
    return null;
  }
  if (isObj(v)) return isResult(v) ? [fromJson(v, name, t)] : [];
  if (!Array.isArray(v)) return [];
  return v.flatMap((o, i) =>
    isObj(o) && isResult(o) ? [fromJson(o, `${name}[${i}]`, JSON.stringify(o))] : [],
  );
}

export function parseBenchOutput(text: string, name: string): ParsedBench[] {
  if (text.trim() === '') throw new BenchParseError(name, `${name}: empty file, no benchmark result in it`);
  const whole = wholeJson(text, name);
  if (whole?.length) return whole;
  const found: Array<{ line: number; run: ParsedBench }> = [];
  let badJson: number | null = null;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{')) continue;
    let v: unknown;
    try {
      v = parsePythonJson(line);
    } catch {
      badJson ??= i + 1;
      continue;
    }
    if (isObj(v) && isResult(v)) found.push({ line: i + 1, run: fromJson(v, `${name}:${i + 1}`, line) });
  }
  for (const b of textBlocks(text)) {
    const run = isSglangBlock(b) ? sglangFromText(b, name) : vllmFromText(b, name);
    // A header with no numbers under it (cut off right after it) is not a run.
    if (run.outputTokS !== null || run.completed !== null) found.push({ line: b.startLine, run });
  }
  if (found.length === 0) {
    const why =
      badJson !== null
        ? `line ${badJson} looks like JSON but does not parse, and no "Serving Benchmark Result" block was found`
        : whole !== null
          ? 'the JSON in it has no output_throughput (not a bench_serving / vllm bench serve result)'
          : 'no "Serving Benchmark Result" block, JSONL result or --save-result JSON of sglang.bench_serving or vllm bench serve';
    throw new BenchParseError(name, `${name}: ${why}`);
  }
  return found.sort((a, b) => a.line - b.line).map((f) => f.run);
}
