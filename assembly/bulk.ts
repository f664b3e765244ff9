// AssemblyScript: the inner loop of src/core/reading/bulk.ts (BulkReader), compiled to WebAssembly by
// `npm run build:wasm` into src/core/base/bulk-wasm.ts. It reads SGLang's busy serving lines (Decode batch,
// Prefill batch, uvicorn access lines) from a chunk copied into linear memory and sums them up; the
// TypeScript side turns those sums into a ServingRun. The shapes and rules are those documented in
// src/core/reading/bulk.ts; the tests check that this reader and the general path agree on real and generated logs.

// Memory map (bytes). Static data (string literals) is placed at 9216 (scripts/lib/wasm.mjs --memoryBase),
// in a gap of both maps: the bulk reader's below and the shape scanner's (RES 0-1024, HIST 1024-6624, SSER
// 16384-65536, TABLE 65536-196608, TPL 196608-524288, IN), each in its own instance.
const RES: usize = 0; // f64 results, see the R_* indices
const HIST: usize = 1024; // u32[1400]: histogram of gen throughput
const TAGS: usize = 8192; // i32 pairs: (start, length) of rank tags that changed
const SERIES: usize = 16384; // f64 triples: (second, sum of hundredths, count)
export const IN: usize = 524288; // the chunk

const BINS: i32 = 1400;
const MAX_TAGS: i32 = 64;
const MAX_SERIES: i32 = 16384;
const REACH: i32 = 480;

// result slots (f64 index)
const R_LINES = 1;
const R_SAMPLES = 2;
const R_REQUESTS = 3;
const R_GEN_N = 4;
const R_GEN_LAST = 5;
const R_GEN_PEAK = 6;
const R_GEN_ZEROS = 7;
const R_PR_N = 8;
const R_PR_LAST = 9;
const R_PR_PEAK = 10;
const R_RU_N = 11;
const R_RU_LAST = 12;
const R_RU_PEAK = 13;
const R_QU_LAST = 14;
const R_QU_PEAK = 15;
const R_KV_LAST = 16;
const R_KV_PEAK = 17;
const R_FIRST_TS = 18;
const R_LAST_TS = 19;
const R_YEAR = 20;
const R_LAST_START = 21;
const R_LAST_END = 22;
const R_LAST_SAMPLE = 23;
const R_PEAK_IDX = 24;
const R_PEAK_START = 25;
const R_PEAK_END = 26;
const R_PEAK_GEN = 27;
const R_PEAK_RUNNING = 28;
const R_PEAK_QUEUED = 29;
const R_PEAK_KV = 30;
const R_PEAK_TS = 31;
const R_N_SERIES = 32;
const R_N_TAGS = 33;
const R_FIRST_START = 34;
const R_QU_N = 35;
const R_FIT_N = 36;

// The histogram bin uses the host's Math.log, so that both readers put a value in the same bin.
@external("env", "log")
declare function hostLog(x: f64): f64;

@inline function res(i: i32, v: f64): void {
  store<f64>(RES + (<usize>i << 3), v);
}

@inline function b(p: i32): i32 {
  return <i32>load<u8>(IN + <usize>p);
}

// parser state
let NUM: f64 = 0;
let POS: i32 = 0;
let RUNNING: f64 = 0;
let QUEUED: f64 = 0;
let KV: f64 = 0;
let GEN: f64 = 0;
let PROMPT: f64 = -1;

// the cached stamp: bytes 0..15 (`YYYY-MM-DD HH:MM`) and its minute in seconds since the epoch
let haveStamp = false;
let minute: f64 = 0;
let year: f64 = 0;
// the last rank-tag bytes (with the `] ` after them) as one masked word; 0: none cached
let tagWordLen: i32 = 0;
let tagWord: u64 = 0;
let tagMask: u64 = 0;
let stampA: u64 = 0;
let stampB: u64 = 0;

function readInt(p: i32, end: i32): bool {
  let v: f64 = 0;
  const p0 = p;
  while (p < end) {
    const c = b(p);
    if (c < 48 || c > 57) break;
    v = v * 10 + <f64>(c - 48);
    p++;
  }
  if (p == p0 || p - p0 > 15) return false;
  NUM = v;
  POS = p;
  return true;
}

// Digits whose value is not needed (counts the reader does not report): same checks as readInt.
function skipInt(p: i32, end: i32): bool {
  const p0 = p;
  while (p < end) {
    const c = b(p);
    if (c < 48 || c > 57) break;
    p++;
  }
  if (p == p0 || p - p0 > 15) return false;
  POS = p;
  return true;
}

@inline function incPos(): bool {
  POS++;
  return true;
}

function readFloat(p: i32, end: i32): bool {
  let v: f64 = 0;
  let div: f64 = 1;
  let dot = false;
  const p0 = p;
  while (p < end) {
    const c = b(p);
    if (c >= 48 && c <= 57) {
      v = v * 10 + <f64>(c - 48);
      if (dot) div *= 10;
    } else if (c == 46) {
      if (dot) return false;
      dot = true;
    } else break;
    p++;
  }
  const n = p - p0;
  if (n == 0 || n > 15 || (dot && n == 1)) return false;
  NUM = div == 1 ? v : v / div;
  POS = p;
  return true;
}

// Literal matchers (generated from the literal text): 8-byte loads, the last one overlapping, so the
// whole literal is compared in a few instructions.

// 'Decode batch, #running-req: '
@inline function isDECODE(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x622065646f636544 &&
    load<u64>(IN + <usize>(p + 8)) == 0x7223202c68637461 &&
    load<u64>(IN + <usize>(p + 16)) == 0x722d676e696e6e75 &&
    load<u64>(IN + <usize>(p + 20)) == 0x203a7165722d676e;
}
const DECODE_LEN: i32 = 28;

// ', #token: '
@inline function isTOKEN(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x6e656b6f7423202c &&
    load<u64>(IN + <usize>(p + 2)) == 0x203a6e656b6f7423;
}
const TOKEN_LEN: i32 = 10;

// ', token usage: '
@inline function isUSAGE(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x206e656b6f74202c &&
    load<u64>(IN + <usize>(p + 7)) == 0x203a656761737520;
}
const USAGE_LEN: i32 = 15;

// ', cuda graph: True, gen throughput (token/s): '
@inline function isGRAPH_T(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x672061647563202c &&
    load<u64>(IN + <usize>(p + 8)) == 0x7254203a68706172 &&
    load<u64>(IN + <usize>(p + 16)) == 0x206e6567202c6575 &&
    load<u64>(IN + <usize>(p + 24)) == 0x706867756f726874 &&
    load<u64>(IN + <usize>(p + 32)) == 0x656b6f7428207475 &&
    load<u64>(IN + <usize>(p + 38)) == 0x203a29732f6e656b;
}
const GRAPH_T_LEN: i32 = 46;

// ', cuda graph: False, gen throughput (token/s): '
@inline function isGRAPH_F(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x672061647563202c &&
    load<u64>(IN + <usize>(p + 8)) == 0x6146203a68706172 &&
    load<u64>(IN + <usize>(p + 16)) == 0x6e6567202c65736c &&
    load<u64>(IN + <usize>(p + 24)) == 0x6867756f72687420 &&
    load<u64>(IN + <usize>(p + 32)) == 0x6b6f742820747570 &&
    load<u64>(IN + <usize>(p + 39)) == 0x203a29732f6e656b;
}
const GRAPH_F_LEN: i32 = 47;

// ', #queue-req: '
@inline function isQUEUE(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x657565757123202c &&
    load<u64>(IN + <usize>(p + 6)) == 0x203a7165722d6575;
}
const QUEUE_LEN: i32 = 14;

// 'Prefill batch, #new-seq: '
@inline function isPREFILL(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x206c6c6966657250 &&
    load<u64>(IN + <usize>(p + 8)) == 0x23202c6863746162 &&
    load<u64>(IN + <usize>(p + 16)) == 0x3a7165732d77656e &&
    load<u64>(IN + <usize>(p + 17)) == 0x203a7165732d7765;
}
const PREFILL_LEN: i32 = 25;

// ', #new-token: '
@inline function isNEWTOK(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x742d77656e23202c &&
    load<u64>(IN + <usize>(p + 6)) == 0x203a6e656b6f742d;
}
const NEWTOK_LEN: i32 = 14;

// ', #cached-token: '
@inline function isCACHED(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x656863616323202c &&
    load<u64>(IN + <usize>(p + 8)) == 0x3a6e656b6f742d64 &&
    load<u64>(IN + <usize>(p + 9)) == 0x203a6e656b6f742d;
}
const CACHED_LEN: i32 = 17;

// ', #running-req: '
@inline function isRUNNING(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x696e6e757223202c &&
    load<u64>(IN + <usize>(p + 8)) == 0x203a7165722d676e;
}
const RUNNING_LEN: i32 = 16;

// 'input throughput (token/s): '
@inline function isINPUT_TP(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x6874207475706e69 &&
    load<u64>(IN + <usize>(p + 8)) == 0x7475706867756f72 &&
    load<u64>(IN + <usize>(p + 16)) == 0x2f6e656b6f742820 &&
    load<u64>(IN + <usize>(p + 20)) == 0x203a29732f6e656b;
}
const INPUT_TP_LEN: i32 = 28;

// 'INFO:     '
@inline function isACCESS(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x2020203a4f464e49 &&
    load<u64>(IN + <usize>(p + 2)) == 0x20202020203a4f46;
}
const ACCESS_LEN: i32 = 10;

// 'Decode batch. #running-req: '
@inline function isDECODE_DOT(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x622065646f636544 &&
    load<u64>(IN + <usize>(p + 8)) == 0x7223202e68637461 &&
    load<u64>(IN + <usize>(p + 16)) == 0x722d676e696e6e75 &&
    load<u64>(IN + <usize>(p + 20)) == 0x203a7165722d676e;
}
const DECODE_DOT_LEN: i32 = 28;

// ', gen throughput (token/s): '
@inline function isGEN_TP(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x6874206e6567202c &&
    load<u64>(IN + <usize>(p + 8)) == 0x7475706867756f72 &&
    load<u64>(IN + <usize>(p + 16)) == 0x2f6e656b6f742820 &&
    load<u64>(IN + <usize>(p + 20)) == 0x203a29732f6e656b;
}
const GEN_TP_LEN: i32 = 28;

