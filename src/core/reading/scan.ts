/**
 * The bulk readers for the serving lines of vLLM (V0/V1 stats and uvicorn access lines), llama-server (slot,
 * timing and request lines) and TGI (the router's per-request lines): the sibling of SGLang's (bulk.ts). They
 * add to a `ServingRunData` exactly what the general path would (samples, request counts, timestamps, progress,
 * ranks, pids), and only run while the launch is steadily serving (LogAnalyzer.bulkScanner).
 *
 * The loop is `shapeScan` in the wasm module (assembly/bulk.ts): it reads each line's frame (vLLM's process
 * prefix, TGI's stamp), parses the sample lines (vLLM's throughput line, llama-server's timings) into records,
 * and looks every other line's message up by its shape, the bytes with each run of digits as one mark (of its
 * length: 1 to 4, or more), in a table of templates. The table is filled here from the general path's verdict on a shape's first line
 * (`LogAnalyzer.classifyShape`), which only admits shapes whose effect cannot depend on the digits: no sample,
 * no credential look-alike, no line the traceback reader or a wrapper could take. A line the wasm loop stops at
 * is tried by the JavaScript readers below (same shapes, parsed with a cursor), and else ends the run and goes
 * through the general path. The table holds for one launch (its marks); nothing else is kept between lines, so a
 * checkpoint needs nothing of these readers. test/core/reading/chunking.test.ts checks that both paths give the same
 * report, on generated logs and on made-up lines of every shape.
 */

import { bulkInstance } from '../base/bulk-instance.js';
import { BINS, type SeriesSummary, type TimeSeries } from '../base/stats.js';
import type { EngineId } from '../base/types.js';
import { mayHoldSecret } from '../config/redact.js';
import type { ServingRunData } from './serving-run.js';

/** What a scanner needs from the analyzer's state at the start of a run. */
export interface ScanEnv {
  /** Year for vLLM's `MM-DD` stamps. */
  year: number;
  /** The analyzer's last timestamp: the time of a line that prints none. */
  lastTs: number | null;
  /** Lines longer than this are truncated by the splitter: never taken. */
  maxLine: number;
}

export const MAX_SCAN_LINE = 2048;

/** One serving line's effect, filled by a scanner's `line` (kind: false = not a line this scanner takes). */
interface Scanned {
  ts: number | null;
  tag: string | null;
  pid: number;
  /** 0: serving line, no sample; 1: sample; 2: access (request) */
  kind: number;
  /** The line advances the launch's progress (lastProgressLine). */
  progress: boolean;
  /** The line is one an engine signature matches (engineLines). */
  engine: boolean;
  genTps: number | null;
  promptTps: number | null;
  running: number | null;
  queued: number | null;
  kvUsage: number | null;
}

/** Result slots of shapeScan (assembly/bulk.ts S_*). */
const S = {
  lines: 40,
  lastStart: 41,
  lastEnd: 42,
  firstTs: 43,
  lastTs: 44,
  year: 45,
  engineLines: 46,
  requests: 47,
  progIdx: 48,
  progTs: 49,
  stop: 50,
  stopMsg: 51,
  tagStart: 53,
  tagLen: 54,
  pid: 55,
  stopTs: 56,
  nSamp: 57,
  genN: 58,
  genLast: 59,
  genPeak: 60,
  genZeros: 61,
  prN: 62,
  prLast: 63,
  prPeak: 64,
  ruN: 65,
  ruLast: 66,
  ruPeak: 67,
  quN: 68,
  quLast: 69,
  quPeak: 70,
  kvN: 71,
  kvLast: 72,
  kvPeak: 73,
  lastSamp: 74,
  peakIdx: 75,
  peakStart: 76,
  peakEnd: 77,
  peakPrompt: 78,
  peakRunning: 79,
  peakQueued: 80,
  peakKv: 81,
  peakTs: 82,
  nSeries: 83,
} as const;
/** shapeScan's gen histogram (u32[BINS]) and series triples (second, sum of hundredths, count): assembly/bulk.ts. */
const HIST = 1024;
const SSER = 16384;
const IN = 524288;

/** Bumped at every chunk pushed (BulkHook.newChunk): the wasm copy of a chunk is stale after it. */
let chunkEpoch = 0;
export function newScanChunk(): void {
  chunkEpoch++;
}
/** The chunk's number (newScanChunk): a reader's wasm copy of a chunk is good while it holds. */
export function scanChunkEpoch(): number {
  return chunkEpoch;
}

interface ShapeExports {
  memory: WebAssembly.Memory;
  shapeScan(start: number, end: number, engine: number, maxLen: number, year: number, lastTs: number): number;
  shapeSetAt(msgStart: number, lineEnd: number, fx: number, anyLength: number): number;
  shapeClear(): void;
  shapeUsed(which: number): number;
  shapeRestore(used: number, tplEnd: number): void;
}

