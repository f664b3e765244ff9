/**
 * The bulk reader for the lines a busy SGLang server writes millions of times: `Decode batch`,
 * `Prefill batch` and uvicorn access lines. It reads them straight from the bytes (no string decoding, no
 * regex, no per-line newline search) into a `ServingRun`, a summary of consecutive such lines that can be
 * applied to a launch in one step. It only ever sees lines while the launch is steadily serving; every
 * other line, and any line not in exactly the shape below, stops the run and goes through the general path.
 *
 * Shapes (SGLang v0.4.10+, `[YYYY-MM-DD HH:MM:SS( DPn| TPn| PPn| EPn)*] ` prefix):
 *   Decode batch, #running-req: N, #token: N, token usage: F, cuda graph: True|False, gen throughput (token/s): F, #queue-req: N[, ]
 *   Prefill batch, #new-seq: N, #new-token: N, #cached-token: N, token usage: F, #running-req: N, #queue-req: N<tail>
 *   INFO:     CLIENT - "GET|POST PATH HTTP/V" NNN<tail>
 * The tests check that the general path reads the same numbers from these lines, on every real log and on
 * generated ones.
 */
import { binOf, SeriesSummary, TimeSeries, type TimeSeriesData } from './stats.js';

const C_0 = 48;
const C_9 = 57;
const C_SP = 32;
const C_NL = 10;

/**
 * A matcher for one literal, compiled to straight-line byte comparisons (a loop over a literal buffer is
 * several times slower, and these run millions of times). Literals longer than 8 bytes are recognised by
 * their first and last 4 bytes: the numbers between them are what the line carries, and the tests check
 * on real logs that the general path reads the same numbers.
 */
type Matcher = (buf: Buffer, p: number) => boolean;
function matcher(lit: Buffer): Matcher {
  const idx =
    lit.length <= 8
      ? [...lit.keys()]
      : [0, 1, 2, 3, lit.length - 4, lit.length - 3, lit.length - 2, lit.length - 1];
  const body = idx.map((i) => `b[p + ${i}] === ${lit[i]}`).join(' && ');
  return new Function('b', 'p', `return ${body};`) as Matcher;
}

const bytes = (s: string) => Buffer.from(s, 'latin1');
const DECODE_BYTES = bytes('Decode batch, #running-req: ');
const TOKEN_BYTES = bytes(', #token: ');
const USAGE_BYTES = bytes(', token usage: ');
const GRAPH_BYTES = bytes(', cuda graph: ');
const GEN_BYTES = bytes(', gen throughput (token/s): ');
const QUEUE_BYTES = bytes(', #queue-req: ');
const PREFILL_BYTES = bytes('Prefill batch, #new-seq: ');
const NEWTOK_BYTES = bytes(', #new-token: ');
const CACHED_BYTES = bytes(', #cached-token: ');
const RUNNING_BYTES = bytes(', #running-req: ');
const INPUT_TP_BYTES = bytes('input throughput (token/s): ');
const ACCESS_BYTES = bytes('INFO:     ');
const TRUE_BYTES = bytes('True');
const FALSE_BYTES = bytes('False');

const DECODE = { len: DECODE_BYTES.length, at: matcher(DECODE_BYTES) };
const TOKEN = { len: TOKEN_BYTES.length, at: matcher(TOKEN_BYTES) };
const USAGE = { len: USAGE_BYTES.length, at: matcher(USAGE_BYTES) };
const GRAPH = { len: GRAPH_BYTES.length, at: matcher(GRAPH_BYTES) };
const GEN = { len: GEN_BYTES.length, at: matcher(GEN_BYTES) };
const QUEUE = { len: QUEUE_BYTES.length, at: matcher(QUEUE_BYTES) };
const PREFILL = { len: PREFILL_BYTES.length, at: matcher(PREFILL_BYTES) };
const NEWTOK = { len: NEWTOK_BYTES.length, at: matcher(NEWTOK_BYTES) };
const CACHED = { len: CACHED_BYTES.length, at: matcher(CACHED_BYTES) };
const RUNNING = { len: RUNNING_BYTES.length, at: matcher(RUNNING_BYTES) };
const INPUT_TP = { len: INPUT_TP_BYTES.length, at: matcher(INPUT_TP_BYTES) };
const ACCESS = { len: ACCESS_BYTES.length, at: matcher(ACCESS_BYTES) };
const TRUE = { len: TRUE_BYTES.length, at: matcher(TRUE_BYTES) };
const FALSE = { len: FALSE_BYTES.length, at: matcher(FALSE_BYTES) };

