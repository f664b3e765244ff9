/** `vllm bench serve` (and the older `benchmarks/benchmark_serving.py`): the printed block and `--save-result` JSON. */
import { fromUrl, num, port, ratio, stats, str, wallDate } from './fields.js';
import type { TextBlock } from './text-block.js';
import type { ParsedBench } from './types.js';

export function vllmFromText(b: TextBlock, name: string): ParsedBench {
  const r = (k: string) => b.rows.get(k);
  const args = b.args;
  const u = fromUrl(args?.base_url);
  const duration = num(r('benchmark duration (s)'));
  return {
    tool: 'vllm',
    backend: str(args?.backend) ?? str(args?.endpoint_type),
    model: str(args?.model) ?? str(args?.served_model_name),
    host: u.host ?? str(args?.host),
    port: u.port ?? port(args?.port),
    finishedAt: null,
    durationS: duration,
    completed: num(r('successful requests')),
    // Printed only with --max-concurrency; the arguments say it otherwise (None = unbounded → null).
    maxConcurrency: num(r('maximum request concurrency')) ?? num(args?.max_concurrency),
    // Printed only when finite; an unbounded (inf) rate stays null.
    requestRate: num(r('request rate configured (rps)')) ?? num(args?.request_rate),
    requestTputReqS: num(r('request throughput (req/s)')),
    outputTokS: num(r('output token throughput (tok/s)')),
    // `Total Token throughput` (capital T) until 2025-12; keys are lower-cased.
    totalTokS: num(r('total token throughput (tok/s)')),
    // vLLM prints no input rate; the tools compute it as total input tokens / duration.
    inputTokS: ratio(num(r('total input tokens')), duration),
    ttft: stats(r('mean ttft (ms)'), r('median ttft (ms)'), r('p99 ttft (ms)')),
    tpot: stats(r('mean tpot (ms)'), r('median tpot (ms)'), r('p99 tpot (ms)')),
    itl: stats(r('mean itl (ms)'), r('median itl (ms)'), r('p99 itl (ms)')),
    e2e: stats(r('mean e2el (ms)'), r('median e2el (ms)'), r('p99 e2el (ms)')),
    source: `${name}:${b.startLine}`,
    runText: b.text,
  };
}

export function vllmFromJson(o: Record<string, unknown>, source: string, runText: string): ParsedBench {
  const u = fromUrl(o.base_url);
  const duration = num(o.duration);
  return {
    tool: 'vllm',
    backend: str(o.backend) ?? str(o.endpoint_type),
    model: str(o.model_id) ?? str(o.model),
    host: u.host ?? str(o.host),
    port: u.port ?? port(o.port),
    finishedAt: wallDate(o.date),
    durationS: duration,
    completed: num(o.completed),
    maxConcurrency: num(o.max_concurrency),
    // `"inf"` (a string) for an unbounded rate: null.
    requestRate: num(o.request_rate),
    requestTputReqS: num(o.request_throughput),
    outputTokS: num(o.output_throughput),
    totalTokS: num(o.total_token_throughput),
    inputTokS: ratio(num(o.total_input_tokens), duration),
    ttft: stats(o.mean_ttft_ms, o.median_ttft_ms, o.p99_ttft_ms),
    tpot: stats(o.mean_tpot_ms, o.median_tpot_ms, o.p99_tpot_ms),
    itl: stats(o.mean_itl_ms, o.median_itl_ms, o.p99_itl_ms),
    e2e: stats(o.mean_e2el_ms, o.median_e2el_ms, o.p99_e2el_ms),
    source,
    runText,
  };
}