/** The wasm shape scanner's instance (its own memory), shared by the scanners of one thread. */
class ShapeWasm {
  readonly x: ShapeExports;
  owner: LineScanner | null = null;
  launch: object | null = null;
  private epoch = -1;
  private copied: Buffer | null = null;

  constructor() {
    this.x = bulkInstance() as unknown as ShapeExports;
  }

  load(buf: Buffer): void {
    if (this.copied === buf && this.epoch === chunkEpoch) return;
    const x = this.x;
    const need = IN + buf.length - x.memory.buffer.byteLength;
    if (need > 0) x.memory.grow(Math.ceil(need / 65536));
    new Uint8Array(x.memory.buffer, IN, buf.length).set(buf);
    this.copied = buf;
    this.epoch = chunkEpoch;
  }

  private view: Float64Array | null = null;

  hist(): Uint32Array {
    return new Uint32Array(this.x.memory.buffer, HIST, BINS);
  }

  series(n: number): Float64Array {
    return new Float64Array(this.x.memory.buffer, SSER, 3 * n);
  }

  res(): Float64Array {
    const mem = this.x.memory.buffer;
    if (this.view === null || this.view.buffer !== mem) this.view = new Float64Array(mem, 0, 128);
    return this.view;
  }
}
let shapeWasm: ShapeWasm | null = null;

/** Where the wasm table of shapes starts (assembly/bulk.ts TABLE): its entries, then its templates (TPL). */
const TABLE_AT = 65536;

/**
 * A scanner's table of shapes as plain bytes, to hand to a scanner on another thread (a worker reading the
 * second half of a file): the wasm memory's layout is the same there, so the copied bytes are the same table.
 */
export interface ShapeTable {
  bytes: Uint8Array;
  used: number;
}

/** What a worker needs to read serving lines as the thread that learned their shapes (LogAnalyzer.shapePlan). */
export interface ShapePlan {
  engine: EngineId;
  table: ShapeTable;
  /** The reading's year and last time when the plan was made; a run read with them is joined only where the
   * joining reader has the same. */
  year: number;
  lastTs: number | null;
  maxLine: number;
}

/** The table `scanner` has learned for its launch, or null when this thread's table is not its. */
export function exportShapes(scanner: LineScanner): ShapeTable | null {
  const w = shapeWasm;
  if (w === null || w.owner !== scanner || w.launch !== scanner.launch) return null;
  const end = w.x.shapeUsed(1);
  return {
    bytes: new Uint8Array(w.x.memory.buffer, TABLE_AT, end - TABLE_AT).slice(),
    used: w.x.shapeUsed(0),
  };
}

/** Makes `table` this thread's table for `scanner` and its current launch. */
export function importShapes(scanner: LineScanner, table: ShapeTable): void {
  const w = (shapeWasm ??= new ShapeWasm());
  // the memory starts smaller than the table's place; chunks are copied in above it (load)
  const need = IN - w.x.memory.buffer.byteLength;
  if (need > 0) w.x.memory.grow(Math.ceil(need / 65536));
  w.x.shapeClear();
  new Uint8Array(w.x.memory.buffer, TABLE_AT, table.bytes.length).set(table.bytes);
  w.x.shapeRestore(table.used, TABLE_AT + table.bytes.length);
  w.owner = scanner;
  w.launch = scanner.launch;
}

const D0 = 48;
const isDigit = (c: number) => c >= 48 && c <= 57;
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

const nullIfNaN = (v: number): number | null => (Number.isNaN(v) ? null : v);

/** Adds n values whose last and peak are given to a summary (what `add` on each in turn gives). */
function fold(sum: SeriesSummary, n: number, last: number, peak: number): void {
  if (n === 0) return;
  sum.count += n;
  sum.last = last;
  if (sum.peak === null || peak > sum.peak) sum.peak = peak;
}

/** Shared parsing cursor over one line's bytes. */
class Cursor {
  buf!: Buffer;
  i = 0;
  e = 0;
  /** The last number read. */
  v = 0;

  set(buf: Buffer, s: number, e: number): void {
    this.buf = buf;
    this.i = s;
    this.e = e;
  }

  lit(bytes: Uint8Array): boolean {
    const { buf, i } = this;
    if (i + bytes.length > this.e) return false;
    for (let k = 0; k < bytes.length; k++) if (buf[i + k] !== bytes[k]) return false;
    this.i = i + bytes.length;
    return true;
  }

  byte(c: number): boolean {
    if (this.i < this.e && this.buf[this.i] === c) {
      this.i++;
      return true;
    }
    return false;
  }

  /** `\d+` (at most 15 digits): its value in `v`. */
  int(): boolean {
    const { buf, e } = this;
    let i = this.i;
    let v = 0;
    const s = i;
    while (i < e && isDigit(buf[i]!)) v = v * 10 + (buf[i++]! - D0);
    if (i === s || i - s > 15) return false;
    this.v = v;
    this.i = i;
    return true;
  }

