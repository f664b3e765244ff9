/**
 * Which of many entries (a rule, a template, a pattern) a text could satisfy, from the literals each needs: an
 * entry names literals one of which any text it takes contains (any-of), and is a candidate for a text only when
 * one of them may be in it. One pass over the text finds every candidate at once, so a line that holds no
 * entry's literal costs that pass, not a test per entry (issue 23: nothing is tried on a line that cannot match).
 *
 * Each literal is keyed by one of its GRAM-character windows (the rarest among the literals added); a text's
 * windows are looked up in a hash table of those keys, and where one is found the literal is compared there.
 * Characters are compared with their 0x20 bit set (one OR a character): ASCII letters without case, so that a
 * case-insensitive pattern's literal is found too, and a few other pairs alike (`@` and a backtick, `[` and
 * `{`). A candidate is therefore only a maybe, which the caller still tests; an entry with a literal shorter
 * than GRAM, or none, is always a candidate. A candidate set is a superset of the entries whose literals the
 * text holds (letters without case).
 */

/** Window length in characters: long enough that most windows of a line key no literal. */
export const GRAM = 4;
const TABLE_BITS = 12;
/**
 * A key's bit in `present` is the top PRESENT_BITS of its hash, its bucket the top TABLE_BITS: one multiply a
 * window, and most windows (no literal's key) stop at one bit test, under 2 % of them going on to a bucket.
 */
const PRESENT_BITS = 16;
/** The table the windows of all literals are counted in (to pick each literal's rarest). */
const COUNT_BITS = 14;
const hashOf = (key: number) => Math.imul(key, 0x9e3779b1) >>> (32 - PRESENT_BITS);

export class LiteralIndex {
  private entries = 0;
  /**
   * The postings, chained per bucket of their key (head[bucket], then next[p]): a window key, the entry whose
   * literal it is in, the literal and where the window starts in it. Appended as entries are added:
   * the catalogs' templates come in one catalog at a time, as each is first read.
   */
  private readonly head = new Int32Array(1 << TABLE_BITS).fill(-1);
  private readonly present = new Int32Array(1 << (PRESENT_BITS - 5));
  private next = new Int32Array(64);
  private postKey = new Int32Array(64);
  private postEntry = new Int32Array(64);
  private postAt = new Int32Array(64);
  private readonly postLit: string[] = [];
  /** How often each window (hashed: a collision only merges two counts) is in the literals added. */
  private readonly counts = new Int32Array(1 << COUNT_BITS);
  /** The entries that are candidates for any text. */
  private always = new Uint32Array(1);
  /**
   * The candidate sets of the last two texts read, and the texts: a caller asking again for the same line pays
   * nothing, nor one that asks of a line's message and its whole text in turn (the detection patterns).
   */
  private bits = new Uint32Array(1);
  private last: string | null = null;
  private bits2 = new Uint32Array(1);
  private last2: string | null = null;

  /** Adds an entry needing one of `literals` (null or empty: nothing known), and returns its number. */
  add(literals: readonly string[] | null): number {
    return this.addAll([literals]);
  }

  /**
   * Adds entries in order and returns the first one's number (the others follow it). Each literal is keyed by
   * its window the fewest literals so far hold (fewest texts to compare it in), counted over the batch first.
   * This runs at a command's first line: a few passes over the literals, no map or set per literal.
   */
  addAll(needs: ReadonlyArray<readonly string[] | null>): number {
    const first = this.entries;
    this.entries += needs.length;
    const words = (this.entries + 31) >> 5;
    if (words > this.always.length) {
      const a = new Uint32Array(words * 2);
      a.set(this.always);
      this.always = a;
      this.bits = new Uint32Array(words * 2);
      this.bits2 = new Uint32Array(words * 2);
    }
    this.last = this.last2 = null;
    const counts = this.counts;
    const lits: string[] = [];
    const owners: number[] = [];
    for (let i = 0; i < needs.length; i++) {
      const need = needs[i]!;
      const entry = first + i;
      if (need === null || need.length === 0 || need.some((l) => l.length < GRAM)) {
        this.always[entry >> 5]! |= 1 << (entry & 31);
        continue;
      }
      for (const lit of need) {
        // (the hashes written out: this runs before the code is compiled, where each call costs)
        let k = 0;
        for (let j = 0; j < lit.length; j++) {
          k = (k << 8) | ((lit.charCodeAt(j) | 0x20) & 0xff);
          if (j >= GRAM - 1) counts[Math.imul(k, 0x85ebca6b) >>> (32 - COUNT_BITS)]!++;
        }
        lits.push(lit);
        owners.push(entry);
      }
    }
    for (let i = 0; i < lits.length; i++) {
      const f = lits[i]!;
      let k = 0;
      let key = 0;
      let at = 0;
      let fewest = 0x7fffffff;
      for (let j = 0; j < f.length; j++) {
        k = (k << 8) | ((f.charCodeAt(j) | 0x20) & 0xff);
        if (j < GRAM - 1) continue;
        const c = counts[Math.imul(k, 0x85ebca6b) >>> (32 - COUNT_BITS)]!;
        if (c < fewest) {
          fewest = c;
          key = k;
          at = j + 1 - GRAM;
        }
      }
      this.post(key, owners[i]!, f, at);
    }
    return first;
  }

