/**
 * A sweep's report from the ledger: its runs, their launches and benches, ranked against the sweep's targets
 * (core/campaign/sweep/rank.ts). One reader for `firedup sweep`'s closing table, `firedup sweep report` and the dashboard.
 */

import type { LaunchRecord, SweepPointRecord, TargetRecord } from '../core/campaign/records.js';
import {
  bestPoint,
  type Difference,
  differences,
  leadingPoint,
  type PointRun,
  type PointSummary,
  rankPoints,
} from '../core/campaign/sweep/rank.js';
import { parseTarget } from '../core/campaign/targets.js';
import type { LedgerStore } from '../store/ledger-store.js';

export interface SweepReport {
  name: string;
  /** The grid keys (what varies between points). */
  keys: string[];
  targets: string[];
  ranked: PointSummary[];
  /** The winner: the leader, when no other passing point is within its noise; else null. */
  best: PointSummary | null;
  /** The first ranked point that benchmarked within its targets, winner or not. */
  leader: PointSummary | null;
  /** The leader and the points within its noise, when there is no winner: the ones still in the running. */
  tied: number[];
  /** Every passing point measured by at least two runs: without, a difference may be noise no one saw. */
  noiseMeasured: boolean;
  /** Against the leader. */
  differences: Difference[];
  runs: SweepPointRecord[];
  startedAt: number | null;
  endedAt: number | null;
}

/** `targets` as the sweep file gave them; absent (report from the ledger alone): none. */
export async function sweepReport(
  ledger: LedgerStore,
  name: string,
  targets: string[] = [],
): Promise<SweepReport | null> {
  const runs = await ledger.sweepPoints(name);
  if (!runs.length) return null;
  const ids = [...new Set(runs.map((r) => r.launchId).filter((x): x is string => x !== null))];
  const benches = await ledger.benchesOf(ids);
  const launches = new Map<string, LaunchRecord | null>();
  for (const id of ids) launches.set(id, await ledger.getLaunch(id));
  // The targets the sweep ran with were kept with each run's plan; the latest run's stand.
  const kept = (runs[runs.length - 1]!.plan.targets as string[] | undefined) ?? [];
  const exprs = targets.length ? targets : kept;
  const trecs: TargetRecord[] = exprs.map((e, i) => {
    const t = parseTarget(e);
    return { id: -(i + 1), model: null, metric: t.metric, op: t.op, value: t.value, expr: t.expr };
  });
  const pr: PointRun[] = runs.map((r) => ({
    record: r,
    launch: r.launchId ? (launches.get(r.launchId) ?? null) : null,
    // Only the benches this run made: a launch benchmarked again by hand keeps its own.
    benches: (r.launchId ? (benches.get(r.launchId) ?? []) : []).filter(
      (b) => !r.detail.benchIds || r.detail.benchIds.includes(b.id),
    ),
  }));
  const ranked = rankPoints(pr, trecs);
  const best = bestPoint(ranked);
  const leader = leadingPoint(ranked);
  const contenders = ranked.filter((p) => p.status === 'done' && p.outputTokS !== null && p.pass !== false);
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.flags)))];
  return {
    name,
    keys,
    targets: trecs.map((t) => t.expr),
    ranked,
    best,
    leader,
    tied: leader && !best ? contenders.filter((p) => p === leader || p.withinNoise).map((p) => p.index) : [],
    noiseMeasured: contenders.length > 0 && contenders.every((p) => p.sampleRuns > 1),
    differences: leader ? differences(leader, ranked) : [],
    runs,
    startedAt: Math.min(...runs.map((r) => r.startedAt)),
    endedAt: runs.every((r) => r.endedAt !== null) ? Math.max(...runs.map((r) => r.endedAt!)) : null,
  };
}
