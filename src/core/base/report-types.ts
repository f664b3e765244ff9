/**
 * The JSON shapes firedup prints (`runs --json`, `status --json`; docs/json.md): a log's report, each launch's,
 * and a multi-node launch's across its nodes. Types only, importing nothing but the domain's names, so that the
 * modules that build a report (report.ts), read one (verdict.ts, multinode/, records.ts) or grade one
 * (confidence.ts) all stand on them without importing one another.
 */
import type { EngineId, Evidence, FailureClass, Outcome, Phase } from './types.js';

/** How far to trust a launch's reading (confidence.ts has the rule). */
export type Confidence = 'high' | 'medium' | 'low';

export interface PhaseReport {
  phase: Phase;
  start: string | null;
  /** Seconds from the start of the launch (or of the log) to this phase. */
  at: number | null;
  /** Seconds spent in the phase (up to the next phase, or to the last line for the current one). */
  duration: number | null;
  line: number;
  text: string;
  /** The rule that recognised the line: a signature id, `progress-bar` or `traceback-frame`. */
  rule: string | null;
}

export interface FailureReport {
  class: FailureClass;
  line: number;
  message: string;
  text: string;
  exceptionType: string | null;
  rank: string | null;
  /** The phase the launch was in when it failed. */
  phase: Phase | null;
  time: string | null;
  hint: string | null;
  /** Remedies the engine itself printed (SGLang's `Possible solutions:`). */
  remedies: string[];
  evidence: Evidence[];
}

export interface ProgressReport {
  /** The phase the bar belongs to (loading_weights for shards, cuda_graph for capture batches). */
  phase: Phase;
  done: number;
  total: number;
  ratio: number;
  what: string;
  /** Items per second, from the bar. */
  rate: number | null;
  /** Seconds left, from the bar (tqdm's own estimate). */
  eta: number | null;
  line: number;
  /** The text of that line (its last bar state). */
  text: string;
  time: string | null;
  /** The load curve, `[[ts, done], ...]` (ts as in `startTs`), one point per change of count, at most 512. */
  series: Array<[number, number]>;
}

export interface ThroughputReport {
  unit: 'tok/s';
  last: number | null;
  peak: number | null;
  median: number | null;
  samples: number;
  peakLine: number | null;
  peakText: string | null;
  lastLine: number | null;
  series: Array<[number, number]>;
}

export interface LaunchReport {
  index: number;
  engine: EngineId | null;
  version: string | null;
  outcome: Outcome;
  phase: Phase | null;
  /** How far to trust this reading (src/core/reading/confidence.ts has the rule). */
  confidence: Confidence;
  /** Why it is not high, as plain phrases; empty when high. */
  confidenceReasons: string[];
  failure: FailureReport | null;
  progress: ProgressReport | null;
  graphProgress: ProgressReport | null;
  startLine: number;
  endLine: number;
  /** The launch's first line (at most 256 characters, secrets redacted). */
  startText: string;
  startOffset: number;
  endOffset: number;
  /** False when the file begins mid-launch, so its start is not in the log. */
  startSeen: boolean;
  startTime: string | null;
  endTime: string | null;
  /** Seconds between the first and the last timestamped line of the launch. */
  duration: number | null;
  lastProgressLine: number;
  lastProgressTime: string | null;
  /** Seconds between the last sign of progress and the last line of the launch. */
  quietFor: number | null;
  model: string | null;
  config: Record<string, unknown>;
  configSummary: Record<string, unknown>;
  configSources: Array<{ source: string; line: number }>;
  phases: PhaseReport[];
  throughput: ThroughputReport | null;
  serving: {
    running: { last: number | null; peak: number | null };
    queued: { last: number | null; peak: number | null };
    kvUsage: { last: number | null; peak: number | null };
    promptThroughput: { last: number | null; peak: number | null };
    requests: number;
  } | null;
  ready: (Evidence & { time: string | null }) | null;
  shutdown: (Evidence & { time: string | null }) | null;
  degraded: Evidence[];
  stallHints: Evidence[];
  recoveredFailures: Array<{ class: FailureClass; line: number; message: string }>;
  ranks: string[];
  pids: number[];
  relativeTime: boolean;
  /** Timestamps are seconds since the epoch in UTC for logs that print a zone; others are local wall time written as UTC. */
  startTs: number | null;
  endTs: number | null;
  lastProgressTs: number | null;
  /**
   * A launch read from several nodes' logs (`--node`), or from one log whose lines Ray forwarded from several
   * nodes (`layout: 'ray'`): every node's reading and the verdict across them.
   */
  nodes?: MultiNodeReport;
}

export interface AnalysisReport {
  /** The engine whose log this is; null when none of ours (`reportedEngine` is what a report prints). */
  engine: EngineId | null;
  /**
   * The program that names itself in the log when the log is not one of our engines' (`ollama`, `lmdeploy`,
   * `llama-swap`, …: engines/generic.ts PROGRAMS); null when an engine reads it or nothing names one.
   */
  program?: string | null;
  engineScores: Record<EngineId, number>;
  lines: number;
  bytes: number;
  truncatedLines: number;
  launches: LaunchReport[];
}

export interface NodeSummary {
  name: string;
  nodeRank: number | null;
  head: boolean;
  /** The flags that placed it (`nnodes=2 node_rank=1 dist_init_addr=…`). */
  via: string;
  /** Which launch of its log (1-based) and how many there are. */
  launch: number;
  launches: number;
  outcome: Outcome;
  phase: Phase | null;
  progress: { done: number; total: number; what: string } | null;
  failure: {
    class: FailureClass;
    message: string;
    line: number;
    rank: string | null;
    time: string | null;
  } | null;
  /** `TP8–TP15`, from the ranks its lines name. */
  ranks: string | null;
  startTime: string | null;
  /** Seconds its clock runs ahead of the head's (negative: behind); 0 when equal or unknown. */
  skew: number;
  startLine: number;
  endLine: number;
  /** A worker whose own startup is over (worker.ts): it waits for the head, it holds nothing back. */
  done: boolean;
}

export interface MultiNodeReport {
  /**
   * Where the nodes were read: absent for one log per node (`--node`); `ray` for one log, the Ray driver's,
   * whose lines name their node by Ray's `ip=` (ray.ts). Node names are then ips, the driver's node `driver`.
   */
  layout?: 'ray';
  nnodes: number | null;
  head: string;
  outcome: Outcome;
  phase: Phase | null;
  /** The node that died first (crashed) or holds the others back (in progress); null when none does. */
  culprit: { name: string; nodeRank: number | null; why: string } | null;
  /** Said when clocks were corrected: which node ran how far off, and from which marker. */
  skewNote: string | null;
  verdict: string;
  notes: string[];
  nodes: NodeSummary[];
}
