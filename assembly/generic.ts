// The generic reader's loop (src/core/reading/generic-scan.ts, issue 23): lines no engine scanner reads (plain
// text, Ollama's GIN lines, TGI's router lines under compose's prefix), each hashed by its shape and looked up
// in a table the TypeScript side fills from the general path. The same shape as GenericScanner.shape (the same
// tokens, the same murmur3-style words, the same 53-bit key: test/core/reading/generic-scan.test.ts compares
// both on every real line), the same stamp time, the same hard-wrap count. A line whose shape is not in the
// table, or one the table says the general path reads, stops the loop; the TypeScript side handles it.
//
// Its own instance (bulk-instance.ts), so its own memory: results in RES (f64 slots G_*), the table at GTAB
// (16-byte entries: u64 the state and the key, i32 the verdict plus one, 0 when empty), the chunk at GIN.

const RES: usize = 0;
const GTAB: usize = 524288;
const GTAB_BITS: i32 = 17;
const GTAB_N: i32 = 1 << GTAB_BITS;
const GENTRY: usize = 16;
const GIN: usize = GTAB + (<usize>GTAB_N) * GENTRY;

// result slots (f64)
const G_LINES = 100;
const G_LAST_START = 101;
const G_LAST_END = 102;
const G_FIRST_TS = 103;
const G_LAST_TS = 104;
const G_YEAR = 105;
const G_ENGINE_LINES = 106;
const G_REQUESTS = 107;
const G_PROG_IDX = 108;
const G_PROG_TS = 109;
const G_STOP = 110;
const G_WRAP_MAX = 111;
const G_WRAP_AT_MAX = 112;
// genericShape's answer: the key (-1: none), the decoded length, the stamp's time (NaN: none) and year
const G_KEY = 113;
const G_UNITS = 114;
const G_STAMP_TS = 115;
const G_STAMP_YEAR = 116;

// verdicts (generic-scan.ts Verdict)
const V_NEVER = 0;
const V_TOUCH = 1;
const V_SERVING_ENGINE = 2;
const V_ACCESS_ENGINE = 4;
const V_ACCESS_COMMON = 5;

/** A stamp is looked for in a line's first bytes only. */
const STAMP_REACH: i32 = 80;

@inline function gres(i: i32, v: f64): void {
  store<f64>(RES + (<usize>i << 3), v);
}

@inline function g(p: i32): i32 {
  return <i32>load<u8>(GIN + <usize>p);
}

@inline function isDigit(c: i32): bool {
  return <u32>(c - 48) < 10;
}

/**
 * Bytes around a short number that make it a word of its own (generic-scan.ts `alone`: tab, space, `"#'(),;<=>`
 * below 64, `[]{|}` above), as bits of two masks; -1 (the line's start or end) too.
 */
const ALONE_LO: u64 =
  (<u64>1 << 9) | (<u64>1 << 32) | (<u64>1 << 34) | (<u64>1 << 35) | (<u64>1 << 39) | (<u64>1 << 40) | (<u64>1 << 41) | (<u64>1 << 44) |
  (<u64>1 << 59) | (<u64>1 << 60) | (<u64>1 << 61) | (<u64>1 << 62);
const ALONE_HI: u64 = (<u64>1 << (91 - 64)) | (<u64>1 << (93 - 64)) | (<u64>1 << (123 - 64)) | (<u64>1 << (124 - 64)) | (<u64>1 << (125 - 64));

@inline function alone(c: i32): bool {
  if (c < 0) return true;
  if (c < 64) return ((ALONE_LO >> <u64>c) & 1) != 0;
  if (c < 128) return ((ALONE_HI >> <u64>(c - 64)) & 1) != 0;
  return false;
}

@inline function mix(h: u32, k: u32, c1: u32, c2: u32): u32 {
  k *= c1;
  k = rotl<u32>(k, 15);
  h ^= k * c2;
  h = rotl<u32>(h, 13);
  return h * 5 + 0xe6546b64;
}

@inline function fmix(h: u32): u32 {
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  return h ^ (h >> 16);
}

// the line `shape` read last
let hasStamp = false;
let stampTs: f64 = 0;
let stampYear: f64 = 0;
let units: i32 = 0;
let dayKey: i32 = -1;
let dayBase: f64 = 0;