// ', largest-len: '
@inline function isLARGEST(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x73656772616c202c &&
    load<u64>(IN + <usize>(p + 7)) == 0x203a6e656c2d7473;
}
const LARGEST_LEN: i32 = 15;

// ', cache hit rate: '
@inline function isHIT_RATE(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x206568636163202c &&
    load<u64>(IN + <usize>(p + 8)) == 0x6574617220746968 &&
    load<u64>(IN + <usize>(p + 10)) == 0x203a657461722074;
}
const HIT_RATE_LEN: i32 = 18;

// 'Prefill batch. #new-seq: '
@inline function isPREFILL_DOT(p: i32): bool {
  return load<u64>(IN + <usize>(p + 0)) == 0x206c6c6966657250 &&
    load<u64>(IN + <usize>(p + 8)) == 0x23202e6863746162 &&
    load<u64>(IN + <usize>(p + 16)) == 0x3a7165732d77656e &&
    load<u64>(IN + <usize>(p + 17)) == 0x203a7165732d7765;
}
const PREFILL_DOT_LEN: i32 = 25;


// 'token usage: ', 'gen throughput (token/s): ', ', #queue-req: '
const L_USAGE = memory.data<u8>([116, 111, 107, 101, 110, 32, 117, 115, 97, 103, 101, 58, 32]);
const L_USAGE_N: i32 = 13;
const L_GEN = memory.data<u8>([103, 101, 110, 32, 116, 104, 114, 111, 117, 103, 104, 112, 117, 116, 32, 40, 116, 111, 107, 101, 110, 47, 115, 41, 58, 32]);
const L_GEN_N: i32 = 26;

// The bytes at lit (n of them) are at p: compared 8 at a time, the last word overlapping (n >= 8).
@inline function litIs(p: i32, lit: usize, n: i32): bool {
  let i = 0;
  while (i + 8 < n) {
    if (load<u64>(IN + <usize>(p + i)) != load<u64>(lit + <usize>i)) return false;
    i += 8;
  }
  return load<u64>(IN + <usize>(p + n - 8)) == load<u64>(lit + <usize>(n - 8));
}

// A decode line, by the grammar of SGLang's signature (src/core/engines/sglang.ts, `Decode batch`, as
// scheduler_metrics_mixin.py / scheduler.py log_decode_stats print it in every version):
//   Decode batch[ [N]](.|,) #running-req: N, <fields>token usage: F, <fields>gen throughput (token/s): F[, #queue-req: N]<tail>
// where the fields are whatever a version adds (`#token`, `#full token`, `accept len`, `cuda graph`, a
// trailing `, `…): the regex's lazy `.*?`, so the first `token usage: ` (also inside `full token usage: `) and
// the first throughput after it are the ones read. No queue after the throughput (`largest-len` between):
// none, as the regex reads it. A line where the first `token usage: ` is not followed by `F, `, or that has
// none, or any byte outside printable ASCII or a `%`, is left to the general path.
function parseDecode(msg: i32, lineEnd: i32): i32 {
  if (!isDECODE(msg) && !isDECODE_DOT(msg)) return -1;
  if (!readInt(msg + DECODE_LEN, lineEnd)) return -1;
  RUNNING = NUM;
  let p = POS;
  if (b(p) != 44 || b(p + 1) != 32) return -1;
  p += 2;
  // The line's end: its first byte outside printable ASCII or a `%`, which must be its newline (16 at a time).
  const e = firstOdd(p, lineEnd);
  if (e < 0 || b(e) != 10) return -1;
  // The first `token usage: ` and the first throughput after it; neither holds a newline, so both lie in [p, e).
  const kvAt = findLit(p, e, L_USAGE, L_USAGE_N);
  if (kvAt < 0) return -1;
  const genAt = findLit(kvAt + L_USAGE_N, e, L_GEN, L_GEN_N);
  if (genAt < 0) return -1;
  // `token usage: ([\d.]+), ` with nothing but the number before the comma
  if (!readFloat(kvAt + L_USAGE_N, e) || b(POS) != 44 || b(POS + 1) != 32) return -1;
  KV = NUM;
  if (genAt < POS + 2) return -1;
  if (!readFloat(genAt + L_GEN_N, e)) return -1;
  GEN = NUM;
  p = POS;
  if (b(p) == 46 || (b(p) >= 48 && b(p) <= 57)) return -1;
  QUEUED = -1;
  if (isQUEUE(p)) {
    if (!readInt(p + QUEUE_LEN, e)) return -1;
    QUEUED = NUM;
  }
  PROMPT = -1;
  return e;
}

// The first byte in [p, lineEnd) below lo, above hi or equal to ex (0: none besides), else lineEnd: 16 bytes at
// a time (reading up to 15 bytes past lineEnd: the chunk's zero padding is longer).
@inline function firstNotIn(p: i32, lineEnd: i32, lo: i32, hi: i32, ex: i32): i32 {
  const vlo = i8x16.splat(<i8>lo);
  const vhi = i8x16.splat(<i8>hi);
  const vex = i8x16.splat(<i8>ex);
  for (let q = p; q < lineEnd; q += 16) {
    const v = v128.load(IN + <usize>q);
    const odd = v128.or(v128.or(i8x16.lt_u(v, vlo), i8x16.gt_u(v, vhi)), i8x16.eq(v, vex));
    const m = i8x16.bitmask(odd);
    if (m != 0) {
      const at = q + ctz(m);
      return at < lineEnd ? at : lineEnd;
    }
  }
  return lineEnd;
}

// The first byte in [p, lineEnd) below 32, above 126 or a `%` (a newline among them); -1: none.
function firstOdd(p: i32, lineEnd: i32): i32 {
  const at = firstNotIn(p, lineEnd, 32, 126, 37);
  return at < lineEnd ? at : -1;
}

// The first position in [p, e) where the n bytes at lit start and end before e (n >= 8), or -1: the bytes
// whose first and last byte both match are found 16 at a time, then compared whole (litIs).
function findLit(p: i32, e: i32, lit: usize, n: i32): i32 {
  const first = i8x16.splat(load<u8>(lit));
  const last = i8x16.splat(load<u8>(lit + <usize>(n - 1)));
  const stop = e - n;
  for (let q = p; q <= stop; q += 16) {
    let m =
      i8x16.bitmask(i8x16.eq(v128.load(IN + <usize>q), first)) &
      i8x16.bitmask(i8x16.eq(v128.load(IN + <usize>(q + n - 1)), last));
    while (m != 0) {
      const at = q + ctz(m);
      if (at > stop) return -1;
      if (litIs(at, lit, n)) return at;
      m &= m - 1;
    }
  }
  return -1;
}

function parsePrefill(msg: i32, lineEnd: i32): i32 {
  if (!(isPREFILL(msg) || isPREFILL_DOT(msg)) || !skipInt(msg + PREFILL_LEN, lineEnd)) return -1;
  if (!isNEWTOK(POS) || !skipInt(POS + NEWTOK_LEN, lineEnd)) return -1;
  if (!isCACHED(POS) || !skipInt(POS + CACHED_LEN, lineEnd)) return -1;
  // older SGLang: `, cache hit rate: F%` before the token usage
  if (isHIT_RATE(POS) && (!readFloat(POS + HIT_RATE_LEN, lineEnd) || b(POS) != 37 || !incPos())) return -1;
  if (!isUSAGE(POS) || !readFloat(POS + USAGE_LEN, lineEnd)) return -1;
  KV = NUM;
  if (!isRUNNING(POS) || !readInt(POS + RUNNING_LEN, lineEnd)) return -1;
  RUNNING = NUM;
  if (!isQUEUE(POS) || !readInt(POS + QUEUE_LEN, lineEnd)) return -1;
  QUEUED = NUM;
  GEN = 0;
  let prompt: f64 = -1;
  // The tail: printable ASCII to the newline, at most one "input throughput (token/s): ".
  let p = POS;
  for (; p < lineEnd; p++) {
    const c = b(p);
    if (c == 10) break;
    if (c < 32 || c > 126 || c == 37) return -1;
    if (c == 105 && isINPUT_TP(p)) {
      if (prompt >= 0 || !readFloat(p + INPUT_TP_LEN, lineEnd)) return -1;
      prompt = NUM;
      p = POS - 1;
    }
  }
  PROMPT = prompt;
  return p < lineEnd ? p : -1;
}

function parseAccess(p: i32, lineEnd: i32): i32 {
  // after "INFO:     ": CLIENT - "GET|POST PATH HTTP/V" NNN ...
  while (b(p) == 32) p++;
  const c0 = p;
  p = firstNotIn(p, lineEnd, 33, 126, 0);
  if (p == c0 || b(p) != 32 || b(p + 1) != 45 || b(p + 2) != 32 || b(p + 3) != 34) return -1;
  p += 4;
  if (b(p) == 71 && b(p + 1) == 69 && b(p + 2) == 84 && b(p + 3) == 32) p += 4;
  else if (b(p) == 80 && b(p + 1) == 79 && b(p + 2) == 83 && b(p + 3) == 84 && b(p + 4) == 32) p += 5;
  else return -1;
  const u0 = p;
  p = firstNotIn(p, lineEnd, 33, 126, 34);
  if (p == u0 || b(p) != 32 || b(p + 1) != 72 || b(p + 2) != 84 || b(p + 3) != 84 || b(p + 4) != 80 || b(p + 5) != 47) return -1;
  p += 6;
  const v0 = p;
  while ((b(p) >= 48 && b(p) <= 57) || b(p) == 46) p++;
  if (p == v0 || b(p) != 34 || b(p + 1) != 32) return -1;
  p += 2;
  for (let i = 0; i < 3; i++) if (b(p + i) < 48 || b(p + i) > 57) return -1;
  p += 3;
  if (b(p) >= 48 && b(p) <= 57) return -1;
  // the rest: printable ASCII to the newline
  p = firstNotIn(p, lineEnd, 32, 126, 0);
  return p < lineEnd && b(p) == 10 ? p : -1;
}