  /** `\d+(\.\d+)?` (at most 15 digits in all): the value `Number()` gives for it, in `v`. */
  dec(): boolean {
    const { buf, e } = this;
    let i = this.i;
    let v = 0;
    const s = i;
    while (i < e && isDigit(buf[i]!)) v = v * 10 + (buf[i++]! - D0);
    if (i === s) return false;
    let digits = i - s;
    if (i < e && buf[i] === 46 && i + 1 < e && isDigit(buf[i + 1]!)) {
      i++;
      const f = i;
      while (i < e && isDigit(buf[i]!)) v = v * 10 + (buf[i++]! - D0);
      digits += i - f;
      if (digits > 15) return false;
      // one correctly rounded division of two exact values: the same double as Number("int.frac")
      v = v / POW10[i - f]!;
    } else if (digits > 15) return false;
    this.v = v;
    this.i = i;
    return true;
  }

  /** `n` digits exactly: their value in `v`. */
  fixed(n: number): boolean {
    const { buf } = this;
    const i = this.i;
    if (i + n > this.e) return false;
    let v = 0;
    for (let k = 0; k < n; k++) {
      const c = buf[i + k]!;
      if (!isDigit(c)) return false;
      v = v * 10 + (c - D0);
    }
    this.v = v;
    this.i = i + n;
    return true;
  }

  spaces(min: number): boolean {
    const s = this.i;
    while (this.i < this.e && this.buf[this.i] === 32) this.i++;
    return this.i - s >= min;
  }

  get done(): boolean {
    return this.i === this.e;
  }
}

const b = (s: string) => Buffer.from(s, 'latin1');

/** Byte range [s, e) equals the string `str` (latin1). */
function sameBytes(buf: Buffer, s: number, e: number, str: string): boolean {
  if (e - s !== str.length) return false;
  for (let i = s; i < e; i++) if (buf[i] !== str.charCodeAt(i - s)) return false;
  return true;
}

/** A free field (a path, a status phrase) the general path keeps as is: no credential hint in it (cached). */
class SafeText {
  private readonly seen = new Map<number, { text: string; ok: boolean }>();
  check(buf: Buffer, s: number, e: number, allowed: (c: number) => boolean): boolean {
    if (e - s > 128) return false;
    let h = 0x811c9dc5;
    for (let i = s; i < e; i++) {
      const c = buf[i]!;
      if (!allowed(c)) return false;
      h = Math.imul(h ^ c, 16777619);
    }
    const hit = this.seen.get(h);
    if (hit !== undefined && sameBytes(buf, s, e, hit.text)) return hit.ok;
    const text = buf.toString('latin1', s, e);
    const ok = !mayHoldSecret(text);
    if (this.seen.size > 4096) this.seen.clear();
    this.seen.set(h, { text, ok });
    return ok;
  }
}

const pathByte = (c: number) =>
  (c >= 97 && c <= 122) ||
  (c >= 65 && c <= 90) ||
  (c >= 48 && c <= 57) ||
  c === 47 ||
  c === 95 ||
  c === 46 ||
  c === 45;
const clientByte = (c: number) => (c >= 48 && c <= 58) || c === 46;
const wordByte = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 32 || c === 45;

export abstract class LineScanner {
  protected readonly c = new Cursor();
  protected readonly r: Scanned = {
    ts: null,
    tag: null,
    pid: -1,
    kind: 0,
    progress: true,
    engine: true,
    genTps: null,
    promptTps: null,
    running: null,
    queued: null,
    kvUsage: null,
  };
  protected env!: ScanEnv;
  /** Engine code of the wasm shape scanner (assembly/bulk.ts shapeScan): 0, none. */
  protected readonly wasmEngine: number = 0;
  /** What the general path does with a line's shape (LogAnalyzer.classifyShape), set by the analyzer. */
  classify: ShapeClassifier | null = null;
  /** Phases the launch has marked (a phase line of a marked phase below serving changes nothing). */
  marked: ReadonlySet<string> = new Set();
  /** The launch being read: a table of shapes holds for one launch (its marks, its engine). */
  launch: object | null = null;
  private lastTag = '';
  /** Key order of a peak sample as the engine's `sample` builds it (reports are compared as JSON). */
  protected abstract readonly promptFirst: boolean;

  /** Reads line [s, e) into `this.r`; false when it is not a line this scanner takes. */
  protected abstract line(buf: Buffer, s: number, e: number): boolean;

