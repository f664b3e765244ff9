/**
 * A gutter no one listed, read from the head of a file: text that another program put before every line and
 * that no engine frame follows on the lines seen so far, so the frame-anchored learning (wrapper.ts) cannot
 * find it. pdsh's `host: `, stern's `pod container `, a log viewer's time column and tab, a Markdown code
 * block's indentation, a line-number column (`cat -n`, `grep -n`), one over another. A file that begins inside
 * a traceback shows the case: no frame at all, and every line's meaning hangs on its first characters
 * (`Traceback (…`, `  File "…"`, `ValueError: …`).
 *
 * The rule: the first lines of the file (none of which reads as an engine's own from its first character) all
 * start with the same text, or the same shape of text; taking it off makes at least two of them read as an
 * engine's own. The analyzer then reads those lines again with it peeled, and peels it from the rest of the file.
 */
import { LITERAL, MAX_WRAPPER, NUMBER_GUTTERS, shapeRegex } from './wrapper.js';

/** How many lines, and how many characters of them, the head holds before it stops looking. */
export const HEAD_LINES = 48;
export const HEAD_CHARS = 64 * 1024;
/** Fewer lines than this say too little of what they share. */
const MIN_LINES = 3;
/** Lines that must read as an engine's own once the gutter is off. */
const MIN_REVEALED = 2;
/** A Markdown quote's marker. */
const QUOTE = /^> /;
/**
 * Python's (3.11+) marker under a frame's source line (traceback.py `_display_width` carets, `~` for the rest of
 * the expression): a line only a traceback prints. An excerpt of a traceback's last lines under a gutter holds
 * few `File` lines: its carets count among the lines the gutter's removal reveals.
 */
const CARETS = /^\s*[~^]*\^[~^]*\s*$/;

/** A line of the head, kept to be read again. */
export interface HeadLine {
  text: string;
  no: number;
  offset: number;
  /** The text with the known wrappers off (prefix.ts), where a gutter is looked for. */
  rest: string;
}

/**
 * The gutter the non-blank `texts` all start with, as a learned wrapper (wrapper.ts: a `=literal` or a shape),
 * or null. `readable` says whether a line reads as an engine's own (its frame, a traceback line, a line an
 * engine rule knows). The shortest candidate that makes at least two lines readable that were not wins.
 * `numbersOnly`: only a line-number column (what comes off a line before the known wrappers: see parseLine).
 */
export function commonGutter(
  texts: readonly string[],
  readable: (text: string) => boolean,
  numbersOnly = false,
): string | null {
  const lines = texts.filter((t) => t.trim() !== '');
  if (lines.length < MIN_LINES) return null;
  // Only a line that does not read as it is can be revealed: too few of them, and no gutter is looked for. A
  // Markdown quote (`> ` before every line: a paste quoted whole) needs one: loguru's `>` marks a single frame
  // of a traceback, never every line.
  const need = lines.every((t) => QUOTE.test(t)) ? 1 : MIN_REVEALED;
  const unread = new Set(lines.filter((t) => !readable(t)));
  if (unread.size < need) return null;
  // A number column first: a shape would take it together with whatever follows it on the first lines.
  const numbers = Object.keys(NUMBER_GUTTERS);
  for (const cand of numbersOnly ? numbers : [...numbers, ...literalGutters(lines), ...shapeGutters(lines)]) {
    if (reveals(cand, lines, unread, readable, need)) return cand;
  }
  return null;
}

function reveals(
  cand: string,
  lines: readonly string[],
  unread: ReadonlySet<string>,
  readable: (text: string) => boolean,
  need: number,
): boolean {
  const re = shapeRegex(cand);
  let revealed = 0;
  for (const t of lines) {
    const m = re.exec(t);
    if (m === null) return false;
    if (revealed < need && unread.has(t)) {
      const rest = t.slice(m[0].length);
      if (readable(rest) || CARETS.test(rest)) revealed++;
    }
  }
  return revealed >= need;
}

/** At most this many places to end a gutter are tried, shortest first. */
const MAX_CUTS = 6;

/**
 * The text every line starts with, ended after one of its blank runs (a gutter is set off by a blank). A run
 * after visible text is tried with one character of it first: the rest may be the lines' own indentation
 * (`|   File "…"`).
 */
function literalGutters(lines: readonly string[]): string[] {
  const p = commonStart(lines.map((t) => t.slice(0, MAX_WRAPPER)));
  return blankCuts(p).map((end) => LITERAL + p.slice(0, end));
}

/**
 * The same by shape (wrapper.ts prefixShape: word runs `w`, blank runs ` `), for gutters whose words change
 * from line to line (several hosts, a time column). Only with punctuation in it: a shape of bare words would
 * match any message. Its last blank is the one the lines print, the shortest of them.
 */
function shapeGutters(lines: readonly string[]): string[] {
  const c = commonStart(lines.map(shapeOf));
  const out: string[] = [];
  for (let at = c.indexOf(' ', 1); at > 0 && out.length < MAX_CUTS; at = c.indexOf(' ', at + 1)) {
    const body = c.slice(0, at);
    if (!/[^\sw]/.test(body)) continue;
    const re = shapeRegex(body);
    let tail: string | null = null;
    for (const t of lines) {
      const blank = /^\s*/.exec(t.slice(re.exec(t)![0].length))![0];
      if (tail === null || blank.length < tail.length) tail = blank;
    }
    if (!tail) continue;
    const esc = (s: string) => s.replace(/\t/g, '\\t');
    out.push(body + esc(tail[0]!));
    if (tail.length > 1) out.push(body + esc(tail));
  }
  return out;
}

/** What all the texts start with ('' when nothing). */
function commonStart(texts: readonly string[]): string {
  let p = texts[0]!;
  for (const t of texts) {
    let i = 0;
    while (i < p.length && i < t.length && p.charCodeAt(i) === t.charCodeAt(i)) i++;
    if (i < p.length) p = p.slice(0, i);
    if (p === '') break;
  }
  return p;
}

/** The ends of `p`'s blank runs, as gutter lengths to try, shortest first. */
function blankCuts(p: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < p.length && out.length < MAX_CUTS; i++) {
    if (!isBlank(p.charCodeAt(i))) continue;
    let j = i;
    while (j < p.length && isBlank(p.charCodeAt(j))) j++;
    if (i > 0) out.push(i + 1);
    if (j > i + 1 || i === 0) out.push(j);
    i = j;
  }
  return out;
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}

function shapeOf(text: string): string {
  return text.slice(0, MAX_WRAPPER).replace(/\w+/g, 'w').replace(/\s+/g, ' ');
}
