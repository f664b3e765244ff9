/**
 * Two recorded launches side by side: what was asked differently (config, grouped), and what came of it (phase
 * timings, load time, throughput, benchmark results, outcome). Pure: the CLI fetches records and benches.
 */

import { PHASES } from '../base/types.js';
import { type ConfigGroup, groupByConfig } from '../config/groups.js';
import { bestBench, bestByConcurrency } from './bench/select.js';
import { type ConfigChange, diffConfig } from './diff.js';
import type { BenchRecord, IntendedLaunch, LaunchRecord } from './records.js';

export interface NumDelta {
  a: number | null;
  b: number | null;
  /** b − a; null unless both are known. */
  delta: number | null;
  /** The delta in % of a; null unless both are known and a is not 0. */
  pct: number | null;
}

export interface PhaseDelta extends NumDelta {
  phase: string;
  /** The phase was still going when that launch's log ended (in progress, or where it crashed): "so far". */
  openA: boolean;
  openB: boolean;
}

export interface MetricDelta extends NumDelta {
  metric: string;
  unit: 'tok/s' | 'ms';
  /** Which way is an improvement. */
  higherIsBetter: boolean;
}

export interface BenchPair {
  /** The max concurrency both runs used (null = unbounded), when they match. */
  concurrency: number | null;
  /** False when the two runs had different max concurrency: the numbers are not like for like. */
  like: boolean;
  a: BenchRecord | null;
  b: BenchRecord | null;
  metrics: MetricDelta[];
}

export interface FailureSide {
  class: string;
  message: string;
  line: number;
}