  /** Reads whole serving lines from `start` into `run`; returns the position after them. */
  read(
    buf: Buffer,
    start: number,
    end: number,
    lineNo: number,
    offset: number,
    run: ServingRunData,
    env: ScanEnv,
  ): number {
    this.env = env;
    const r = this.r;
    const maxLen = Math.min(env.maxLine, MAX_SCAN_LINE);
    let s = start;
    let n = 0;
    let lastTs = env.lastTs;
    const w = this.classify !== null && this.wasmEngine > 0 ? (shapeWasm ??= new ShapeWasm()) : null;
    if (w !== null) {
      w.load(buf);
      if (w.owner !== this || w.launch !== this.launch) {
        w.x.shapeClear();
        w.owner = this;
        w.launch = this.launch;
      }
    }
    for (;;) {
      if (w !== null) {
        // whole lines of known shapes in wasm; the line it stops at is tried here
        const next = w.x.shapeScan(s, end, this.wasmEngine, maxLen, env.year, lastTs ?? Number.NaN);
        const R = w.res();
        const k = R[S.lines]!;
        if (k > 0) {
          const no0 = lineNo + n;
          if (run.lines === 0) {
            run.firstLine = no0 + 1;
            run.firstOffset = offset + (s - start);
            run.firstTs = null;
            run.lastTs = null;
          }
          run.lines += k;
          n += k;
          run.lastLine = lineNo + n;
          run.lastOffset = offset + (R[S.lastStart]! - start);
          run.endOffset = offset + (R[S.lastEnd]! + 1 - start);
          if (R[S.nSamp]! > 0) this.foldSamples(w, R, run, no0, buf);
          const progIdx = R[S.progIdx]!;
          if (progIdx >= 0) {
            run.progressLine = no0 + 1 + progIdx;
            const pts = R[S.progTs]!;
            run.progressTs = Number.isNaN(pts) ? lastTs : pts;
          }
          const fts = R[S.firstTs]!;
          if (!Number.isNaN(fts) && run.firstTs === null) run.firstTs = fts;
          const lts = R[S.lastTs]!;
          if (!Number.isNaN(lts)) {
            run.lastTs = lts;
            lastTs = lts;
          }
          const yr = R[S.year]!;
          if (!Number.isNaN(yr)) env.year = yr;
          const tagLen = R[S.tagLen]!;
          if (tagLen > 0) {
            const t0 = R[S.tagStart]!;
            if (!sameBytes(buf, t0, t0 + tagLen, this.lastTag))
              this.lastTag = buf.toString('latin1', t0, t0 + tagLen);
            if (!run.tags.includes(this.lastTag)) run.tags.push(this.lastTag);
          }
          const pid = R[S.pid]!;
          if (pid >= 0 && !run.pids!.includes(pid)) run.pids!.push(pid);
          run.engineLines! += R[S.engineLines]!;
          run.requests += R[S.requests]!;
          s = next;
        }
        const stop = R[S.stop]!;
        if (stop === 0) break;
        if (stop === 3) continue;
        if (stop === 1) {
          // a shape not seen yet: learn what the general path does with it; this line takes the general path
          const e = buf.indexOf(10, s);
          if (e >= 0 && e < end) {
            const ts = R[S.stopTs]!;
            const m = R[S.stopMsg]!;
            const fx = this.learn(buf, s, m, e, Number.isNaN(ts) ? null : ts);
            const any = fx !== 7 && this.anyLength(buf, s, m, e, Number.isNaN(ts) ? null : ts, fx) ? 1 : 0;
            if (!w.x.shapeSetAt(m, e, fx, any)) {
              w.x.shapeClear();
              w.x.shapeSetAt(m, e, fx, any);
            }
          }
          break;
        }
      }
      const e = buf.indexOf(10, s);
      if (e < 0 || e >= end || e - s > maxLen) break;
      r.ts = null;
      r.tag = null;
      r.pid = -1;
      r.kind = 0;
      r.progress = true;
      r.engine = true;
      if (!this.line(buf, s, e)) break;
      n++;
      const no = lineNo + n;
      if (run.lines === 0) {
        run.firstLine = no;
        run.firstOffset = offset + (s - start);
        run.firstTs = null;
        run.lastTs = null;
      }
      run.lines++;
      run.lastLine = no;
      run.lastOffset = offset + (s - start);
      run.endOffset = offset + (e + 1 - start);
      if (r.ts !== null) {
        if (run.firstTs === null) run.firstTs = r.ts;
        run.lastTs = r.ts;
        lastTs = r.ts;
      }
      if (r.tag !== null && !run.tags.includes(r.tag)) run.tags.push(r.tag);
      if (r.pid >= 0 && !run.pids!.includes(r.pid)) run.pids!.push(r.pid);
      if (r.engine) run.engineLines!++;
      if (r.progress) {
        if (run.busy === false) run.busy = true;
        run.progressLine = no;
        run.progressTs = lastTs;
      }
      if (r.kind === 2) run.requests++;
      else if (r.kind === 1) this.sample(run, no, lastTs, buf, s, e);
      s = e + 1;
    }
    run.year = env.year;
    return s;
  }

  /**
   * Whether the general path reads the line alike whatever the lengths of its numbers: a busy server's numbers
   * (token counts, task ids, sizes) vary in length from line to line, and a shape per combination of lengths
   * would fill the table and send most lines through the general path. Probed on the line with every run of
   * digits in its message one digit long and seven digits long: a rule that counts digits (`\d{3}` of a
   * status) reads one of them otherwise, and the shape keeps its lengths.
   */
  private anyLength(buf: Buffer, s: number, m: number, e: number, ts: number | null, fx: number): boolean {
    const msg = buf.toString('latin1', m, e);
    if (!/\d/.test(msg)) return false;
    const head = buf.subarray(s, m);
    for (const digits of ['1', '1234567']) {
      const probe = Buffer.concat([head, Buffer.from(msg.replace(/\d+/g, digits), 'latin1')]);
      if (this.learn(probe, 0, m - s, probe.length, ts) !== fx) return false;
    }
    return true;
  }

