/**
 * `python -m sglang.bench_serving` results: the printed summary block and the JSONL it appends to
 * `--output-file` (one object per run, with `server_info` from the server's /get_server_info).
 */
import { fromUrl, num, port, ratio, stats, str, wallDate } from './fields.js';
import type { TextBlock } from './text-block.js';
import type { ParsedBench } from './types.js';

/** Rows only SGLang prints (vLLM says `Maximum request concurrency`, has no Backend row and no retokenized count). */
const SGLANG_ROWS = [
  'backend',
  'traffic request rate',
  'max request concurrency',
  'concurrency',
  'total generated tokens (retokenized)',
  'input token throughput (tok/s)',
  'accept length',
];

export function isSglangBlock(b: TextBlock): boolean {
  return SGLANG_ROWS.some((k) => b.rows.has(k)) || [...b.rows.keys()].some((k) => k.includes('e2e latency'));
}

/** Keys only SGLang's JSONL carries (vLLM writes `total_token_throughput`, `date`, `*_e2el_ms`). */
export function isSglangJson(o: Record<string, unknown>): boolean {
  return (
    'total_throughput' in o ||
    'server_info' in o ||
    'median_e2e_latency_ms' in o ||
    'accept_length' in o ||
    'total_output_tokens_retokenized' in o
  );
}

/** Where the benchmark sent its requests, from its own arguments (base_url wins over host/port, as in the tool). */
function target(args: Record<string, unknown> | null): { host: string | null; port: number | null } {
  if (!args) return { host: null, port: null };
  const u = fromUrl(args.base_url);
  if (u.host) return u;
  return { host: str(args.host), port: port(args.port) };
}

export function sglangFromText(b: TextBlock, name: string): ParsedBench {
  const r = (k: string) => b.rows.get(k);
  const t = target(b.args);
  const duration = num(r('benchmark duration (s)'));
  return {
    tool: 'sglang',
    backend: str(r('backend')) ?? str(b.args?.backend),
    model: str(b.args?.model) ?? str(b.args?.served_model_name),
    host: t.host,
    port: t.port,
    // The printed block carries no date; the CLI falls back to the file's mtime.
    finishedAt: null,
    durationS: duration,
    completed: num(r('successful requests')),
    maxConcurrency: num(r('max request concurrency')) ?? num(b.args?.max_concurrency),
    requestRate: num(r('traffic request rate')),
    requestTputReqS: num(r('request throughput (req/s)')),
    outputTokS: num(r('output token throughput (tok/s)')),
    totalTokS: num(r('total token throughput (tok/s)')),
    inputTokS: num(r('input token throughput (tok/s)')) ?? ratio(num(r('total input tokens')), duration),
    ttft: stats(r('mean ttft (ms)'), r('median ttft (ms)'), r('p99 ttft (ms)')),
    tpot: stats(r('mean tpot (ms)'), r('median tpot (ms)'), r('p99 tpot (ms)')),
    itl: stats(r('mean itl (ms)'), r('median itl (ms)'), r('p99 itl (ms)')),
    e2e: stats(r('mean e2e latency (ms)'), r('median e2e latency (ms)'), r('p99 e2e latency (ms)')),
    source: `${name}:${b.startLine}`,
    runText: b.text,
  };
}

export function sglangFromJson(o: Record<string, unknown>, source: string, runText: string): ParsedBench {
  const info = (o.server_info && typeof o.server_info === 'object' ? o.server_info : {}) as Record<
    string,
    unknown
  >;
  const u = fromUrl(o.base_url);
  const duration = num(o.duration);
  return {
    tool: 'sglang',
    backend: str(o.backend),
    model: str(o.model_id) ?? str(o.model) ?? str(info.model_path) ?? str(info.served_model_name),
    host: u.host ?? str(o.host),
    // The server's own port (server_info) is the one a launch record carries; its bind host (0.0.0.0) is not a name.
    port: u.port ?? port(o.port) ?? port(info.port),
    finishedAt: wallDate(o.date),
    durationS: duration,
    completed: num(o.completed),
    maxConcurrency: num(o.max_concurrency),
    requestRate: num(o.request_rate),
    requestTputReqS: num(o.request_throughput),
    outputTokS: num(o.output_throughput),
    totalTokS: num(o.total_throughput),
    inputTokS: num(o.input_throughput) ?? ratio(num(o.total_input_tokens), duration),
    ttft: stats(o.mean_ttft_ms, o.median_ttft_ms, o.p99_ttft_ms),
    tpot: stats(o.mean_tpot_ms, o.median_tpot_ms, o.p99_tpot_ms),
    itl: stats(o.mean_itl_ms, o.median_itl_ms, o.p99_itl_ms),
    e2e: stats(o.mean_e2e_latency_ms, o.median_e2e_latency_ms, o.p99_e2e_latency_ms),
    source,
    runText,
  };
}
