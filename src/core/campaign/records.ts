/**
 * The domain's records: a launch as firedup remembers it, a benchmark, a target, a sweep point. Every layer speaks
 * these types; `store/` maps them to rows (and re-exports them from `store/types.ts`).
 */

import type { LaunchReport } from '../base/report-types.js';
import type { KeptLiveState, LaunchState } from '../verdict/launch-state.js';

/** What `firedup launch` knew before the server printed anything. */
export interface IntendedLaunch {
  argv: string[];
  cwd: string;
  /** Selected variables (CUDA_VISIBLE_DEVICES, NCCL_*, SGLANG_*, VLLM_*, ...), secrets redacted. */
  env: Record<string, string>;
  /** The engine package's version, where it could be found. */
  engineVersion: string | null;
  /** When the engine is imported from a git checkout: its locally modified files and their sha256. */
  git: { root: string; head: string | null; modified: Array<{ path: string; sha256: string | null }> } | null;
  /** Flags asked for on the command line, as config keys (`--tp-size 8` → tp_size: 8). */
  flags: Record<string, unknown>;
  /** Intended flags whose observed value (from the log's config dump) differs, or that never showed up. */
  mismatches: Array<{ key: string; intended: unknown; observed: unknown }>;
  pid: number | null;
  startedAt: number;
}

/** The last live verdict that said more than the log (stalled, dead, exited), as `status`/`watch`/`wait` gave it. */
export interface LiveMark {
  state: KeptLiveState;
  /** Epoch seconds, the recording process's clock. */
  at: number;
  why: string;
  phase: string | null;
  evidence: Array<{ source: string; text: string; line?: number }>;
  /**
   * Seen with evidence no later look at the log alone can overturn: the server's own process gone (dead), or a
   * clean exit. A later weaker verdict never replaces it (store/live-rank.ts); a port that refused does not count.
   */
  final?: boolean;
}

/** A place a launch was read at: its own path, a copy, a replay. */
export interface LaunchPath {
  host: string;
  path: string;
  startLine: number;
  /** Byte offset of the launch's first line there. */
  startOffset: number;
  /** Epoch seconds of the last read there. */
  lastSeen: number;
}

export interface LaunchRecord {
  /**
   * 16 hex chars: sha256 of host, path, fileId, startOffset and first line, for the first place the launch was
   * read at; the same launch read elsewhere (same fingerprint) keeps this id. Users type unique prefixes.
   */
  id: string;
  /** sha256 (16 hex) of the start time and first line: the launch's content, wherever it is read; null without a start time. */
  fingerprint: string | null;
  host: string;
  path: string;
  fileId: string | null;
  startOffset: number;
  startLine: number;
  /** Epoch seconds (see LaunchReport.startTs for the zone caveat); null when the log prints no stamps. */
  startTs: number | null;
  endTs: number | null;
  pid: number | null;
  engine: string | null;
  version: string | null;
  model: string | null;
  port: number | null;
  outcome: LaunchReport['outcome'];
  phase: string | null;
  failureClass: string | null;
  /** sha256 (16 hex) of the canonical config without volatile keys (seeds, random ports); null without a config. */
  configHash: string | null;
  /** Seconds from the launch's first line to ready; null when it never got ready or stamps are missing. */
  loadSeconds: number | null;
  peakTokS: number | null;
  medianTokS: number | null;
  /** The whole per-launch report (config redacted at ingest, phases, failure, throughput series). */
  report: LaunchReport;
  intended: IntendedLaunch | null;
  /** Epoch seconds, wall clock of the recording process. */
  firstSeen: number;
  updatedAt: number;
  /** The last live verdict kept (see LiveMark), or null. */
  live: LiveMark | null;
  /** The outcome, or the live verdict where the log leaves the launch open (src/core/verdict/launch-state.ts). */
  state: LaunchState;
  /** Every place the launch was read at, the record's own path first. */
  paths: LaunchPath[];
  /**
   * The machine it ran on (hostname, or the ssh host of a remote log) and the account that recorded it; null
   * for a launch recorded before firedup kept them (a local one is then the reading machine's).
   */
  machine?: string | null;
  user?: string | null;
  /** The user's notes (`firedup note`) and tags (`firedup tag`). */
  notes?: LaunchNote[];
  tags?: string[];
}

export interface LaunchNote {
  /** Epoch seconds. */
  at: number;
  text: string;
  user: string | null;
}

/**
 * The launches of a log that a read left in the ledger instead of its report (closed ones, written as they
 * closed): they come before the report's own launches, in file order. Read back a page at a time, so that a
 * log of 100k launches is never held whole.
 */
export interface EarlierLaunches {
  count: number;
  /** Their reports as JSON text (what JSON.stringify gives of a read's), in file order, a page at a time. */
  reportTexts(): AsyncIterable<string[]>;
  /** The last `n` of them (fewer when there are fewer), in file order. */
  last(n: number): Promise<LaunchRecord[]>;
}

export interface LatencyStats {
  mean: number | null;
  median: number | null;
  p99: number | null;
  /** Only firedup's own load generator (`bench run`) records these two. */
  p90?: number | null;
  max?: number | null;
}

