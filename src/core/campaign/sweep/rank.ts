/**
 * A sweep's points ranked against its targets. Each point's finished runs are pooled per concurrency level: the
 * median of the runs stands for the level, their min–max is its spread. Latency targets (`tpot_median_ms <= 50`,
 * written `tpot_ms <= 50` in a sweep file) are limits each level must meet; of the levels that meet them, the
 * one with the highest median output tok/s stands for the point, and the other targets are read from it. Points
 * that ran what was asked and passed every target come first, by that median; points that never benchmarked
 * (crashed, stalled, not the flags asked for) last, with their cause.
 *
 * A median alone is not a winner: when the top point's range overlaps another passing point's, the two are
 * within noise and no best is declared. And what differs between the leading point and each other one. Pure.
 */

import { bestBench } from '../bench/select.js';
import type { BenchRecord, LatencyStats, SweepPointRecord, TargetRecord } from '../records.js';
import { evaluateTargets, type TargetResult, type TargetSubject } from '../targets.js';

/** A run of a point with what the ledger knows of its launch. */
export interface PointRun {
  record: SweepPointRecord;
  launch: TargetSubject | null;
  benches: BenchRecord[];
}

/** One concurrency level of a point, over the runs that benchmarked it. */
export interface LevelSummary {
  concurrency: number | null;
  /** Runs whose bench has this level. */
  runs: number;
  /** Median over those runs of the level's output tok/s, and their min and max. */
  outputTokS: number | null;
  outputTokSMin: number | null;
  outputTokSMax: number | null;
  /** Median over the runs of the level's median TPOT (ms); null: no run measured one (one-token or unstreamed replies). */
  tpotMs: number | null;
  tpotMsMin: number | null;
  tpotMsMax: number | null;
  ttftMs: number | null;
  /** Every latency limit met by the medians; null: no limit given. */
  withinLimits: boolean | null;
  /** The limits it misses or cannot be judged on: `tpot_median_ms 61.2 > 50`, `tpot_median_ms n/a`. */
  misses: string[];
}

export interface PointSummary {
  index: number;
  hash: string;
  values: Record<string, unknown>;
  /** `done` when any run benchmarked, else the latest run's status. */
  status: SweepPointRecord['status'];
  runs: number;
  /** Runs that benchmarked (status done). */
  doneRuns: number;
  /** The standing level (the best median within the limits): its median output tok/s and concurrency. */
  outputTokS: number | null;
  atConcurrency: number | null;
  /** Median output tok/s at concurrency 1. */
  singleStreamTokS: number | null;
  /** Median TPOT (ms) of the standing level; null: not measured (never 0). */
  tpotMs: number | null;
  /** Output tok/s of the standing level over the runs: [min, max], when more than one run measured it. */
  spread: [number, number] | null;
  /** Runs that measured the standing level. */
  sampleRuns: number;
  /** The top point's range overlaps this one's: it may be as good, and no order between them is claimed. */
  withinNoise: boolean;
  loadS: number | null;
  /** CUDA-graph capture, where the engine has one. */
  graphS: number | null;
  targets: TargetResult[];
  /** Every target met (null: nothing to judge — no targets, or no bench). */
  pass: boolean | null;
  cause: string | null;
  launchId: string | null;
  /** Every concurrency level, lowest first (the dashboard's curves and Pareto view). */
  levels: LevelSummary[];
}

const isDone = (r: PointRun) => r.record.status === 'done';

/** The latency metrics that bound a level rather than judge the point. */
const LIMIT_METRICS = new Set([
  'ttft_median_ms',
  'ttft_p99_ms',
  'tpot_median_ms',
  'tpot_p99_ms',
  'itl_median_ms',
  'itl_p99_ms',
  'e2e_median_ms',
  'e2e_p99_ms',
]);
export const isLimit = (t: Pick<TargetRecord, 'metric' | 'op'>): boolean =>
  LIMIT_METRICS.has(t.metric) && (t.op === '<' || t.op === '<=');

