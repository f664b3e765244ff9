/** History-aware expectations: the ledger's earlier launches like this one, folded into medians. */
import { type Expectations, expectationsFrom } from '../core/verdict/expectations.js';
import type { HistoryKey, LaunchRecord } from './types.js';

export interface HistorySource {
  history(key: HistoryKey, beforeTs?: number, limit?: number): Promise<LaunchRecord[]> | LaunchRecord[];
}

/**
 * Earlier launches of the same model and engine on the same host with the same config (hash): only
 * launches that got ready or crashed after loading count, so one stuck launch does not make stalls look
 * normal. Null without any: the default budgets apply.
 */
export async function expectationsFor(
  ledger: HistorySource,
  launch: LaunchRecord,
): Promise<Expectations | null> {
  if (launch.configHash === null || launch.model === null) return null;
  const key: HistoryKey = {
    model: launch.model,
    engine: launch.engine,
    host: launch.host,
    configHash: launch.configHash,
  };
  const before = launch.startTs ?? launch.firstSeen;
  // Distinct launches: one read at two paths (or kept twice by an older firedup) counts once, and never as
  // an earlier launch of itself.
  const seen = new Set<string>([launch.id]);
  if (launch.fingerprint !== null) seen.add(launch.fingerprint);
  const past = (await ledger.history(key, before, 40))
    .filter((r) => {
      const k = r.fingerprint ?? r.id;
      if (seen.has(r.id) || seen.has(k)) return false;
      seen.add(k);
      return r.loadSeconds !== null || r.outcome === 'crashed';
    })
    .slice(0, 20);
  if (past.length === 0) return null;
  const model = launch.model.split('/').filter(Boolean).at(-1) ?? launch.model;
  const basis = `${past.length} earlier launch${past.length > 1 ? 'es' : ''} of ${model} on ${launch.host} with this config`;
  return expectationsFrom(
    past.map((r) => ({ phases: r.report.phases, loadSeconds: r.loadSeconds })),
    basis,
  );
}