  private post(key: number, entry: number, lit: string, at: number): void {
    const p = this.postLit.length;
    if (p === this.next.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.next = grow(this.next);
      this.postKey = grow(this.postKey);
      this.postEntry = grow(this.postEntry);
      this.postAt = grow(this.postAt);
    }
    const h = hashOf(key);
    this.present[h >> 5]! |= 1 << (h & 31);
    const b = h >>> (PRESENT_BITS - TABLE_BITS);
    this.next[p] = this.head[b]!;
    this.head[b] = p;
    this.postKey[p] = key;
    this.postEntry[p] = entry;
    this.postAt[p] = at;
    this.postLit.push(lit);
  }

  get size(): number {
    return this.entries;
  }

  /**
   * The candidate entries for `s`, as a bit set (entry i is bit i & 31 of word i >> 5). The set is reused:
   * valid until candidates are asked of two other texts.
   */
  candidates(s: string): Uint32Array {
    if (s === this.last) return this.bits;
    if (s === this.last2) return this.bits2;
    // the older of the two sets takes this text's
    const bits = this.bits2;
    this.bits2 = this.bits;
    this.last2 = this.last;
    this.bits = bits;
    bits.set(this.always);
    this.last = s;
    const n = s.length;
    if (n < GRAM) return bits;
    const present = this.present;
    let k = 0;
    for (let i = 0; i < GRAM - 1; i++) k = (k << 8) | ((s.charCodeAt(i) | 0x20) & 0xff);
    for (let i = GRAM - 1; i < n; i++) {
      k = (k << 8) | ((s.charCodeAt(i) | 0x20) & 0xff);
      const h = hashOf(k);
      if ((present[h >> 5]! & (1 << (h & 31))) !== 0) this.found(s, i + 1 - GRAM, k, h, bits);
    }
    return bits;
  }

  /** A window whose key may be a literal's: the literals keyed by it that `s` holds there join `bits`. */
  private found(s: string, at: number, k: number, h: number, bits: Uint32Array): void {
    const next = this.next;
    for (let p = this.head[h >>> (PRESENT_BITS - TABLE_BITS)]!; p >= 0; p = next[p]!) {
      const e = this.postEntry[p]!;
      if (this.postKey[p] === k && (bits[e >> 5]! & (1 << (e & 31))) === 0 && this.holds(s, at, p))
        bits[e >> 5]! |= 1 << (e & 31);
    }
  }

  /** Whether posting p's literal is in `s` where its window is at `at` (letters without case). */
  private holds(s: string, at: number, p: number): boolean {
    const lit = this.postLit[p]!;
    const from = at - this.postAt[p]!;
    if (from < 0 || from + lit.length > s.length) return false;
    for (let j = 0; j < lit.length; j++)
      if ((s.charCodeAt(from + j) | 0x20) !== (lit.charCodeAt(j) | 0x20)) return false;
    return true;
  }
}

/** Whether entry `i` is in a candidate set. */
export const isCandidate = (bits: Uint32Array, i: number): boolean => (bits[i >> 5]! & (1 << (i & 31))) !== 0;

/** The first candidate in [i, to), or -1: walks a range of entries in their order, skipping 32 at a time. */
export function nextCandidate(bits: Uint32Array, i: number, to: number): number {
  while (i < to) {
    const w = bits[i >> 5]! >>> (i & 31);
    if (w === 0) {
      i = (i | 31) + 1;
      continue;
    }
    const j = i + 31 - Math.clz32(w & -w);
    return j < to ? j : -1;
  }
  return -1;
}

/**
 * The one index the patterns tried on every line add to (the rules, the catalogs' floating templates, the gated
 * patterns): a line's message, and its whole text, are scanned once whatever asks of them.
 */
export const lineLiterals = new LiteralIndex();
