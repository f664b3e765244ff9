/**
 * Performance targets (`output_tok_s >= 1000`) and how a recorded launch measures up to them. Bench metrics come
 * from the launch's best benchmark run (bench/select.ts), log metrics from the launch record itself.
 */

import { bestBench, failedTooMuchWhy, singleStreamBench, tooManyFailed } from './bench/select.js';
import type { BenchRecord, LaunchRecord, TargetRecord } from './records.js';

type Op = TargetRecord['op'];

/** What targets read of a launch: a whole record, or a list row of one. */
export type TargetSubject = Pick<LaunchRecord, 'model' | 'peakTokS' | 'medianTokS' | 'loadSeconds'>;

interface MetricDef {
  unit: string;
  what: string;
  value(launch: TargetSubject, benches: BenchRecord[]): { actual: number | null; from: string | null };
}

const fromBest =
  (get: (b: BenchRecord) => number | null) =>
  (_l: TargetSubject, benches: BenchRecord[]): { actual: number | null; from: string | null } => {
    const b = bestBench(benches);
    return b ? { actual: get(b), from: benchLabel(b) } : { actual: null, from: null };
  };

const fromLog = (get: (l: TargetSubject) => number | null) => (l: TargetSubject) => ({
  actual: get(l),
  from: 'log',
});

export function benchLabel(b: BenchRecord): string {
  return `bench #${b.id} (${b.tool}, concurrency ${b.maxConcurrency ?? 'unbounded'})`;
}

export const TARGET_METRICS: Record<string, MetricDef> = {
  output_tok_s: {
    unit: 'tok/s',
    what: 'output tok/s of the best bench run',
    value: fromBest((b) => b.outputTokS),
  },
  total_tok_s: { unit: 'tok/s', what: 'input+output tok/s of that run', value: fromBest((b) => b.totalTokS) },
  ttft_median_ms: { unit: 'ms', what: 'median TTFT of that run', value: fromBest((b) => b.ttft.median) },
  ttft_p99_ms: { unit: 'ms', what: 'P99 TTFT of that run', value: fromBest((b) => b.ttft.p99) },
  tpot_median_ms: { unit: 'ms', what: 'median TPOT of that run', value: fromBest((b) => b.tpot.median) },
  tpot_p99_ms: { unit: 'ms', what: 'P99 TPOT of that run', value: fromBest((b) => b.tpot.p99) },
  itl_median_ms: { unit: 'ms', what: 'median ITL of that run', value: fromBest((b) => b.itl.median) },
  itl_p99_ms: { unit: 'ms', what: 'P99 ITL of that run', value: fromBest((b) => b.itl.p99) },
  e2e_median_ms: {
    unit: 'ms',
    what: 'median end-to-end latency of that run',
    value: fromBest((b) => b.e2e.median),
  },
  e2e_p99_ms: { unit: 'ms', what: 'P99 end-to-end latency of that run', value: fromBest((b) => b.e2e.p99) },
  single_stream_tok_s: {
    unit: 'tok/s',
    what: 'output tok/s of a bench run with max concurrency 1',
    value: (_l, benches) => {
      const b = singleStreamBench(benches);
      return b ? { actual: b.outputTokS, from: benchLabel(b) } : { actual: null, from: null };
    },
  },
  peak_tok_s: {
    unit: 'tok/s',
    what: "peak generation tok/s in the server's log",
    value: fromLog((l) => l.peakTokS),
  },
  median_tok_s: {
    unit: 'tok/s',
    what: "median generation tok/s in the server's log",
    value: fromLog((l) => l.medianTokS),
  },
  load_s: { unit: 's', what: 'seconds from the first line to ready', value: fromLog((l) => l.loadSeconds) },
};

export const TARGET_METRIC_NAMES = Object.keys(TARGET_METRICS);

/** A target expression the user wrote that cannot be read; the message names it and says what would be. */
export class TargetParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetParseError';
  }
}

export interface ParsedTarget {
  metric: string;
  op: Op;
  value: number;
  /** Normalised: `output_tok_s >= 1000`. */
  expr: string;
}

const EXPR = /^\s*([A-Za-z_]\w*)\s*(>=|<=|==|=|>|<)\s*([^\s<>=].*?)\s*$/;
/** A number, optionally followed by the metric's unit: `500`, `500ms`, `6e2 s`. */
const VALUE = /^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*(tok\/s|ms|s)?$/i;

export function parseTarget(expr: string): ParsedTarget {
  const m = EXPR.exec(expr);
  if (!m)
    throw new TargetParseError(
      `target "${expr}": expected METRIC OP NUMBER, e.g. "output_tok_s >= 1000" (OP is one of >= <= > < ==)`,
    );
  const [, metric, rawOp, rest] = m;
  const def = TARGET_METRICS[metric!];
  if (!def)
    throw new TargetParseError(
      `target "${expr}": unknown metric ${metric} (known: ${TARGET_METRIC_NAMES.join(', ')})`,
    );
  const v = VALUE.exec(rest!);
  const value = v ? Number(v[1]) : Number.NaN;
  if (!v || !Number.isFinite(value)) throw new TargetParseError(`target "${expr}": ${rest} is not a number`);
  const unit = v[2];
  if (unit && unit !== def.unit)
    throw new TargetParseError(`target "${expr}": ${metric} is in ${def.unit}, not ${unit}`);
  const op = (rawOp === '=' ? '==' : rawOp) as Op;
  return { metric: metric!, op, value, expr: `${metric} ${op} ${value}` };
}

function compare(actual: number, op: Op, value: number): boolean {
  switch (op) {
    case '>=':
      return actual >= value;
    case '<=':
      return actual <= value;
    case '>':
      return actual > value;
    case '<':
      return actual < value;
    case '==':
      return actual === value;
  }
}

export interface TargetResult {
  target: TargetRecord;
  /** The launch's value of the metric; null when there is no data (no bench run, never ready, no samples). */
  actual: number | null;
  /** null = no data, not a failure. */
  pass: boolean | null;
  /** Where the value came from: `log`, or the bench run (`bench #3 (sglang, concurrency 64)`). */
  from: string | null;
}

/** Targets for another model than the launch's do not apply to it and are left out. */
export function evaluateTargets(
  targets: readonly TargetRecord[],
  launch: TargetSubject,
  benches: BenchRecord[],
): TargetResult[] {
  const out: TargetResult[] = [];
  for (const target of targets) {
    if (target.model !== null && target.model !== launch.model) continue;
    const def = TARGET_METRICS[target.metric];
    // Runs whose requests failed past their limit stand for nothing: the target is read from the others, and
    // when only such runs exist it is not met, with the reason, whatever their figures say.
    const sound = benches.filter((b) => !tooManyFailed(b));
    let { actual, from } = def ? def.value(launch, sound) : { actual: null, from: null };
    let failedWhy: string | null = null;
    if (def && actual === null && sound.length < benches.length) {
      const r = def.value(launch, benches);
      const b = benches.find((x) => r.from === benchLabel(x));
      failedWhy = b ? failedTooMuchWhy(b) : null;
      if (failedWhy) ({ actual, from } = { actual: r.actual, from: `${r.from}: ${failedWhy}` });
    }
    out.push({
      target,
      actual,
      pass: failedWhy !== null ? false : actual === null ? null : compare(actual, target.op, target.value),
      from,
    });
  }
  return out;
}
