/**
 * Reads a local log through the ledger, incrementally: the ledger keeps, per file, the byte offset of the
 * last line boundary read and the analyzer's checkpoint there, so `firedup status` on a 2 GB log that grew
 * by 1 MB reads about 1 MB. A file that was replaced (another inode) or rewritten (its first bytes hash
 * differently) is read from the start. The hashes are core/base/content-hash.ts's (128 bits, not cryptographic: an
 * accidental rewrite goes unseen with a chance of about 2^-64); an entry an older firedup wrote holds SHA-256
 * digests, checked once with node:crypto and saved again in the new form.
 *
 * The report is always the one a full read gives: the checkpoint continues the read exactly, and the last
 * line, when the file does not end with a newline yet, is read each time (after the checkpoint is taken).
 * With a ledger, the launches that closed are written as they close and let go (ledger-read.ts): the
 * report holds the launches still open, and `earlier` reads the others back from the ledger when asked.
 */
import fs from 'node:fs';
import { CONTENT_HASH_PREFIX, contentHash } from '../core/base/content-hash.js';
import type { EarlierLaunches } from '../core/campaign/records.js';
import { DEFAULT_MAX_LINE } from '../core/lines/splitter.js';
import { type AnalyzerOptions, LogAnalyzer } from '../core/reading/analyzer.js';
import { CheckpointError } from '../core/reading/checkpoint.js';
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import type { ShapePlan } from '../core/reading/scan.js';
import { UsageError } from '../errors.js';
import {
  describeFsError,
  middleLineStart,
  openRegular,
  PARALLEL_MIN_BYTES,
  ScanWorker,
} from '../sources/file.js';
import { recordFromReport } from '../store/record.js';
import type { LaunchRecord, LogKey, LogState } from '../store/types.js';
import { FEED_PIECE, keptIds, type LedgerLike, LedgerRead } from './ledger-read.js';

export type { LedgerLike } from './ledger-read.js';

/** Bytes read before deciding whether a second thread helps (see `LogAnalyzer.oneThread`). */
const HEAD_PROBE = 8 << 20;

export interface IngestOptions extends AnalyzerOptions {
  /** Host name in the ledger's keys (default `localhost`). */
  host?: string;
  /** Epoch seconds stamped on the records (default: now). */
  now?: number;
  /** Bytes read between two saves of progress, so a killed read resumes from the last one (default 256 MB). */
  saveEvery?: number;
  /** Read with a second thread when at least this many bytes are new (default 64 MB; Infinity: never). */
  parallelMinBytes?: number;
  /**
   * Takes each launch's final report as soon as it is known (the launch closed, see `settledReport`); the
   * result's report then holds only the launches not handed here, in order after them. With a ledger, those
   * it let go in earlier reads (`earlier`) come first. `text`: the report as JSON where the ledger's writer
   * made it already (from the launch's row: see BulkWriterLike.text), or null.
   */
  onSettled?: (r: LaunchReport, text: string | null) => void;
}

export interface IngestResult {
  /**
   * Every launch of the file, the same report as a full read, but for the launches in `earlier` (and those
   * handed to `onSettled`), which come before the report's own.
   */
  report: AnalysisReport;
  /** The launches let go into the ledger (closed ones), or null. */
  earlier: EarlierLaunches | null;
  analyzer: LogAnalyzer;
  /** One per launch of the report, as saved (the ids the ledger keeps them under). */
  records: LaunchRecord[];
  /** Bytes read from the file this time (new bytes, the head hashed, the search for the last newline). */
  bytesRead: number;
  /** Offset the read continued from (0: from the start). */
  resumedFrom: number;
  /** The ledger knew the file, but as another file (replaced, truncated, rewritten) or with a stale checkpoint. */
  reset: boolean;
  /** Why the saved state could not be used although the file was the same (damaged), or null. */
  damaged: string | null;
  size: number;
  mtimeMs: number;
}

export const HEAD_LEN = 64 * 1024;
/** Bytes before the offset reached whose hash is kept with it (see LogState.tailHash). */
export const TAIL_LEN = 4096;
export const SAVE_EVERY = 256 << 20;
const CHUNK = 8 << 20;

