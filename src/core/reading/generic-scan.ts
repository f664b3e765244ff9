/**
 * The bulk reader for a log no engine scanner reads (issue 23): plain text, a server firedup has no module for
 * (Ollama's GIN access lines, any other program's chatter), an engine's lines under a prefix its own scanner does
 * not read (TGI's router lines under compose's `service | `). The general path reads each of their lines with
 * every engine's rules, the detector, the traceback reader and the catalogs: 10-25 s of CPU per 100 MB.
 *
 * This reader follows the grammar of the lines, not their bytes: a line's *shape* is its bytes with its stamp
 * (`YYYY-MM-DD[T ]HH:MM:SS[.,frac][Z]`, read as the general path reads it) set aside as one mark, every run of
 * digits that is part of a word, a decimal, an address, a time or an id set aside as another (whatever its
 * length), and short numbers standing alone as words (`| 200 |`, `exit code 137`, `status=500`) kept as they
 * are, since rules read them (an access line's status). The first line of each shape takes the general path;
 * the analyzer (LogAnalyzer.classifyGeneric) says what that path does with the line, and the same is asked of
 * probes, the line with its set-aside digits rewritten (every digit 0 … 9, one digit, seven digits, another
 * stamp): only a shape whose every probe reads alike is kept, and only when what it does is nothing but move
 * the launch's end and time (`touch`) or count a request of a serving launch (`serving`, `access`). Later lines
 * of a kept shape are summed into a ServingRunData without a string being made of them. The table holds for one
 * state of the reading (LogAnalyzer.genericKey: the launch, its phase, the engine the detector holds, …): a
 * line's reading depends on that, so each state has its own.
 *
 * The loop over the lines, their shapes and the table are in wasm (assembly/generic.ts genericScan): the same
 * tokens, hash and stamp time as `shape` here, which stays for learning a shape (its probes) and is compared
 * with the wasm one on every real line by the test. JS sees only a line whose shape is new or that the general
 * path reads.
 *
 * test/core/reading/generic-scan.test.ts reads every real line of the corpora and checks that lines of one shape
 * read alike; chunking.test.ts checks each bench shape's report with this reader on and off.
 */

import { bulkInstance } from '../base/bulk-instance.js';
import type { HardWrap } from '../lines/hard-wrap.js';
import { LineScanner, MAX_SCAN_LINE, type ScanEnv, type ShapeEffect, scanChunkEpoch } from './scan.js';
import type { ServingRunData } from './serving-run.js';

/** A stamp is looked for in a line's first bytes only (a frame's, not a message's). */
const STAMP_REACH = 80;
/** Shapes kept in all (then forgotten and learned again), and states. */
const MAX_SHAPES = 65536;
const MAX_STATES = 256;
/** Shapes learned before the hit rate decides whether learning pays (see `rest`). */
const FREE_LEARNS = 256;
/** The longest rest, in offers, of a scanner that finds nothing it can take. */
const MAX_REST = 4096;

const isDigit = (c: number) => c >= 48 && c <= 57;
/** Bytes around a short number that make it a word of its own (kept as is in the shape). */
const alone = (c: number) =>
  c === 32 ||
  c === 9 ||
  c === 124 ||
  c === 61 ||
  c === 44 ||
  c === 40 ||
  c === 41 ||
  c === 91 ||
  c === 93 ||
  c === 34 ||
  c === 39 ||
  c === 35 ||
  c === 59 ||
  c === 60 ||
  c === 62 ||
  c === 123 ||
  c === 125 ||
  c === -1;