/** Everything a run of serving lines changes in a launch. Plain data, so a worker thread can send it. */
export interface ServingRunData {
  lines: number;
  firstLine: number;
  lastLine: number;
  firstOffset: number;
  lastOffset: number;
  /** Byte offset just past the run's last newline. */
  endOffset: number;
  firstTs: number;
  lastTs: number;
  year: number;
  tags: string[];
  requests: number;
  samples: number;
  gen: SeriesSummary;
  prompt: SeriesSummary;
  running: SeriesSummary;
  queued: SeriesSummary;
  kv: SeriesSummary;
  series: TimeSeries | TimeSeriesData;
  peak: {
    genTps: number;
    promptTps: null;
    running: number;
    queued: number;
    kvUsage: number;
    ts: number;
    line: number;
    text: string;
  } | null;
  lastSampleLine: number | null;
}

export function emptyRun(): ServingRunData {
  return {
    lines: 0,
    firstLine: 0,
    lastLine: 0,
    firstOffset: 0,
    lastOffset: 0,
    endOffset: 0,
    firstTs: 0,
    lastTs: 0,
    year: 0,
    tags: [],
    requests: 0,
    samples: 0,
    gen: new SeriesSummary(true),
    prompt: new SeriesSummary(),
    running: new SeriesSummary(),
    queued: new SeriesSummary(),
    kv: new SeriesSummary(),
    series: new TimeSeries(),
    peak: null,
    lastSampleLine: null,
  };
}

/**
 * Reads serving lines from `buf[start, end)` into a run until a line that is not one of the three shapes,
 * or an incomplete last line. `read` returns the position of the first unread byte (a line start).
 */
/**
 * Parser state: the number just read and the position after it, then what the last line carried. Fields
 * of one object, set up as fractional numbers: V8 then updates them in place, where a module variable
 * holding a fraction allocates on every store.
 */
const R = { num: 0.5, pos: 0, running: 0.5, queued: 0.5, kv: 0.5, gen: 0.5, prompt: 0.5 };

function readInt(buf: Buffer, p: number, end: number): boolean {
  let v = 0;
  const p0 = p;
  while (p < end) {
    const c = buf[p]!;
    if (c < C_0 || c > C_9) break;
    v = v * 10 + (c - C_0);
    p++;
  }
  if (p === p0 || p - p0 > 15) return false;
  R.num = v;
  R.pos = p;
  return true;
}

/** `[\d.]+` as `Number()` reads it (digits with at most one dot); anything else is declined. */
function readFloat(buf: Buffer, p: number, end: number): boolean {
  let v = 0;
  let div = 1;
  let dot = false;
  const p0 = p;
  while (p < end) {
    const c = buf[p]!;
    if (c >= C_0 && c <= C_9) {
      v = v * 10 + (c - C_0);
      if (dot) div *= 10;
    } else if (c === 46) {
      if (dot) return false;
      dot = true;
    } else break;
    p++;
  }
  const n = p - p0;
  if (n === 0 || n > 15 || (dot && n === 1)) return false;
  R.num = div === 1 ? v : v / div;
  R.pos = p;
  return true;
}

/** `Decode batch, #running-req: N, #token: N, token usage: F, cuda graph: B, gen throughput (token/s): F, #queue-req: N[, ]` */
function parseDecode(buf: Buffer, msg: number, end: number): number {
  if (!DECODE.at(buf, msg) || !readInt(buf, msg + DECODE.len, end)) return -1;
  R.running = R.num;
  if (!TOKEN.at(buf, R.pos) || !readInt(buf, R.pos + TOKEN.len, end)) return -1;
  if (!USAGE.at(buf, R.pos) || !readFloat(buf, R.pos + USAGE.len, end)) return -1;
  R.kv = R.num;
  if (!GRAPH.at(buf, R.pos)) return -1;
  let p = R.pos + GRAPH.len;
  if (TRUE.at(buf, p)) p += 4;
  else if (FALSE.at(buf, p)) p += 5;
  else return -1;
  if (!GEN.at(buf, p) || !readFloat(buf, p + GEN.len, end)) return -1;
  R.gen = R.num;
  if (!QUEUE.at(buf, R.pos) || !readInt(buf, R.pos + QUEUE.len, end)) return -1;
  R.queued = R.num;
  R.prompt = -1;
  p = R.pos;
  if (buf[p] === 44 && buf[p + 1] === C_SP) p += 2;
  return p < end && buf[p] === C_NL ? p : -1;
}

