/**
 * Hard-wrapped pastes: a terminal's copy or an issue box cuts long lines into pieces of exactly the wrap column's
 * width. The analyzer holds a line of that width until the next line says whether it goes on.
 */
import { type PrefixContext, parseLine } from './prefix.js';

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
 * Whether a physical line goes on the one before it (`held`), cut at the wrap column: not a line of its own (a
 * logger's frame, under the file's learned wrapper if it has one, an indented traceback line, a traceback
 * header, a progress bar, an empty line), nor one that starts as the held line does (a gutter's line numbers
 * or host, the same punctuation in its first word: a piece of a cut line starts anywhere in its text).
 */
export function continuesWrap(text: string, held: string, ctx: PrefixContext): boolean {
  if (text === '' || /^(?:\s{2}|\t)/.test(text) || text.includes('\r')) return false;
  if (/^Traceback \(most recent call last\)|\d+%\|/.test(text)) return false;
  // A box-drawn table (Triton's model and backend tables, nvidia-smi, a log viewer's frame) has every row at the
  // same width: each row, and each border, is a line of its own.
  if (/^[|+│]/.test(text) && /^[|+│]/.test(held)) return false;
  const head = firstWordShape(text);
  if (head !== null && head === firstWordShape(held)) return false;
  return !parseLine(text, 0, 0, { year: ctx.year, wrap: ctx.wrap ?? null, wrapSeen: null }).framed;
}

/** The shortest line taken for a piece cut inside a call: terminals and issue boxes wrap at 80 columns or more. */
const MIN_CALL_PIECE = 80;
const isWordCode = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/**
 * A line that a paste cut in the middle of a word inside a call it opened (`… error in ::cudaMallocAsync(ptr, n,
 * mCudaSt`): no program ends a line there, so it may be a hard-wrapped piece even where no wrap column has shown
 * itself yet (a paste with one long line). The next line says whether it goes on (closesCall).
 */
export function cutInCall(text: string): boolean {
  if (text.length < MIN_CALL_PIECE || !isWordCode(text.charCodeAt(text.length - 1))) return false;
  const open = text.lastIndexOf('(');
  return open > 0 && open > text.lastIndexOf(')') && isWordCode(text.charCodeAt(open - 1));
}

/** Whether `next` goes on a piece cut inside a call (cutInCall): it starts mid-word and closes the call. */
export function closesCall(next: string): boolean {
  if (!isWordCode(next.charCodeAt(0))) return false;
  let depth = 1;
  for (let i = 0; i < next.length; i++) {
    const c = next.charCodeAt(i);
    if (c === 40) depth++;
    else if (c === 41 && --depth === 0) return true;
  }
  return false;
}

/** The shape of a line's first word (word runs `w`), when it has punctuation: `12:[05/30/2025-23:49:44]` → `w:[w/w/w-w:w:w]`. */
function firstWordShape(text: string): string | null {
  const word = /^\S{2,40}/.exec(text)?.[0];
  if (word === undefined) return null;
  const shape = word.replace(/\w+/g, 'w');
  return /[^w]/.test(shape) ? shape : null;
}