// days since 1970-01-01 of a civil date (Howard Hinnant's algorithm): exact, like Date.UTC.
function daysFromCivil(y: i32, m: i32, d: i32): i32 {
  y -= m <= 2 ? 1 : 0;
  const era = (y >= 0 ? y : y - 399) / 400;
  const yoe = y - era * 400;
  const doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

@inline function dig(p: i32): i32 {
  return b(p) - 48;
}

// Parses `YYYY-MM-DD HH:MM` at st (digits checked); caches it. Returns false if a digit is not one.
function parseMinute(st: i32): bool {
  for (let i = 0; i < 16; i++) {
    if (i == 4 || i == 7 || i == 10 || i == 13) continue;
    const d = dig(st + i);
    if (d < 0 || d > 9) return false;
  }
  const y = dig(st) * 1000 + dig(st + 1) * 100 + dig(st + 2) * 10 + dig(st + 3);
  // Date.UTC reads years 0..99 as 1900..1999: so must we, to agree with the general path.
  const yu = y < 100 ? y + 1900 : y;
  const mo = dig(st + 5) * 10 + dig(st + 6);
  const d = dig(st + 8) * 10 + dig(st + 9);
  const h = dig(st + 11) * 10 + dig(st + 12);
  const mi = dig(st + 14) * 10 + dig(st + 15);
  // Date.UTC rolls over out-of-range months/days; the general path does the same through Date.UTC, and so
  // must we: normalise the month first, then count days.
  let yy = yu + (mo - 1) / 12;
  let mm = (mo - 1) % 12;
  if (mm < 0) {
    mm += 12;
    yy--;
  }
  const days = daysFromCivil(yy, mm + 1, 1) + d - 1;
  minute = <f64>days * 86400 + <f64>(h * 3600 + mi * 60);
  year = <f64>y;
  stampA = load<u64>(IN + <usize>st);
  stampB = load<u64>(IN + <usize>(st + 8));
  haveStamp = true;
  return true;
}

/** Whether the tag at `at` (`len` bytes) is one of the first `n` recorded in TAGS (positions relative to IN). */
function tagRecorded(at: i32, len: i32, n: i32): bool {
  for (let k = 0; k < n; k++) {
    const p = TAGS + (<usize>k << 3);
    if (load<i32>(p + 4) != len) continue;
    const q = load<i32>(p);
    let i = 0;
    while (i < len && b(q + i) == b(at + i)) i++;
    if (i == len) return true;
  }
  return false;
}

/**
 * Reads lines of ours from IN[start, end) (positions relative to IN) until one that is not, and returns
 * the position of the first unread byte. Results are in RES, HIST, TAGS and SERIES.
 */
export function scan(start: i32, end: i32): i32 {
  let s = start;
  let lines: f64 = 0;
  let samples: f64 = 0;
  let requests: f64 = 0;
  let genN: f64 = 0;
  let genLast: f64 = 0;
  let genPeak: f64 = -1;
  let genZeros: f64 = 0;
  let prN: f64 = 0;
  let prLast: f64 = 0;
  let prPeak: f64 = -1;
  let ruN: f64 = 0;
  let ruLast: f64 = 0;
  let ruPeak: f64 = -1;
  let quN: f64 = 0;
  let quLast: f64 = 0;
  let quPeak: f64 = -1;
  let kvLast: f64 = 0;
  let kvPeak: f64 = -1;
  let firstTs: f64 = 0;
  let ts: f64 = 0;
  let lastStart: i32 = -1;
  let lastEnd: i32 = -1;
  let lastSample: f64 = -1;
  let peakIdx: f64 = -1;
  let peakStart: i32 = 0;
  let peakEnd: i32 = 0;
  let peakRunning: f64 = 0;
  let peakQueued: f64 = 0;
  let peakKv: f64 = 0;
  let peakTs: f64 = 0;
  let nSeries: i32 = 0;
  let nTags: i32 = 0;
  let sT: f64 = -1;
  let sSum: f64 = 0;
  let sN: f64 = 0;
  const LOG_STEP = hostLog(1.01);
  memory.fill(HIST, 0, <usize>BINS << 2);
  // Each call reports the rank tags it sees from its first line on.
  tagWordLen = 0;

  // the year of the run's last dated line; -1: none (the reading's year stays)
  let runYear: f64 = -1;
  const limit = end - REACH;
  while (s < limit) {
    const lineEnd = s + REACH;
    if (b(s) != 91) break;
    // `[YYYY-MM-DD HH:MM:SS`, or `[HH:MM:SS` (SGLang before 0.3.4 printed no date: src/core/lines/prefix.ts
    // readFrame keeps the time of day as the line's time).
    let dated = true;
    if (b(s + 5) == 45 && b(s + 8) == 45 && b(s + 11) == 32 && b(s + 14) == 58 && b(s + 17) == 58) dated = true;
    else if (b(s + 3) == 58 && b(s + 6) == 58) dated = false;
    else break;
    // Rank tags (` TP0`, ` DP1 TP3`) and the `] ` after them: usually the same bytes as the last line's,
    // compared in one load; otherwise read and checked.
    const tag0 = dated ? s + 20 : s + 9;
    let tag1: i32;
    let tagChanged = false;
    if (b(tag0) == 93 && b(tag0 + 1) == 32) {
      // no tags (the main process's lines: uvicorn, tokenizer)
      tag1 = tag0;
    } else if (tagWordLen > 0 && (load<u64>(IN + <usize>tag0) & tagMask) == tagWord) {
      tag1 = tag0 + tagWordLen - 2;
    } else {
      let p = tag0;
      let bad = false;
      while (p < lineEnd && b(p) == 32) {
        const a = b(p + 1);
        if (b(p + 2) != 80 || (a != 84 && a != 68 && a != 80 && a != 69)) {
          bad = true;
          break;
        }
        p += 3;
        const d0 = p;
        while (p < lineEnd && b(p) >= 48 && b(p) <= 57) p++;
        if (p == d0) {
          bad = true;
          break;
        }
      }
      if (bad || b(p) != 93 || b(p + 1) != 32) break;
      tag1 = p;
      const len = tag1 + 2 - tag0;
      if (len <= 8) {
        const mask = len == 8 ? <u64>-1 : (<u64>1 << (<u64>len << 3)) - 1;
        const word = load<u64>(IN + <usize>tag0) & mask;
        // An event only for tags other than the last ones reported in this call.
        tagChanged = word != tagWord || len != tagWordLen;
        tagWordLen = len;
        tagMask = mask;
        tagWord = word;
      } else {
        tagChanged = true;
        tagWordLen = 0;
      }
    }
    const msg = tag1 + 2;
    let e: i32 = -1;
    let kind = 0;
    const c = b(msg);
    if (c == 68) {
      e = parseDecode(msg, lineEnd);
    } else if (c == 80) {
      kind = 1;
      e = parsePrefill(msg, lineEnd);
    } else if (c == 73 && isACCESS(msg)) {
      kind = 2;
      e = parseAccess(msg + 10, lineEnd);
    }
    if (e < 0) break;

    const st = s + 1;
    let lineTs: f64;
    if (dated) {
      // the stamp: same minute as the cached one (bytes 0..15 compared from the end), or parsed
      if (!(haveStamp && load<u64>(IN + <usize>st) == stampA && load<u64>(IN + <usize>(st + 8)) == stampB) && !parseMinute(st)) break;
      const s1 = dig(st + 17);
      const s2 = dig(st + 18);
      if (s1 < 0 || s1 > 9 || s2 < 0 || s2 > 9) break;
      lineTs = minute + <f64>(s1 * 10 + s2);
    } else {
      // HH:MM:SS, each a digit, ranges unchecked (the general path reads them as h * 3600 + m * 60 + s)
      let bad = false;
      for (let i = 0; i < 8; i++) {
        if (i == 2 || i == 5) continue;
        const d = dig(st + i);
        if (d < 0 || d > 9) bad = true;
      }
      if (bad) break;
      lineTs = <f64>((dig(st) * 10 + dig(st + 1)) * 3600 + (dig(st + 3) * 10 + dig(st + 4)) * 60 + dig(st + 6) * 10 + dig(st + 7));
    }
    // A tag already recorded in this call is not recorded again (the reader keeps each once, in order of first
    // appearance): DP attention's ranks take turns line by line, and would fill the room in a few dozen lines.
    const newTag = tagChanged && !tagRecorded(tag0 + 1, tag1 - tag0 - 1, nTags);
    // room for what this line may record
    if ((newTag && nTags >= MAX_TAGS) || nSeries >= MAX_SERIES - 1) break;
    ts = lineTs;
    // a dated line sets the reading's year; a time of day alone leaves it
    if (dated) runYear = year;

    // the line is ours
    if (lines == 0) {
      firstTs = ts;
      res(R_FIRST_START, <f64>s);
    }
    lines++;
    lastStart = s;
    lastEnd = e;
    if (newTag) {
      store<i32>(TAGS + (<usize>nTags << 3), tag0 + 1);
      store<i32>(TAGS + (<usize>nTags << 3) + 4, tag1 - tag0 - 1);
      nTags++;
    }
    if (kind == 2) requests++;
    else {
      samples++;
      lastSample = lines - 1;
      ruN++;
      ruLast = RUNNING;
      if (RUNNING > ruPeak) ruPeak = RUNNING;
      if (QUEUED >= 0) {
        quN++;
        quLast = QUEUED;
        if (QUEUED > quPeak) quPeak = QUEUED;
      }
      kvLast = KV;
      if (KV > kvPeak) kvPeak = KV;
      if (kind == 0) {
        const gen = GEN;
        genN++;
        genLast = gen;
        if (gen <= 0.01) genZeros++;
        else {
          let bin = <i32>Math.floor(hostLog(gen / 0.01) / LOG_STEP);
          if (bin >= BINS) bin = BINS - 1;
          const hp = HIST + (<usize>bin << 2);
          store<u32>(hp, load<u32>(hp) + 1);
        }
        if (ts != sT) {
          if (sN > 0) {
            const sp = SERIES + <usize>nSeries * 24;
            store<f64>(sp, sT);
            store<f64>(sp + 8, sSum);
            store<f64>(sp + 16, sN);
            nSeries++;
          }
          sT = ts;
          sSum = 0;
          sN = 0;
        }
        sSum += Math.round(gen * 100);
        sN++;
        if (gen > genPeak) {
          genPeak = gen;
          peakIdx = lines - 1;
          peakStart = s;
          peakEnd = e;
          peakRunning = RUNNING;
          peakQueued = QUEUED;
          peakKv = KV;
          peakTs = ts;
        }
      } else if (PROMPT >= 0) {
        prN++;
        prLast = PROMPT;
        if (PROMPT > prPeak) prPeak = PROMPT;
      }
    }
    s = e + 1;
  }
  if (sN > 0) {
    const sp = SERIES + <usize>nSeries * 24;
    store<f64>(sp, sT);
    store<f64>(sp + 8, sSum);
    store<f64>(sp + 16, sN);
    nSeries++;
  }
  res(R_LINES, lines);
  res(R_SAMPLES, samples);
  res(R_REQUESTS, requests);
  res(R_GEN_N, genN);
  res(R_GEN_LAST, genLast);
  res(R_GEN_PEAK, genPeak);
  res(R_GEN_ZEROS, genZeros);
  res(R_PR_N, prN);
  res(R_PR_LAST, prLast);
  res(R_PR_PEAK, prPeak);
  res(R_RU_N, ruN);
  res(R_RU_LAST, ruLast);
  res(R_RU_PEAK, ruPeak);
  res(R_QU_N, quN);
  res(R_QU_LAST, quLast);
  res(R_QU_PEAK, quPeak);
  res(R_KV_LAST, kvLast);
  res(R_KV_PEAK, kvPeak);
  res(R_FIRST_TS, firstTs);
  res(R_LAST_TS, ts);
  res(R_YEAR, runYear);
  res(R_LAST_START, <f64>lastStart);
  res(R_LAST_END, <f64>lastEnd);
  res(R_LAST_SAMPLE, lastSample);
  res(R_PEAK_IDX, peakIdx);
  res(R_PEAK_START, <f64>peakStart);
  res(R_PEAK_END, <f64>peakEnd);
  res(R_PEAK_GEN, genPeak);
  res(R_PEAK_RUNNING, peakRunning);
  res(R_PEAK_QUEUED, peakQueued);
  res(R_PEAK_KV, peakKv);
  res(R_PEAK_TS, peakTs);
  res(R_N_SERIES, <f64>nSeries);
  res(R_N_TAGS, <f64>nTags);
  return s;
}

// The ORIGIN of src/core/base/stats.ts TimeSeries: keys count from 2^30 s.
const SERIES_ORIGIN: f64 = 1073741824;

/**
 * TimeSeries.addSums into an empty series of width 1 (stats.ts addSortedFresh), done here on the n triples
 * (second, sum, count) scan left in SERIES: turned in place into buckets (key, sum, count) at the least width,
 * a power of two, at which they number at most max; their count goes in RES[R_FIT_N]. Returns the width, or
 * -1, with SERIES untouched, when the seconds are not in order. The same f64 operations in the same order as
 * addSortedFresh, so the same buckets to the bit.
 */
export function seriesFit(n: i32, max: f64): f64 {
  for (let i = 1; i < n; i++) {
    if (load<f64>(SERIES + <usize>i * 24) < load<f64>(SERIES + <usize>(i - 1) * 24)) return -1;
  }
  let m = 0;
  for (let i = 0; i < n; i++) {
    const sp = SERIES + <usize>i * 24;
    const k = Math.floor(load<f64>(sp) - SERIES_ORIGIN);
    const sum = load<f64>(sp + 8);
    const cnt = load<f64>(sp + 16);
    if (m > 0 && load<f64>(SERIES + <usize>(m - 1) * 24) == k) {
      const q = SERIES + <usize>(m - 1) * 24;
      store<f64>(q + 8, load<f64>(q + 8) + sum);
      store<f64>(q + 16, load<f64>(q + 16) + cnt);
    } else {
      const q = SERIES + <usize>m * 24;
      store<f64>(q, k);
      store<f64>(q + 8, sum);
      store<f64>(q + 16, cnt);
      m++;
    }
  }
  let width: f64 = 1;
  while (<f64>m > max) {
    let f: f64 = 2;
    while (<f64>m / f > max) f *= 2;
    width *= f;
    let j = 0;
    for (let i = 0; i < m; i++) {
      const sp = SERIES + <usize>i * 24;
      const k = Math.floor(load<f64>(sp) / f);
      const sum = load<f64>(sp + 8);
      const cnt = load<f64>(sp + 16);
      if (j > 0 && load<f64>(SERIES + <usize>(j - 1) * 24) == k) {
        const q = SERIES + <usize>(j - 1) * 24;
        store<f64>(q + 8, load<f64>(q + 8) + sum);
        store<f64>(q + 16, load<f64>(q + 16) + cnt);
      } else {
        const q = SERIES + <usize>j * 24;
        store<f64>(q, k);
        store<f64>(q + 8, sum);
        store<f64>(q + 16, cnt);
        j++;
      }
    }
    m = j;
  }
  res(R_FIT_N, <f64>m);
  return width;
}

/** Forgets the cached stamp and tags (a new reader). */
export function reset(): void {
  haveStamp = false;
  tagWordLen = 0;
}

// ---------------------------------------------------------------------------------------------------------
// The shape scanner (src/core/reading/scan.ts, ShapeWasm): vLLM access lines, llama-server and TGI serving lines.
// Each line's frame is read here (vLLM's `(Name pid=N) ` prefix, TGI's stamp, none for llama-server), its
// message hashed with every run of digits as one mark, and the hash looked up in a table the TypeScript side
// fills from the general path (shapeSet). A line whose shape is not in the table, or whose frame differs,
// stops the scan; the caller handles it. Results in RES at the S_* slots.

// entries of 32 bytes: u32 key, u32 template start, u32 template length, i32 effect, u32 the entry of the line
// that came after a line of this shape last time (a busy server repeats its cycle of lines: tried first), i32
// the length of every message of this shape up to its newline (0: not fixed, a run of five or more digits), u32
// the entry that came after it the time before (tried second)
const TABLE: usize = 65536;
const TABLE_N: i32 = 4096;
const ENTRY: usize = 32;
const TPL: usize = 196608; // templates: messages with each run of digits as one `0`
const TPL_END: usize = 524288;
const KEY_BYTES: i32 = 32;

const S_LINES = 40;
const S_LAST_START = 41;
const S_LAST_END = 42;
const S_FIRST_TS = 43;
const S_LAST_TS = 44;
const S_YEAR = 45;
const S_ENGINE_LINES = 46;
const S_REQUESTS = 47;
const S_PROG_IDX = 48;
const S_PROG_TS = 49;
const S_STOP = 50;
const S_STOP_MSG = 51;
const S_TAG_START = 53;
const S_TAG_LEN = 54;
const S_PID = 55;
const S_STOP_TS = 56;
const S_N_SAMP = 57;
// the sample lines' numbers, folded (scan.ts foldSamples): count, last, peak of each; zeros of gen
const S_GEN_N = 58;
const S_GEN_LAST = 59;
const S_GEN_PEAK = 60;
const S_GEN_ZEROS = 61;
const S_PR_N = 62;
const S_PR_LAST = 63;
const S_PR_PEAK = 64;
const S_RU_N = 65;
const S_RU_LAST = 66;
const S_RU_PEAK = 67;
const S_QU_N = 68;
const S_QU_LAST = 69;
const S_QU_PEAK = 70;
const S_KV_N = 71;
const S_KV_LAST = 72;
const S_KV_PEAK = 73;
const S_LAST_SAMP = 74;
// the line of the highest gen throughput of this call: index, bytes, its other numbers (NaN: none), time
const S_PEAK_IDX = 75;
const S_PEAK_START = 76;
const S_PEAK_END = 77;
const S_PEAK_PROMPT = 78;
const S_PEAK_RUNNING = 79;
const S_PEAK_QUEUED = 80;
const S_PEAK_KV = 81;
const S_PEAK_TS = 82;
const S_N_SERIES = 83;

// effects (scan.ts learn)
const FX_SERVING = 1;
const FX_ACCESS = 3;
const FX_PHASE = 5;
const FX_PHASE_COMMON = 6;

let tableUsed: i32 = 0;
let tplUsed: usize = TPL;

@inline function slot(h: u32): usize {
  return TABLE + <usize>((h * 0x9e3779b1) >> 20) * ENTRY;
}

@inline function nextSlot(p: usize): usize {
  p += ENTRY;
  return p >= TABLE + <usize>TABLE_N * ENTRY ? TABLE : p;
}

// the entry the previous line matched (0: none)
let prevEntry: usize = 0;

// The key of a message: its first KEY_BYTES bytes with each run of digits as one `0` (the template is compared
// in full after).
function shapeKey(m: i32, end: i32): u32 {
  let h: u32 = 0x811c9dc5;
  let n = 0;
  let prevDigit = false;
  let p = m;
  while (p < end && n < KEY_BYTES) {
    const c = <u32>b(p);
    if (c == 10) break;
    p++;
    const d = c - 48 < 10;
    if (d && prevDigit) continue;
    prevDigit = d;
    h = (h ^ (d ? 48 : c)) * 16777619;
    n++;
  }
  return h;
}

/**
 * The message at IN[m, lineEnd) as a new shape with effect fx. False when full: clear first. Its template is
 * a list of segments: u16 length, that many literal bytes, u8 the length of the run of digits that follows (0:
 * none; 5: five or more). Runs of different lengths are other shapes: a rule may count digits (`\d{3}`).
 */
// RUN_ANY: a run of digits of any length, for a shape whose reading the general path gives alike whatever the
// lengths of its numbers (scan.ts learn probes it).
const RUN_ANY: u8 = 6;

export function shapeSetAt(m: i32, lineEnd: i32, fx: i32, anyLength: bool): bool {
  if (tableUsed >= TABLE_N >> 1 || tplUsed + <usize>(3 * (lineEnd - m) + 16) > TPL_END) return false;
  const h = shapeKey(m, lineEnd);
  const t0 = tplUsed;
  let p = m;
  let segs: u32 = 0;
  let fixed = true;
  for (;;) {
    const lenAt = tplUsed;
    tplUsed += 2;
    let n: i32 = 0;
    while (p < lineEnd) {
      const c = b(p);
      if (c >= 48 && c <= 57) break;
      store<u8>(tplUsed, c);
      tplUsed++;
      n++;
      p++;
    }
    store<u16>(lenAt, <u16>n);
    const r0 = p;
    while (p < lineEnd && b(p) >= 48 && b(p) <= 57) p++;
    const run = p - r0;
    if (run >= 5 || (anyLength && run > 0)) fixed = false;
    store<u8>(tplUsed, run == 0 ? 0 : anyLength ? RUN_ANY : <u8>(run < 5 ? run : 5));
    tplUsed++;
    segs++;
    if (run == 0) break;
  }
  // slack: literal tails are compared as whole words
  tplUsed += 8;
  let q = slot(h);
  while (load<i32>(q + 12) != 0) q = nextSlot(q);
  store<u32>(q, h);
  store<u32>(q + 4, <u32>t0);
  store<u32>(q + 8, segs);
  store<i32>(q + 12, fx);
  store<u32>(q + 16, 0);
  store<i32>(q + 20, fixed ? lineEnd - m : 0);
  store<u32>(q + 24, 0);
  tableUsed++;
  return true;
}

export function shapeClear(): void {
  memory.fill(TABLE, 0, <usize>TABLE_N * ENTRY);
  tableUsed = 0;
  tplUsed = TPL;
  prevEntry = 0;
}

// The table's fill (0: entries, 1: end of the templates), for a copy of it on another thread: its entries and
// templates are bytes at fixed places [TABLE, TPL_END) holding addresses in this same layout, so a copy of
// those bytes into another instance, with shapeRestore, is the same table there.
export function shapeUsed(which: i32): i32 {
  return which == 0 ? tableUsed : <i32>tplUsed;
}

export function shapeRestore(used: i32, tplEnd: i32): void {
  tableUsed = used;
  tplUsed = <usize>tplEnd;
  prevEntry = 0;
}

// The first byte at or after p that is not a digit (8 at a time: a word's non-digit bytes get their top bit
// set by the add or the subtract below; carries and borrows only run upward from a non-digit byte).
@inline function skipDigits(p: i32, end: i32): i32 {
  while (p + 8 <= end) {
    const v = load<u64>(IN + <usize>p);
    const nd = ((v + 0x4646464646464646) | (v - 0x3030303030303030)) & 0x8080808080808080;
    if (nd != 0) return p + <i32>(ctz<u64>(nd) >> 3);
    p += 8;
  }
  while (p < end) {
    const d = b(p);
    if (d < 48 || d > 57) break;
    p++;
  }
  return p;
}

// The line end (position of its newline) if IN[m, …) is exactly the template of `segs` segments at t (each
// run of digits where the template has one), else -1.
function matchTemplate(m: i32, end: i32, t: usize, segs: u32): i32 {
  let p = m;
  for (let k: u32 = 0; k < segs; k++) {
    const n = <i32>load<u16>(t);
    t += 2;
    if (p + n + 8 <= end) {
      let i = 0;
      while (i + 8 <= n) {
        if (load<u64>(IN + <usize>(p + i)) != load<u64>(t + <usize>i)) return -1;
        i += 8;
      }
      const tail = n - i;
      if (tail > 0) {
        const mask: u64 = (<u64>1 << (<u64>tail << 3)) - 1;
        if (((load<u64>(IN + <usize>(p + i)) ^ load<u64>(t + <usize>i)) & mask) != 0) return -1;
      }
    } else {
      if (p + n > end) return -1;
      for (let i = 0; i < n; i++) if (b(p + i) != <i32>load<u8>(t + <usize>i)) return -1;
    }
    p += n;
    t += <usize>n;
    const run = <i32>load<u8>(t);
    if (run != 0) {
      if (p >= end) return -1;
      const c = b(p);
      if (c < 48 || c > 57) return -1;
      const q = skipDigits(p + 1, end);
      if (run != RUN_ANY && (q - p < 5 ? q - p : 5) != run) return -1;
      p = q;
    }
    t++;
  }
  return p < end && b(p) == 10 ? p : -1;
}

let FOUND_END: i32 = 0;

// Whether the message at m can be of entry q's shape: a shape whose runs of digits all have fewer than five
// has one length, so one byte (the newline there) rules out most of the shapes that differ from it only in the
// lengths of their numbers (llama-server's token counts), before the template is read.
@inline function mayMatch(q: usize, m: i32, end: i32): bool {
  const n = load<i32>(q + 20);
  return n == 0 || (m + n < end && b(m + n) == 10);
}

// The effect of the line whose message starts at m (0: shape unknown); its end in FOUND_END.
function lookup(m: i32, end: i32): i32 {
  const prev = prevEntry;
  if (prev != 0) {
    // the two shapes that came next last times (a number's length varies: llama-server's token counts)
    const g = <usize>load<u32>(prev + 16);
    if (g != 0 && mayMatch(g, m, end)) {
      const e = matchTemplate(m, end, <usize>load<u32>(g + 4), load<u32>(g + 8));
      if (e >= 0) {
        FOUND_END = e;
        prevEntry = g;
        return load<i32>(g + 12);
      }
    }
    const g2 = <usize>load<u32>(prev + 24);
    if (g2 != 0 && mayMatch(g2, m, end)) {
      const e = matchTemplate(m, end, <usize>load<u32>(g2 + 4), load<u32>(g2 + 8));
      if (e >= 0) {
        FOUND_END = e;
        prevEntry = g2;
        return load<i32>(g2 + 12);
      }
    }
  }
  const h = shapeKey(m, end);
  let q = slot(h);
  let fx = load<i32>(q + 12);
  while (fx != 0) {
    if (load<u32>(q) == h && mayMatch(q, m, end)) {
      const e = matchTemplate(m, end, <usize>load<u32>(q + 4), load<u32>(q + 8));
      if (e >= 0) {
        FOUND_END = e;
        if (prev != 0) {
          store<u32>(prev + 24, load<u32>(prev + 16));
          store<u32>(prev + 16, <u32>q);
        }
        prevEntry = q;
        return fx;
      }
    }
    q = nextSlot(q);
    fx = load<i32>(q + 12);
  }
  prevEntry = 0;
  return 0;
}

// the frame of the line being read
let fTagStart: i32 = 0;
let fTagLen: i32 = 0;
let fPid: i32 = -1;
let fTs: f64 = NaN;
let fYear: f64 = 0;
let fPrefixEnd: i32 = -1;
// a sample line's numbers (NaN: none)
let smGen: f64 = NaN;
let smPrompt: f64 = NaN;
let smRunning: f64 = NaN;
let smQueued: f64 = NaN;
let smKv: f64 = NaN;
let smTs: f64 = NaN;

// gen throughput per distinct second, as SERIES in the bulk reader: f64 triples (second, sum of hundredths, count)
const SSER: usize = 16384;
const MAX_SSER: i32 = 2048;

// Literals of the shapes read here, as bytes (static data).
const L_MS = memory.data<u8>([32, 109, 115, 32, 47, 32]);
const L_MS_N: i32 = 6;
const L_MS_PER_TOKEN = memory.data<u8>([32, 109, 115, 32, 112, 101, 114, 32, 116, 111, 107, 101, 110, 44, 32]);
const L_MS_PER_TOKEN_N: i32 = 15;
const L_REQS = memory.data<u8>([32, 114, 101, 113, 115]);
const L_REQS_N: i32 = 5;
const L_REQS_3 = memory.data<u8>([32, 114, 101, 113, 115, 44, 32]);
const L_REQS_3_N: i32 = 7;
const L_TOKENS = memory.data<u8>([32, 116, 111, 107, 101, 110, 115, 32, 40]);
const L_TOKENS_N: i32 = 9;
const L_TOKENS_PER_SECOND = memory.data<u8>([32, 116, 111, 107, 101, 110, 115, 32, 112, 101, 114, 32, 115, 101, 99, 111, 110, 100, 41]);
const L_TOKENS_PER_SECOND_N: i32 = 19;
const L_TOKENS_S_AVG_GENERATION_THROUGHPUT = memory.data<u8>([32, 116, 111, 107, 101, 110, 115, 47, 115, 44, 32, 65, 118, 103, 32, 103, 101, 110, 101, 114, 97, 116, 105, 111, 110, 32, 116, 104, 114, 111, 117, 103, 104, 112, 117, 116, 58, 32]);
const L_TOKENS_S_AVG_GENERATION_THROUGHPUT_N: i32 = 38;
const L_TOKENS_S_RUNNING = memory.data<u8>([32, 116, 111, 107, 101, 110, 115, 47, 115, 44, 32, 82, 117, 110, 110, 105, 110, 103, 58, 32]);
const L_TOKENS_S_RUNNING_N: i32 = 20;
const L_GPU_KV_CACHE_USAGE = memory.data<u8>([44, 32, 71, 80, 85, 32, 75, 86, 32, 99, 97, 99, 104, 101, 32, 117, 115, 97, 103, 101, 58, 32]);
const L_GPU_KV_CACHE_USAGE_N: i32 = 22;
const L_10 = memory.data<u8>([58, 32]);
const L_10_N: i32 = 2;
const L_AVG_PROMPT_THROUGHPUT = memory.data<u8>([65, 118, 103, 32, 112, 114, 111, 109, 112, 116, 32, 116, 104, 114, 111, 117, 103, 104, 112, 117, 116, 58, 32]);
const L_AVG_PROMPT_THROUGHPUT_N: i32 = 23;
const L_ENGINE = memory.data<u8>([69, 110, 103, 105, 110, 101, 32]);
const L_ENGINE_N: i32 = 7;
const L_INFO = memory.data<u8>([73, 78, 70, 79, 32]);
const L_INFO_N: i32 = 5;
const L_PENDING = memory.data<u8>([80, 101, 110, 100, 105, 110, 103, 58, 32]);
const L_PENDING_N: i32 = 9;
const L_SWAPPED = memory.data<u8>([83, 119, 97, 112, 112, 101, 100, 58, 32]);
const L_SWAPPED_N: i32 = 9;
const L_WAITING = memory.data<u8>([87, 97, 105, 116, 105, 110, 103, 58, 32]);
const L_WAITING_N: i32 = 9;
const L_EVAL_TIME = memory.data<u8>([101, 118, 97, 108, 32, 116, 105, 109, 101, 32, 61, 32]);
const L_EVAL_TIME_N: i32 = 12;
const L_PROMPT_EVAL_TIME = memory.data<u8>([112, 114, 111, 109, 112, 116, 32, 101, 118, 97, 108, 32, 116, 105, 109, 101, 32, 61, 32]);
const L_PROMPT_EVAL_TIME_N: i32 = 19;

// The n bytes at lit, at p (8 at a time): the position after them, or -1.
function litAt(p: i32, end: i32, lit: usize, n: i32): i32 {
  if (p < 0 || p + n > end) return -1;
  let i = 0;
  while (i + 8 <= n) {
    if (load<u64>(IN + <usize>(p + i)) != load<u64>(lit + <usize>i)) return -1;
    i += 8;
  }
  while (i < n) {
    if (b(p + i) != <i32>load<u8>(lit + <usize>i)) return -1;
    i++;
  }
  return p + n;
}

// `\d+(\.\d+)?` (at most 15 digits) at p: value in NUM, the position after it, or -1 (the JS scanner's dec()).
function decAt(p: i32, end: i32): i32 {
  if (p < 0) return -1;
  let v: f64 = 0;
  const p0 = p;
  while (p < end) {
    const c = b(p);
    if (c < 48 || c > 57) break;
    v = v * 10 + <f64>(c - 48);
    p++;
  }
  if (p == p0) return -1;
  let digits = p - p0;
  if (p + 1 < end && b(p) == 46 && b(p + 1) >= 48 && b(p + 1) <= 57) {
    p++;
    const f = p;
    let div: f64 = 1;
    while (p < end) {
      const c = b(p);
      if (c < 48 || c > 57) break;
      v = v * 10 + <f64>(c - 48);
      div *= 10;
      p++;
    }
    digits += p - f;
    if (digits > 15) return -1;
    v = v / div;
  } else if (digits > 15) return -1;
  NUM = v;
  return p;
}

// decAt's checks without its value, for the numbers a reader does not report (llama-server's times in ms):
// no multiply-add chain nor division per number.
function decSkip(p: i32, end: i32): i32 {
  if (p < 0) return -1;
  const p0 = p;
  while (p < end) {
    const c = b(p);
    if (c < 48 || c > 57) break;
    p++;
  }
  if (p == p0) return -1;
  let digits = p - p0;
  if (p + 1 < end && b(p) == 46 && b(p + 1) >= 48 && b(p + 1) <= 57) {
    p++;
    const f = p;
    while (p < end) {
      const c = b(p);
      if (c < 48 || c > 57) break;
      p++;
    }
    digits += p - f;
  }
  return digits > 15 ? -1 : p;
}

@inline function spacesAt(p: i32, end: i32, min: i32): i32 {
  if (p < 0) return -1;
  const p0 = p;
  while (p < end && b(p) == 32) p++;
  return p - p0 >= min ? p : -1;
}

@inline function two(p: i32): i32 {
  const a = b(p) - 48;
  const c = b(p + 1) - 48;
  return a < 0 || a > 9 || c < 0 || c > 9 ? -1 : a * 10 + c;
}

// vLLM's stats line after its prefix: `INFO MM-DD hh:mm:ss[.f] [file.py:N] [Engine N: ]Avg prompt throughput: …`
// (the JS VllmScanner's shapes). True with the numbers in sm*, its end in FOUND_END.
function vllmStats(p: i32, end: i32, yr: i32): bool {
  p = litAt(p, end, L_INFO, L_INFO_N);
  if (p < 0 || p + 15 > end) return false;
  const mo = two(p);
  const d = two(p + 3);
  const h = two(p + 6);
  const mi = two(p + 9);
  const sec = two(p + 12);
  if (b(p + 2) != 45 || b(p + 5) != 32 || b(p + 8) != 58 || b(p + 11) != 58) return false;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) return false;
  p += 14;
  if (b(p) == 46) {
    p++;
    const f = p;
    while (p < end && b(p) >= 48 && b(p) <= 57) p++;
    if (p == f || p - f > 15) return false;
  }
  if (p >= end || b(p) != 32) return false;
  p++;
  if (p < end && b(p) == 91) p++;
  const f0 = p;
  while (p < end) {
    const c = b(p);
    if (isAlpha(c) || (c >= 48 && c <= 57) || c == 47 || c == 95 || c == 46 || c == 45) p++;
    else break;
  }
  if (p == f0) return false;
  if (p < end && b(p) == 58) {
    p++;
    const q = p;
    while (p < end && b(p) >= 48 && b(p) <= 57) p++;
    if (p == q || p - q > 15) return false;
  }
  if (p >= end || b(p) != 93) return false;
  p++;
  if (p < end && b(p) == 32) p++;
  const e0 = litAt(p, end, L_ENGINE, L_ENGINE_N);
  if (e0 >= 0) {
    p = e0;
    const q = p;
    while (p < end && b(p) >= 48 && b(p) <= 57) p++;
    if (p == q || p - q > 15) return false;
    p = litAt(p, end, L_10, L_10_N);
  }
  p = decAt(litAt(p, end, L_AVG_PROMPT_THROUGHPUT, L_AVG_PROMPT_THROUGHPUT_N), end);
  if (p < 0) return false;
  smPrompt = NUM;
  p = decAt(litAt(p, end, L_TOKENS_S_AVG_GENERATION_THROUGHPUT, L_TOKENS_S_AVG_GENERATION_THROUGHPUT_N), end);
  if (p < 0) return false;
  smGen = NUM;
  p = litAt(p, end, L_TOKENS_S_RUNNING, L_TOKENS_S_RUNNING_N);
  if (p < 0 || !readInt(p, end)) return false;
  smRunning = NUM;
  p = litAt(POS, end, L_REQS_3, L_REQS_3_N);
  if (p < 0) return false;
  const sw = litAt(p, end, L_SWAPPED, L_SWAPPED_N);
  if (sw >= 0) {
    if (!readInt(sw, end)) return false;
    p = litAt(POS, end, L_REQS_3, L_REQS_3_N);
    if (p < 0) return false;
  }
  let w = litAt(p, end, L_WAITING, L_WAITING_N);
  if (w < 0) w = litAt(p, end, L_PENDING, L_PENDING_N);
  if (w < 0 || !readInt(w, end)) return false;
  smQueued = NUM;
  p = litAt(POS, end, L_REQS, L_REQS_N);
  if (p < 0) return false;
  // The rest by the signature's grammar (src/core/engines/vllm.ts, `(?:.*?GPU KV cache usage: ([\d.]+)%)?`
  // and anything after: V1's `Prefix cache hit rate`, V0's `CPU KV cache usage: F%.`, a newer `MM cache hit
  // rate`): the first `GPU KV cache usage: ` gives the usage, and must be `F%`; printable ASCII to the newline.
  smKv = NaN;
  let kvSeen = false;
  for (; p < end; p++) {
    const c = b(p);
    if (c == 10) break;
    if (c < 32 || c > 126) return false;
    if (c == 71 && !kvSeen && litAt(p, end, L_GPU_KV_CACHE_USAGE + 2, L_GPU_KV_CACHE_USAGE_N - 2) >= 0) {
      kvSeen = true;
      const q = decAt(p + L_GPU_KV_CACHE_USAGE_N - 2, end);
      if (q < 0 || q >= end || b(q) != 37) return false;
      smKv = NUM / 100;
      p = q;
    }
  }
  if (p >= end) return false;
  const yu = yr < 100 ? yr + 1900 : yr;
  smTs = <f64>(daysFromCivil(yu, mo, 1) + d - 1) * 86400 + <f64>(h * 3600 + mi * 60 + sec);
  FOUND_END = p;
  return true;
}