/** `Prefill batch, #new-seq: N, #new-token: N, #cached-token: N, token usage: F, #running-req: N, #queue-req: N<tail>` */
function parsePrefill(buf: Buffer, msg: number, lineEnd: number): number {
  if (!PREFILL.at(buf, msg) || !readInt(buf, msg + PREFILL.len, lineEnd)) return -1;
  if (!NEWTOK.at(buf, R.pos) || !readInt(buf, R.pos + NEWTOK.len, lineEnd)) return -1;
  if (!CACHED.at(buf, R.pos) || !readInt(buf, R.pos + CACHED.len, lineEnd)) return -1;
  if (!USAGE.at(buf, R.pos) || !readFloat(buf, R.pos + USAGE.len, lineEnd)) return -1;
  R.kv = R.num;
  if (!RUNNING.at(buf, R.pos) || !readInt(buf, R.pos + RUNNING.len, lineEnd)) return -1;
  R.running = R.num;
  if (!QUEUE.at(buf, R.pos) || !readInt(buf, R.pos + QUEUE.len, lineEnd)) return -1;
  R.queued = R.num;
  R.gen = 0;
  let prompt = -1;
  // The tail differs between versions: printable ASCII up to the newline, at most one input throughput.
  let p = R.pos;
  for (; p < lineEnd; p++) {
    const b = buf[p]!;
    if (b === C_NL) break;
    if (b < C_SP || b > 126 || b === 37) return -1;
    if (b === 105 && INPUT_TP.at(buf, p)) {
      if (prompt >= 0 || !readFloat(buf, p + INPUT_TP.len, lineEnd)) return -1;
      prompt = R.num;
      p = R.pos - 1;
    }
  }
  R.prompt = prompt;
  return p < lineEnd ? p : -1;
}

/** The longest line the bulk reader takes; longer ones go to the general path. */
const REACH = 480;

/** Adds n values whose last and peak are given to a summary (peak -1: none). */
function fold(sum: SeriesSummary, n: number, last: number, peak: number): void {
  if (n === 0) return;
  sum.count += n;
  sum.last = last;
  if (sum.peak === null || peak > sum.peak) sum.peak = peak;
}

export class BulkReader {
  private readonly stamp = Buffer.alloc(19);
  private haveStamp = false;
  private ts = 0;
  /** Seconds since the epoch of the cached stamp's minute. */
  private minute = 0;
  private year = 0;
  private tagBytes = Buffer.alloc(0);
  private tagStr = '';

