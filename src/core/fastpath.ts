/**
 * Byte-level reading of the lines a busy SGLang server writes millions of times (`Decode batch`,
 * `Prefill batch`, uvicorn access lines). They are recognised and parsed straight from the bytes, with no
 * string decoding and no regex. Anything that is not exactly the canonical shape is declined and goes
 * through the general path, and both paths end in the same `LogAnalyzer.serving` call, so the answer
 * does not depend on which path read the line (the tests compare the two on real logs).
 */
import type { LogAnalyzer } from './analyzer.js';
import type { ServingSample, Signature } from './engines/types.js';

const C_0 = 48;
const C_9 = 57;
const C_DOT = 46;
const C_SP = 32;
const C_LB = 91;
const C_RB = 93;
const C_COMMA = 44;

const ascii = (s: string) => Buffer.from(s, 'latin1');
const DECODE = ascii('Decode batch, #running-req: ');
const TOKEN = ascii(', #token: ');
const USAGE = ascii(', token usage: ');
const GRAPH_T = ascii(', cuda graph: True, gen throughput (token/s): ');
const GRAPH_F = ascii(', cuda graph: False, gen throughput (token/s): ');
const QUEUE = ascii(', #queue-req: ');
const PREFILL = ascii('Prefill batch, #new-seq: ');
const NEWTOK = ascii(', #new-token: ');
const CACHED = ascii(', #cached-token: ');
const RUNNING = ascii(', #running-req: ');
const INPUT_TP = ascii('input throughput (token/s): ');
const ACCESS = ascii('INFO:     ');
const DASH_QUOTE = ascii(' - "');
const GET_ = ascii('GET ');
const POST_ = ascii('POST ');
const HTTP_ = ascii(' HTTP/');

/** A bounded search: Buffer.indexOf cannot stop at the end of the line and would scan the whole chunk. */
function findLit(buf: Buffer, from: number, e: number, lit: Buffer): number {
  const c0 = lit[0]!;
  const last = e - lit.length;
  for (let p = from; p <= last; p++) if (buf[p] === c0 && at(buf, p, lit)) return p;
  return -1;
}

/** Printable ASCII only: what the general path would read the same way, byte for byte. */
function plain(buf: Buffer, from: number, e: number): boolean {
  for (let i = from; i < e; i++) {
    const c = buf[i]!;
    if (c < C_SP || c > 126) return false;
  }
  return true;
}

function digits(buf: Buffer, p: number, n: number): boolean {
  for (let i = 0; i < n; i++) {
    const c = buf[p + i]!;
    if (c < C_0 || c > C_9) return false;
  }
  return true;
}

function at(buf: Buffer, p: number, lit: Buffer): boolean {
  const n = lit.length;
  for (let i = 0; i < n; i++) if (buf[p + i] !== lit[i]) return false;
  return true;
}

export class FastPath {
  private pos = 0;
  private num = 0;
  private lastStamp = Buffer.alloc(19);
  private lastTs = 0;
  private haveStamp = false;
  private lastTags = Buffer.alloc(0);
  private lastTagStr: string | null = null;
  private decodeSig: Signature | null = null;
  private prefillSig: Signature | null = null;
  private accessSig: Signature | null = null;

  constructor(private readonly a: LogAnalyzer) {}