/**
 * The bulk readers' WebAssembly (core/base/bulk-instance.ts) runs in V8's baseline compiler (Liftoff) and is compiled
 * again by its optimising one once a function has run for a while (--wasm-tiering-budget, in rough bytes of
 * code executed): 4-5 ms of CPU on another thread, which a read of many megabytes repays and an incremental
 * read of one never does (it is over first). When the ledger's entry says at most SHORT_READ bytes are new,
 * the read runs with a budget no such read uses up; a read that turns out long (the file was rewritten) still
 * tiers up, later. The flag is V8's, process-wide: it is put back at the end of the read, since V8's flags
 * are part of the code cache's key (bin/firedup.js saves the cache only under the flags it started with).
 */
const SHORT_READ = 16 << 20;
export const TIERING_BUDGET = 1_800_000; // V8's default (Node 20-24)
const SHORT_READ_BUDGET = 2_000_000_000;
/** Unless the budget was set on the command line (node --wasm-tiering-budget=…): then it is left alone. */
const budgetIsDefault = !process.execArgv.some((a) => a.startsWith('--wasm-tiering-budget'));

/**
 * Runs the rest of a read with the large tiering budget when it is short; returns the function that ends that.
 * node:v8 (a millisecond to load) is loaded only then.
 */
async function shortReadBudget(prev: LogState | null, size: number): Promise<() => void> {
  if (!budgetIsDefault || prev === null || prev.checkpoint === null || prev.offset > size) return () => {};
  if (size - prev.offset > SHORT_READ) return () => {};
  const v8 = await import('node:v8');
  v8.setFlagsFromString(`--wasm-tiering-budget=${SHORT_READ_BUDGET}`);
  return () => v8.setFlagsFromString(`--wasm-tiering-budget=${TIERING_BUDGET}`);
}

/** node:crypto's createHash, loaded only to check a ledger entry written by an older firedup (SHA-256). */
type Sha256 = typeof import('node:crypto').createHash;

/** A hash this version does not write: a SHA-256 digest, from an older firedup. */
const legacyHash = (h: string | null | undefined): boolean => h != null && !h.startsWith(CONTENT_HASH_PREFIX);

/** The open file and what has been read of it. */
class LogFile {
  bytesRead = 0;
  private readonly buf = Buffer.allocUnsafe(CHUNK);

  constructor(
    readonly path: string,
    readonly fd: number,
  ) {}

  read(into: Buffer, pos: number, len: number): number {
    try {
      const n = fs.readSync(this.fd, into, 0, len, pos);
      this.bytesRead += n;
      return n;
    } catch (err) {
      throw new UsageError(describeFsError(this.path, err));
    }
  }

  /**
   * The hash of the bytes just before `offset` (the last TAIL_LEN at most): what a rewrite past the head
   * changes. `sha256`: as an older firedup hashed them (to check its entry).
   */
  tailHash(offset: number, sha256?: Sha256): string {
    return this.rangeHash(Math.max(0, offset - TAIL_LEN), offset, sha256);
  }

  headHash(len: number, sha256?: Sha256): string {
    return this.rangeHash(0, len, sha256);
  }

  /** The bytes [from, to) (up to the end of the file) hashed: core/base/content-hash.ts, or SHA-256 when given. */
  private rangeHash(from: number, to: number, sha256?: Sha256): string {
    // HEAD_LEN and TAIL_LEN fit the buffer; a longer range is no entry of ours: a hash no file matches
    if (to - from > this.buf.length) return 'too long';
    let len = 0;
    while (from + len < to) {
      const n = this.read(this.buf.subarray(len), from + len, to - from - len);
      if (n === 0) break;
      len += n;
    }
    const bytes = this.buf.subarray(0, len);
    return sha256 ? sha256('sha256').update(bytes).digest('hex') : contentHash(bytes);
  }