  /** The wasm table's code for a line's shape (see assembly/bulk.ts FX_*): 7, never in bulk. */
  private learn(buf: Buffer, s: number, m: number, e: number, ts: number | null): number {
    // control bytes in the message (colour codes, a binary line's bytes): the general path's reading of them may
    // depend on more than the shape
    for (let i = m; i < e; i++) {
      const c = buf[i]!;
      if ((c < 0x20 && c !== 9) || c === 0x7f || c >= 0xf5 || c === 0xc0 || c === 0xc1) return 7;
    }
    const r = this.r;
    r.tag = null;
    r.pid = -1;
    let tag: string | null = null;
    let pid: number | null = null;
    if (this.wasmEngine === 1) {
      // vLLM: the process prefix, as the JS reader reads it (only access lines reach here)
      r.ts = null;
      if (!this.line(buf, s, e) || r.kind !== 2) return 7;
      tag = r.tag;
      pid = r.pid >= 0 ? r.pid : null;
    }
    const fx = this.classify!(buf, s, e, ts, tag, pid);
    if (fx === null) return 7;
    switch (fx.kind) {
      case 'serving':
        return fx.engine ? 1 : 2;
      case 'access':
        return fx.engine ? 3 : 7;
      case 'touch':
        return 4;
      case 'phase':
        return this.marked.has(fx.phase!) ? (fx.engine ? 5 : 6) : 7;
    }
  }

  /**
   * Adds the sample lines of one shapeScan call, folded in wasm, to `run`: the same as `sample` on each in
   * turn (the peak is the call's first highest gen throughput, taken if above the run's).
   */
  private foldSamples(w: ShapeWasm, R: Float64Array, run: ServingRunData, no0: number, buf: Buffer): void {
    run.samples += R[S.nSamp]!;
    run.lastSampleLine = no0 + 1 + R[S.lastSamp]!;
    const genN = R[S.genN]!;
    if (genN > 0) {
      const hist = w.hist();
      const into = run.gen.bins();
      for (let i = 0; i < BINS; i++) into[i]! += hist[i]!;
      run.gen.zeros += R[S.genZeros]!;
      fold(run.gen, genN, R[S.genLast]!, R[S.genPeak]!);
      const nSeries = R[S.nSeries]!;
      if (nSeries > 0) {
        (run.series as TimeSeries).addSums(w.series(nSeries));
      }
      const genTps = R[S.genPeak]!;
      if (run.peak === null || genTps > (run.peak.genTps ?? -1)) {
        const promptTps = nullIfNaN(R[S.peakPrompt]!);
        const running = nullIfNaN(R[S.peakRunning]!);
        const queued = nullIfNaN(R[S.peakQueued]!);
        const kvUsage = nullIfNaN(R[S.peakKv]!);
        const ts = nullIfNaN(R[S.peakTs]!);
        const line = no0 + 1 + R[S.peakIdx]!;
        const text = this.text(buf, R[S.peakStart]!, R[S.peakEnd]!);
        run.peak = this.promptFirst
          ? { promptTps, genTps, running, queued, kvUsage, ts, line, text }
          : { genTps, promptTps, running, queued, kvUsage, ts, line, text };
      }
    }
    fold(run.prompt, R[S.prN]!, R[S.prLast]!, R[S.prPeak]!);
    fold(run.running, R[S.ruN]!, R[S.ruLast]!, R[S.ruPeak]!);
    fold(run.queued, R[S.quN]!, R[S.quLast]!, R[S.quPeak]!);
    fold(run.kv, R[S.kvN]!, R[S.kvLast]!, R[S.kvPeak]!);
  }

  private sample(
    run: ServingRunData,
    no: number,
    ts: number | null,
    buf: Buffer,
    s: number,
    e: number,
  ): void {
    const r = this.r;
    run.samples++;
    if (r.genTps !== null) {
      run.gen.add(r.genTps);
      if (ts !== null) (run.series as TimeSeries).add(ts, r.genTps);
      if (run.peak === null || r.genTps > (run.peak.genTps ?? -1)) {
        run.peak = this.promptFirst
          ? {
              promptTps: r.promptTps,
              genTps: r.genTps,
              running: r.running,
              queued: r.queued,
              kvUsage: r.kvUsage,
              ts,
              line: no,
              text: this.text(buf, s, e),
            }
          : {
              genTps: r.genTps,
              promptTps: r.promptTps,
              running: r.running,
              queued: r.queued,
              kvUsage: r.kvUsage,
              ts,
              line: no,
              text: this.text(buf, s, e),
            };
      }
    }
    if (r.promptTps !== null) run.prompt.add(r.promptTps);
    if (r.running !== null) run.running.add(r.running);
    if (r.queued !== null) run.queued.add(r.queued);
    if (r.kvUsage !== null) run.kv.add(r.kvUsage);
    run.lastSampleLine = no;
  }

