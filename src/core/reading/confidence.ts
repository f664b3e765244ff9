/**
 * How far to trust a launch's reading. A confident wrong reading is worse than a hedged one: a fragment, a
 * log whose engine lines no rule knows, or a crash read from a cut traceback can still be read, but the user
 * should be told it rests on little.
 *
 * The rule, in one place:
 * - a weak point of the first kind makes the reading `low` on its own: no line the engine's own rules know;
 *   a crash read only from a traceback cut before its exception, or only from a line that follows a crash
 *   (`Killed`, `Received sigquit`); a phase known only from traceback frames;
 * - a weak point of the second kind makes it `medium`, two of them `low`: a fragment (no launch start seen);
 *   no phase milestone recognised; few recognised lines; a crash with no specific class; an engine chosen on
 *   weak evidence;
 * - `high` when none applies: a start anchor, recognised milestones and, for a crash, a cause or exception
 *   line with a specific class.
 */

import type { Confidence } from '../base/report-types.js';
import type { FailureClass } from '../base/types.js';
import type { FailureCandidate, LaunchBuilder } from './launch.js';
import { FRAME_RULE } from './launch.js';

export type { Confidence };

/** Where a crash was read from. */
export type FailureSource = 'exception' | 'cause_line' | 'cut_traceback' | 'consequence';

export interface ConfidenceInput {
  startSeen: boolean;
  /** Lines the engine's own rules recognised in the launch. */
  engineLines: number;
  /** Phase milestones put by a rule that read a logged line (not by traceback frames). */
  ruleMarks: number;
  /** Phase milestones read from traceback frames. */
  frameMarks: number;
  /** The detector's score for the launch's engine (0 when none was detected). */
  engineScore: number;
  failure: { source: FailureSource; cls: FailureClass } | null;
}

export interface ConfidenceReading {
  confidence: Confidence;
  /** Plain phrases, the strongest first; empty when high. */
  confidenceReasons: string[];
}

/** Fewer recognised lines than this is a reading that rests on a handful of lines. */
export const FEW_LINES = 5;
/** Below this detector score the engine is a guess (one path, one prefix). */
export const WEAK_ENGINE_SCORE = 10;

export function rateConfidence(x: ConfidenceInput): ConfidenceReading {
  const low: string[] = [];
  const medium: string[] = [];
  if (!x.startSeen) medium.push('a fragment with no launch start');
  if (x.engineLines === 0) low.push('no engine-specific line recognised');
  else if (x.engineLines < FEW_LINES)
    medium.push(`only ${x.engineLines} line${x.engineLines === 1 ? '' : 's'} recognised`);
  if (x.engineScore < WEAK_ENGINE_SCORE)
    medium.push(x.engineScore === 0 ? 'engine not detected' : 'engine detected from weak evidence');
  if (x.ruleMarks === 0 && x.frameMarks > 0) low.push('phase inferred only from traceback frames');
  else if (x.ruleMarks === 0) medium.push('no phase milestone recognised');
  const f = x.failure;
  if (f?.source === 'cut_traceback') low.push('crash read from a traceback cut before its exception');
  else if (f?.source === 'consequence')
    low.push('crash read only from a line that follows a crash, not its cause');
  else if (f && (f.cls === 'python_exception' || f.cls === 'other'))
    medium.push(`crash cause has no specific class (${f.cls})`);
  const confidence: Confidence =
    low.length > 0 || medium.length > 1 ? 'low' : medium.length ? 'medium' : 'high';
  // The fragment first: it explains most of the rest.
  const reasons = [...low, ...medium].sort((a, b) => rank(a) - rank(b));
  return { confidence, confidenceReasons: reasons };
}

function rank(reason: string): number {
  return reason.startsWith('a fragment') ? 0 : 1;
}

/** Where the root failure was read from (see FailureCandidate.strength). */
export function failureSource(c: FailureCandidate): FailureSource {
  // The traceback reader's stand-in for a cut traceback sits on the `Traceback` line itself.
  if (c.exceptionType === null && c.startLine !== null && c.startLine === c.line) return 'cut_traceback';
  if (c.strength <= 1) return 'consequence';
  return c.exceptionType !== null ? 'exception' : 'cause_line';
}

export function launchConfidence(l: LaunchBuilder, engineScore: number): ConfidenceReading {
  let frameMarks = 0;
  for (const m of l.marks) if (m.rule === FRAME_RULE) frameMarks++;
  const root = l.rootFailure();
  return rateConfidence({
    startSeen: l.hasStart,
    engineLines: l.engineLines,
    ruleMarks: l.marks.length - frameMarks,
    frameMarks,
    engineScore,
    failure: root && { source: failureSource(root), cls: root.cls },
  });
}
