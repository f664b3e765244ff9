/**
 * The bulk reader for the lines a busy SGLang server writes millions of times: `Decode batch`,
 * `Prefill batch` and uvicorn access lines. It reads them straight from the bytes (no string decoding, no
 * regex, no per-line newline search) into a `ServingRunData`, a summary of consecutive such lines that can
 * be applied to a launch in one step. The loop itself is WebAssembly (assembly/bulk.ts, compiled by
 * `npm run build:wasm` into bulk-wasm.ts): it compares literals and stamps 8 bytes at a time, which
 * JavaScript cannot, and so reads a 1 GB log in a fraction of the time. It only ever sees lines while the
 * launch is steadily serving; every other line, and any line not in exactly the shape below, stops the run
 * and goes through the general path.
 *
 * Shapes (`[YYYY-MM-DD HH:MM:SS( DPn| TPn| PPn| EPn)*] ` prefix), read by the grammar of SGLang's `Decode batch`
 * signature, not one version's field list (0.2's `.`, 0.4's `cuda graph`, 0.5's `accept len`, `npu graph`,
 * `full/swa token`, a trailing `, ` or `#cache_miss` all read alike):
 *   Decode batch(.|,) #running-req: N, <fields>token usage: F, <fields>gen throughput (token/s): F[, #queue-req: N]<tail>
 *   Prefill batch, #new-seq: N, #new-token: N, #cached-token: N, token usage: F, #running-req: N, #queue-req: N<tail>
 *   INFO:     CLIENT - "GET|POST PATH HTTP/V" NNN<tail>
 * The tests check that the general path reads the same numbers from these lines, on every real log and on
 * generated ones.
 */
import { bulkInstance } from '../base/bulk-instance.js';
import { BINS, SeriesSummary, TimeSeries } from '../base/stats.js';
import { type LineScanner, newScanChunk, type ScanEnv } from './scan.js';
import type { ServingRunData } from './serving-run.js';

export type { ServingRunData } from './serving-run.js';

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

/** An empty run for the JS scanners. */
export function emptyScanRun(): ServingRunData {
  return { ...emptyRun(), pids: [], engineLines: 0 };
}

/** A generic reader's run (generic-scan.ts) made empty again: it never fills the summaries, series or peak. */
function emptyGenericRun(run: ServingRunData): void {
  run.lines = 0;
  run.firstLine = run.lastLine = 0;
  run.firstOffset = run.lastOffset = run.endOffset = 0;
  run.firstTs = run.lastTs = 0;
  run.year = 0;
  run.tags.length = 0;
  run.pids!.length = 0;
  run.requests = 0;
  run.engineLines = 0;
  run.progressLine = undefined;
  run.progressTs = undefined;
  run.busy = false;
}

/** Adds n values whose last and peak are given to a summary (peak -1: none). */
function fold(sum: SeriesSummary, n: number, last: number, peak: number): void {
  if (n === 0) return;
  sum.count += n;
  sum.last = last;
  if (sum.peak === null || peak > sum.peak) sum.peak = peak;
}

// Layout shared with assembly/bulk.ts.
const HIST = 1024;
const TAGS = 8192;
const SERIES = 16384;
const IN = 524288;
const R = {
  lines: 1,
  samples: 2,
  requests: 3,
  genN: 4,
  genLast: 5,
  genPeak: 6,
  genZeros: 7,
  prN: 8,
  prLast: 9,
  prPeak: 10,
  ruN: 11,
  ruLast: 12,
  ruPeak: 13,
  quLast: 14,
  quPeak: 15,
  kvLast: 16,
  kvPeak: 17,
  firstTs: 18,
  lastTs: 19,
  year: 20,
  lastStart: 21,
  lastEnd: 22,
  lastSample: 23,
  peakIdx: 24,
  peakStart: 25,
  peakEnd: 26,
  peakGen: 27,
  peakRunning: 28,
  peakQueued: 29,
  peakKv: 30,
  peakTs: 31,
  nSeries: 32,
  nTags: 33,
  firstStart: 34,
  quN: 35,
  fitN: 36,
} as const;

interface Exports {
  memory: WebAssembly.Memory;
  scan(start: number, end: number): number;
  seriesFit(n: number, max: number): number;
  reset(): void;
}

