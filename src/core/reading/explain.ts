/**
 * The engine-looking lines no rule recognised, grouped by shape: what `firedup status --explain` shows so a
 * user can paste the gap into a bug report, and how the next missing rule is found. Bounded: at most
 * MAX_SHAPES distinct shapes are kept; lines of further shapes are only counted.
 */

import type { LogLine } from '../base/types.js';
import { lineShape } from './shape.js';
import { parseBar } from './tqdm.js';

export const MAX_SHAPES = 200;

export interface UnrecognisedShape {
  shape: string;
  count: number;
  firstLine: number;
  /** The first line of this shape, as the log has it (cut at 300 characters). */
  example: string;
  level: NonNullable<LogLine['level']>;
}

/** Levels a server uses for what it wants read; debug chatter is left out. */
const LEVELS = new Set<LogLine['level']>(['info', 'warning', 'error', 'critical']);

export class ExplainCollector {
  private readonly shapes = new Map<string, UnrecognisedShape>();
  /** Unrecognised engine-looking lines in all. */
  lines = 0;
  /** Of them, lines of shapes past MAX_SHAPES, counted but not kept. */
  dropped = 0;

  /**
   * `recognised`: a rule matched the line (a signature, or the traceback reader took it). Engine-looking
   * means the line carries the engine's own logger prefix at a level worth reading.
   */
  observe(line: LogLine, recognised: boolean): void {
    if (recognised || !line.framed || !LEVELS.has(line.level)) return;
    // A progress bar with a prefix is read by the bar parser, not a signature.
    if (line.msg.includes('%') && parseBar(line.msg)) return;
    if (line.msg.trim() === '') return;
    this.lines++;
    const shape = lineShape(line.msg);
    const seen = this.shapes.get(shape);
    if (seen) seen.count++;
    else if (this.shapes.size < MAX_SHAPES)
      this.shapes.set(shape, {
        shape,
        count: 1,
        firstLine: line.no,
        example: line.text.slice(0, 300),
        level: line.level!,
      });
    else this.dropped++;
  }

  /** Most frequent first; among equals, the earliest. */
  list(): UnrecognisedShape[] {
    return [...this.shapes.values()].sort((a, b) => b.count - a.count || a.firstLine - b.firstLine);
  }
}