export interface LaunchDiff {
  a: LaunchRecord;
  b: LaunchRecord;
  /** Identity fields that differ (model, engine, version, host, port, path). */
  identity: Array<{ key: string; a: unknown; b: unknown }>;
  sameConfig: boolean;
  config: Array<{ group: ConfigGroup; changes: ConfigChange[] }>;
  outcome: {
    a: LaunchRecord['outcome'];
    b: LaunchRecord['outcome'];
    phaseA: string | null;
    phaseB: string | null;
    failureA: FailureSide | null;
    failureB: FailureSide | null;
  };
  load: NumDelta;
  phases: PhaseDelta[];
  throughput: MetricDelta[];
  benches: BenchPair[];
  /** Intended flags (from `firedup launch`) the engine did not apply, per launch. */
  mismatches: { a: IntendedLaunch['mismatches']; b: IntendedLaunch['mismatches'] };
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

export function numDelta(a: number | null, b: number | null): NumDelta {
  const both = a !== null && b !== null;
  return {
    a,
    b,
    delta: both ? round2(b - a) : null,
    pct: both && a !== 0 ? Math.round(((b - a) / Math.abs(a)) * 1000) / 10 : null,
  };
}

/** Seconds per phase (a phase reached twice counts twice), in the order first reached, and the last one. */
function phaseSeconds(l: LaunchRecord): {
  order: string[];
  secs: Map<string, number | null>;
  last: string | null;
} {
  const secs = new Map<string, number | null>();
  for (const p of l.report.phases ?? []) {
    const prev = secs.get(p.phase);
    secs.set(p.phase, p.duration === null ? (prev ?? null) : round2((prev ?? 0) + p.duration));
  }
  const phases = l.report.phases ?? [];
  return { order: [...secs.keys()], secs, last: phases[phases.length - 1]?.phase ?? null };
}

function phaseDeltas(a: LaunchRecord, b: LaunchRecord): PhaseDelta[] {
  const pa = phaseSeconds(a);
  const pb = phaseSeconds(b);
  // In the order a server reaches them, so the phases one launch never reached sit where they belong.
  const rank = (p: string) => {
    const i = (PHASES as readonly string[]).indexOf(p);
    return i < 0 ? PHASES.length : i;
  };
  const order = [...new Set([...pa.order, ...pb.order])].sort((x, y) => rank(x) - rank(y));
  // The last phase of a launch that did not reach ready lasted "until the log ends", not a finished duration.
  const open = (l: LaunchRecord, last: string | null, p: string) =>
    p === last && (l.outcome === 'in_progress' || l.outcome === 'crashed' || l.outcome === 'ended');
  return order.map((phase) => {
    const openA = open(a, pa.last, phase);
    const openB = open(b, pb.last, phase);
    const d = numDelta(pa.secs.get(phase) ?? null, pb.secs.get(phase) ?? null);
    // A duration "so far" is a lower bound: its difference to a finished one would read as a speed-up.
    return { phase, ...d, ...(openA || openB ? { delta: null, pct: null } : {}), openA, openB };
  });
}

const BENCH_METRICS: Array<[string, MetricDelta['unit'], boolean, (r: BenchRecord) => number | null]> = [
  ['output_tok_s', 'tok/s', true, (r) => r.outputTokS],
  ['total_tok_s', 'tok/s', true, (r) => r.totalTokS],
  ['ttft_median_ms', 'ms', false, (r) => r.ttft.median],
  ['ttft_p99_ms', 'ms', false, (r) => r.ttft.p99],
  ['tpot_median_ms', 'ms', false, (r) => r.tpot.median],
  ['tpot_p99_ms', 'ms', false, (r) => r.tpot.p99],
  ['itl_median_ms', 'ms', false, (r) => r.itl.median],
  ['itl_p99_ms', 'ms', false, (r) => r.itl.p99],
];

function benchPair(a: BenchRecord | null, b: BenchRecord | null): BenchPair {
  const like = a !== null && b !== null ? a.maxConcurrency === b.maxConcurrency : true;
  return {
    concurrency: (a ?? b)!.maxConcurrency,
    like,
    a,
    b,
    metrics: BENCH_METRICS.map(([metric, unit, higherIsBetter, get]) => ({
      metric,
      unit,
      higherIsBetter,
      ...numDelta(a ? get(a) : null, b ? get(b) : null),
    })),
  };
}

/**
 * Runs at the same max concurrency are compared with each other; when the two launches share none, their best
 * runs are compared and marked not like for like; a launch benchmarked only at concurrencies the other never
 * ran gets its runs listed against nothing.
 */
function benchPairs(benchesA: BenchRecord[], benchesB: BenchRecord[]): BenchPair[] {
  const ca = bestByConcurrency(benchesA);
  const cb = bestByConcurrency(benchesB);
  const shared = [...ca.keys()].filter((k) => cb.has(k));
  if (shared.length === 0) {
    const a = bestBench(benchesA);
    const b = bestBench(benchesB);
    return a || b ? [benchPair(a, b)] : [];
  }
  const keys = [...new Set([...ca.keys(), ...cb.keys()])].sort((x, y) => (x ?? Infinity) - (y ?? Infinity));
  return keys.map((k) => benchPair(ca.get(k) ?? null, cb.get(k) ?? null));
}

function failureOf(l: LaunchRecord): FailureSide | null {
  const f = l.report.failure;
  if (f) return { class: f.class, message: f.message, line: f.line };
  return l.failureClass ? { class: l.failureClass, message: '', line: 0 } : null;
}

const IDENTITY: Array<keyof LaunchRecord> = ['model', 'engine', 'version', 'host', 'path', 'port'];

export function diffLaunches(
  a: LaunchRecord,
  b: LaunchRecord,
  benchesA: BenchRecord[] = [],
  benchesB: BenchRecord[] = [],
): LaunchDiff {
  const changes = diffConfig(a.report.config ?? {}, b.report.config ?? {});
  const grouped = groupByConfig(changes).map(({ group, items }) => ({ group, changes: items }));
  return {
    a,
    b,
    identity: IDENTITY.filter((k) => a[k] !== b[k]).map((key) => ({ key, a: a[key], b: b[key] })),
    sameConfig: changes.length === 0,
    config: grouped,
    outcome: {
      a: a.outcome,
      b: b.outcome,
      phaseA: a.phase,
      phaseB: b.phase,
      failureA: failureOf(a),
      failureB: failureOf(b),
    },
    load: numDelta(a.loadSeconds, b.loadSeconds),
    phases: phaseDeltas(a, b),
    throughput: [
      { metric: 'peak_tok_s', unit: 'tok/s', higherIsBetter: true, ...numDelta(a.peakTokS, b.peakTokS) },
      {
        metric: 'median_tok_s',
        unit: 'tok/s',
        higherIsBetter: true,
        ...numDelta(a.medianTokS, b.medianTokS),
      },
    ],
    benches: benchPairs(benchesA, benchesB),
    mismatches: { a: a.intended?.mismatches ?? [], b: b.intended?.mismatches ?? [] },
  };
}