  tryLine(buf: Buffer, s: number, e: number, no: number, offset: number): boolean {
    if (e - s < 40 || buf[s] !== C_LB) return false;
    const engine = this.a.lockedEngine();
    if (engine === null || engine.id !== 'sglang') return false;
    const launch = this.a.current;
    if (launch === null) return false;
    // Every byte of a decode line is checked by the parser below; for the other two shapes, the parts the
    // parser skips are checked by `plain`, so a `\r` refresh, a terminal escape or a NUL goes to the general path.
    // [YYYY-MM-DD HH:MM:SS( TAG)*]
    if (
      buf[s + 5] !== 45 ||
      buf[s + 8] !== 45 ||
      buf[s + 11] !== C_SP ||
      buf[s + 14] !== 58 ||
      buf[s + 17] !== 58
    )
      return false;
    if (
      !digits(buf, s + 1, 4) ||
      !digits(buf, s + 6, 2) ||
      !digits(buf, s + 9, 2) ||
      !digits(buf, s + 12, 2) ||
      !digits(buf, s + 15, 2) ||
      !digits(buf, s + 18, 2)
    )
      return false;
    let p = s + 20;
    const tagStart = p;
    while (buf[p] === C_SP) {
      p++;
      const a = buf[p]!;
      const b = buf[p + 1]!;
      // TP, DP, PP, EP
      if (b !== 80 || (a !== 84 && a !== 68 && a !== 80 && a !== 69)) return false;
      p += 2;
      const d0 = p;
      while (buf[p]! >= C_0 && buf[p]! <= C_9) p++;
      if (p === d0) return false;
    }
    if (buf[p] !== C_RB || buf[p + 1] !== C_SP) return false;
    const tagEnd = p;
    const msg = p + 2;

    let kind: 0 | 1 | 2;
    let running = 0;
    let queued = 0;
    let kv = 0;
    let gen: number | null = null;
    let prompt: number | null = null;
    let status = 0;
    if (at(buf, msg, DECODE)) {
      kind = 0;
      this.pos = msg + DECODE.length;
      if (!this.int(buf, e)) return false;
      running = this.num;
      if (!this.skipLit(buf, TOKEN) || !this.int(buf, e) || !this.skipLit(buf, USAGE) || !this.float(buf, e))
        return false;
      kv = this.num;
      if (at(buf, this.pos, GRAPH_T)) this.pos += GRAPH_T.length;
      else if (at(buf, this.pos, GRAPH_F)) this.pos += GRAPH_F.length;
      else return false;
      if (!this.float(buf, e)) return false;
      gen = this.num;
      if (!this.skipLit(buf, QUEUE) || !this.int(buf, e)) return false;
      queued = this.num;
      if (!this.endsClean(buf, e)) return false;
    } else if (at(buf, msg, PREFILL)) {
      kind = 1;
      this.pos = msg + PREFILL.length;
      if (
        !this.int(buf, e) ||
        !this.skipLit(buf, NEWTOK) ||
        !this.int(buf, e) ||
        !this.skipLit(buf, CACHED) ||
        !this.int(buf, e)
      )
        return false;
      if (!this.skipLit(buf, USAGE) || !this.float(buf, e)) return false;
      kv = this.num;
      if (!this.skipLit(buf, RUNNING) || !this.int(buf, e)) return false;
      running = this.num;
      if (!this.skipLit(buf, QUEUE) || !this.int(buf, e)) return false;
      queued = this.num;
      // The rest varies by version; the general regex takes the first `input throughput` after this point.
      const q = findLit(buf, this.pos, e, INPUT_TP);
      if (q >= 0) {
        this.pos = q + INPUT_TP.length;
        if (!this.float(buf, e)) return false;
        prompt = this.num;
        if (findLit(buf, this.pos, e, INPUT_TP) >= 0) return false;
      }
      for (let i = this.pos; i < e; i++) if (buf[i] === 37 /* % */) return false;
      if (!plain(buf, this.pos, e)) return false;
    } else if (at(buf, msg, ACCESS)) {
      kind = 2;
      status = this.access(buf, msg + ACCESS.length, e);
      if (status === 0) return false;
    } else {
      return false;
    }

    const ts = this.stamp(buf, s);
    let tags: string | null = null;
    if (tagEnd > tagStart) {
      const len = tagEnd - tagStart;
      if (this.lastTagStr === null || this.lastTags.length !== len || !at(buf, tagStart, this.lastTags)) {
        this.lastTags = Buffer.from(buf.subarray(tagStart, tagEnd));
        this.lastTagStr = buf.toString('latin1', tagStart + 1, tagEnd);
      }
      tags = this.lastTagStr;
    }

    // Mirror the general path's bookkeeping for a framed line.
    this.a.lastTs = ts;
    this.a.resetTraceback();
    launch.touch(no, offset, ts);
    if (tags !== null && (tags !== this.rankAdded || launch !== this.rankLaunch)) {
      launch.ranks.add(tags);
      this.rankAdded = tags;
      this.rankLaunch = launch;
    }
    this.tBuf = buf;
    this.tS = s;
    this.tE = e;
    const sample = this.sample;
    if (kind === 0) {
      this.decodeSig ??= this.a.sglangSignature('decode_batch');
      sample.genTps = gen;
      sample.promptTps = null;
    } else if (kind === 1) {
      this.prefillSig ??= this.a.sglangSignature('prefill_batch');
      sample.genTps = null;
      sample.promptTps = prompt;
    } else {
      this.accessSig ??= this.a.sglangSignature('access');
      this.a.serving(launch, this.accessSig, null, no, ts, status >= 200 && status < 300, this.text);
      return true;
    }
    sample.running = running;
    sample.queued = queued;
    sample.kvUsage = kv;
    sample.ts = ts;
    sample.line = no;
    this.a.serving(launch, kind === 0 ? this.decodeSig! : this.prefillSig!, sample, no, ts, true, this.text);
    return true;
  }

