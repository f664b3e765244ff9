/**
 * Windows of a labelled real log, as a short excerpt of it would be pasted (issue 22), and what each window's
 * reading must say: the rules of scripts/excerpt-check.mjs (which prints them for every corpus) and of
 * test/core/reading/excerpt-windows.test.ts (which bounds them on the shared corpus). A window is checked only for
 * what it can show: the crash and its class around the failure line, ready at a ready line, the engine where it
 * shows, and no phase later than the file's.
 */
import { phaseRankIn } from '../src/core/base/types.js';
import { reportedEngine } from '../src/core/reading/report.js';
import { analyzeText } from './helpers.js';
import type { Label } from './labels.js';

export type WindowSort = 'crash' | 'ready' | 'tail';

/** Lines a to b of the file (1-based, both in). */
export interface Window {
  a: number;
  b: number;
  sort: WindowSort;
}

/** What a reading says of its last launch, as the checks compare it. */
export interface WindowReading {
  engine: string | null;
  outcome: string | null;
  phase: string | null;
  cls: string | null;
  failLine: number | null;
}

export function readWindow(text: string): WindowReading {
  const r = analyzeText(text);
  const last = r.launches.at(-1) ?? null;
  return {
    engine: reportedEngine(r),
    outcome: last?.outcome ?? null,
    phase: last?.phase ?? null,
    cls: last?.failure?.class ?? null,
    failLine: last?.failure?.line ?? null,
  };
}

/**
 * The windows of a log of `n` lines, each once: around a crash's evidence line e, [e-k, e+2] for k = 2, 5, 10,
 * 20 (and with `tight`, [e-1, e+1], [e, e+1], [e-3, e]); ending at a ready log's evidence line and at its last
 * line, 3, 8 and 15 lines; the last 5, 12 and 25 lines of any log.
 */
export function windowsOf(label: Label, n: number, tight = false): Window[] {
  const out: Window[] = [];
  const seen = new Set<string>();
  const add = (a: number, b: number, sort: WindowSort) => {
    const lo = Math.max(1, a);
    const hi = Math.min(n, b);
    if (hi < lo || seen.has(`${lo}:${hi}`)) return;
    seen.add(`${lo}:${hi}`);
    out.push({ a: lo, b: hi, sort });
  };
  const e = label.evidence_line ?? null;
  if (label.outcome === 'crashed' && e !== null && e <= n) {
    for (const k of [2, 5, 10, 20]) add(e - k, e + 2, 'crash');
    if (tight) {
      add(e - 1, e + 1, 'crash');
      add(e, e + 1, 'crash');
      add(e - 3, e, 'crash');
    }
  }
  if (label.outcome === 'ready' && e !== null && e <= n)
    for (const len of [3, 8, 15]) add(e - len + 1, e, 'ready');
  if (label.outcome === 'ready') for (const len of [3, 8, 15]) add(n - len + 1, n, 'ready');
  for (const len of [5, 12, 25]) add(n - len + 1, n, 'tail');
  return out;
}

/** The checks a window's reading is held to; `field` names the figure it counts in. */
export interface WindowCheck {
  field: string;
  good: boolean;
}

const ENGINES_WITH_RANKS = new Set(['sglang', 'vllm', 'trtllm', 'tgi', 'llamacpp']);
// the scorer's equivalences (score.py): dist_init counts as args, autotune as compile
const EQ: Record<string, string> = { dist_init: 'args', autotune: 'compile' };
const rank = (engine: string | null, p: string) =>
  phaseRankIn(
    (engine !== null && ENGINES_WITH_RANKS.has(engine) ? engine : null) as Parameters<typeof phaseRankIn>[0],
    (EQ[p] ?? p) as Parameters<typeof phaseRankIn>[1],
  );

export const engineRight = (want: string, got: string | null) =>
  got === want || (want === 'other' && (got === null || got === 'other'));

/**
 * The window's checks against its label: the tail's engine (right or none: a wrong one is the miss); a ready
 * window's engine and outcome (ready or serving); a crash window's engine, outcome (crashed, or in progress where
 * the label names no class), class, and its phase no later than the label's last.
 */
export function checkWindow(label: Label, w: Window, got: WindowReading): WindowCheck[] {
  const out: WindowCheck[] = [];
  const engine = engineRight(label.engine, got.engine);
  if (w.sort === 'tail') return [{ field: 'tail engine (not wrong)', good: engine || got.engine === null }];
  out.push({ field: `${w.sort} engine`, good: engine });
  if (!engine) out.push({ field: `${w.sort} engine ${got.engine === null ? 'null' : 'WRONG'}`, good: false });
  if (w.sort === 'ready') {
    out.push({ field: 'ready outcome', good: got.outcome === 'ready' || got.outcome === 'serving' });
    return out;
  }
  const hasClass = !!label.failure_class;
  const outcomes = hasClass ? ['crashed'] : ['crashed', 'in_progress'];
  out.push({
    field: hasClass ? 'crash outcome' : 'crash outcome (no class)',
    good: outcomes.includes(got.outcome ?? ''),
  });
  if (hasClass) out.push({ field: 'crash failure_class', good: got.cls === label.failure_class });
  if (got.phase && label.last_phase)
    out.push({
      field: 'crash phase not later than label',
      good: rank(label.engine, got.phase) <= rank(label.engine, label.last_phase),
    });
  return out;
}
