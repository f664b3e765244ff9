/** The launch phases, in the order a server reaches them. `compile` and `autotune` share a rank. */
export const PHASES = [
  'args',
  'dist_init',
  'loading_weights',
  'weights_loaded',
  'kv_cache',
  'compile',
  'autotune',
  'cuda_graph',
  'warmup',
  'ready',
  'serving',
] as const;
export type Phase = (typeof PHASES)[number];

const RANK: Record<Phase, number> = {
  args: 0,
  dist_init: 1,
  loading_weights: 2,
  weights_loaded: 3,
  kv_cache: 4,
  compile: 5,
  autotune: 5,
  cuda_graph: 6,
  warmup: 7,
  ready: 8,
  serving: 9,
};
export function phaseRank(p: Phase): number {
  return RANK[p];
}

export const ENGINES = ['sglang', 'vllm', 'trtllm', 'tgi', 'llamacpp'] as const;
export type EngineId = (typeof ENGINES)[number];

/**
 * Where an engine's startup order differs from the general one. vLLM V1 compiles (torch.compile, inside
 * `profile_run` of `Worker.determine_available_memory`) before it sizes the KV cache (`Available KV cache
 * memory`, v1/worker/gpu_worker.py), then captures graphs: kv_cache comes after compile there. Its kernel
 * warmups (model_executor/warmup/kernel_warmup.py: DeepGEMM, FlashInfer autotune, router GEMMs) run in
 * `compile_or_warm_up_model` after the KV cache and before `capture_model`: autotune keeps the general rank.
 */
const ENGINE_RANK: Partial<Record<EngineId, Partial<Record<Phase, number>>>> = {
  vllm: { compile: 3.5 },
};

/** The rank of a phase in the startup order of `engine` (the general order when unknown). */
export function phaseRankIn(engine: EngineId | null, p: Phase): number {
  return (engine !== null ? ENGINE_RANK[engine]?.[p] : undefined) ?? RANK[p];
}

export const FAILURE_CLASSES = [
  'oom',
  'nccl',
  'cuda_error',
  'python_exception',
  'killed',
  'port_in_use',
  'model_not_found',
  'config_error',
  'timeout',
  'unsupported',
  'other',
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/**
 * From the log alone. `ended`: a relaunch followed in the same file without a crash or a shutdown line before
 * it (killed -9, then relaunched with `>>`), so the launch is over although its last word was "serving".
 */
export type Outcome = 'in_progress' | 'ready' | 'serving' | 'crashed' | 'shutdown' | 'ended';

/** Every outcome, in the order lists and help name them. */
export const OUTCOMES: readonly Outcome[] = [
  'in_progress',
  'ready',
  'serving',
  'crashed',
  'shutdown',
  'ended',
];

/**
 * The states a recorded launch is listed under (its outcome, or the live look's stalled/dead/exited), in the
 * order a table ranks them: serving first, crashed last. The ledger sorts by it and the dashboard's table and
 * filter show it (web/js/domain.js is generated from it).
 */
export const STATE_ORDER = [
  'serving',
  'ready',
  'in_progress',
  'stalled',
  'shutdown',
  'exited',
  'ended',
  'dead',
  'crashed',
] as const;

/** A line of the log as the core sees it: after wrappers, ANSI and `\r` refreshes are dealt with. */
export interface LogLine {
  /** 1-based physical line number (counted on `\n`, as editors and `grep -n` do). */
  no: number;
  /** Byte offset of the physical line in the input. */
  offset: number;
  /** The cleaned text of the whole line (wrappers kept), for evidence. */
  text: string;
  /** The message, with container/process/timestamp/rank prefixes removed. */
  msg: string;
  /** Seconds since the epoch (UTC, or local time read as UTC when the log has no zone); null if the line has none. */
  ts: number | null;
  /** Seconds since process start, for engines (llama.cpp) whose stamps are relative. */
  rel: number | null;
  level: 'debug' | 'info' | 'warning' | 'error' | 'critical' | null;
  /** Rank/process tags: `TP3`, `DP1 TP3`, `Worker_TP3`, `EngineCore_DP0`, `rank 2`. */
  tags: string | null;
  pid: number | null;
  /**
   * The node a Ray-forwarded line came from: the `ip=` of Ray's `(Actor pid=N, ip=…)` prefix. Unset (or null)
   * for the driver node's own lines and its local actors' (Ray names no ip for those).
   */
  ip?: string | null;
  container: string | null;
  /**
   * The service whose output a multiplexing gutter marked (`docker compose logs`' `name  | `, `kubectl logs
   * --prefix`'s container): a different name is a different program. Unset for other gutters (a multi-host tail's
   * hosts may run one server together).
   */
  service?: string | null;
  /** true when the line carried the engine's own prefix (a logger line, not a continuation or a print). */
  framed: boolean;
  /**
   * Whose frame the line carried: an engine's own (`sglang`, `vllm`, ...), or one any program prints
   * (`bracket` — a bare `[date time]` stamp —, `pylog`, `glog`, `file`, `uvicorn`).
   */
  frame?: LogFrame | null;
}

export type LogFrame =
  | 'sglang'
  | 'vllm'
  | 'trtllm'
  | 'tgi'
  | 'llamacpp'
  | 'bracket'
  | 'pylog'
  | 'glog'
  | 'file'
  | 'uvicorn';

/** A proof: where in the file and what it said. */
export interface Evidence {
  line: number;
  text: string;
}
