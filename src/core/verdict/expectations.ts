/**
 * What earlier launches of the same model, engine, host and config say a launch should take. The medians
 * replace the generic silence budgets (a 400B model's CUDA-graph capture that always takes 7 minutes on this
 * box is not stalled at 5) and give "usually takes 3m10s here".
 */
import type { PhaseReport } from '../base/report-types.js';
import type { Phase } from '../base/types.js';

export interface Typical {
  /** Median seconds. */
  median: number;
  /** How many earlier launches it comes from. */
  n: number;
}

export interface Expectations {
  phases: Partial<Record<Phase, Typical>>;
  /** From the launch's first line to ready. */
  toReady: Typical | null;
  /** Who the numbers come from, for the view: "4 earlier launches of GLM-5 on gpu-box". */
  basis: string;
}

/** What one earlier launch contributes. */
export interface PastLaunch {
  phases: Array<Pick<PhaseReport, 'phase' | 'duration'>>;
  loadSeconds: number | null;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const typical = (xs: number[]): Typical | null =>
  xs.length ? { median: Math.round(median(xs) * 10) / 10, n: xs.length } : null;

/**
 * Medians over earlier launches. A phase counts only from launches that went past it (its duration is then
 * complete); a launch that crashed in a phase says nothing about how long that phase takes.
 */
export function expectationsFrom(past: PastLaunch[], basis: string): Expectations | null {
  const per = new Map<Phase, number[]>();
  for (const l of past) {
    l.phases.forEach((p, i) => {
      if (i === l.phases.length - 1 || p.duration === null) return;
      per.set(p.phase, [...(per.get(p.phase) ?? []), p.duration]);
    });
  }
  const phases: Partial<Record<Phase, Typical>> = {};
  for (const [phase, xs] of per) phases[phase] = typical(xs)!;
  const toReady = typical(past.flatMap((l) => (l.loadSeconds === null ? [] : [l.loadSeconds])));
  if (!toReady && per.size === 0) return null;
  return { phases, toReady, basis };
}

/**
 * The silence a phase gets given its usual length: half as long again, and at least a minute more, so that
 * ordinary variation (a cold page cache, a busier filesystem) is never called a stall.
 */
export function typicalBudget(t: Typical): number {
  return Math.max(1.5 * t.median, t.median + 60);
}

/** `3m10s`, `45s`, `1h02m`. */
export function shortDuration(s: number): string {
  const r = Math.round(s);
  if (r < 60) return `${r}s`;
  if (r < 3600) return `${Math.floor(r / 60)}m${String(r % 60).padStart(2, '0')}s`;
  return `${Math.floor(r / 3600)}h${String(Math.floor((r % 3600) / 60)).padStart(2, '0')}m`;
}
