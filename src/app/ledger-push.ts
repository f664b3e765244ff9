/**
 * `firedup ledger push`: copies one ledger's launches (with their benchmarks, live verdicts and targets) into
 * another, typically a laptop's SQLite ledger into the team's Postgres one. Idempotent: a launch already there
 * (same id, or the same launch recorded by someone else: same fingerprint) is updated, never added twice, and
 * a benchmark run is kept once per launch (its fingerprint), as for any upsert.
 */
import type { BenchResult, LaunchRecord } from '../core/records.js';
import type { LedgerStore } from '../store/ledger-store.js';

export interface PushResult {
  launches: number;
  /** Launches the destination did not have. */
  added: number;
  benches: number;
  benchesAdded: number;
  targets: number;
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
  const out: PushResult = { launches: 0, added: 0, benches: 0, benchesAdded: 0, targets: 0 };
  for (let i = 0; i < ids.length; i += BATCH) {
    const recs: LaunchRecord[] = [];
    for (const id of ids.slice(i, i + BATCH)) {
      const r = await from.getLaunch(id);
      if (r) recs.push(r);
    }
    const known = new Set<string>();
    for (const r of recs) if ((await to.keptId(r)) !== null) known.add(r.id);
    const kept = await to.upsertLaunches(recs);
    const benches = await from.benchesOf(recs.map((r) => r.id));
    for (const [n, r] of recs.entries()) {
      const id = kept[n]?.id ?? r.id;
      if (!known.has(r.id)) out.added++;
      // The verdict a live look kept (stalled, dead) is part of what the launch is known as.
      if (r.live) await to.setLive(id, r.live);
      for (const b of benches.get(r.id) ?? []) {
        const { id: _id, launchId: _launch, importedAt: _at, ...result } = b;
        const got = await to.addBench(id, result as BenchResult);
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
  return out;
}