export function median(xs: number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const nums = (xs: Array<number | null | undefined>) => xs.filter((x): x is number => typeof x === 'number');
// A TPOT of 0 is a tool's way of saying none (one-token replies, an unstreamed answer), not a measurement.
const pace = (x: number | null | undefined) => (typeof x === 'number' && x > 0 ? x : null);

function medianStats(bs: BenchRecord[], key: 'ttft' | 'tpot' | 'itl' | 'e2e'): LatencyStats {
  const get = (f: 'mean' | 'median' | 'p99') =>
    median(nums(bs.map((b) => (key === 'tpot' ? pace(b[key][f]) : b[key][f]))));
  return { mean: get('mean'), median: get('median'), p99: get('p99') };
}

/**
 * One bench record for a level over several runs: each figure the median of the runs', the failures of the
 * worst run (a run that failed too much still disqualifies the level). The latest run lends the rest.
 */
export function pooledBench(bs: BenchRecord[]): BenchRecord {
  const last = bs[bs.length - 1]!;
  const worst = bs.reduce((w, b) =>
    (b.failed ?? 0) / Math.max((b.completed ?? 0) + (b.failed ?? 0), 1) >
    (w.failed ?? 0) / Math.max((w.completed ?? 0) + (w.failed ?? 0), 1)
      ? b
      : w,
  );
  const med = (f: (b: BenchRecord) => number | null | undefined) => median(nums(bs.map(f)));
  return {
    ...last,
    outputTokS: med((b) => b.outputTokS),
    totalTokS: med((b) => b.totalTokS),
    inputTokS: med((b) => b.inputTokS),
    requestTputReqS: med((b) => b.requestTputReqS),
    ttft: medianStats(bs, 'ttft'),
    tpot: medianStats(bs, 'tpot'),
    itl: medianStats(bs, 'itl'),
    e2e: medianStats(bs, 'e2e'),
    completed: worst.completed,
    failed: worst.failed,
    maxFailedRate: worst.maxFailedRate,
  };
}

interface Level {
  summary: LevelSummary;
  pooled: BenchRecord;
}

function levelsOf(done: PointRun[], limits: readonly TargetRecord[], launch: TargetSubject): Level[] {
  const by = new Map<number | null, BenchRecord[]>();
  for (const r of done) {
    // A run benchmarked twice at one level (by hand) counts once, with its best.
    const per = new Map<number | null, BenchRecord[]>();
    for (const b of r.benches) per.set(b.maxConcurrency, [...(per.get(b.maxConcurrency) ?? []), b]);
    for (const [c, bs] of per) {
      const b = bestBench(bs);
      if (b) by.set(c, [...(by.get(c) ?? []), b]);
    }
  }
  return [...by.entries()]
    .sort(([a], [b]) => (a ?? Infinity) - (b ?? Infinity))
    .map(([concurrency, bs]) => {
      const pooled = pooledBench(bs);
      const tput = nums(bs.map((b) => b.outputTokS));
      const tpot = nums(bs.map((b) => pace(b.tpot.median)));
      const checked = evaluateTargets(limits, launch, [pooled]);
      const misses = checked
        .filter((t) => t.pass !== true)
        .map((t) =>
          t.actual === null
            ? `${t.target.metric} n/a`
            : `${t.target.metric} ${Math.round(t.actual * 100) / 100}${t.pass === false && t.from?.includes(': ') ? ` (${t.from.split(': ').slice(1).join(': ')})` : ` not ${t.target.op} ${t.target.value}`}`,
        );
      return {
        pooled,
        summary: {
          concurrency,
          runs: bs.length,
          outputTokS: pooled.outputTokS,
          outputTokSMin: tput.length ? Math.min(...tput) : null,
          outputTokSMax: tput.length ? Math.max(...tput) : null,
          tpotMs: pooled.tpot.median,
          tpotMsMin: tpot.length ? Math.min(...tpot) : null,
          tpotMsMax: tpot.length ? Math.max(...tpot) : null,
          ttftMs: pooled.ttft.median,
          withinLimits: limits.length ? misses.length === 0 : null,
          misses,
        },
      };
    });
}

function summarise(runs: PointRun[], targets: readonly TargetRecord[]): PointSummary {
  const latest = runs[runs.length - 1]!;
  const done = runs.filter(isDone);
  const stand = done[done.length - 1] ?? latest;
  const detail = stand.record.detail;
  const launch: TargetSubject = stand.launch ?? {
    model: null,
    peakTokS: null,
    medianTokS: null,
    loadSeconds: null,
  };
  const limits = targets.filter(isLimit);
  const others = targets.filter((t) => !isLimit(t));
  const levels = levelsOf(done, limits, launch);
  let top: Level | null = null;
  for (const l of levels)
    if (l.summary.withinLimits !== false && l.summary.outputTokS !== null)
      if (!top || l.summary.outputTokS > top.summary.outputTokS!) top = l;
  const single = levels.find((l) => l.summary.concurrency === 1) ?? null;
  let results: TargetResult[] = [];
  let cause: string | null = done.length ? null : (latest.record.detail.cause ?? null);
  if (done.length && stand.launch) {
    if (limits.length && !top && levels.length) {
      // No level within the limits: the point fails them, as its fastest level shows.
      const fastest = levels.reduce((a, b) =>
        (b.summary.outputTokS ?? -1) > (a.summary.outputTokS ?? -1) ? b : a,
      );
      results = evaluateTargets(limits, launch, [fastest.pooled]);
      cause = `no concurrency level within the limits (${levels.map((l) => `c=${l.summary.concurrency ?? '∞'}: ${l.summary.misses.join(', ')}`).join('; ')})`;
    } else if (top) {
      results = [
        ...evaluateTargets(limits, launch, [top.pooled]),
        ...others.flatMap((t) =>
          evaluateTargets(
            [t],
            launch,
            t.metric === 'single_stream_tok_s' ? (single ? [single.pooled] : []) : [top!.pooled],
          ),
        ),
      ];
    }
  }
  const t = top?.summary ?? null;
  return {
    index: latest.record.pointIndex,
    hash: latest.record.pointHash,
    values: latest.record.flags,
    status: done.length ? 'done' : latest.record.status,
    runs: runs.length,
    doneRuns: done.length,
    outputTokS: t?.outputTokS ?? null,
    atConcurrency: t?.concurrency ?? null,
    singleStreamTokS: single?.summary.outputTokS ?? null,
    tpotMs: t?.tpotMs ?? null,
    spread: t && t.runs > 1 ? [t.outputTokSMin!, t.outputTokSMax!] : null,
    sampleRuns: t?.runs ?? 0,
    withinNoise: false,
    loadS: detail.loadSeconds ?? stand.launch?.loadSeconds ?? null,
    graphS: detail.phases?.find((p) => p.phase === 'cuda_graph')?.duration ?? null,
    targets: results,
    pass: results.length
      ? results.every((r) => r.pass === true)
      : limits.length > 0 && done.length > 0 && !top
        ? false
        : null,
    cause,
    launchId: stand.record.launchId,
    levels: levels.map((l) => l.summary),
  };
}

/** Benchmarked points passing every target, then the other benchmarked ones, by output tok/s; then the rest. */
function order(p: PointSummary): number {
  if (p.status !== 'done') return 3;
  return p.pass === false ? 1 : p.outputTokS === null ? 2 : 0;
}

const contends = (p: PointSummary) => p.status === 'done' && p.outputTokS !== null && p.pass !== false;
const rangeOf = (p: PointSummary): [number, number] => p.spread ?? [p.outputTokS!, p.outputTokS!];

/** Two ranges of output tok/s share a value: the runs cannot tell the points apart. */
export const overlaps = (a: PointSummary, b: PointSummary): boolean => {
  const [a0, a1] = rangeOf(a);
  const [b0, b1] = rangeOf(b);
  return a0 <= b1 && b0 <= a1;
};

export function rankPoints(runs: PointRun[], targets: readonly TargetRecord[]): PointSummary[] {
  const byPoint = new Map<string, PointRun[]>();
  for (const r of runs) byPoint.set(r.record.pointHash, [...(byPoint.get(r.record.pointHash) ?? []), r]);
  const ranked = [...byPoint.values()]
    .map((rs) => summarise(rs, targets))
    .sort((a, b) => order(a) - order(b) || (b.outputTokS ?? -1) - (a.outputTokS ?? -1) || a.index - b.index);
  const top = ranked[0];
  if (top && contends(top))
    for (const p of ranked.slice(1))
      if (contends(p) && overlaps(top, p)) p.withinNoise = top.withinNoise = true;
  return ranked;
}

/** The first ranked point that benchmarked and did not fail a target: the leader, not yet a winner. */
export function leadingPoint(ranked: PointSummary[]): PointSummary | null {
  const top = ranked[0];
  return top && contends(top) ? top : null;
}

/** The best point: the leader, unless another passing point is within its noise (then there is none). */
export function bestPoint(ranked: PointSummary[]): PointSummary | null {
  const top = leadingPoint(ranked);
  return top && !top.withinNoise ? top : null;
}

export interface Difference {
  index: number;
  /** The grid values in which this point differs from the leader. */
  keys: Array<{ key: string; best: unknown; here: unknown }>;
  /** Median output tok/s relative to the leader's (-0.35: 35 % less); null without a figure. */
  delta: number | null;
  /** Its range overlaps the leader's: the difference is not established. */
  withinNoise: boolean;
  spread: [number, number] | null;
  status: SweepPointRecord['status'];
  cause: string | null;
}

/** For each other point, what it changed from the leader, and what that cost (or where it ended). */
export function differences(best: PointSummary, ranked: PointSummary[]): Difference[] {
  return ranked
    .filter((p) => p !== best)
    .map((p) => ({
      index: p.index,
      keys: Object.keys({ ...best.values, ...p.values })
        .filter((k) => JSON.stringify(best.values[k]) !== JSON.stringify(p.values[k]))
        .map((k) => ({ key: k, best: best.values[k], here: p.values[k] })),
      delta: p.outputTokS !== null && best.outputTokS ? p.outputTokS / best.outputTokS - 1 : null,
      withinNoise: p.withinNoise,
      spread: p.spread,
      status: p.status,
      cause: p.cause,
    }));
}