  /** Just past the last newline in [from, to), or `from` when there is none. */
  lastLineEnd(from: number, to: number): number {
    // Most logs end with a newline or a short partial line: look at a little first, then more.
    for (let end = to, len = 4096; end > from; len = Math.min(len * 4, this.buf.length)) {
      const start = Math.max(from, end - len);
      const n = this.read(this.buf, start, end - start);
      const i = this.buf.subarray(0, n).lastIndexOf(10);
      if (i >= 0) return start + i + 1;
      end = start;
    }
    return from;
  }

  /** The two buffers `push` reads into: one is read while the other is analysed (hashes use `buf`). */
  private readonly chunks = [Buffer.allocUnsafe(CHUNK), Buffer.allocUnsafe(CHUNK)];

  private readAsync(into: Buffer, pos: number, len: number): Promise<number> {
    return new Promise((resolve, reject) =>
      fs.read(this.fd, into, 0, len, pos, (err, n) => {
        if (err) reject(new UsageError(describeFsError(this.path, err)));
        else {
          this.bytesRead += n;
          resolve(n);
        }
      }),
    );
  }

  /**
   * Pushes [from, to) into the analyzer, calling `due` at line boundaries once `every` bytes have passed
   * since `since`. Returns where it stopped: short of `to` when the file shrank under the read.
   *
   * The next chunk is read (on libuv's thread pool) while this one is analysed: on a page-cached file the
   * copy into memory costs about a tenth of the analysis, and it runs on the other core.
   */
  async push(
    a: LogAnalyzer,
    from: number,
    to: number,
    save: { every: number; since: number; due: () => void; read: LedgerRead },
  ): Promise<number> {
    // Reads end near where the next save is due, so saves come every `every` bytes even when that is small.
    const lenAt = (pos: number, since: number) =>
      Math.min(CHUNK, to - pos, Math.max(1 << 16, since + save.every - pos));
    let pos = from;
    let k = 0;
    let target: Buffer = this.chunks[k]!;
    const first = pos < to ? lenAt(pos, save.since) : 0;
    let pending: Promise<number> | null = null;
    if (pos < to && first === to - pos) {
      // What one read takes in (an incremental status's megabyte) is read here and now: there is nothing to
      // overlap it with, and libuv's thread pool would be started for it (threads, a round trip). It goes
      // straight where the bulk reader scans it, which then does not copy it — unless LedgerRead.push would push
      // it in pieces: the bulk reader's buffer is pushed whole (or a prefix), the next piece would be overwritten.
      if (!save.read.inPieces || first <= FEED_PIECE) target = a.inputBuffer(first) ?? target;
      pending = Promise.resolve(this.read(target, pos, first));
    } else if (pos < to) pending = this.readAsync(target, pos, first);
    while (pending !== null) {
      const n = await pending;
      if (n === 0) break;
      const chunk = target.subarray(0, n);
      const nl = pos + n < to && pos + n - save.since >= save.every ? chunk.lastIndexOf(10) : -1;
      // where `since` will be once this chunk is in: the next read's length depends on it
      const since = nl >= 0 ? pos + nl + 1 : save.since;
      const next = pos + n;
      k ^= 1;
      target = this.chunks[k]!;
      pending = next < to ? this.readAsync(target, next, lenAt(next, since)) : null;
      if (nl >= 0) {
        await save.read.push(a, chunk.subarray(0, nl + 1));
        save.due();
        save.since = since;
        await save.read.push(a, chunk.subarray(nl + 1));
      } else await save.read.push(a, chunk);
      pos = next;
    }
    return pos;
  }
}

function open(path: string): { real: string; fd: number; st: fs.Stats } {
  try {
    const real = fs.realpathSync(path);
    return { real, ...openRegular(real) };
  } catch (err) {
    throw new UsageError(describeFsError(path, err));
  }
}