/** assembly/bulk.ts: the scanner starts a line only this many bytes before the end it is given. */
const REACH = 480;
/**
 * Zeros copied after the chunk: a line cut by the chunk's end meets them, not a newline, and stops the scan
 * there, so the scanner may start lines up to the chunk's end (given `end + REACH`). More than REACH, for the
 * 8-byte loads of the literals near a line's reach.
 */
const PAD = REACH + 64;

/**
 * Reads serving lines from a chunk into a run until a line that is not one of the three shapes, or the line
 * the chunk cuts (left to the general path, which carries it into the next chunk).
 */
export class BulkReader {
  private readonly x: Exports;
  private copied: Buffer | null = null;

  constructor() {
    this.x = bulkInstance() as unknown as Exports;
  }

  /** A new chunk is coming: even the same Buffer object may hold other bytes now. */
  newChunk(): void {
    this.copied = null;
  }

  /**
   * Room for a chunk of `len` bytes where the scanner reads it, for a caller that reads the file straight
   * into it (app/ingest.ts): `read` then finds the chunk in place instead of copying it. Good until the next
   * call (the memory may grow then, which detaches the buffer).
   */
  inputBuffer(len: number): Buffer {
    const x = this.x;
    const need = IN + len + PAD - x.memory.buffer.byteLength;
    if (need > 0) x.memory.grow(Math.ceil(need / 65536));
    return Buffer.from(x.memory.buffer, IN, len);
  }

  read(buf: Buffer, start: number, end: number, lineNo: number, offset: number, run: ServingRunData): number {
    const x = this.x;
    if (this.copied !== buf) {
      if (buf.buffer === x.memory.buffer && buf.byteOffset === IN) {
        // read into inputBuffer's room: in place, with the zeros after it
        new Uint8Array(x.memory.buffer, IN + buf.length, PAD).fill(0);
      } else {
        const need = IN + buf.length + PAD - x.memory.buffer.byteLength;
        if (need > 0) x.memory.grow(Math.ceil(need / 65536));
        const into = new Uint8Array(x.memory.buffer, IN, buf.length + PAD);
        into.set(buf);
        into.fill(0, buf.length);
      }
      this.copied = buf;
    }
    // To the chunk's end when it is the buffer's: the zeros after it (PAD) stop the scan at a cut line. Every
    // line the scanner takes ends at a newline it has read, so a line that ends before them reads the same.
    const next = x.scan(start, end === buf.length ? end + REACH : end);
    const mem = x.memory.buffer;
    const r = new Float64Array(mem, 0, 40);
    const lines = r[R.lines]!;
    if (lines === 0) return start;
    if (run.lines === 0) {
      run.firstLine = lineNo + 1;
      run.firstOffset = offset + (r[R.firstStart]! - start);
      run.firstTs = r[R.firstTs]!;
    }
    run.lines += lines;
    run.lastLine = lineNo + lines;
    run.lastOffset = offset + (r[R.lastStart]! - start);
    run.endOffset = offset + (r[R.lastEnd]! - start) + 1;
    run.lastTs = r[R.lastTs]!;
    run.year = r[R.year]!;
    run.requests += r[R.requests]!;
    run.samples += r[R.samples]!;
    if (r[R.lastSample]! >= 0) run.lastSampleLine = lineNo + 1 + r[R.lastSample]!;
    const tags = new Int32Array(mem, TAGS, 2 * r[R.nTags]!);
    for (let i = 0; i < tags.length; i += 2) {
      const t = buf.toString('latin1', tags[i]!, tags[i]! + tags[i + 1]!);
      if (!run.tags.includes(t)) run.tags.push(t);
    }
    const genN = r[R.genN]!;
    if (genN > 0) {
      const hist = new Uint32Array(mem, HIST, BINS);
      const into = run.gen.bins();
      for (let i = 0; i < BINS; i++) into[i]! += hist[i]!;
      run.gen.zeros += r[R.genZeros]!;
      fold(run.gen, genN, r[R.genLast]!, r[R.genPeak]!);
      const ts = run.series as TimeSeries;
      const n = r[R.nSeries]!;
      // Bucketed here when the seconds are in order (the wasm's seriesFit), else by addSums from the seconds.
      const width = ts.isFresh() ? x.seriesFit(n, ts.max) : -1;
      if (width > 0) ts.addFitted(width, new Float64Array(mem, SERIES, 3 * r[R.fitN]!));
      else ts.addSums(new Float64Array(mem, SERIES, 3 * n));
      const peakGen = r[R.peakGen]!;
      if (run.peak === null || peakGen > run.peak.genTps) {
        run.peak = {
          genTps: peakGen,
          promptTps: null,
          running: r[R.peakRunning]!,
          // -1: the line reports no queue (an older SGLang's `largest-len` decode line)
          queued: r[R.peakQueued]! < 0 ? null : r[R.peakQueued]!,
          kvUsage: r[R.peakKv]!,
          ts: r[R.peakTs]!,
          line: lineNo + 1 + r[R.peakIdx]!,
          text: buf.toString('utf8', r[R.peakStart]!, r[R.peakEnd]!).trimEnd(),
        };
      }
    }
    fold(run.prompt, r[R.prN]!, r[R.prLast]!, r[R.prPeak]!);
    const ruN = r[R.ruN]!;
    fold(run.running, ruN, r[R.ruLast]!, r[R.ruPeak]!);
    fold(run.queued, r[R.quN]!, r[R.quLast]!, r[R.quPeak]!);
    fold(run.kv, ruN, r[R.kvLast]!, r[R.kvPeak]!);
    return next;
  }
}

