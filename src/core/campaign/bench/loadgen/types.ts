/**
 * What the load generator measures, request by request and level by level. Times are milliseconds on the
 * runner's monotonic clock (performance.now()); the generator's I/O side fills RequestRecords, the pure
 * metrics code (metrics.ts) turns them into the figures sglang.bench_serving / vllm bench serve report.
 */

/** Why a request failed: the kind groups failures, the text says what happened to this one. */
export type FailureKind = 'http' | 'timeout' | 'dropped' | 'connect' | 'stream_error' | 'empty';

export interface RequestRecord {
  ok: boolean;
  failure: { kind: FailureKind; message: string } | null;
  /** When the request was sent (before the connection was taken or opened). */
  startMs: number;
  endMs: number;
  /** Arrival of each streamed chunk that carried generated text: TTFT is the first, ITL the gaps. */
  chunkMs: number[];
  /** From the server's `usage` (stream_options.include_usage); null when it sent none. */
  promptTokens: number | null;
  completionTokens: number | null;
}

export interface LatencyDist {
  mean: number | null;
  median: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
}

/** Service-level objectives for goodput: a request is "good" when it meets every one given. */
export interface Slo {
  ttftMs?: number;
  tpotMs?: number;
  e2eMs?: number;
}

/** One load level: a fixed number of requests in flight, or an arrival rate (optionally capped). */
export interface Level {
  concurrency: number | null;
  /** Requests per second; null sends each request as soon as a slot frees (closed loop). */
  rate: number | null;
}

export interface LevelMetrics {
  level: Level;
  completed: number;
  failed: number;
  /** Failures grouped by cause (kind and message), most frequent first, with one example each. */
  errors: Array<{ kind: FailureKind; message: string; count: number }>;
  durationS: number;
  requestTputReqS: number;
  inputTokens: number | null;
  outputTokens: number;
  inputTokS: number | null;
  outputTokS: number;
  totalTokS: number | null;
  /** The most output tokens that arrived within one second of the run (sglang's peak output throughput). */
  peakOutputTokS: number;
  /** Requests per second that met every SLO (vLLM's request goodput); null without --slo. */
  goodputReqS: number | null;
  /** Where token counts came from: the server's usage for every request, streamed chunks, or both. */
  tokenSource: 'usage' | 'chunks' | 'mixed' | 'none';
  ttft: LatencyDist;
  tpot: LatencyDist;
  itl: LatencyDist;
  e2e: LatencyDist;
}