/** The analyzer continuing where the ledger left this file, or null when it must be read from the start. */
function resume(
  prev: LogState,
  file: LogFile,
  fileId: string,
  size: number,
  opts: AnalyzerOptions,
  sha256: Sha256 | undefined,
): { a: LogAnalyzer | null; damaged: string | null } {
  const none = { a: null, damaged: null };
  if (prev.fileId !== fileId || prev.checkpoint === null || prev.headHash === null) return none;
  if (prev.offset > size || prev.headLen > size) return none;
  const old = (h: string | null | undefined) => (legacyHash(h) ? sha256 : undefined);
  if (file.headHash(prev.headLen, old(prev.headHash)) !== prev.headHash) return none;
  // A ledger entry without the tail's hash (an older version) is read afresh once, to be sure.
  if (
    prev.offset > 0 &&
    (prev.tailHash == null || file.tailHash(prev.offset, old(prev.tailHash)) !== prev.tailHash)
  )
    return none;
  let a: LogAnalyzer;
  try {
    a = LogAnalyzer.restore(prev.checkpoint, opts);
  } catch (err) {
    // Another version's or other options' state is expected after an upgrade; anything else is damage.
    if (err instanceof CheckpointError && err.code !== 'corrupt') return none;
    return { a: null, damaged: (err as Error).message };
  }
  if (a.bytes !== prev.offset || a.lineCount !== prev.lines)
    return { a: null, damaged: 'checkpoint: its offset does not match the saved one' };
  return { a, damaged: null };
}

/**
 * Reads `path` from where the ledger left it (or from the start), saves the new offset, checkpoint and
 * launches in one `saveProgress` (and every `saveEvery` bytes of a long read), and returns the full report.
 * Without a ledger it is a plain read.
 */