/**
 * Offers the splitter's chunks to a BulkReader while `ready()` holds, and hands each run read to `take`:
 * the glue between LineSplitter and the two users of the bulk reader (LogAnalyzer, RangeScanner).
 */
export class BulkHook {
  lines = 0;
  private readonly reader = new BulkReader();
  private spare: ServingRunData | null = null;
  private spareScan: ServingRunData | null = null;
  private genericRun: ServingRunData | null = null;

  constructor(
    private readonly ready: () => boolean,
    private readonly take: (run: ServingRunData) => void,
    /** Another engine's scanner (scan.ts) and its state, when its launch is steadily serving. */
    private readonly scanner: () => { scanner: LineScanner; env: ScanEnv } | null = () => null,
    /** The reader of lines by their shape, for lines no other takes (generic-scan.ts), when the state allows it. */
    private readonly generic: (
      buf: Buffer,
      start: number,
      end: number,
    ) => { scanner: LineScanner; env: ScanEnv } | null = () => null,
  ) {}

  newChunk(): void {
    this.reader.newChunk();
    newScanChunk();
  }

  inputBuffer(len: number): Buffer {
    return this.reader.inputBuffer(len);
  }

  read(buf: Buffer, start: number, end: number, lineNo: number, offset: number): number {
    this.lines = 0;
    if (!this.ready()) {
      const sc = this.scanner();
      if (sc !== null) {
        const run = (this.spareScan ??= emptyScanRun());
        const next = sc.scanner.read(buf, start, end, lineNo, offset, run, sc.env);
        if (run.lines > 0) {
          this.spareScan = null;
          this.lines = run.lines;
          this.take(run);
          return next;
        }
      }
      // a line the engine's scanner does not take (another program's, under a prefix it does not read)
      const g = this.generic(buf, start, end);
      if (g === null) return start;
      // One run, emptied after each use: a generic run holds no sample (its summaries and series stay empty),
      // and its taker (LogAnalyzer.applyRun) keeps nothing of it; a log whose runs are a few lines long between
      // general lines made thousands of them per megabyte.
      const run = (this.genericRun ??= emptyScanRun());
      run.busy = false;
      const next = g.scanner.read(buf, start, end, lineNo, offset, run, g.env);
      if (run.lines === 0) return start;
      this.lines = run.lines;
      this.take(run);
      emptyGenericRun(run);
      return next;
    }
    // Offered at every line start; most offers after a general line read nothing, so the empty run is
    // kept for the next offer instead of allocating one (histogram and series buffers) each time.
    const run = (this.spare ??= emptyRun());
    const next = this.reader.read(buf, start, end, lineNo, offset, run);
    if (run.lines > 0) {
      this.spare = null;
      this.lines = run.lines;
      this.take(run);
    }
    return next;
  }
}
