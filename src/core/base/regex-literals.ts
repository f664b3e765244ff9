/**
 * Literals a regular expression needs: a list of strings one of which every text it matches contains, read from
 * its source, or null where none can be shown. It lets a LiteralIndex skip a pattern on a line that holds none
 * of them (a rule written without its `lit`, a detection pattern). Conservative by construction: only plain
 * characters in sequence make a literal; anything else (a class, an escape of a class, an anchor, a lookaround,
 * a backreference, an optional or repeated part) ends it, and a syntax this reader does not follow gives null.
 * An alternation needs one literal from each branch; a group repeated at least once needs what its inside needs.
 * With the `i` flag a literal is matched without case: only ASCII ones are given (a non-ASCII letter's case
 * folding is the engine's, not the index's). test/core/base/regex-literals.test.ts checks each literal the
 * engines' rules get against generated matches and every real line the rules match.
 */

/** Literals shorter than this are not worth keying on (most lines hold them). */
const MIN_LITERAL = 4;

/** A requirement: one of these literals is in every match (its worth: the shortest of them). */
type Need = readonly string[];
const worth = (n: Need) => Math.min(...n.map((l) => l.length));
const better = (a: Need | null, b: Need | null) =>
  b !== null && (a === null || worth(b) > worth(a)) ? b : a;

class Unsupported extends Error {}

/** A run of characters that stand for themselves (plain ones, escaped punctuation), its last one apart. */
const PLAIN = /(?:[^\\[\](){}|.^$*+?]|\\[^A-Za-z0-9])*([^\\[\](){}|.^$*+?]|\\[^A-Za-z0-9])/y;
const ESCAPED = /\\(.)/g;

class Reader {
  i = 0;
  constructor(private readonly src: string) {}

  /** An alternation up to `)` or the end: every branch must need something. */
  alternation(): Need | null {
    const all = new Set<string>();
    let none = false;
    for (;;) {
      const need = this.sequence();
      if (need === null) none = true;
      else for (const l of need) all.add(l);
      if (this.src[this.i] !== '|') break;
      this.i++;
    }
    return none ? null : [...all];
  }

  /** A sequence of terms: its best need, a run of plain characters or a group repeated at least once. */
  private sequence(): Need | null {
    const s = this.src;
    let best: Need | null = null;
    let run = '';
    const endRun = (next = '') => {
      if (run.length >= MIN_LITERAL) best = better(best, [run]);
      run = next;
    };
    while (this.i < s.length && s[this.i] !== '|' && s[this.i] !== ')') {
      // plain characters, taken a run at a time (this runs at a command's first line, before the code is hot); a
      // quantifier after the run takes its last character alone, which is read as a term below
      PLAIN.lastIndex = this.i;
      const plain = PLAIN.exec(s);
      if (plain !== null) {
        const q = s[this.i + plain[0].length];
        const quantified = q === '?' || q === '*' || q === '+' || q === '{';
        const body = quantified ? plain[0].slice(0, plain[0].length - plain[1]!.length) : plain[0];
        run += body.replace(ESCAPED, '$1');
        this.i += body.length;
        if (!quantified) continue;
      }
      const c = s[this.i]!;
      let ch: string | null = null;
      let group: Need | null = null;
      if (c === '\\') ch = this.escape();
      else if (c === '[') this.skipClass();
      else if (c === '(') group = this.group();
      else if (c === '{' || c === '}' || c === ']') throw new Unsupported(c);
      else {
        this.i++;
        // `.`, `^` and `$` match no character of their own; any other character is itself
        if (c !== '.' && c !== '^' && c !== '$' && c !== '*' && c !== '+' && c !== '?') ch = c;
        else if (c === '*' || c === '+' || c === '?') throw new Unsupported(c);
      }
      const [min, max] = this.quantifier();
      if (ch !== null) {
        if (min === 0) endRun();
        else if (max === min) run += ch.repeat(min);
        else {
          // `xa+b`: `xa` is in every match, and `ab`: the run ends with `a` once, and the last `a` starts the next
          run += ch.repeat(min);
          endRun(ch);
        }
      } else {
        endRun();
        if (group !== null && min > 0) best = better(best, group);
      }
    }
    endRun();
    return best;
  }

  /** `{n}`, `{n,}`, `{n,m}`, `?`, `*`, `+` (and a lazy `?` after it): [min, max]; [1, 1] when none. */
  private quantifier(): [number, number] {
    const s = this.src;
    const c = s[this.i];
    let q: [number, number] = [1, 1];
    if (c === '?') q = [0, 1];
    else if (c === '*') q = [0, Infinity];
    else if (c === '+') q = [1, Infinity];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i));
      if (m === null) throw new Unsupported('{');
      const min = Number(m[1]);
      q = [min, m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3])];
      this.i += m[0].length - 1;
    } else return q;
    this.i++;
    if (s[this.i] === '?') this.i++;
    return q;
  }

  /** An escape: the character it stands for, or null for a class, an assertion or a reference. */
  private escape(): string | null {
    const s = this.src;
    const x = s[this.i + 1];
    if (x === undefined) throw new Unsupported('\\');
    this.i += 2;
    if ('dDwWsSbB'.includes(x)) return null;
    if (/[A-Za-z0-9]/.test(x)) throw new Unsupported(`\\${x}`);
    return x;
  }

  /** `[…]`, skipped: a class matches one character, none of a literal. */
  private skipClass(): void {
    const s = this.src;
    let i = this.i + 1;
    if (s[i] === '^') i++;
    for (; i < s.length && s[i] !== ']'; i++) if (s[i] === '\\') i++;
    if (i >= s.length) throw new Unsupported('[');
    this.i = i + 1;
  }

  /** A group: what it needs; a lookaround needs nothing of the text it stands at. */
  private group(): Need | null {
    const s = this.src;
    let i = this.i + 1;
    let look = false;
    if (s[i] === '?') {
      const kind = s.slice(i, i + 3);
      if (kind.startsWith('?:')) i += 2;
      else if (kind.startsWith('?=') || kind.startsWith('?!')) {
        i += 2;
        look = true;
      } else if (kind === '?<=' || kind === '?<!') {
        i += 3;
        look = true;
      } else if (kind.startsWith('?<')) {
        const close = s.indexOf('>', i);
        if (close < 0) throw new Unsupported('(?<');
        i = close + 1;
      } else throw new Unsupported('(?');
    }
    this.i = i;
    const need = this.alternation();
    if (s[this.i] !== ')') throw new Unsupported('(');
    this.i++;
    return look ? null : need;
  }
}

/**
 * Literals one of which every match of `re` contains, each at least MIN_LITERAL characters (lower-cased under
 * the `i` flag), or null where none can be shown.
 */
export function requiredLiterals(re: RegExp): string[] | null {
  const f = re.flags;
  // `g`/`y` keep state between calls, which skipping a call would change; `v` has another class syntax
  if (f.includes('g') || f.includes('y') || f.includes('v')) return null;
  const fold = f.includes('i');
  if (fold && f.includes('u')) return null;
  // a surrogate pair is one character under `u` (a quantifier takes both halves): not followed here
  if (/[\ud800-\udfff]/.test(re.source)) return null;
  const r = new Reader(re.source);
  let need: Need | null;
  try {
    need = r.alternation();
    if (r.i !== re.source.length) return null;
  } catch (err) {
    if (err instanceof Unsupported) return null;
    throw err;
  }
  if (need === null) return null;
  if (fold && need.some((l) => [...l].some((c) => c.charCodeAt(0) > 0x7f))) return null;
  return fold ? need.map((l) => l.toLowerCase()) : [...need];
}