export async function ingestLocal(
  ledger: LedgerLike | null,
  path: string,
  opts: IngestOptions = {},
): Promise<IngestResult> {
  const { real, fd, st } = open(path);
  const file = new LogFile(real, fd);
  let endShortRead = () => {};
  const key: LogKey = { host: opts.host ?? 'localhost', path: real };
  const fileId = `${st.dev}:${st.ino}`;
  const read = new LedgerRead(ledger, key, fileId);
  try {
    const size = st.size;
    const now = opts.now ?? Date.now() / 1000;
    const aopts: AnalyzerOptions = {
      engine: opts.engine,
      year: opts.year ?? new Date(st.mtimeMs).getUTCFullYear(),
      maxLine: opts.maxLine,
      bulk: opts.bulk,
      explain: opts.explain,
    };

    const prev = ledger ? await ledger.getLog(key) : null;
    endShortRead = await shortReadBudget(prev, size);
    // An entry an older firedup wrote, with SHA-256 digests: checked with node:crypto this once.
    const sha256 =
      prev && (legacyHash(prev.headHash) || legacyHash(prev.tailHash))
        ? (await import('node:crypto')).createHash
        : undefined;
    const resumed = prev ? resume(prev, file, fileId, size, aopts, sha256) : { a: null, damaged: null };
    let a = await read.resume(resumed.a);
    const reset = prev !== null && a === null && (prev.fileId !== null || prev.offset > 0);
    if (reset) await ledger!.resetLog(key);
    a ??= new LogAnalyzer(aopts);
    const recordOf = (l: LaunchReport): LaunchRecord =>
      recordFromReport(l, { host: key.host, path: real, fileId, now });
    read.start(a, recordOf, opts.onSettled);
    const resumedFrom = a.bytes;

    const headLen = Math.min(size, HEAD_LEN);
    // The head hash the entry has, unless it was another length or an older firedup's (saved anew)
    let headHash: string | null =
      prev && resumedFrom > 0 && prev.headLen === headLen && !legacyHash(prev.headHash)
        ? prev.headHash
        : null;
    const records = (rep: AnalysisReport): LaunchRecord[] => rep.launches.map(recordOf);
    const save = (
      offset: number,
      lines: number,
      checkpoint: Uint8Array,
      recs: LaunchRecord[],
    ): Promise<LaunchRecord[]> => {
      headHash ??= file.headHash(headLen);
      const tailHash = file.tailHash(offset);
      return read.save({ ...key, fileId, headHash, headLen, tailHash, offset, lines, checkpoint }, recs);
    };
    const saver = {
      every: ledger ? (opts.saveEvery ?? SAVE_EVERY) : Number.POSITIVE_INFINITY,
      since: resumedFrom,
      due: () => void save(a!.bytes, a!.lineCount, a!.checkpoint(), records(a!.report())),
      read,
    };

    // Everything up to the last newline goes in before the checkpoint; the unterminated rest after it.
    const boundary = file.lastLineEnd(resumedFrom, size);
    let reached = resumedFrom;
    const min = opts.parallelMinBytes ?? PARALLEL_MIN_BYTES;
    let mid =
      boundary - resumedFrom >= min && opts.bulk !== false ? middleLineStart(fd, boundary, resumedFrom) : -1;
    let from = resumedFrom;
    let plan: ShapePlan | undefined;
    // Started before the head is read, so that its start-up (tens of ms) overlaps that read; stopped unused if
    // the head says this thread reads the rest alone.
    const early = mid > 0 ? new ScanWorker() : null;
    if (mid > 0) {
      // A first part tells the engine: one whose serving lines a shape scanner reads (vLLM, TGI) is read
      // faster and in less memory by this thread alone, unless the worker can read them with the shapes this
      // thread learned in that part (llama-server: `shapePlan`); the worker reads SGLang's in bulk.
      const head = Math.min(mid, resumedFrom + HEAD_PROBE);
      try {
        reached = from = await file.push(a, resumedFrom, head, saver);
      } catch (err) {
        early?.stop();
        throw err;
      }
      // -2: the file shrank under the read, which stops here
      if (reached !== head) mid = -2;
      else if (a.oneThread()) {
        plan = a.shapePlan() ?? undefined;
        if (plan === undefined) mid = -1;
      } else if (!a.bulkInWorker()) {
        // Any other log (an engine with no scanner, or none known: plain text, an unknown server) gives a
        // worker nothing it can read in bulk: it would keep up to 8 MB of lines for this thread to read again,
        // and cost its start and memory (speed-general's measure: GIN 215 -> 85 MiB at 100-300 MB).
        mid = -1;
      }
    }
    if (mid <= 0) early?.stop();
    if (mid > 0) {
      // The second half on another thread, joined to this thread's first half (same report as a straight read).
      const worker = early!;
      const scanned = worker.scan(real, mid, boundary, opts.maxLine ?? DEFAULT_MAX_LINE, plan);
      try {
        reached = await file.push(a, from, mid, saver);
        const scan = reached === mid ? await scanned : null;
        file.bytesRead += boundary - mid;
        if (reached === mid) {
          const rest = scan ? a.applySegments(scan) : { lineNo: a.lineCount, offset: mid };
          reached = boundary;
          if (rest) {
            a.seek(rest.lineNo, rest.offset);
            reached = await file.push(a, rest.offset, boundary, saver);
          }
        }
      } finally {
        worker.stop();
      }
    } else if (mid !== -2) reached = await file.push(a, from, boundary, saver);

    // A file that shrank while being read is not checkpointed: the next read sees it changed.
    const done = reached === boundary;
    // Nothing new since the saved state, which holds all this read knows: nothing to write.
    const unchanged = read.atLog !== null && resumedFrom === boundary && size === boundary && !read.unwritten;
    const lines = a.lineCount;
    const checkpoint = ledger && done && !unchanged ? a.checkpoint() : null;
    if (done) await file.push(a, boundary, size, saver);
    const report = a.end();
    // A launch whose first line is the unterminated tail is not recorded yet: its first line, part of its
    // identity, is not whole. The next read records it.
    let recs = records(report).filter((r) => r.startOffset < boundary);
    if (checkpoint) recs = await save(boundary, lines, checkpoint, recs);
    else if (unchanged) recs = keptIds(recs, read.atLog!);
    const earlier = await read.finish(a);
    return {
      report,
      earlier,
      analyzer: a,
      records: recs,
      bytesRead: file.bytesRead,
      resumedFrom,
      reset,
      damaged: resumed.damaged,
      size,
      mtimeMs: st.mtimeMs,
    };
  } finally {
    endShortRead();
    fs.closeSync(fd);
    await read.close();
  }
}
