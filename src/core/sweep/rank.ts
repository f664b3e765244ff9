/**
 * A sweep's points ranked against its targets: each point's runs summarised (the latest finished run stands for
 * it, the spread of the others is shown), points that ran what was asked and passed every target first, then by
 * output tok/s; points that never benchmarked (crashed, stalled, not the flags asked for) last, with their cause.
 * And what differs between the best point and each other one. Pure.
 */

import { bestBench, singleStreamBench } from '../bench/select.js';
import type { BenchRecord, SweepPointRecord, TargetRecord } from '../records.js';
import { evaluateTargets, type TargetResult, type TargetSubject } from '../targets.js';

/** A run of a point with what the ledger knows of its launch. */
export interface PointRun {
  record: SweepPointRecord;
  launch: TargetSubject | null;
  benches: BenchRecord[];
}

export interface PointSummary {
  index: number;
  hash: string;
  values: Record<string, unknown>;
  /** The latest run's status. */
  status: SweepPointRecord['status'];
  runs: number;
  /** Runs that benchmarked (status done). */
  doneRuns: number;
  /** The best level's output tok/s of the run that stands for the point, and that level's concurrency. */
  outputTokS: number | null;
  atConcurrency: number | null;
  singleStreamTokS: number | null;
  /** Median TPOT (ms) of the best level. */
  tpotMs: number | null;
  /** Output tok/s across the finished runs: [min, max], when more than one. */
  spread: [number, number] | null;
  loadS: number | null;
  /** CUDA-graph capture, where the engine has one. */
  graphS: number | null;
  targets: TargetResult[];
  /** Every target met (null: nothing to judge — no targets, or no bench). */
  pass: boolean | null;
  cause: string | null;
  launchId: string | null;
  /** Per concurrency level of the standing run: output tok/s and median TPOT (the dashboard's curves). */
  levels: Array<{ concurrency: number | null; outputTokS: number | null; tpotMs: number | null }>;
}

const isDone = (r: PointRun) => r.record.status === 'done';

function summarise(runs: PointRun[], targets: readonly TargetRecord[]): PointSummary {
  const latest = runs[runs.length - 1]!;
  const done = runs.filter(isDone);
  const stand = done[done.length - 1] ?? latest;
  const best = bestBench(stand.benches);
  const single = singleStreamBench(stand.benches);
  const detail = stand.record.detail;
  const tput = done
    .map((r) => bestBench(r.benches)?.outputTokS ?? null)
    .filter((v): v is number => v !== null);
  const results = stand.launch && isDone(stand) ? evaluateTargets(targets, stand.launch, stand.benches) : [];
  return {
    index: latest.record.pointIndex,
    hash: latest.record.pointHash,
    values: latest.record.flags,
    status: done.length ? 'done' : latest.record.status,
    runs: runs.length,
    doneRuns: done.length,
    outputTokS: best?.outputTokS ?? null,
    atConcurrency: best?.maxConcurrency ?? null,
    singleStreamTokS: single?.outputTokS ?? null,
    tpotMs: best?.tpot.median ?? null,
    spread: tput.length > 1 ? [Math.min(...tput), Math.max(...tput)] : null,
    loadS: detail.loadSeconds ?? stand.launch?.loadSeconds ?? null,
    graphS: detail.phases?.find((p) => p.phase === 'cuda_graph')?.duration ?? null,
    targets: results,
    pass: results.length === 0 ? null : results.every((t) => t.pass === true),
    cause: done.length ? null : (latest.record.detail.cause ?? null),
    launchId: stand.record.launchId,
    levels: stand.benches
      .slice()
      .sort((a, b) => (a.maxConcurrency ?? Infinity) - (b.maxConcurrency ?? Infinity))
      .map((b) => ({ concurrency: b.maxConcurrency, outputTokS: b.outputTokS, tpotMs: b.tpot.median })),
  };
}

/** Benchmarked points passing every target, then the other benchmarked ones, by output tok/s; then the rest. */
function order(p: PointSummary): number {
  if (p.status !== 'done') return 3;
  return p.pass === false ? 1 : p.outputTokS === null ? 2 : 0;
}

export function rankPoints(runs: PointRun[], targets: readonly TargetRecord[]): PointSummary[] {
  const byPoint = new Map<string, PointRun[]>();
  for (const r of runs) byPoint.set(r.record.pointHash, [...(byPoint.get(r.record.pointHash) ?? []), r]);
  return [...byPoint.values()]
    .map((rs) => summarise(rs, targets))
    .sort((a, b) => order(a) - order(b) || (b.outputTokS ?? -1) - (a.outputTokS ?? -1) || a.index - b.index);
}

/** The best point: the first ranked that benchmarked and did not fail a target. */
export function bestPoint(ranked: PointSummary[]): PointSummary | null {
  const top = ranked[0];
  return top && top.status === 'done' && top.outputTokS !== null && top.pass !== false ? top : null;
}

export interface Difference {
  index: number;
  /** The grid values in which this point differs from the best. */
  keys: Array<{ key: string; best: unknown; here: unknown }>;
  /** Output tok/s relative to the best (-0.35: 35 % less); null without a figure. */
  delta: number | null;
  status: SweepPointRecord['status'];
  cause: string | null;
}

/** For each other point, what it changed from the best, and what that cost (or where it ended). */
export function differences(best: PointSummary, ranked: PointSummary[]): Difference[] {
  return ranked
    .filter((p) => p !== best)
    .map((p) => ({
      index: p.index,
      keys: Object.keys({ ...best.values, ...p.values })
        .filter((k) => JSON.stringify(best.values[k]) !== JSON.stringify(p.values[k]))
        .map((k) => ({ key: k, best: best.values[k], here: p.values[k] })),
      delta: p.outputTokS !== null && best.outputTokS ? p.outputTokS / best.outputTokS - 1 : null,
      status: p.status,
      cause: p.cause,
    }));
}
