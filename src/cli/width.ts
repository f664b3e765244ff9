/**
 * How wide output may be, and cutting text to it at word boundaries.
 *
 * The width: `COLUMNS` when set (as `ls` and `ps` honour it: an explicit choice, also for a pipe), else the
 * terminal's width, else no limit. Piped output is not cut: `firedup runs | grep` and `| less -S` get every
 * column, and a script never sees an ellipsis it did not ask for.
 */

/** Narrower than this, tables and blocks stop shrinking: a cut that leaves nothing readable helps no one. */
export const MIN_WIDTH = 40;

export function outputWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number | null {
  const env = Number(process.env.COLUMNS);
  if (Number.isInteger(env) && env > 0) return Math.max(MIN_WIDTH, env);
  if (stream.isTTY && stream.columns) return Math.max(MIN_WIDTH, stream.columns);
  return null;
}

/** Characters that end a word: a cut after one reads as a whole word (paths and model names cut at `/`, `-`). */
const BREAK = /[\s/\-_.,:;=·|)]/;

/** Visible length (code points; escape sequences are not passed here). */
export const vlen = (s: string): number => [...s].length;

/**
 * `s` in at most `n` characters: whole, or cut after the last word that fits, with `…`. A cut falls
 * mid-word only when the first word alone is longer than half the room (a hash, a long path segment).
 */
export function cutText(s: string, n: number): string {
  const cs = [...s];
  if (cs.length <= n) return s;
  if (n <= 1) return '…'.slice(0, n);
  const room = n - 1;
  let cut = -1;
  for (let i = room; i > 0; i--)
    if (BREAK.test(cs[i]!) || BREAK.test(cs[i - 1]!)) {
      cut = i;
      break;
    }
  if (cut < Math.ceil(room / 2)) cut = room;
  return `${cs.slice(0, cut).join('').replace(/\s+$/, '')}…`;
}

/** `s` in at most `n` characters keeping its end (a path's file name): `…/logs/server.log`. */
export function cutStart(s: string, n: number): string {
  const cs = [...s];
  if (cs.length <= n) return s;
  if (n <= 1) return '…'.slice(0, n);
  const room = n - 1;
  let start = cs.length - room;
  for (let i = start; i < cs.length - Math.floor(room / 2); i++)
    if (BREAK.test(cs[i - 1]!)) {
      start = i;
      break;
    }
  return `…${cs.slice(start).join('')}`;
}

const ESC = /^\x1b\[[0-9;?]*[A-Za-z]/;

/**
 * A line that may carry colour, cut to `width` visible characters at a word boundary, escape sequences
 * kept whole and colour reset after the cut.
 */
export function fitLine(line: string, width: number): string {
  const plain = line.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  if (vlen(plain) <= width) return line;
  const keep = vlen(cutText(plain, width)) - 1;
  let visible = 0;
  let out = '';
  for (let i = 0; i < line.length; ) {
    const m = line[i] === '\x1b' ? ESC.exec(line.slice(i)) : null;
    if (m) {
      out += m[0];
      i += m[0].length;
      continue;
    }
    if (visible >= keep) break;
    const cp = String.fromCodePoint(line.codePointAt(i)!);
    out += cp;
    i += cp.length;
    visible++;
  }
  return `${out.replace(/\s+$/, '')}…${line.includes('\x1b') ? '\x1b[0m' : ''}`;
}

/** Words of `text` filled into lines of at most `width` characters (a word longer than that stays whole). */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const w of text.split(/\s+/).filter(Boolean)) {
    if (cur && vlen(cur) + 1 + vlen(w) > width) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(cur);
  return lines;
}

/** Every line fitted to the output's width (unchanged when there is no limit). */
export function fitLines(lines: string[], width: number | null = outputWidth()): string[] {
  return width === null ? lines : lines.map((l) => fitLine(l, width));
}

/** Visible length of a line that may carry colour. */
const plainLen = (s: string): number => vlen(s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''));

/**
 * A line that may carry colour, wrapped at spaces to `width` visible characters; continuation lines start
 * with `indent` (default: the line's own indent and 4 more). Never breaks inside a word: a word wider than the
 * room is cut at a word boundary with `…` (fitLine).
 */
export function wrapLine(line: string, width: number, indent?: string): string[] {
  if (plainLen(line) <= width) return [line];
  const lead = /^ */.exec(line)![0];
  const cont = indent ?? `${lead}    `;
  // Words with the spaces after them: the spacing inside a line (aligned columns) is kept where it does not wrap.
  const tokens = line.slice(lead.length).match(/\S+ */g) ?? [];
  const out: string[] = [];
  let cur = lead;
  let curLen = lead.length;
  let gap = '';
  let fresh = true;
  for (const t of tokens) {
    const w = t.trimEnd();
    const wl = plainLen(w);
    if (!fresh && curLen + gap.length + wl > width) {
      out.push(cur);
      cur = cont;
      curLen = cont.length;
      fresh = true;
    }
    if (!fresh) {
      cur += gap;
      curLen += gap.length;
    }
    cur += w;
    curLen += wl;
    gap = t.slice(w.length);
    fresh = false;
  }
  out.push(cur);
  return out.map((l) => (plainLen(l) > width ? fitLine(l, width) : l));
}

/**
 * Lines of a text report fitted to the output's width: prose wrapped at words under its indent, quoted log
 * lines (`  123: text`, marked by `isQuote`) cut with `…` since a log line wrapped reads as two. No limit
 * (piped without COLUMNS): unchanged.
 */
export function fitReport(
  lines: string[],
  width: number | null = outputWidth(),
  isQuote: (plain: string) => boolean = (p) => /^\s+\d+: /.test(p),
): string[] {
  if (width === null) return lines;
  return lines.flatMap((l) => {
    if (plainLen(l) <= width) return [l];
    const plain = l.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    return isQuote(plain) ? [fitLine(l, width)] : wrapLine(l, width);
  });
}