/** One benchmark run (`sglang.bench_serving`, `vllm bench serve`), normalised. Times in milliseconds. */
export interface BenchResult {
  tool: 'sglang' | 'vllm' | 'firedup';
  backend: string | null;
  model: string | null;
  host: string | null;
  port: number | null;
  /** Epoch seconds when the run ended (from the result's own date, else the file's mtime); null if unknown. */
  finishedAt: number | null;
  durationS: number | null;
  completed: number | null;
  maxConcurrency: number | null;
  requestRate: number | null;
  requestTputReqS: number | null;
  outputTokS: number | null;
  totalTokS: number | null;
  inputTokS: number | null;
  ttft: LatencyStats;
  tpot: LatencyStats;
  itl: LatencyStats;
  e2e: LatencyStats;
  /** sha256 (16 hex) of the source text: importing the same result twice attaches it once. */
  fingerprint: string;
  source: string;
  /** What only `firedup bench run` knows (imported results have none of these). */
  failed?: number;
  errors?: Array<{ kind: string; message: string; count: number }>;
  /** The share of failed requests past which this run meets no target (set by the run; absent: 1 %). */
  maxFailedRate?: number;
  peakOutputTokS?: number | null;
  goodputReqS?: number | null;
  slo?: Record<string, number> | null;
  /** `usage` (the server's counts), `chunks` (one per streamed chunk: the server sent no usage) or `mixed`. */
  tokenSource?: string;
  /** The server's own config from its info endpoint (SGLang /server_info, llama-server /props), redacted. */
  serverConfig?: Record<string, unknown> | null;
  serverEngine?: string | null;
  serverVersion?: string | null;
}

export interface BenchRecord extends BenchResult {
  id: number;
  /** Null for a bench no launch matched, kept with why (`unattached`) until `bench attach` gives it one. */
  launchId: string | null;
  importedAt: number;
  unattached?: string | null;
  /** The machine and account that recorded it. */
  machine?: string | null;
  user?: string | null;
}

/** `output_tok_s >= 1000`, global (model null) or for one model. */
export interface TargetRecord {
  id: number;
  model: string | null;
  metric: string;
  op: '>=' | '<=' | '>' | '<' | '==';
  value: number;
  expr: string;
}

/** What identifies "the same kind of launch" for history-aware expectations. */
export interface HistoryKey {
  model: string | null;
  engine: string | null;
  host: string;
  configHash: string | null;
}

/**
 * What became of a run of a sweep point: `running` until it ends; `done` (benchmarked), `bench_failed` (no
 * request succeeded), `crashed`, `stalled`, `dead` (gone without a word), `timeout` (not ready in time),
 * `mismatch` (the engine logged other flags than asked: never benchmarked), `not_started` (could not be run),
 * `interrupted` (Ctrl-C).
 */
export type SweepPointStatus =
  | 'running'
  | 'done'
  | 'bench_failed'
  | 'crashed'
  | 'stalled'
  | 'dead'
  | 'timeout'
  | 'mismatch'
  | 'not_started'
  | 'interrupted';

/** Everything a sweep point's run learned beyond its status, kept as JSON. */
export interface SweepPointDetail {
  /** Why it ended where it did (the verdict's why, the crash's message). */
  cause?: string | null;
  failureClass?: string | null;
  evidence?: Array<{ source?: string; text: string; line?: number }>;
  mismatches?: Array<{ key: string; intended: unknown; observed: unknown; reason?: string }>;
  /** Flags the log could not confirm or refute (llama-server prints almost none). */
  unobservable?: string[];
  /** Seconds: first line to ready, and each phase that took time. */
  loadSeconds?: number | null;
  phases?: Array<{ phase: string; duration: number | null }>;
  /** Seconds firedup waited for ready, benchmarked, and took to stop the server. */
  timings?: { ready?: number; bench?: number; stop?: number };
  benchIds?: number[];
  log?: string;
  pid?: number | null;
  exit?: { code: number | null; signal: string | null } | null;
  /**
   * The point's server while it runs: its pid (its process group's too), its start in clock ticks after boot
   * (a reused pid is not it) and the marker its environment carries (FIREDUP_SWEEP_POINT), so that a sweep
   * killed outright leaves what the next one needs to stop the server and all it started.
   */
  server?: { pid: number; pgid: number; startTime: number | null; marker: string };
  /** The sweep process running the point: a live one is another sweep of the same name at work. */
  sweeper?: { pid: number; startTime: number | null };
  /** Processes the server left behind outside its process group (setsid), stopped with it. */
  stray?: number[];
}

export interface SweepPointRecord {
  id: number;
  sweep: string;
  pointHash: string;
  pointIndex: number;
  /** 1 for the first run of this point in this sweep, 2 for the next… */
  run: number;
  launchId: string | null;
  status: SweepPointStatus;
  /** The grid's values for this point (`{parallel: 2, ctx_size: 1024}`). */
  flags: Record<string, unknown>;
  argv: string[];
  /** The bench plan as the sweep file gave it (levels, lengths, requests). */
  plan: Record<string, unknown>;
  detail: SweepPointDetail;
  startedAt: number;
  endedAt: number | null;
}
