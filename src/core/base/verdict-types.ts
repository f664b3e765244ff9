/**
 * The live verdict's shape: the states a launch can be in as watched, and a verdict with its evidence. Types and
 * the list of states only, so that verdict.ts (which judges), multinode/live.ts (which combines the nodes'
 * verdicts) and container.ts (which corrects one from the container's facts) stand on them without a cycle.
 */
import type { FailureReport } from './report-types.js';
import type { EngineId, Outcome, Phase } from './types.js';

/** Every state a live verdict can be in (the exporter lists them all, 0 for all but the current one). */
export const LIVE_STATES = [
  'waiting',
  'starting',
  'loading',
  'dist_init',
  'weights_loaded',
  'kv_cache',
  'compile',
  'autotune',
  'cuda_graph',
  'warmup',
  'ready',
  'serving',
  'idle',
  'stalled',
  'crashed',
  'exited',
  'dead',
] as const;
export type LiveState = (typeof LIVE_STATES)[number];

export interface VerdictEvidence {
  source: 'log' | 'process' | 'http' | 'gpu' | 'clock';
  text: string;
  line?: number;
}

export interface Verdict {
  state: LiveState;
  engine: EngineId | null;
  phase: Phase | null;
  outcome: Outcome | null;
  /** Which launch of the file (1-based) and how many there are. */
  launch: number | null;
  launches: number;
  progress: { done: number; total: number; ratio: number; rate: number | null; eta: number | null } | null;
  /** Seconds since the launch last showed progress, on the watcher's clock. */
  quietFor: number | null;
  /** The silence allowed in this phase before it is called stalled (null when none applies). */
  budget: number | null;
  /** For `stalled`: the phase it stalled in. */
  stalledIn: Phase | null;
  why: string;
  evidence: VerdictEvidence[];
  next: string | null;
  failure: FailureReport | null;
  throughput: number | null;
  /** Whether the state is final: nothing more will happen without a relaunch. */
  final: boolean;
  /** How long the current phase usually takes here, from earlier launches in the ledger. */
  typical: { phase: Phase; median: number; n: number; basis: string } | null;
  /** Seconds until ready, from how long earlier launches like this one took to get ready. */
  readyEta: number | null;
}