  /** The line's text as the general path keeps it (colour codes stripped). */
  protected text(buf: Buffer, s: number, e: number): string {
    return buf.toString('utf8', s, e).replace(/\x1b\[[0-9;]*m/g, '');
  }
}

const L = {
  pid: b(' pid='),
  info: b('INFO'),
  infoColon: b('INFO:'),
  engine: b('Engine '),
  avgPrompt: b('Avg prompt throughput: '),
  avgGen: b(' tokens/s, Avg generation throughput: '),
  running: b(' tokens/s, Running: '),
  reqsComma: b(' reqs, '),
  swapped: b('Swapped: '),
  waiting: b('Waiting: '),
  pending: b('Pending: '),
  reqs: b(' reqs'),
  kv: b(', GPU KV cache usage: '),
  prefix: b(', Prefix cache hit rate: '),
  dash: b(' - "'),
  http: b(' HTTP/'),
};
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'PATCH'].map(b);

/** vLLM: `[(Name pid=N) ]INFO MM-DD hh:mm:ss [file.py:N] [Engine NNN: ]Avg prompt throughput: …` and uvicorn access lines. */
export class VllmScanner extends LineScanner {
  protected readonly promptFirst = true;
  protected override readonly wasmEngine = 1;
  private tag = '';
  private readonly safe = new SafeText();

  /** `\x1b[…m`: true when skipped (or none). */
  private sgr(): boolean {
    const c = this.c;
    if (!c.byte(0x1b)) return true;
    if (!c.byte(0x5b)) return false;
    while (c.i < c.e && (isDigit(c.buf[c.i]!) || c.buf[c.i] === 59)) c.i++;
    return c.byte(0x6d);
  }

  protected line(buf: Buffer, s: number, e: number): boolean {
    const c = this.c;
    const r = this.r;
    c.set(buf, s, e);
    if (buf[s] === 0x1b || buf[s] === 0x28) {
      const colour = buf[s] === 0x1b;
      if (!this.sgr() || !c.byte(0x28)) return false;
      const n0 = c.i;
      const first = buf[n0]!;
      if (!((first >= 65 && first <= 90) || (first >= 97 && first <= 122))) return false;
      while (c.i < e) {
        const x = buf[c.i]!;
        if ((x >= 65 && x <= 90) || (x >= 97 && x <= 122) || isDigit(x) || x === 95 || x === 45) c.i++;
        else break;
      }
      const n1 = c.i;
      if (!c.lit(L.pid) || !c.int() || !c.byte(0x29)) return false;
      r.pid = c.v;
      if (colour && !this.sgr()) return false;
      c.byte(32);
      if (!sameBytes(buf, n0, n1, this.tag)) this.tag = buf.toString('latin1', n0, n1);
      r.tag = this.tag;
    }
    if (!c.lit(L.info)) return false;
    if (c.byte(58 /* : */)) return this.access();
    if (!c.byte(32)) return false;
    return this.stats();
  }

  private stats(): boolean {
    const c = this.c;
    const r = this.r;
    const buf = c.buf;
    if (!c.fixed(2)) return false;
    const mo = c.v;
    if (!c.byte(45) || !c.fixed(2)) return false;
    const d = c.v;
    if (!c.byte(32) || !c.fixed(2)) return false;
    const h = c.v;
    if (!c.byte(58) || !c.fixed(2)) return false;
    const mi = c.v;
    if (!c.byte(58) || !c.fixed(2)) return false;
    const sec = c.v;
    if (c.byte(46) && !c.int()) return false;
    if (!c.byte(32)) return false;
    // `\[?[\w./-]+(?::\d+)?\] ?`
    c.byte(91);
    const f0 = c.i;
    while (c.i < c.e) {
      const x = buf[c.i]!;
      if (pathByte(x)) c.i++;
      else break;
    }
    if (c.i === f0) return false;
    if (c.byte(58) && !c.int()) return false;
    if (!c.byte(93)) return false;
    c.byte(32);
    if (c.lit(L.engine)) {
      if (!c.int() || !c.byte(58) || !c.byte(32)) return false;
    }
    if (!c.lit(L.avgPrompt) || !c.dec()) return false;
    const prompt = c.v;
    if (!c.lit(L.avgGen) || !c.dec()) return false;
    const gen = c.v;
    if (!c.lit(L.running) || !c.int()) return false;
    const running = c.v;
    if (!c.lit(L.reqsComma)) return false;
    if (c.lit(L.swapped)) {
      if (!c.int() || !c.lit(L.reqsComma)) return false;
    }
    if (!(c.lit(L.waiting) || c.lit(L.pending)) || !c.int()) return false;
    const queued = c.v;
    if (!c.lit(L.reqs)) return false;
    let kv: number | null = null;
    if (c.lit(L.kv)) {
      if (!c.dec() || !c.byte(37)) return false;
      kv = c.v / 100;
    }
    if (c.lit(L.prefix)) {
      if (!c.dec() || !c.byte(37)) return false;
    }
    if (!c.done) return false;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return false;
    r.ts = Date.UTC(this.env.year, mo - 1, d, h, mi, sec) / 1000;
    r.kind = 1;
    r.promptTps = prompt;
    r.genTps = gen;
    r.running = running;
    r.queued = queued;
    r.kvUsage = kv;
    return true;
  }