/** One word into a murmur3-style hash (its body step, with the given constants). */
function mix(h: number, k: number, c1: number, c2: number): number {
  k = Math.imul(k, c1);
  k = (k << 15) | (k >>> 17);
  h ^= Math.imul(k, c2);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** murmur3's finaliser: every bit of the input moves every bit of the output. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/** A verdict kept in the table: what later lines of the shape do. */
enum Verdict {
  Never = 0,
  Touch = 1,
  ServingEngine = 2,
  ServingCommon = 3,
  AccessEngine = 4,
  AccessCommon = 5,
}

function verdictOf(fx: ShapeEffect | null): Verdict {
  if (fx === null) return Verdict.Never;
  switch (fx.kind) {
    case 'touch':
      return Verdict.Touch;
    case 'serving':
      return fx.engine ? Verdict.ServingEngine : Verdict.ServingCommon;
    case 'access':
      return fx.engine ? Verdict.AccessEngine : Verdict.AccessCommon;
    default:
      return Verdict.Never;
  }
}

/** Where a line's parts lie, for its probes: its stamp and its set-aside runs of digits. */
interface Layout {
  stampStart: number;
  stampEnd: number;
  runs: number[];
}

/** The wasm loop's results (assembly/generic.ts G_*): f64 slots. */
const G = {
  lines: 100,
  lastStart: 101,
  lastEnd: 102,
  firstTs: 103,
  lastTs: 104,
  year: 105,
  engineLines: 106,
  requests: 107,
  progIdx: 108,
  progTs: 109,
  stop: 110,
  wrapMax: 111,
  wrapAtMax: 112,
  key: 113,
  units: 114,
  stampTs: 115,
  stampYear: 116,
} as const;

interface GenericExports {
  memory: WebAssembly.Memory;
  genericScan(
    s: number,
    end: number,
    avail: number,
    maxLen: number,
    state: number,
    wrapMax: number,
    wrapAtMax: number,
    lastTs: number,
  ): number;
  genericSet(state: number, verdict: number): void;
  genericClear(): void;
  genericIn(): number;
  genericShape(s: number, e: number): void;
}

/**
 * Bytes of the chunk copied into the wasm memory at a time: a window, not the whole chunk (8 MiB from ingest),
 * so that the reader's memory stays small whatever the chunk.
 */
const WINDOW = 256 * 1024;

/** The wasm loop's instance (its own memory: the table, then a window of the chunk copied in at `at`). */
export class GenericWasm {
  readonly x: GenericExports;
  readonly at: number;
  /** The window copied: bytes [from, to) of `copied`, as of chunk `epoch`. */
  from = 0;
  to = 0;
  private copied: Buffer | null = null;
  private epoch = -1;
  private view: Float64Array | null = null;

  constructor() {
    this.x = bulkInstance() as unknown as GenericExports;
    this.at = this.x.genericIn();
    // the table's room (a new memory is zeros: an empty table; its pages count once written)
    this.room(0);
  }

  private room(len: number): void {
    const need = this.at + len + 16 - this.x.memory.buffer.byteLength;
    if (need > 0) this.x.memory.grow(Math.ceil(need / 65536));
  }

  /**
   * Bytes from `s` on in the wasm memory: the window holding them, or a new one from `s` (once per chunk pushed
   * at most per window: scan.ts scanChunkEpoch). `cut`: the scan stopped at the window's end (G_STOP 3), so a
   * new one from `s`, the rest of the chunk where the window already started there.
   */
  window(buf: Buffer, s: number, cut: boolean): void {
    const epoch = scanChunkEpoch();
    const same = this.copied === buf && this.epoch === epoch;
    if (same && !cut && s >= this.from && s < this.to) return;
    const len = cut && same && s === this.from ? buf.length - s : Math.min(WINDOW, buf.length - s);
    this.room(len);
    new Uint8Array(this.x.memory.buffer, this.at, len).set(buf.subarray(s, s + len));
    this.copied = buf;
    this.epoch = epoch;
    this.from = s;
    this.to = s + len;
  }

  res(): Float64Array {
    const mem = this.x.memory.buffer;
    if (this.view === null || this.view.buffer !== mem) this.view = new Float64Array(mem, 0, 128);
    return this.view;
  }
}

export class GenericScanner extends LineScanner {
  protected readonly promptFirst = false;
  /** The analyzer's count of line lengths (a hard-wrapped paste's column): kept as the general path keeps it. */
  wrap: HardWrap | null = null;
  /** The state the table holds for (LogAnalyzer.genericKey). */
  private key = '';
  /**
   * The states seen (a log whose engine votes go back and forth returns to a state), each a number that keys
   * its part of the wasm table, and the one now.
   */
  private readonly byKey = new Map<string, number>();
  private state = 0;
  private readonly w = new GenericWasm();
  private kept = 0;
  private learned = 0;
  private hits = 0;
  /** Offers to skip (the scanner rests while it finds nothing to take: a log whose lines never repeat a shape). */
  private rest = 0;
  private restNext = 1;

  /** Time and year of the stamp last read (`stamp`); the year is the wasm reader's (the test compares them). */
  private stampTs = 0;
  stampYear = 0;
  private dayKey = -1;
  private dayBase = 0;

  /** Sets the state the table holds for: a new one empties it. */
  setKey(key: string): void {
    if (key === this.key) return;
    this.key = key;
    let t = this.byKey.get(key);
    if (t === undefined) {
      if (this.byKey.size >= MAX_STATES) {
        this.byKey.clear();
        this.w.x.genericClear();
        this.kept = 0;
      }
      this.byKey.set(key, (t = this.byKey.size));
    }
    this.state = t;
  }

  /**
   * Reads the lines of shapes the table keeps from `start` into `run` (in wasm: assembly/generic.ts
   * genericScan); the first line of a shape not seen yet is learned (learnShape) and left to the general path.
   */
  override read(
    buf: Buffer,
    start: number,
    end: number,
    lineNo: number,
    offset: number,
    run: ServingRunData,
    env: ScanEnv,
  ): number {
    const before = run.lines;
    this.env = env;
    const w = this.w;
    const wrap = this.wrap!;
    const maxLen = Math.min(env.maxLine, MAX_SCAN_LINE);
    let lastTs = env.lastTs;
    let s = start;
    let n = 0;
    let cut = false;
    for (;;) {
      w.window(buf, s, cut);
      const base = w.from;
      const a = s - base;
      const next =
        base +
        w.x.genericScan(
          a,
          end - base,
          w.to - base,
          maxLen,
          this.state,
          wrap.max,
          wrap.atMax,
          lastTs ?? Number.NaN,
        );
      const R = w.res();
      const k = R[G.lines]!;
      if (k > 0) {
        wrap.max = R[G.wrapMax]!;
        wrap.atMax = R[G.wrapAtMax]!;
        this.hits += k;
        if (run.lines === 0) {
          run.firstLine = lineNo + n + 1;
          run.firstOffset = offset + (s - start);
          run.firstTs = null;
          run.lastTs = null;
        }
        run.lines += k;
        run.lastLine = lineNo + n + k;
        run.lastOffset = offset + (base + R[G.lastStart]! - start);
        run.endOffset = offset + (base + R[G.lastEnd]! + 1 - start);
        const fts = R[G.firstTs]!;
        if (!Number.isNaN(fts)) {
          if (run.firstTs === null) run.firstTs = fts;
          run.lastTs = lastTs = R[G.lastTs]!;
          env.year = R[G.year]!;
        }
        run.engineLines! += R[G.engineLines]!;
        run.requests += R[G.requests]!;
        const prog = R[G.progIdx]!;
        if (prog >= 0) {
          if (run.busy === false) run.busy = true;
          run.progressLine = lineNo + n + 1 + prog;
          const pts = R[G.progTs]!;
          run.progressTs = Number.isNaN(pts) ? null : pts;
        }
        n += k;
      }
      s = next;
      const stop = R[G.stop]!;
      // the window's end: the next from where the scan stopped
      cut = stop === 3;
      if (cut) continue;
      if (stop === 1) {
        // a shape not seen yet: what the general path does with it; this line takes the general path
        const e = buf.indexOf(10, s);
        const v = this.learnShape(buf, s, e);
        if (this.kept >= MAX_SHAPES) {
          w.x.genericClear();
          this.kept = 0;
        }
        w.x.genericSet(this.state, v);
        this.kept++;
        this.learned++;
      }
      break;
    }
    run.year = env.year;
    if (run.lines > before) this.restNext = 1;
    else this.missed();
    return s;
  }

  /** Lines are read in wasm (`read`). */
  protected override line(): boolean {
    return false;
  }

  /** Whether this offer is skipped: true while resting (see `missed`). */
  resting(): boolean {
    if (this.rest === 0) return false;
    this.rest--;
    return true;
  }

  /** An offer read nothing: once learning no longer pays, rest 1, 2, 4 … MAX_REST offers before trying again. */
  missed(): void {
    if (this.learned < FREE_LEARNS || this.hits >= this.learned) return;
    this.rest = this.restNext;
    this.restNext = Math.min(this.restNext * 2, MAX_REST);
  }

  /**
   * `YYYY-MM-DD[T ]HH:MM:SS[(.|,)F+][Z]` at i (a run of 4 digits just before a `-`): its end, or -1. The time
   * as TGI's scanner computes it (one correctly rounded division for the fraction), checked against the
   * general path's reading of each shape's lines and probes.
   */
  private stamp(buf: Buffer, i: number, e: number): number {
    if (i + 19 > e) return -1;
    const d2 = (k: number) => {
      const a = buf[k]! - 48;
      const b = buf[k + 1]! - 48;
      return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
    };
    const y = (buf[i]! - 48) * 1000 + (buf[i + 1]! - 48) * 100 + (buf[i + 2]! - 48) * 10 + (buf[i + 3]! - 48);
    if (buf[i + 4] !== 45 || buf[i + 7] !== 45) return -1;
    const mo = d2(i + 5);
    const d = d2(i + 8);
    const sep = buf[i + 10];
    if (sep !== 84 && sep !== 32) return -1;
    const h = d2(i + 11);
    if (buf[i + 13] !== 58) return -1;
    const mi = d2(i + 14);
    if (buf[i + 16] !== 58) return -1;
    const sec = d2(i + 17);
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
      return -1;
    let j = i + 19;
    let frac = 0;
    if (j < e && (buf[j] === 46 || buf[j] === 44) && j + 1 < e && isDigit(buf[j + 1]!)) {
      j++;
      const f0 = j;
      let v = 0;
      while (j < e && isDigit(buf[j]!)) v = v * 10 + (buf[j++]! - 48);
      if (j - f0 > 15) return -1;
      frac = v / POW10[j - f0]!;
    }
    if (j < e && buf[j] === 90) j++;
    // a stamp runs into no word or number
    if (j < e && (isDigit(buf[j]!) || buf[j] === 58 || buf[j] === 43 || buf[j] === 45)) return -1;
    const key = y * 10000 + mo * 100 + d;
    if (key !== this.dayKey) {
      this.dayKey = key;
      this.dayBase = Date.UTC(y, mo - 1, d, 0, 0, 0) / 1000;
    }
    this.stampTs = this.dayBase + h * 3600 + mi * 60 + sec + frac;
    this.stampYear = y;
    return j;
  }

  /**
   * The line's shape as a 53-bit key, its stamp read into `stampTs`/`stampYear` (`hasStamp`), its layout
   * into `layout` when asked; -1 when the line is no one this reader takes (a control byte, a byte
   * outside ASCII: their decoding and the wrap column's count could differ from the bytes').
   */
  private hasStamp = false;
  private shape(buf: Buffer, s: number, e: number, layout: Layout | null): number {
    // The line as tokens (a byte; 1: the stamp; 2: a set-aside run of digits), four to a 32-bit word, each word
    // mixed into two murmur3-style hashes of their own seeds: one multiply chain per four bytes, not two per byte.
    let h1 = 0x9747b28c;
    let h2 = 0x2545f491;
    let acc = 0;
    let n = 0;
    let q4 = 0;
    this.hasStamp = false;
    /** Still in the line's first word. */
    let first = true;
    let units = e - s;
    let i = s;
    while (i < e) {
      const c = buf[i]!;
      let tok = c;
      if (c >= 58) {
        // letters, most punctuation; outside ASCII: the decoded length (UTF-16 units, what the wrap column
        // counts) is one per character, two past the BMP; bytes no UTF-8 text holds are not taken
        if (c >= 0x7f) {
          if (c === 0x7f || c === 0xc0 || c === 0xc1 || c >= 0xf5) return -1;
          if (c < 0xc0) units--;
          else if (c >= 0xf0) units++;
        }
        i++;
      } else if (c >= 48) {
        let j = i + 1;
        while (j < e && isDigit(buf[j]!)) j++;
        if (!this.hasStamp && j - i === 4 && i - s < STAMP_REACH && (i === s || !isDigit(buf[i - 1]!))) {
          const q = this.stamp(buf, i, e);
          if (q > 0) {
            this.hasStamp = true;
            if (layout !== null) {
              layout.stampStart = i;
              layout.stampEnd = q;
            }
            tok = 1;
            j = q;
          }
        }
        if (tok !== 1) {
          const prev = i > s ? buf[i - 1]! : -1;
          const next = j < e ? buf[j]! : -1;
          // kept: a short number standing alone (a status, a code), or one in the first word that is no time or
          // decimal (a compose service's `tgi-1-1`, which names the service)
          if (
            j - i <= 3 &&
            ((alone(prev) && alone(next)) ||
              (first && prev !== 58 && prev !== 46 && next !== 58 && next !== 46))
          ) {
            // its digits as tokens: all but the last here, the last below
            for (let k = i; k < j - 1; k++) {
              acc = (acc << 8) | buf[k]!;
              n++;
              if (++q4 === 4) {
                q4 = 0;
                h1 = mix(h1, acc, 0xcc9e2d51, 0x1b873593);
                h2 = mix(h2, acc, 0x85ebca6b, 0xc2b2ae35);
                acc = 0;
              }
            }
            tok = buf[j - 1]!;
          } else {
            if (layout !== null) layout.runs.push(i, j);
            tok = 2;
          }
        }
        i = j;
      } else if (c >= 32 || c === 9) {
        if (c === 32 || c === 9) first = false;
        i++;
      } else return -1; // a control byte
      acc = (acc << 8) | tok;
      n++;
      if (++q4 === 4) {
        q4 = 0;
        h1 = mix(h1, acc, 0xcc9e2d51, 0x1b873593);
        h2 = mix(h2, acc, 0x85ebca6b, 0xc2b2ae35);
        acc = 0;
      }
    }
    // the tokens left, and their number (a line of n tokens and one of n + 1 whose last is 0 differ)
    h1 = fmix(mix(h1, acc, 0xcc9e2d51, 0x1b873593) ^ n);
    h2 = fmix(mix(h2, acc, 0x85ebca6b, 0xc2b2ae35) ^ n);
    this.units = units;
    return (h1 >>> 0) * 2097152 + ((h2 >>> 0) & 0x1fffff);
  }

  /** The decoded length of the line `shape` read last (its bytes less UTF-8's continuation bytes). */
  units = 0;

  /** What later lines of this line's shape do: the general path's verdict on it and on each of its probes. */
  private learnShape(buf: Buffer, s: number, e: number): Verdict {
    const classify = this.classify;
    if (classify === null) return Verdict.Never;
    const layout: Layout = { stampStart: -1, stampEnd: -1, runs: [] };
    this.shape(buf, s, e, layout);
    const ts = this.hasStamp ? this.stampTs : null;
    const v = verdictOf(classify(buf, s, e, ts, null, null));
    if (v === Verdict.Never) return v;
    const line = buf.subarray(s, e);
    const probes: Buffer[] = [];
    const runs = layout.runs;
    if (runs.length > 0) {
      for (let d = 0; d <= 9; d++) probes.push(rewrite(line, s, runs, (n) => String(d).repeat(n)));
      probes.push(rewrite(line, s, runs, () => '1'));
      probes.push(rewrite(line, s, runs, () => '1234567'));
    }
    if (layout.stampStart >= 0) {
      const p = Buffer.from(line);
      const other = '2031-11-22 13:44:55';
      for (let k = layout.stampStart - s, n = 0; k < layout.stampEnd - s; k++, n++) {
        const c = p[k]!;
        if (isDigit(c)) p[k] = n < other.length && isDigit(other.charCodeAt(n)) ? other.charCodeAt(n) : 55;
      }
      probes.push(p);
    }
    for (const p of probes) {
      const key = this.shape(p, 0, p.length, null);
      if (key < 0) return Verdict.Never;
      const pts = this.hasStamp ? this.stampTs : null;
      if (verdictOf(classify(p, 0, p.length, pts, null, null)) !== v) return Verdict.Never;
    }
    return v;
  }
}

/** The line with each set-aside run of digits [runs[2k], runs[2k+1]) replaced by `fill(its length)`. */
function rewrite(line: Buffer, s: number, runs: number[], fill: (n: number) => string): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (let k = 0; k < runs.length; k += 2) {
    const a = runs[k]! - s;
    const b = runs[k + 1]! - s;
    parts.push(line.subarray(at, a), Buffer.from(fill(b - a), 'latin1'));
    at = b;
  }
  parts.push(line.subarray(at));
  return Buffer.concat(parts);
}

