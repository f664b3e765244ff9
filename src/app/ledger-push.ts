/**
 * `firedup ledger push`: copies one ledger's launches (with their benchmarks, live verdicts and targets) into
 * another, typically a laptop's SQLite ledger into the team's Postgres one. Idempotent: a launch already there
 * (same id, or the same launch recorded by someone else: same fingerprint) is updated, never added twice, and
 * a benchmark run is kept once per launch (its fingerprint), as for any upsert. A sweep's runs follow their
 * launches: a run is the same run when its sweep, point and start time are (run numbers are the destination's
 * own, since someone else's sweep of the same name may be there already), and pushing again updates it.
 */

import type { BenchResult, LaunchRecord, SweepPointRecord } from '../core/campaign/records.js';
import { redactConfig } from '../core/config/redact.js';
import type { LedgerStore } from '../store/ledger-store.js';

export interface PushResult {
  launches: number;
  /** Launches the destination did not have. */
  added: number;
  benches: number;
  benchesAdded: number;
  targets: number;
  /** Runs of sweep points copied, and how many of them the destination did not have. */
  sweepRuns: number;
  sweepRunsAdded: number;
}

/** Launches per transaction: a connection lost mid-push keeps the batches before it, whole. */
const BATCH = 50;

export async function pushLedger(
  from: LedgerStore,
  to: LedgerStore,
  onBatch: (done: number, total: number) => void = () => {},
): Promise<PushResult> {
  // Oldest first, so that where the destination merges two records of one launch, the first seen leads.
  const ids = (await from.listItems({})).map((i) => i.id).reverse();
  const out: PushResult = {
    launches: 0,
    added: 0,
    benches: 0,
    benchesAdded: 0,
    targets: 0,
    sweepRuns: 0,
    sweepRunsAdded: 0,
  };
  // source launch id → the destination's: a sweep run names its launch by the destination's id
  const idIn = new Map<string, string>();
  // and bench ids likewise: a sweep run lists the benchmark runs it made
  const benchIn = new Map<number, number>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const recs: LaunchRecord[] = [];
    for (const id of ids.slice(i, i + BATCH)) {
      // Redacted on the way, as a read redacts: a ledger written by an older firedup, or before a secret's shape
      // was known, must not carry its secrets into the team's ledger.
      const r = await from.getLaunch(id);
      if (r) recs.push(redactConfig(r));
    }
    const known = new Set<string>();
    for (const r of recs) if ((await to.keptId(r)) !== null) known.add(r.id);
    const kept = await to.upsertLaunches(recs);
    const benches = await from.benchesOf(recs.map((r) => r.id));
    for (const [n, r] of recs.entries()) {
      const id = kept[n]?.id ?? r.id;
      idIn.set(r.id, id);
      if (!known.has(r.id)) out.added++;
      // The verdict a live look kept (stalled, dead) is part of what the launch is known as.
      if (r.live) await to.setLive(id, r.live);
      for (const b of benches.get(r.id) ?? []) {
        const { id: _id, launchId: _launch, importedAt: _at, ...result } = b;
        const got = await to.addBench(id, redactConfig(result) as BenchResult);
        benchIn.set(b.id, got.record.id);
        out.benches++;
        if (got.added) out.benchesAdded++;
      }
    }
    out.launches += recs.length;
    onBatch(out.launches, ids.length);
  }
  for (const t of await from.targets()) {
    const { id: _id, ...rest } = t;
    await to.addTarget(rest);
    out.targets++;
  }
  await pushSweeps(from, to, { launches: idIn, benches: benchIn }, out);
  return out;
}

async function pushSweeps(
  from: LedgerStore,
  to: LedgerStore,
  idIn: { launches: ReadonlyMap<string, string>; benches: ReadonlyMap<number, number> },
  out: PushResult,
): Promise<void> {
  const key = (p: SweepPointRecord) => `${p.pointHash}\u0000${p.startedAt}`;
  for (const s of await from.sweeps()) {
    const there = new Map((await to.sweepPoints(s.name)).map((p) => [key(p), p]));
    // By start, so that the destination numbers a point's runs in the order they ran.
    const runs = (await from.sweepPoints(s.name)).sort((a, b) => a.startedAt - b.startedAt || a.id - b.id);
    for (const p of runs) {
      let id = there.get(key(p))?.id;
      if (id === undefined) {
        const { sweep, pointHash, pointIndex, flags, argv, plan, startedAt } = redactConfig(p);
        id = (await to.openSweepPoint({ sweep, pointHash, pointIndex, flags, argv, plan, startedAt })).id;
        out.sweepRunsAdded++;
      }
      const { benchIds, ...detail } = redactConfig(p.detail);
      await to.updateSweepPoint(id, {
        status: p.status,
        launchId: p.launchId === null ? null : (idIn.launches.get(p.launchId) ?? null),
        detail: benchIds
          ? { ...detail, benchIds: benchIds.flatMap((b) => idIn.benches.get(b) ?? []) }
          : detail,
        endedAt: p.endedAt,
      });
      out.sweepRuns++;
    }
  }
}