// llama-server's `[ ]*[prompt ]eval time = F ms / N tokens ( F ms per token, F tokens per second)` (the JS
// LlamaScanner's shape).
function llamaTiming(p: i32, end: i32): bool {
  while (p < end && b(p) == 32) p++;
  // most lines are not timing lines: one byte tells
  const first = p < end ? b(p) : 0;
  if (first != 112 && first != 101) return false;
  let q = litAt(p, end, L_PROMPT_EVAL_TIME, L_PROMPT_EVAL_TIME_N);
  const prompt = q >= 0;
  if (!prompt) q = litAt(p, end, L_EVAL_TIME, L_EVAL_TIME_N);
  if (q < 0) return false;
  // the time, the tokens and the time per token are not reported: checked, not read
  p = decSkip(spacesAt(q, end, 1), end);
  if (p < 0) return false;
  p = spacesAt(litAt(p, end, L_MS, L_MS_N), end, 0);
  if (p < 0 || !skipInt(p, end)) return false;
  p = decSkip(spacesAt(litAt(POS, end, L_TOKENS, L_TOKENS_N), end, 1), end);
  if (p < 0) return false;
  p = decAt(spacesAt(litAt(p, end, L_MS_PER_TOKEN, L_MS_PER_TOKEN_N), end, 0), end);
  if (p < 0) return false;
  const tps = NUM;
  p = litAt(p, end, L_TOKENS_PER_SECOND, L_TOKENS_PER_SECOND_N);
  if (p < 0 || p >= end || b(p) != 10) return false;
  smGen = prompt ? NaN : tps;
  smPrompt = prompt ? tps : NaN;
  smRunning = NaN;
  smQueued = NaN;
  smKv = NaN;
  smTs = NaN;
  FOUND_END = p;
  return true;
}