  /** `INFO:     CLIENT - "METHOD PATH HTTP/V" NNN[ Phrase]` */
  private access(): boolean {
    const c = this.c;
    const buf = c.buf;
    if (!c.spaces(1)) return false;
    const c0 = c.i;
    while (c.i < c.e && clientByte(buf[c.i]!)) c.i++;
    // digits, dots and colons: nothing a credential could be
    if (c.i === c0) return false;
    if (!c.lit(L.dash)) return false;
    let m = false;
    for (const x of METHODS)
      if (c.lit(x)) {
        m = true;
        break;
      }
    if (!m || !c.byte(32)) return false;
    const p0 = c.i;
    while (c.i < c.e && buf[c.i] !== 32) c.i++;
    if (c.i === p0 || !this.safe.check(buf, p0, c.i, pathByte)) return false;
    if (!c.lit(L.http)) return false;
    const v0 = c.i;
    while (c.i < c.e && (isDigit(buf[c.i]!) || buf[c.i] === 46)) c.i++;
    if (c.i === v0 || !c.byte(34) || !c.byte(32) || !c.fixed(3)) return false;
    if (!c.done) {
      if (!c.byte(32)) return false;
      const t0 = c.i;
      if (t0 === c.e || !this.safe.check(buf, t0, c.e, wordByte) || buf[c.e - 1] === 32) return false;
      c.i = c.e;
    }
    this.r.kind = 2;
    return true;
  }
}

/**
 * What the general path does with a message of one shape (its digits aside), found once by the analyzer
 * (`LogAnalyzer.classifyShape`) on the first line of that shape: the signature that matched, or none.
 */
export interface ShapeEffect {
  /** serving: a serving signature without a sample; phase: a phase signature whose phase is `phase`;
   * touch: no rule at all (the line only moves the launch's end). */
  kind: 'serving' | 'access' | 'phase' | 'touch';
  phase: string | null;
  /** An engine's own rule (counted in engineLines), not a common one. */
  engine: boolean;
}

/** The analyzer's side of a shape scanner: the effect of a line's shape, null when it must take the general path. */
export type ShapeClassifier = (
  buf: Buffer,
  s: number,
  e: number,
  ts: number | null,
  tag: string | null,
  pid: number | null,
) => ShapeEffect | null;

/**
 * A scanner for engines whose serving lines vary in many small ways (llama-server's slot lines, TGI's request
 * spans): each line's frame is read explicitly, and its message's shape (the bytes with every run of digits
 * as one mark of its length) is looked up in a table the analyzer fills from the general path on the first line of each
 * shape. Only shapes whose effect cannot depend on the digits are kept: no sample (samples are read
 * explicitly), no access status, no credential look-alike (`classifyShape` checks).
 */
export abstract class ShapeScanner extends LineScanner {
  private readonly shapes = new Map<number, ShapeEffect | null>();
  private shapesOf: object | null = null;

  /** Reads the line's frame: the message's start (or -1), its time into this.r.ts. */
  protected abstract frame(buf: Buffer, s: number, e: number): number;
  /** Lines read explicitly (samples): true when taken. */
  protected special(_buf: Buffer, _m: number, _e: number): boolean {
    return false;
  }

  protected line(buf: Buffer, s: number, e: number): boolean {
    const m = this.frame(buf, s, e);
    if (m < 0) return false;
    if (this.special(buf, m, e)) return true;
    let h1 = 0x811c9dc5;
    let h2 = 0x12345;
    // a run of digits hashes as one mark of its length (1-4, 5+), as the wasm templates have it
    let digits = 0;
    for (let i = m; i < e; i++) {
      const c = buf[i]!;
      if (c >= 48 && c <= 57) {
        digits++;
        continue;
      }
      if (c < 0x20 || c === 0x7f || c >= 0xf5 || c === 0xc0 || c === 0xc1) return false;
      if (digits > 0) {
        const mark = 0x2f + Math.min(digits, 5);
        h1 = Math.imul(h1 ^ mark, 16777619);
        h2 = (Math.imul(h2, 31) + mark) | 0;
        digits = 0;
      }
      h1 = Math.imul(h1 ^ c, 16777619);
      h2 = (Math.imul(h2, 31) + c) | 0;
    }
    if (digits > 0) {
      const mark = 0x2f + Math.min(digits, 5);
      h1 = Math.imul(h1 ^ mark, 16777619);
      h2 = (Math.imul(h2, 31) + mark) | 0;
    }
    // two 32-bit hashes as one 53-bit key
    const key = (h1 >>> 0) * 2097152 + ((h2 >>> 0) & 0x1fffff);
    if (this.shapesOf !== this.launch) {
      this.shapes.clear();
      this.shapesOf = this.launch;
    }
    let fx = this.shapes.get(key);
    if (fx === undefined) {
      fx = this.classify === null ? null : this.classify(buf, s, e, this.r.ts, null, null);
      if (this.shapes.size > 65536) this.shapes.clear();
      this.shapes.set(key, fx);
      // The first line of a shape always takes the general path: the table only says what later ones do.
      return false;
    }
    if (fx === null) return false;
    const r = this.r;
    if (fx.kind === 'touch') {
      r.progress = false;
      r.engine = false;
    } else if (fx.kind === 'access') {
      r.kind = 2;
      r.engine = fx.engine;
    } else if (fx.kind === 'phase') {
      if (!this.marked.has(fx.phase!)) return false;
      r.progress = false;
      r.engine = fx.engine;
    } else r.engine = fx.engine;
    return true;
  }
}

