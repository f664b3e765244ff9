/**
 * Hard-wrapped pastes: a terminal's copy or an issue box cuts long lines into pieces of exactly the wrap column's
 * width. The analyzer holds a line of that width until the next line says whether it goes on.
 */
import { parseLine } from './prefix.js';

/** The column a paste hard-wrapped its lines at: the longest length seen, once it has come three times. */
export class HardWrap {
  max = 0;
  atMax = 0;

  /** Counts a physical line's length; true when a line of this length may go on on the next line. */
  see(len: number): boolean {
    if (len > this.max) {
      this.max = len;
      this.atMax = 1;
    } else if (len === this.max) this.atMax++;
    return len === this.max && this.atMax >= 3 && len >= 60;
  }
}

/**
 * Whether a physical line goes on the one before it, cut at the wrap column: not a line of its own (a logger's
 * frame, an indented traceback line, a traceback header, a progress bar, an empty line).
 */
export function continuesWrap(text: string, year: number): boolean {
  if (text === '' || /^(?:\s{2}|\t)/.test(text) || text.includes('\r')) return false;
  if (/^Traceback \(most recent call last\)|\d+%\|/.test(text)) return false;
  return !parseLine(text, 0, 0, { year, wrap: null, wrapSeen: null }).framed;
}