  // One sample object and one text getter for every line: the consumer copies what it keeps.
  private readonly sample: ServingSample = {
    genTps: null,
    promptTps: null,
    running: null,
    queued: null,
    kvUsage: null,
    ts: null,
    line: 0,
  };
  private tBuf: Buffer = Buffer.alloc(0);
  private tS = 0;
  private tE = 0;
  private readonly text = (): string => this.tBuf.toString('utf8', this.tS, this.tE).trimEnd();
  private rankAdded: string | null = null;
  private rankLaunch: unknown = null;

  /** `client - "METHOD path HTTP/x.y" NNN ...`: returns the status, or 0 if the shape is not exactly that. */
  private access(buf: Buffer, p: number, e: number): number {
    while (buf[p] === C_SP) p++;
    const c0 = p;
    while (p < e && buf[p] !== C_SP) p++;
    if (p === c0 || !at(buf, p, DASH_QUOTE)) return 0;
    p += 4;
    if (at(buf, p, GET_)) p += 4;
    else if (at(buf, p, POST_)) p += 5;
    else return 0;
    const u0 = p;
    while (p < e && buf[p] !== C_SP && buf[p] !== 34) p++;
    if (p === u0 || buf[p] !== C_SP || !at(buf, p, HTTP_)) return 0;
    p += 6;
    const v0 = p;
    while ((buf[p]! >= C_0 && buf[p]! <= C_9) || buf[p] === C_DOT) p++;
    if (p === v0 || buf[p] !== 34 || buf[p + 1] !== C_SP) return 0;
    p += 2;
    if (p + 3 > e) return 0;
    let st = 0;
    for (let i = 0; i < 3; i++) {
      const c = buf[p + i]!;
      if (c < C_0 || c > C_9) return 0;
      st = st * 10 + c - C_0;
    }
    // The general path's `\d{3}` is followed by `\b` only in the 2xx test; a 4th digit would change nothing there
    // but would make `" 2\d\d\b` fail, so decline the oddity.
    if (p + 3 < e && buf[p + 3]! >= C_0 && buf[p + 3]! <= C_9) return 0;
    if (!plain(buf, c0, e)) return 0;
    return st;
  }

  private skipLit(buf: Buffer, lit: Buffer): boolean {
    if (!at(buf, this.pos, lit)) return false;
    this.pos += lit.length;
    return true;
  }

  private int(buf: Buffer, e: number): boolean {
    let p = this.pos;
    let v = 0;
    const p0 = p;
    while (p < e) {
      const c = buf[p]!;
      if (c < C_0 || c > C_9) break;
      v = v * 10 + (c - C_0);
      p++;
    }
    if (p === p0 || p - p0 > 15) return false;
    this.num = v;
    this.pos = p;
    return true;
  }

  /** `[\d.]+` as `Number()` reads it: digits with at most one dot, else decline. */
  private float(buf: Buffer, e: number): boolean {
    let p = this.pos;
    let v = 0;
    let div = 1;
    let dot = false;
    const p0 = p;
    while (p < e) {
      const c = buf[p]!;
      if (c >= C_0 && c <= C_9) {
        v = v * 10 + (c - C_0);
        if (dot) div *= 10;
      } else if (c === C_DOT) {
        if (dot) return false;
        dot = true;
      } else break;
      p++;
    }
    const n = p - p0;
    if (n === 0 || n > 15 || (dot && n === 1)) return false;
    this.num = div === 1 ? v : v / div;
    this.pos = p;
    return true;
  }

  /** A decode line ends after the queue count, or with the `, ` some versions leave. */
  private endsClean(buf: Buffer, e: number): boolean {
    const p = this.pos;
    return p === e || (p + 2 === e && buf[p] === C_COMMA && buf[p + 1] === C_SP);
  }

  private stamp(buf: Buffer, s: number): number {
    const st = s + 1;
    // Seconds first: consecutive lines usually differ there, and equal lines compare 19 bytes once.
    if (this.haveStamp) {
      const l = this.lastStamp;
      let same = true;
      for (let i = 18; i >= 0; i--) {
        if (buf[st + i] !== l[i]) {
          same = false;
          break;
        }
      }
      if (same) return this.lastTs;
    }
    const d = (i: number) => buf[st + i]! - C_0;
    const y = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3);
    const mo = d(5) * 10 + d(6);
    const day = d(8) * 10 + d(9);
    const h = d(11) * 10 + d(12);
    const mi = d(14) * 10 + d(15);
    const sec = d(17) * 10 + d(18);
    const ts = Date.UTC(y, mo - 1, day, h, mi, sec) / 1000;
    buf.copy(this.lastStamp, 0, st, st + 19);
    this.haveStamp = true;
    this.lastTs = ts;
    this.a.setYear(y);
    return ts;
  }
}