@inline function d2(k: i32): i32 {
  const a = g(k) - 48;
  const b2 = g(k + 1) - 48;
  return <u32>a <= 9 && <u32>b2 <= 9 ? a * 10 + b2 : -1;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1-12; day may run past the month's end). */
function daysOf(y: i32, m: i32, d: i32): f64 {
  // Date.UTC reads a year 0-99 as 1900 + it
  if (y >= 0 && y <= 99) y += 1900;
  const yy = m <= 2 ? y - 1 : y;
  const era = (yy >= 0 ? yy : yy - 399) / 400;
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = (153 * mp + 2) / 5;
  const doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return <f64>(era * 146097 + doe - 719468) + <f64>(d - 1);
}

/**
 * `YYYY-MM-DD[T ]HH:MM:SS[(.|,)F+][Z]` at i: its end, or -1; the time into stampTs/stampYear as
 * GenericScanner.stamp reads it (the same f64 operations in the same order).
 */
function stamp(i: i32, e: i32): i32 {
  if (i + 19 > e) return -1;
  const y = (g(i) - 48) * 1000 + (g(i + 1) - 48) * 100 + (g(i + 2) - 48) * 10 + (g(i + 3) - 48);
  if (g(i + 4) != 45 || g(i + 7) != 45) return -1;
  const mo = d2(i + 5);
  const d = d2(i + 8);
  const sep = g(i + 10);
  if (sep != 84 && sep != 32) return -1;
  const h = d2(i + 11);
  if (g(i + 13) != 58) return -1;
  const mi = d2(i + 14);
  if (g(i + 16) != 58) return -1;
  const sec = d2(i + 17);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
    return -1;
  let j = i + 19;
  let frac: f64 = 0;
  if (j < e && (g(j) == 46 || g(j) == 44) && j + 1 < e && isDigit(g(j + 1))) {
    j++;
    const f0 = j;
    let v: f64 = 0;
    while (j < e && isDigit(g(j))) v = v * 10 + <f64>(g(j++) - 48);
    if (j - f0 > 15) return -1;
    frac = v / pow10(j - f0);
  }
  if (j < e && g(j) == 90) j++;
  if (j < e) {
    const c = g(j);
    if (isDigit(c) || c == 58 || c == 43 || c == 45) return -1;
  }
  const key = y * 10000 + mo * 100 + d;
  if (key != dayKey) {
    dayKey = key;
    dayBase = daysOf(y, mo, d) * 86400;
  }
  stampTs = dayBase + <f64>(h * 3600) + <f64>(mi * 60) + <f64>sec + frac;
  stampYear = <f64>y;
  return j;
}

function pow10(n: i32): f64 {
  let p: f64 = 1;
  for (let k = 0; k < n; k++) p *= 10;
  return p;
}

/**
 * The shape key of line [s, e) (GenericScanner.shape): 53 bits, or -1 when the reader takes no such line (a
 * control byte, a byte no UTF-8 text holds). Its decoded length into `units`, its stamp into stampTs/stampYear.
 */
function shape(s: i32, e: i32): i64 {
  let h1: u32 = 0x9747b28c;
  let h2: u32 = 0x2545f491;
  let acc: u32 = 0;
  let n: u32 = 0;
  let q4 = 0;
  hasStamp = false;
  let first = true;
  let u = e - s;
  let i = s;
  const lo = i8x16.splat(32);
  const hi = i8x16.splat(126);
  const zero = i8x16.splat(48);
  const ten = i8x16.splat(10);
  while (i < e) {
    // past the first word, four tokens at a time: a run of bytes that are tokens of their own (no digit, no
    // control byte, nothing outside ASCII), 16 looked at at once (the chunk has room after its end)
    if (!first && q4 == 0) {
      const v = v128.load(GIN + <usize>i);
      const odd = v128.or(v128.or(i8x16.lt_u(v, lo), i8x16.gt_u(v, hi)), i8x16.lt_u(i8x16.sub(v, zero), ten));
      let plain = <i32>ctz<u32>(<u32>i8x16.bitmask(odd) | 0x10000);
      if (plain > e - i) plain = e - i;
      if (plain >= 4) {
        for (let q = plain >> 2; q > 0; q--) {
          const w = bswap<u32>(load<u32>(GIN + <usize>i));
          h1 = mix(h1, w, 0xcc9e2d51, 0x1b873593);
          h2 = mix(h2, w, 0x85ebca6b, 0xc2b2ae35);
          i += 4;
        }
        n += <u32>(plain & ~3);
        continue;
      }
    }
    const c = g(i);
    let tok: u32 = <u32>c;
    if (c >= 58) {
      if (c >= 0x7f) {
        if (c == 0x7f || c == 0xc0 || c == 0xc1 || c >= 0xf5) return -1;
        if (c < 0xc0) u--;
        else if (c >= 0xf0) u++;
      }
      i++;
    } else if (c >= 48) {
      // the run's end: 16 bytes looked at at once (the chunk has room after its end)
      let j = i;
      for (;;) {
        const v = v128.load(GIN + <usize>j);
        const nd = <u32>i8x16.bitmask(i8x16.ge_u(i8x16.sub(v, zero), ten));
        if (nd != 0) {
          j += <i32>ctz<u32>(nd);
          break;
        }
        j += 16;
        if (j >= e) break;
      }
      if (j > e) j = e;
      let stamped = false;
      if (!hasStamp && j - i == 4 && i - s < STAMP_REACH && (i == s || !isDigit(g(i - 1)))) {
        const q = stamp(i, e);
        if (q > 0) {
          hasStamp = true;
          stamped = true;
          tok = 1;
          j = q;
        }
      }
      if (!stamped) {
        const prev = i > s ? g(i - 1) : -1;
        const next = j < e ? g(j) : -1;
        if (
          j - i <= 3 &&
          ((alone(prev) && alone(next)) || (first && prev != 58 && prev != 46 && next != 58 && next != 46))
        ) {
          for (let k = i; k < j - 1; k++) {
            acc = (acc << 8) | <u32>g(k);
            n++;
            if (++q4 == 4) {
              q4 = 0;
              h1 = mix(h1, acc, 0xcc9e2d51, 0x1b873593);
              h2 = mix(h2, acc, 0x85ebca6b, 0xc2b2ae35);
              acc = 0;
            }
          }
          tok = <u32>g(j - 1);
        } else tok = 2;
      }
      i = j;
    } else if (c >= 32 || c == 9) {
      if (c == 32 || c == 9) first = false;
      i++;
    } else return -1;
    acc = (acc << 8) | tok;
    n++;
    if (++q4 == 4) {
      q4 = 0;
      h1 = mix(h1, acc, 0xcc9e2d51, 0x1b873593);
      h2 = mix(h2, acc, 0x85ebca6b, 0xc2b2ae35);
      acc = 0;
    }
  }
  h1 = fmix(mix(h1, acc, 0xcc9e2d51, 0x1b873593) ^ n);
  h2 = fmix(mix(h2, acc, 0x85ebca6b, 0xc2b2ae35) ^ n);
  units = u;
  return (<i64>h1 << 21) | <i64>(h2 & 0x1fffff);
}

/** The first newline in [p, lim), or lim: 16 bytes at a time. */
function newline(p: i32, lim: i32): i32 {
  const nl = i8x16.splat(10);
  while (p + 16 <= lim) {
    const m = i8x16.bitmask(i8x16.eq(v128.load(GIN + <usize>p), nl));
    if (m != 0) return p + <i32>ctz<u32>(m);
    p += 16;
  }
  while (p < lim && g(p) != 10) p++;
  return p;
}

/** hard-wrap.ts / generic-scan.ts firstWordShape: the shape of a line's first word, hashed; -1 when none. */
function firstWordShape(s: i32, e: i32): i64 {
  const stop = e < s + 40 ? e : s + 40;
  let i = s;
  let h: u32 = 0x811c9dc5;
  let punct = false;
  let inWord = false;
  for (; i < stop; i++) {
    const c = g(i);
    if (c == 32 || (c >= 9 && c <= 13)) break;
    if (c >= 0x80) return -1;
    const w = isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95;
    if (w) {
      if (!inWord) h = (h ^ 0x77) * 16777619;
      inWord = true;
    } else {
      punct = true;
      inWord = false;
      h = (h ^ <u32>c) * 16777619;
    }
  }
  return i - s < 2 || !punct ? -1 : <i64>h;
}

// the table
let stopKey: i64 = 0;

@inline function entryOf(full: u64): usize {
  return GTAB + <usize>((full * 0x9e3779b97f4a7c15) >> (64 - GTAB_BITS)) * GENTRY;
}

@inline function nextEntry(p: usize): usize {
  p += GENTRY;
  return p >= GIN ? GTAB : p;
}

/** The verdict of `key` in state `state`; -1 when not in the table. */
function lookup(state: i32, key: i64): i32 {
  const full = (<u64>state << 53) | <u64>key;
  let p = entryOf(full);
  let v = load<i32>(p + 8);
  while (v != 0) {
    if (load<u64>(p) == full) return v - 1;
    p = nextEntry(p);
    v = load<i32>(p + 8);
  }
  return -1;
}

/** The verdict of the shape the last scan stopped at (G_STOP 1), in state `state`. */
export function genericSet(state: i32, verdict: i32): void {
  const full = (<u64>state << 53) | <u64>stopKey;
  let p = entryOf(full);
  while (load<i32>(p + 8) != 0) p = nextEntry(p);
  store<u64>(p, full);
  store<i32>(p + 8, verdict + 1);
}

/** Empties the table (its memory must have been grown past GIN). */
export function genericClear(): void {
  memory.fill(GTAB, 0, <usize>GTAB_N * GENTRY);
}

/** Where the chunk is read from, for the TypeScript side's copy. */
export function genericIn(): i32 {
  return <i32>GIN;
}

/** The shape of line [s, e) at GIN, for the test that compares it with GenericScanner.shape. */
export function genericShape(s: i32, e: i32): void {
  const key = shape(s, e);
  gres(G_KEY, key < 0 ? -1 : <f64>key);
  gres(G_UNITS, <f64>units);
  gres(G_STAMP_TS, hasStamp ? stampTs : NaN);
  gres(G_STAMP_YEAR, stampYear);
}

/**
 * Reads the lines of known shapes from s (GenericScanner.read): returns the position after them. Stops at the
 * end, a cut or long line (G_STOP 0), a shape not in the table (1: its key kept for genericSet), a line the
 * general path reads or the wrap column's count must hold (2), the end of the bytes copied in (3).
 */
export function genericScan(
  s: i32,
  end: i32,
  avail: i32,
  maxLen: i32,
  state: i32,
  wrapMax: i32,
  wrapAtMax: i32,
  lastTs: f64,
): i32 {
  let k = 0;
  let firstTs: f64 = NaN;
  let year: f64 = NaN;
  let engineLines = 0;
  let requests = 0;
  let progIdx = -1;
  let progTs: f64 = NaN;
  let lastStart = -1;
  let lastEnd = -1;
  let stop = 0;
  // the bytes copied in end at `avail` (the TypeScript side copies a window of the chunk): a line or a look
  // ahead cut there stops the scan (3) for more to be copied, where the chunk itself would not have
  const to = end < avail ? end : avail;
  for (;;) {
    if (s >= end) break;
    const most = s + maxLen + 1;
    const lim = to < most ? to : most;
    const e = newline(s, lim);
    if (e >= lim) {
      if (lim == avail && avail < end) stop = 3;
      break;
    }
    const key = shape(s, e);
    if (key < 0) {
      stop = 2;
      break;
    }
    const v = lookup(state, key);
    if (v < 0) {
      stopKey = key;
      stop = 1;
      break;
    }
    if (v == V_NEVER) {
      stop = 2;
      break;
    }
    const len = units;
    if (len > wrapMax) {
      wrapMax = len;
      wrapAtMax = 1;
    } else if (len == wrapMax) {
      if (wrapAtMax + 1 >= 3 && len >= 60) {
        const e2 = newline(e + 1, to);
        if (e2 >= to) {
          stop = to < end ? 3 : 2;
          break;
        }
        const fw = firstWordShape(s, e);
        if (fw < 0 || firstWordShape(e + 1, e2) != fw) {
          stop = 2;
          break;
        }
      }
      wrapAtMax++;
    }
    if (hasStamp) {
      lastTs = stampTs;
      if (isNaN(firstTs)) firstTs = stampTs;
      year = stampYear;
    }
    if (v != V_TOUCH) {
      if (v == V_SERVING_ENGINE || v == V_ACCESS_ENGINE) engineLines++;
      if (v == V_ACCESS_ENGINE || v == V_ACCESS_COMMON) requests++;
      progIdx = k;
      progTs = lastTs;
    }
    k++;
    lastStart = s;
    lastEnd = e;
    s = e + 1;
  }
  gres(G_LINES, <f64>k);
  gres(G_LAST_START, <f64>lastStart);
  gres(G_LAST_END, <f64>lastEnd);
  gres(G_FIRST_TS, firstTs);
  gres(G_LAST_TS, lastTs);
  gres(G_YEAR, year);
  gres(G_ENGINE_LINES, <f64>engineLines);
  gres(G_REQUESTS, <f64>requests);
  gres(G_PROG_IDX, <f64>progIdx);
  gres(G_PROG_TS, progTs);
  gres(G_STOP, <f64>stop);
  gres(G_WRAP_MAX, <f64>wrapMax);
  gres(G_WRAP_AT_MAX, <f64>wrapAtMax);
  return s;
}
