/**
 * Which of a launch's benchmark runs stands for it. A launch is often benchmarked at several concurrencies; the
 * run with the highest output tok/s (the tools' headline number) is "the best", and its latencies are the ones
 * reported with it, so a throughput and a TTFT always come from the same run. Ties go to the latest run.
 */
import type { BenchRecord } from '../records.js';

/** Later first: by the run's own end time, then by import order (id). */
function later(a: BenchRecord, b: BenchRecord): boolean {
  const ta = a.finishedAt ?? Number.NEGATIVE_INFINITY;
  const tb = b.finishedAt ?? Number.NEGATIVE_INFINITY;
  return ta !== tb ? ta > tb : a.id > b.id;
}

/** The share of the run's requests that failed; null where the tool does not say (imported results). */
export function failedRate(b: BenchRecord): number | null {
  if (b.failed === undefined || b.completed === null) return null;
  const all = b.completed + b.failed;
  return all === 0 ? null : b.failed / all;
}

/** More requests failed than the run allows (`bench run --max-failed`, 1 % by default): its figures prove nothing. */
export function tooManyFailed(b: BenchRecord): boolean {
  const r = failedRate(b);
  return r !== null && r > (b.maxFailedRate ?? 0.01);
}

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;

/** Why a run's figures cannot meet a target, or null. */
export function failedTooMuchWhy(b: BenchRecord): string | null {
  if (!tooManyFailed(b)) return null;
  return `${b.failed} of ${b.completed! + b.failed!} requests failed (${pct(failedRate(b)!)}, over the ${pct(b.maxFailedRate ?? 0.01)} the run allows)`;
}

function best(benches: BenchRecord[]): BenchRecord | null {
  let pick: BenchRecord | null = null;
  for (const b of benches) {
    if (b.outputTokS === null) continue;
    if (!pick || b.outputTokS > pick.outputTokS! || (b.outputTokS === pick.outputTokS && later(b, pick)))
      pick = b;
  }
  return pick;
}

export function bestBench(benches: BenchRecord[]): BenchRecord | null {
  return best(benches);
}

/** The best run with exactly one request in flight (`--max-concurrency 1`): single-stream decode speed. */
export function singleStreamBench(benches: BenchRecord[]): BenchRecord | null {
  return best(benches.filter((b) => b.maxConcurrency === 1));
}

/** The best run per max concurrency (null = unbounded), for comparing like with like across launches. */
export function bestByConcurrency(benches: BenchRecord[]): Map<number | null, BenchRecord> {
  const groups = new Map<number | null, BenchRecord[]>();
  for (const b of benches) groups.set(b.maxConcurrency, [...(groups.get(b.maxConcurrency) ?? []), b]);
  const out = new Map<number | null, BenchRecord>();
  for (const [k, g] of groups) {
    const b = best(g);
    if (b) out.set(k, b);
  }
  return out;
}