  /**
   * One loop, with the parsing and the sums inlined: this runs for millions of lines, and every call or
   * object touched per line shows in the time. Sums are kept in locals and written to `run` at the end.
   */
  read(buf: Buffer, start: number, end: number, lineNo: number, offset: number, run: ServingRunData): number {
    let s = start;
    let no = lineNo;
    let lines = 0;
    let samples = 0;
    let requests = 0;
    let firstLine = 0;
    let firstOffset = 0;
    let firstTs = 0;
    let lastLine = 0;
    let lastOffset = 0;
    let endOffset = 0;
    let lastSampleLine = -1;
    const hist = run.gen.hist!;
    let genN = 0;
    let genLast = 0;
    let genPeak = -1;
    let genZeros = 0;
    let prN = 0;
    let prLast = 0;
    let prPeak = -1;
    let ruN = 0;
    let ruLast = 0;
    let ruPeak = -1;
    let quLast = 0;
    let quPeak = -1;
    let kvLast = 0;
    let kvPeak = -1;
    // the series bucket being filled: one second's sum of hundredths
    let sT = Number.NaN;
    let sSum = 0;
    let sN = 0;
    let ts = this.ts;
    const stamp = this.stamp;

    // Lines of ours are shorter than REACH bytes, and nothing past that is read: so no read ever falls outside
    // the buffer (one that does makes V8 throw away the compiled loop). The last few lines of a chunk are
    // left to the general path.
    const limit = end - REACH;
    for (; s < limit; ) {
      const lineEnd = s + REACH;
      if (
        buf[s] !== 91 ||
        buf[s + 5] !== 45 ||
        buf[s + 8] !== 45 ||
        buf[s + 11] !== C_SP ||
        buf[s + 14] !== 58 ||
        buf[s + 17] !== 58
      )
        break;
      let p = s + 20;
      const tag0 = p;
      let bad = false;
      while (p < lineEnd && buf[p] === C_SP) {
        const a = buf[p + 1];
        if (buf[p + 2] !== 80 || (a !== 84 && a !== 68 && a !== 80 && a !== 69)) {
          bad = true;
          break;
        }
        p += 3;
        const d0 = p;
        while (p < lineEnd && buf[p]! >= C_0 && buf[p]! <= C_9) p++;
        if (p === d0) {
          bad = true;
          break;
        }
      }
      if (bad || buf[p] !== 93 || buf[p + 1] !== C_SP) break;
      const tag1 = p;
      const msg = p + 2;
      let e = -1;
      let kind = 0;
      const c = buf[msg];
      if (c === 68) {
        e = parseDecode(buf, msg, end);
        if (e < 0) break;
      } else if (c === 80) {
        kind = 1;
        e = parsePrefill(buf, msg, s + REACH);
        if (e < 0) break;
      } else if (c === 73 && ACCESS.at(buf, msg)) {
        kind = 2;
        e = this.access(buf, msg + ACCESS.len, lineEnd);
        if (e < 0) break;
      } else break;

      // The stamp: within the minute of the last one (compared from the minute digits back), only the
      // seconds are read; otherwise it is parsed whole and checked to be digits.
      const st = s + 1;
      let i = 15;
      if (this.haveStamp) while (i >= 0 && buf[st + i] === stamp[i]) i--;
      if (i >= 0) {
        if (this.parseStamp(buf, st) < 0) break;
      }
      const s1 = buf[st + 17]! - C_0;
      const s2 = buf[st + 18]! - C_0;
      if (s1 < 0 || s1 > 9 || s2 < 0 || s2 > 9) break;
      ts = this.minute + s1 * 10 + s2;

      // The line is ours: record it.
      const gen = R.gen;
      const running = R.running;
      const queued = R.queued;
      const kv = R.kv;
      const prompt = R.prompt;
      no++;
      const off = offset + (s - start);
      if (lines === 0 && run.lines === 0) {
        firstLine = no;
        firstOffset = off;
        firstTs = ts;
      }
      lines++;
      lastLine = no;
      lastOffset = off;
      endOffset = off + (e - s) + 1;
      if (tag1 > tag0) this.tag(buf, tag0, tag1, run);
      if (kind === 2) requests++;
      else {
        samples++;
        lastSampleLine = no;
        ruN++;
        ruLast = running;
        if (running > ruPeak) ruPeak = running;
        quLast = queued;
        if (queued > quPeak) quPeak = queued;
        kvLast = kv;
        if (kv > kvPeak) kvPeak = kv;
        if (kind === 0) {
          genN++;
          genLast = gen;
          if (gen <= 0.01) genZeros++;
          else {
            hist[binOf(gen)]!++;
          }
          if (ts !== sT) {
            if (sN > 0) (run.series as TimeSeries).addSum(sT, sSum, sN);
            sT = ts;
            sSum = 0;
            sN = 0;
          }
          sSum += Math.round(gen * 100);
          sN++;
          if (gen > genPeak) {
            genPeak = gen;
            if (run.peak === null || gen > run.peak.genTps) {
              run.peak = {
                genTps: gen,
                promptTps: null,
                running,
                queued,
                kvUsage: kv,
                ts,
                line: no,
                text: buf.toString('utf8', s, e).trimEnd(),
              };
            }
          }
        } else if (prompt >= 0) {
          prN++;
          prLast = prompt;
          if (prompt > prPeak) prPeak = prompt;
        }
      }
      s = e + 1;
    }
    this.ts = ts;
    if (sN > 0) (run.series as TimeSeries).addSum(sT, sSum, sN);
    if (lines === 0) return s;
    if (run.lines === 0) {
      run.firstLine = firstLine;
      run.firstOffset = firstOffset;
      run.firstTs = firstTs;
    }
    run.lines += lines;
    run.lastLine = lastLine;
    run.lastOffset = lastOffset;
    run.endOffset = endOffset;
    run.lastTs = ts;
    run.year = this.year;
    run.requests += requests;
    run.samples += samples;
    if (lastSampleLine >= 0) run.lastSampleLine = lastSampleLine;
    fold(run.gen, genN, genLast, genPeak);
    run.gen.zeros += genZeros;
    fold(run.prompt, prN, prLast, prPeak);
    fold(run.running, ruN, ruLast, ruPeak);
    fold(run.queued, ruN, quLast, quPeak);
    fold(run.kv, ruN, kvLast, kvPeak);
    return s;
  }