// `\x1b[` digits/semicolons `m`, from p: the position after it, or -1.
function skipSgr(p: i32, end: i32): i32 {
  if (p + 1 >= end || b(p + 1) != 91) return -1;
  p += 2;
  while (p < end) {
    const c = b(p);
    if ((c >= 48 && c <= 57) || c == 59) p++;
    else break;
  }
  if (p >= end || b(p) != 109) return -1;
  return p + 1;
}

@inline function isAlpha(c: i32): bool {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

// `INFO:     CLIENT ` at m: the position of the space after the client, whose bytes (digits, dots, colons:
// nothing a rule or a mask reads, and their count varies with the address) are no part of the access line's
// shape; m itself when the line is not in that form. Eight bytes at a time.
function skipClient(m: i32, end: i32): i32 {
  let q = m + 5;
  while (q < end && b(q) == 32) q++;
  if (q == m + 5) return m;
  const c0 = q;
  while (q + 8 <= end) {
    const v = load<u64>(IN + <usize>q);
    // outside 0x2e-0x3a, or a slash
    const out = ((v + 0x4545454545454545) | (v - 0x2e2e2e2e2e2e2e2e)) & 0x8080808080808080;
    const y = v ^ 0x2f2f2f2f2f2f2f2f;
    const slash = (y - 0x0101010101010101) & ~y & 0x8080808080808080;
    const stop = out | slash;
    if (stop != 0) {
      q += <i32>(ctz<u64>(stop) >> 3);
      return q > c0 && b(q) == 32 ? q : m;
    }
    q += 8;
  }
  while (q < end) {
    const c = b(q);
    if ((c >= 48 && c <= 58) || c == 46) q++;
    else break;
  }
  return q > c0 && q < end && b(q) == 32 ? q : m;
}

// IN[a, a+n) == IN[r, r+n)
function sameAt(a: i32, r: i32, n: i32): bool {
  let i = 0;
  while (i + 8 <= n) {
    if (load<u64>(IN + <usize>(a + i)) != load<u64>(IN + <usize>(r + i))) return false;
    i += 8;
  }
  while (i < n) {
    if (b(a + i) != b(r + i)) return false;
    i++;
  }
  return true;
}

@inline function isInfoColon(p: i32): bool {
  return b(p) == 73 && b(p + 1) == 78 && b(p + 2) == 70 && b(p + 3) == 79 && b(p + 4) == 58;
}

// vLLM: `[\x1b[…m](Name pid=N)[\x1b[…m] ` then `INFO:` (an access line; stats lines are the caller's). -1: not.
function vllmFrame(p: i32, end: i32): i32 {
  fPrefixEnd = -1;
  fTagStart = 0;
  fTagLen = 0;
  fPid = -1;
  fTs = NaN;
  let c = b(p);
  if (c == 27 || c == 40) {
    const colour = c == 27;
    if (colour) {
      p = skipSgr(p, end);
      if (p < 0 || p >= end || b(p) != 40) return -1;
    }
    p++;
    const n0 = p;
    if (p >= end || !isAlpha(b(p))) return -1;
    while (p < end) {
      c = b(p);
      if (isAlpha(c) || (c >= 48 && c <= 57) || c == 95 || c == 45) p++;
      else break;
    }
    fTagStart = n0;
    fTagLen = p - n0;
    // ` pid=`
    if (p + 5 > end || b(p) != 32 || b(p + 1) != 112 || b(p + 2) != 105 || b(p + 3) != 100 || b(p + 4) != 61)
      return -1;
    p += 5;
    const d0 = p;
    let pid: i32 = 0;
    while (p < end) {
      c = b(p);
      if (c < 48 || c > 57) break;
      pid = pid * 10 + (c - 48);
      p++;
    }
    if (p == d0 || p - d0 > 9 || p >= end || b(p) != 41) return -1;
    fPid = pid;
    p++;
    if (colour) {
      if (p >= end || b(p) != 27) return -1;
      p = skipSgr(p, end);
      if (p < 0) return -1;
    }
    if (p < end && b(p) == 32) p++;
  }
  fPrefixEnd = p;
  // `INFO:`
  if (p + 5 > end || b(p) != 73 || b(p + 1) != 78 || b(p + 2) != 70 || b(p + 3) != 79 || b(p + 4) != 58) return -1;
  return p;
}

// TGI: `YYYY-MM-DDTHH:MM:SS[.f]Z +INFO +`: the message start, or -1. Time and year in fTs, fYear.
function tgiFrame(p: i32, end: i32): i32 {
  if (p + 20 > end) return -1;
  for (let i = 0; i < 19; i++) {
    if (i == 4 || i == 7 || i == 10 || i == 13 || i == 16) continue;
    const d = dig(p + i);
    if (d < 0 || d > 9) return -1;
  }
  if (b(p + 4) != 45 || b(p + 7) != 45 || b(p + 10) != 84 || b(p + 13) != 58 || b(p + 16) != 58) return -1;
  const y = dig(p) * 1000 + dig(p + 1) * 100 + dig(p + 2) * 10 + dig(p + 3);
  const mo = dig(p + 5) * 10 + dig(p + 6);
  const d = dig(p + 8) * 10 + dig(p + 9);
  const h = dig(p + 11) * 10 + dig(p + 12);
  const mi = dig(p + 14) * 10 + dig(p + 15);
  const sec = dig(p + 17) * 10 + dig(p + 18);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return -1;
  p += 19;
  let frac: f64 = 0;
  if (b(p) == 46) {
    p++;
    const f0 = p;
    let v: f64 = 0;
    let div: f64 = 1;
    while (p < end) {
      const c = b(p);
      if (c < 48 || c > 57) break;
      v = v * 10 + <f64>(c - 48);
      div *= 10;
      p++;
    }
    if (p == f0 || p - f0 > 15) return -1;
    frac = v / div;
  }
  if (p >= end || b(p) != 90) return -1;
  p++;
  const s0 = p;
  while (p < end && b(p) == 32) p++;
  if (p == s0) return -1;
  if (p + 4 > end || b(p) != 73 || b(p + 1) != 78 || b(p + 2) != 70 || b(p + 3) != 79) return -1;
  p += 4;
  const s1 = p;
  while (p < end && b(p) == 32) p++;
  if (p == s1) return -1;
  const yu = y < 100 ? y + 1900 : y;
  const days = daysFromCivil(yu, mo, 1) + d - 1;
  fTs = <f64>days * 86400 + <f64>(h * 3600 + mi * 60 + sec) + frac;
  fYear = <f64>y;
  return p;
}

/**
 * Reads lines from IN[start, end) whose shape is in the table, for engine 1 (vLLM), 2 (llama-server) or
 * 3 (TGI), until one that is not, or a line without its newline before `end`, or longer than maxLen.
 * Returns the position of the first unread byte.
 */
export function shapeScan(start: i32, end: i32, engine: i32, maxLen: i32, yr: i32, defTs: f64): i32 {
  let nSamp: i32 = 0;
  let genN: f64 = 0;
  let genLast: f64 = NaN;
  let genPeak: f64 = -1;
  let genZeros: f64 = 0;
  let prN: f64 = 0;
  let prLast: f64 = NaN;
  let prPeak: f64 = -1;
  let ruN: f64 = 0;
  let ruLast: f64 = NaN;
  let ruPeak: f64 = -1;
  let quN: f64 = 0;
  let quLast: f64 = NaN;
  let quPeak: f64 = -1;
  let kvN: f64 = 0;
  let kvLast: f64 = NaN;
  let kvPeak: f64 = -1;
  let lastSamp: i32 = -1;
  let peakIdx: i32 = -1;
  let peakStart: i32 = 0;
  let peakEnd: i32 = 0;
  let peakPrompt: f64 = NaN;
  let peakRunning: f64 = NaN;
  let peakQueued: f64 = NaN;
  let peakKv: f64 = NaN;
  let peakTs: f64 = NaN;
  let nSeries: i32 = 0;
  let sT: f64 = NaN;
  let sSum: f64 = 0;
  let sN: f64 = 0;
  const LOG_STEP = hostLog(1.01);
  memory.fill(HIST, 0, <usize>BINS << 2);
  let refStart: i32 = 0;
  let refLen: i32 = 0;
  let s = start;
  let lines: i32 = 0;
  let engineLines: i32 = 0;
  let requests: i32 = 0;
  let firstTs: f64 = NaN;
  let curTs: f64 = NaN;
  let progIdx: i32 = -1;
  let progTs: f64 = NaN;
  let lastStart: i32 = -1;
  let lastEnd: i32 = -1;
  let tagStart: i32 = -1;
  let tagLen: i32 = 0;
  let pid: i32 = -1;
  let year: f64 = NaN;
  let stop: i32 = 0;
  let m = s;
  // the last message looked up (its bytes are in this call's chunk; the table holds while the call runs)
  let memoStart: i32 = 0;
  let memoLen: i32 = 0;
  let memoFx: i32 = 0;
  let memoEntry: usize = 0;
  while (s < end) {
    // frame
    m = s;
    let sample = false;
    if (engine == 1) {
      // the same process prefix as the first line's (bytes compared 8 at a time), or read afresh
      const fast = refLen > 0 && s + refLen + 5 <= end && sameAt(s, refStart, refLen);
      if (fast) {
        fPrefixEnd = s + refLen;
        m = isInfoColon(fPrefixEnd) ? fPrefixEnd : -1;
      } else m = vllmFrame(s, end);
      if (m < 0) {
        if (fPrefixEnd < 0 || !vllmStats(fPrefixEnd, end, yr)) {
          stop = 2;
          break;
        }
        sample = true;
      }
      if (fast) {
        // same prefix, same tag and pid
      } else if (lines == 0 && tagStart < 0) {
        tagStart = fTagStart;
        tagLen = fTagLen;
        pid = fPid;
        refStart = s;
        refLen = fTagLen > 0 ? fPrefixEnd - s : 0;
      } else {
        // other process prefix: the caller records it
        if (fPid != pid || fTagLen != tagLen) {
          stop = 2;
          break;
        }
        let same = true;
        for (let i = 0; i < tagLen; i++)
          if (b(fTagStart + i) != b(tagStart + i)) {
            same = false;
            break;
          }
        if (!same) {
          stop = 2;
          break;
        }
      }
      if (m >= 0) m = skipClient(m, end);
    } else if (engine == 3) {
      m = tgiFrame(s, end);
      if (m < 0) {
        stop = 2;
        break;
      }
    } else if (engine == 2) sample = llamaTiming(s, end);
    // the message's shape (a sample line has none: the line after it is predicted from the line before it)
    let fx = FX_SERVING;
    if (!sample) {
      // the same bytes as the last message looked up in this call (to its newline): the same shape, found
      // without reading its template (a busy server's access lines differ mostly in the client skipped above)
      if (memoLen > 0 && m + memoLen <= end && sameAt(m, memoStart, memoLen)) {
        fx = memoFx;
        FOUND_END = m + memoLen - 1;
        prevEntry = memoEntry;
      } else {
        fx = lookup(m, end);
        if (fx != 0) {
          memoStart = m;
          memoLen = FOUND_END + 1 - m;
          memoFx = fx;
          memoEntry = prevEntry;
        }
      }
    }
    if (fx == 0) {
      // unknown, or no newline before end: the caller's
      stop = 1;
      break;
    }
    const p = FOUND_END;
    if (p - s > maxLen || fx < FX_SERVING || fx > FX_PHASE_COMMON) {
      stop = 2;
      break;
    }
    if (sample) {
      // room for a new second in the series: else the caller calls again
      if (nSeries >= MAX_SSER - 1) {
        stop = 3;
        break;
      }
      nSamp++;
      lastSamp = lines;
      // a line without a time has the last one seen before this call (llama-server prints none)
      const t = isNaN(smTs) ? defTs : smTs;
      const gen = smGen;
      if (!isNaN(gen)) {
        genN++;
        genLast = gen;
        if (gen <= 0.01) genZeros++;
        else {
          let bin = <i32>Math.floor(hostLog(gen / 0.01) / LOG_STEP);
          if (bin >= BINS) bin = BINS - 1;
          const hp = HIST + (<usize>bin << 2);
          store<u32>(hp, load<u32>(hp) + 1);
        }
        if (!isNaN(t)) {
          if (t != sT) {
            if (sN > 0) {
              const sp = SSER + <usize>nSeries * 24;
              store<f64>(sp, sT);
              store<f64>(sp + 8, sSum);
              store<f64>(sp + 16, sN);
              nSeries++;
            }
            sT = t;
            sSum = 0;
            sN = 0;
          }
          sSum += Math.round(gen * 100);
          sN++;
        }
        if (gen > genPeak) {
          genPeak = gen;
          peakIdx = lines;
          peakStart = s;
          peakEnd = p;
          peakPrompt = smPrompt;
          peakRunning = smRunning;
          peakQueued = smQueued;
          peakKv = smKv;
          peakTs = t;
        }
      }
      if (!isNaN(smPrompt)) {
        prN++;
        prLast = smPrompt;
        if (smPrompt > prPeak) prPeak = smPrompt;
      }
      if (!isNaN(smRunning)) {
        ruN++;
        ruLast = smRunning;
        if (smRunning > ruPeak) ruPeak = smRunning;
      }
      if (!isNaN(smQueued)) {
        quN++;
        quLast = smQueued;
        if (smQueued > quPeak) quPeak = smQueued;
      }
      if (!isNaN(smKv)) {
        kvN++;
        kvLast = smKv;
        if (smKv > kvPeak) kvPeak = smKv;
      }
      if (!isNaN(smTs)) {
        curTs = smTs;
        if (isNaN(firstTs)) firstTs = smTs;
      }
    }
    // the line is taken
    if (engine == 3) {
      curTs = fTs;
      if (isNaN(firstTs)) firstTs = fTs;
      year = fYear;
    }
    if (fx == FX_SERVING || fx == FX_ACCESS || fx == FX_PHASE) engineLines++;
    if (fx <= FX_ACCESS) {
      progIdx = lines;
      progTs = curTs;
    }
    if (fx == FX_ACCESS) requests++;
    lastStart = s;
    lastEnd = p;
    lines++;
    s = p + 1;
  }
  res(S_LINES, <f64>lines);
  res(S_LAST_START, <f64>lastStart);
  res(S_LAST_END, <f64>lastEnd);
  res(S_FIRST_TS, firstTs);
  res(S_LAST_TS, curTs);
  res(S_YEAR, year);
  res(S_ENGINE_LINES, <f64>engineLines);
  res(S_REQUESTS, <f64>requests);
  res(S_PROG_IDX, <f64>progIdx);
  res(S_PROG_TS, progTs);
  res(S_STOP, <f64>stop);
  res(S_STOP_MSG, <f64>m);
  if (sN > 0) {
    const sp = SSER + <usize>nSeries * 24;
    store<f64>(sp, sT);
    store<f64>(sp + 8, sSum);
    store<f64>(sp + 16, sN);
    nSeries++;
  }
  res(S_N_SAMP, <f64>nSamp);
  res(S_GEN_N, genN);
  res(S_GEN_LAST, genLast);
  res(S_GEN_PEAK, genPeak);
  res(S_GEN_ZEROS, genZeros);
  res(S_PR_N, prN);
  res(S_PR_LAST, prLast);
  res(S_PR_PEAK, prPeak);
  res(S_RU_N, ruN);
  res(S_RU_LAST, ruLast);
  res(S_RU_PEAK, ruPeak);
  res(S_QU_N, quN);
  res(S_QU_LAST, quLast);
  res(S_QU_PEAK, quPeak);
  res(S_KV_N, kvN);
  res(S_KV_LAST, kvLast);
  res(S_KV_PEAK, kvPeak);
  res(S_LAST_SAMP, <f64>lastSamp);
  res(S_PEAK_IDX, <f64>peakIdx);
  res(S_PEAK_START, <f64>peakStart);
  res(S_PEAK_END, <f64>peakEnd);
  res(S_PEAK_PROMPT, peakPrompt);
  res(S_PEAK_RUNNING, peakRunning);
  res(S_PEAK_QUEUED, peakQueued);
  res(S_PEAK_KV, peakKv);
  res(S_PEAK_TS, peakTs);
  res(S_N_SERIES, <f64>nSeries);
  res(S_TAG_START, <f64>tagStart);
  res(S_TAG_LEN, <f64>tagLen);
  res(S_PID, <f64>pid);
  res(S_STOP_TS, fTs);
  return s;
}

// ---- the checkpoint's checksum (src/core/reading/checkpoint.ts, sumBytes): cyrb53's mixing over the bytes at
// [start, end), four at a time (little-endian words, then the last bytes one by one), fed in pieces whose
// lengths are multiples of four but the last. Here because a loop over a checkpoint's ~40 kB in JS runs in
// V8's interpreter at every `firedup status` (~2.5 ms each way); compiled, it takes microseconds.
let sumH1: i32 = 0;
let sumH2: i32 = 0;

export function sumStart(): void {
  sumH1 = 0xdeadbeef;
  sumH2 = 0x41c6ce57;
}

export function sumFeed(start: i32, end: i32): void {
  let h1 = sumH1;
  let h2 = sumH2;
  let p = start;
  for (; p + 4 <= end; p += 4) {
    const w = load<i32>(<usize>p);
    h1 = (h1 ^ w) * -1640531535;
    h2 = (h2 ^ w) * 1597334677;
  }
  for (; p < end; p++) {
    const b = <i32>load<u8>(<usize>p);
    h1 = (h1 ^ b) * -1640531535;
    h2 = (h2 ^ b) * 1597334677;
  }
  sumH1 = h1;
  sumH2 = h2;
}

/** The 53-bit sum, exact in an f64. */
export function sumEnd(): f64 {
  let h1 = sumH1;
  let h2 = sumH2;
  h1 = ((h1 ^ (h1 >>> 16)) * -2048144789) ^ ((h2 ^ (h2 >>> 13)) * -1028477387);
  h2 = ((h2 ^ (h2 >>> 16)) * -2048144789) ^ ((h1 ^ (h1 >>> 13)) * -1028477387);
  return <f64>(h2 & 2097151) * 4294967296.0 + <f64>(<u32>h1);
}

// ---- the content hash (src/core/base/content-hash.ts): 128 bits of the bytes at [start, end), for telling whether
// a log's first bytes are still those read last time (src/app/ingest.ts). Four 64-bit lanes with XXH64's round
// and constants over 32-byte stripes; the last partial stripe zero-padded in a scratch area, the length mixed
// in; each half of the result mixes all four lanes. Not a cryptographic hash: a change of the bytes goes
// unseen with a probability of about 2^-64, which is what a rewrite of a log by accident needs (no one forges
// a log's head to fool the reader of the log they write). Result: two u64 at HASH_OUT.
const HASH_OUT: usize = 0;
const HASH_PAD: usize = 64; // 32 bytes of scratch (inside RES, whose first slots are written after)
const X1: u64 = 11400714785074694791;
const X2: u64 = 14029467366897019727;
const X3: u64 = 1609587929392839161;
const X4: u64 = 9650029242287828579;
const X5: u64 = 2870177450012600261;

@inline function xround(acc: u64, w: u64): u64 {
  return rotl<u64>(acc + w * X2, 31) * X1;
}

@inline function xaval(h: u64): u64 {
  h ^= h >> 33;
  h *= X2;
  h ^= h >> 29;
  h *= X3;
  h ^= h >> 32;
  return h;
}

export function hash128(start: i32, end: i32): void {
  let v1: u64 = X1 + X2;
  let v2: u64 = X2;
  let v3: u64 = 0;
  let v4: u64 = 0 - X1;
  let p = <usize>start;
  const e = <usize>end;
  for (; p + 32 <= e; p += 32) {
    v1 = xround(v1, load<u64>(p));
    v2 = xround(v2, load<u64>(p + 8));
    v3 = xround(v3, load<u64>(p + 16));
    v4 = xround(v4, load<u64>(p + 24));
  }
  if (p < e) {
    memory.fill(HASH_PAD, 0, 32);
    memory.copy(HASH_PAD, p, e - p);
    v1 = xround(v1, load<u64>(HASH_PAD));
    v2 = xround(v2, load<u64>(HASH_PAD + 8));
    v3 = xround(v3, load<u64>(HASH_PAD + 16));
    v4 = xround(v4, load<u64>(HASH_PAD + 24));
  }
  const len = <u64>(e - <usize>start);
  const a = xaval(rotl<u64>(v1, 1) + rotl<u64>(v2, 7) + rotl<u64>(v3, 12) + rotl<u64>(v4, 18) + len * X5);
  const b = xaval((v1 * X3) ^ rotl<u64>(v2, 23) ^ (v3 * X4) ^ rotl<u64>(v4, 41) ^ (len * X1) ^ a);
  store<u64>(HASH_OUT, a);
  store<u64>(HASH_OUT + 8, b);
}
export { genericScan, genericSet, genericClear, genericIn, genericShape } from "./generic";