const LL = {
  evalT: b('eval time = '),
  promptEval: b('prompt eval time = '),
  ms: b(' ms / '),
  tokens: b(' tokens ('),
  perToken: b(' ms per token, '),
  perSecond: b(' tokens per second)'),
};

/** llama-server: bare lines (`slot update_slots: id  0 | task 5 | …`, `srv  …`, the timing lines). */
export class LlamaScanner extends ShapeScanner {
  protected readonly promptFirst = false;
  protected override readonly wasmEngine = 2;

  protected frame(_buf: Buffer, s: number, _e: number): number {
    // No stamp: a sample's time is the last one seen (the general path's `line.ts ?? lastTs`).
    return s;
  }

  /** `[ prompt ]eval time = F ms / N tokens ( F ms per token, F tokens per second)` */
  protected override special(buf: Buffer, m: number, e: number): boolean {
    const c = this.c;
    c.set(buf, m, e);
    c.spaces(0);
    const prompt = c.lit(LL.promptEval);
    if (!prompt && !c.lit(LL.evalT)) return false;
    if (!c.spaces(1) || !c.dec() || !c.lit(LL.ms) || !c.spaces(0) || !c.int() || !c.lit(LL.tokens))
      return false;
    if (!c.spaces(1) || !c.dec() || !c.lit(LL.perToken) || !c.spaces(0) || !c.dec()) return false;
    const tps = c.v;
    if (!c.lit(LL.perSecond) || !c.done) return false;
    const r = this.r;
    r.kind = 1;
    r.genTps = prompt ? null : tps;
    r.promptTps = prompt ? tps : null;
    r.running = null;
    r.queued = null;
    r.kvUsage = null;
    return true;
  }
}

/** TGI: `YYYY-MM-DDTHH:MM:SS.ffffffZ  INFO msg` (the router's request spans). */
export class TgiScanner extends ShapeScanner {
  protected readonly promptFirst = false;
  protected override readonly wasmEngine = 3;
  private dayKey = -1;
  private dayBase = 0;

  protected frame(buf: Buffer, s: number, e: number): number {
    const c = this.c;
    c.set(buf, s, e);
    if (!c.fixed(4)) return -1;
    const y = c.v;
    if (!c.byte(45) || !c.fixed(2)) return -1;
    const mo = c.v;
    if (!c.byte(45) || !c.fixed(2)) return -1;
    const d = c.v;
    if (!c.byte(84) || !c.fixed(2)) return -1;
    const h = c.v;
    if (!c.byte(58) || !c.fixed(2)) return -1;
    const mi = c.v;
    if (!c.byte(58) || !c.fixed(2)) return -1;
    const sec = c.v;
    let frac = 0;
    if (c.byte(46)) {
      const f0 = c.i;
      if (!c.int()) return -1;
      // Number(`0.${frac}`): one correctly rounded division, as dec() does
      frac = c.v / POW10[c.i - f0]!;
      if (c.i - f0 === 0) return -1;
    }
    if (!c.byte(90) || !c.spaces(1) || !c.lit(L.info) || !c.spaces(1)) return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return -1;
    const key = y * 10000 + mo * 100 + d;
    if (key !== this.dayKey) {
      this.dayKey = key;
      this.dayBase = Date.UTC(y, mo - 1, d, 0, 0, 0) / 1000;
    }
    const base = this.dayBase + h * 3600 + mi * 60 + sec;
    this.r.ts = base + frac;
    this.env.year = y;
    return c.i;
  }
}

/** The engines whose serving lines a JS scanner reads in bulk (SGLang's: the wasm reader of bulk.ts). */
export const SCANNERS: Partial<Record<EngineId, () => LineScanner>> = {
  vllm: () => new VllmScanner(),
  llamacpp: () => new LlamaScanner(),
  tgi: () => new TgiScanner(),
};
