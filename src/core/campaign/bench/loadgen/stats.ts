/** Mean, median, percentiles and max as numpy computes them (linear interpolation), which both bench tools use. */
import type { LatencyDist } from './types.js';

/** The q-th percentile (0–100) of an ascending array, numpy's default 'linear' method. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 1) return sorted[0]!;
  const pos = ((n - 1) * q) / 100;
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function distribution(values: number[]): LatencyDist {
  if (values.length === 0) return { mean: null, median: null, p90: null, p99: null, max: null };
  // A typed array sorts numerically and fast: an ITL list is one entry per streamed token.
  const s = Float64Array.from(values).sort();
  let sum = 0;
  for (let i = 0; i < s.length; i++) sum += s[i]!;
  return {
    mean: sum / s.length,
    median: percentile(s, 50),
    p90: percentile(s, 90),
    p99: percentile(s, 99),
    max: s[s.length - 1]!,
  };
}