  /** `CLIENT - "GET|POST PATH HTTP/V" NNN ...`: returns the newline index, or -1. */
  private access(buf: Buffer, p: number, end: number): number {
    while (buf[p] === C_SP) p++;
    const c0 = p;
    while (p < end && buf[p]! > C_SP && buf[p]! <= 126) p++;
    if (p === c0 || buf[p] !== C_SP || buf[p + 1] !== 45 || buf[p + 2] !== C_SP || buf[p + 3] !== 34)
      return -1;
    p += 4;
    if (buf[p] === 71 && buf[p + 1] === 69 && buf[p + 2] === 84 && buf[p + 3] === C_SP) p += 4;
    else if (
      buf[p] === 80 &&
      buf[p + 1] === 79 &&
      buf[p + 2] === 83 &&
      buf[p + 3] === 84 &&
      buf[p + 4] === C_SP
    )
      p += 5;
    else return -1;
    const u0 = p;
    while (p < end && buf[p]! > C_SP && buf[p]! <= 126 && buf[p] !== 34) p++;
    // ` HTTP/`
    if (
      p === u0 ||
      buf[p] !== C_SP ||
      buf[p + 1] !== 72 ||
      buf[p + 2] !== 84 ||
      buf[p + 3] !== 84 ||
      buf[p + 4] !== 80 ||
      buf[p + 5] !== 47
    )
      return -1;
    p += 6;
    const v0 = p;
    while ((buf[p]! >= C_0 && buf[p]! <= C_9) || buf[p] === 46) p++;
    if (p === v0 || buf[p] !== 34 || buf[p + 1] !== C_SP) return -1;
    p += 2;
    for (let i = 0; i < 3; i++) if (buf[p + i]! < C_0 || buf[p + i]! > C_9) return -1;
    p += 3;
    if (buf[p]! >= C_0 && buf[p]! <= C_9) return -1;
    for (; p < end; p++) {
      const b = buf[p]!;
      if (b === C_NL) return p;
      if (b < C_SP || b > 126) return -1;
    }
    return -1;
  }

  private tag(buf: Buffer, t0: number, t1: number, run: ServingRunData): void {
    const tb = this.tagBytes;
    let same = tb.length === t1 - t0;
    for (let i = 0; same && i < tb.length; i++) if (buf[t0 + i] !== tb[i]) same = false;
    if (!same) {
      this.tagBytes = Buffer.from(buf.subarray(t0, t1));
      this.tagStr = buf.toString('latin1', t0 + 1, t1);
    }
    const tags = run.tags;
    if (tags[tags.length - 1] !== this.tagStr && !tags.includes(this.tagStr)) tags.push(this.tagStr);
  }

  /** Seconds since the epoch of `YYYY-MM-DD HH:MM:SS` at `st`, or -1 if a digit is not one; remembered. */
  private parseStamp(buf: Buffer, st: number): number {
    for (let i = 0; i < 19; i++) {
      const d = buf[st + i]!;
      if (i !== 4 && i !== 7 && i !== 10 && i !== 13 && i !== 16 && (d < C_0 || d > C_9)) return -1;
    }
    const last = this.stamp;
    for (let i = 0; i < 19; i++) last[i] = buf[st + i]!;
    const y =
      (buf[st]! - C_0) * 1000 + (buf[st + 1]! - C_0) * 100 + (buf[st + 2]! - C_0) * 10 + (buf[st + 3]! - C_0);
    const mo = (buf[st + 5]! - C_0) * 10 + (buf[st + 6]! - C_0);
    const d = (buf[st + 8]! - C_0) * 10 + (buf[st + 9]! - C_0);
    const h = (buf[st + 11]! - C_0) * 10 + (buf[st + 12]! - C_0);
    const mi = (buf[st + 14]! - C_0) * 10 + (buf[st + 15]! - C_0);
    const sec = (buf[st + 17]! - C_0) * 10 + (buf[st + 18]! - C_0);
    this.minute = Date.UTC(y, mo - 1, d, h, mi, 0) / 1000;
    this.ts = this.minute + sec;
    this.year = y;
    this.haveStamp = true;
    return this.ts;
  }
}