/**
 * The shape of a line's first word as hard-wrap.ts's firstWordShape has it (`/^\S{2,40}/`, runs of `\w` as one
 * mark), hashed; -1 where that is null (under 2 characters, or no punctuation). ASCII lines only.
 */
export function firstWordShape(buf: Buffer, s: number, e: number): number {
  return wordShape(s, e, (i) => buf[i]!);
}

/** firstWordShape of a text (its characters as bytes: for a text of printable ASCII, the same answer). */
export function firstWordShapeOf(text: string): number {
  return wordShape(0, text.length, (i) => text.charCodeAt(i));
}

function wordShape(s: number, e: number, at: (i: number) => number): number {
  const stop = Math.min(e, s + 40);
  let i = s;
  let h = 0x811c9dc5;
  let punct = false;
  let inWord = false;
  for (; i < stop; i++) {
    const c = at(i);
    if (c === 32 || (c >= 9 && c <= 13)) break;
    // a character outside ASCII: \S and \w count characters, not bytes
    if (c >= 0x80) return -1;
    const w = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (w) {
      if (!inWord) h = Math.imul(h ^ 0x77, 16777619);
      inWord = true;
    } else {
      punct = true;
      inWord = false;
      h = Math.imul(h ^ c, 16777619);
    }
  }
  return i - s < 2 || !punct ? -1 : h >>> 0;
}

/** The length of bytes [s, e) decoded as UTF-8 (UTF-16 units), for valid UTF-8: what `shape` counts. */
export function decodedUnits(buf: Buffer, s: number, e: number): number {
  let units = e - s;
  for (let i = s; i < e; i++) {
    const c = buf[i]!;
    if (c >= 0x80 && c < 0xc0) units--;
    else if (c >= 0xf0) units++;
  }
  return units;
}
