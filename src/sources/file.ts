/** Reads a log file (or stdin) into the core, in fixed-size chunks so memory does not grow with the file. */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { EarlierLaunches } from '../core/campaign/records.js';
import { type AnalyzerOptions, LogAnalyzer } from '../core/reading/analyzer.js';
import type { RangeScan } from '../core/reading/range-scan.js';
import type { AnalysisReport } from '../core/reading/report.js';
import type { ShapePlan } from '../core/reading/scan.js';
import { UsageError } from '../errors.js';

const CHUNK = 8 << 20;

export function describeFsError(path: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return `${path}: no such file (check the path; for a remote log use host:path)`;
    case 'EACCES':
    case 'EPERM':
      return `${path}: permission denied (run as a user who can read it)`;
    case 'EISDIR':
      return `${path}: is a directory, not a log file (name the log file inside it)`;
    case 'ENOTDIR':
      return `${path}: a parent of this path is not a directory`;
    case 'ELOOP':
      return `${path}: too many symbolic links`;
    case 'EMFILE':
    case 'ENFILE':
      return `${path}: too many open files`;
    case NOT_REGULAR.fifo:
      return `${path} is a FIFO, not a regular file: a log read by offset must be a file (to read a pipe once: cat ${path} | firedup status -)`;
    case NOT_REGULAR.socket:
      return `${path} is a socket, not a regular file (name the server's log file)`;
    case NOT_REGULAR.device:
      return `${path} is a device, not a regular file (name the server's log file)`;
    default:
      return `${path}: cannot read (${code ?? (err as Error)?.message ?? err})`;
  }
}

export interface ReadResult {
  report: AnalysisReport;
  analyzer: LogAnalyzer;
  size: number;
  mtimeMs: number | null;
  /** Why a ledger's saved state for this log could not be used although the log was the same, or null. */
  damaged?: string | null;
  /** Launches before the report's, kept in the ledger only (a read with a ledger; see app/ingest.ts). */
  earlier?: EarlierLaunches | null;
  /** A stream's first bytes (it cannot be read again), to tell why it held no launch. */
  head?: Buffer;
}

/** Below this size one thread is fast enough; above it, the second half is read by a worker thread. */
export const PARALLEL_MIN_BYTES = 64 << 20;

export interface FileOptions extends AnalyzerOptions {
  /** Read the second half on another thread for files at least this large (default 64 MB; Infinity: never). */
  parallelMinBytes?: number;
}

/** Codes (ours, not the kernel's) for a path that opened but is no file: describeFsError words them. */
export const NOT_REGULAR = {
  fifo: 'FIREDUP_FIFO',
  socket: 'FIREDUP_SOCKET',
  device: 'FIREDUP_DEVICE',
} as const;

/**
 * Opens a log for reading by offset, refusing whatever is not a regular file. O_NONBLOCK, because the path may
 * have become a FIFO since it was last looked at: a plain open of a FIFO waits for a writer, and a read of
 * one waits for data, both inside a synchronous call that freezes the event loop (no timeout, no signal
 * handler ever runs). On a regular file O_NONBLOCK changes nothing. The type is taken from the descriptor,
 * so a swap between a stat and the open cannot slip a FIFO through. Throws Node-style errors (code, syscall).
 */
export function openRegular(path: string): { fd: number; st: fs.Stats } {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  let st: fs.Stats;
  try {
    st = fs.fstatSync(fd);
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
  if (st.isFile()) return { fd, st };
  fs.closeSync(fd);
  const code = st.isDirectory()
    ? 'EISDIR'
    : st.isFIFO()
      ? NOT_REGULAR.fifo
      : st.isSocket()
        ? NOT_REGULAR.socket
        : NOT_REGULAR.device;
  throw Object.assign(new Error(`${path}: not a regular file`), { code, syscall: 'open', path });
}

function openLog(path: string): { fd: number; st: fs.Stats } {
  try {
    return openRegular(path);
  } catch (err) {
    throw new UsageError(describeFsError(path, err));
  }
}

/** Pushes bytes [from, to) of the file into the analyzer. */
function pushRange(
  path: string,
  fd: number,
  analyzer: LogAnalyzer,
  from: number,
  to: number,
  buf: Buffer,
): void {
  let pos = from;
  try {
    while (pos < to) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, to - pos), pos);
      if (n === 0) break;
      analyzer.push(buf.subarray(0, n));
      pos += n;
    }
  } catch (err) {
    throw new UsageError(describeFsError(path, err));
  }
}

/** The first line start at or after the middle of bytes [start, end) of the file, or -1 if none is near. */
export function middleLineStart(fd: number, end: number, start = 0): number {
  const probe = Buffer.allocUnsafe(1 << 20);
  const from = start + Math.floor((end - start) / 2);
  const n = fs.readSync(fd, probe, 0, Math.min(probe.length, end - from), from);
  const i = probe.subarray(0, n).indexOf(10);
  return i < 0 || from + i + 1 >= end ? -1 : from + i + 1;
}

/**
 * A worker thread started before its job is known: Node takes tens of milliseconds to start one (its own
 * isolate, its internal modules), which then pass while this thread reads the log's head, which tells
 * whether the worker is needed (ingest.ts). Given no job, `stop` ends it unused.
 */
export class ScanWorker {
  private readonly worker: import('node:worker_threads').Worker;
  private readonly done: Promise<RangeScan | null>;

  constructor() {
    // Required here, not imported: only a read of 64 MB or more starts a worker, and loading worker_threads
    // costs every `firedup status` milliseconds. Synchronously, so the worker starts before this thread reads.
    const { Worker } = createRequire(import.meta.url)(
      'node:worker_threads',
    ) as typeof import('node:worker_threads');
    const worker = new Worker(new URL('./scan-worker.js', import.meta.url), { workerData: null });
    this.worker = worker;
    this.done = new Promise<RangeScan | null>((resolve) => {
      worker.once('message', (m: RangeScan) => resolve(m));
      worker.once('error', () => resolve(null));
      worker.once('exit', () => resolve(null));
    });
  }

  /**
   * Its job, given once: bytes [start, end) of the file (start at a line start), SGLang's serving lines in
   * bulk, or with `plan` another engine's, with the shapes this thread learned. The scan is null when the worker
   * failed (the file vanished under it): that costs speed, not the answer, the caller reads the range itself.
   */
  scan(
    path: string,
    start: number,
    end: number,
    maxLine: number,
    plan?: ShapePlan,
  ): Promise<RangeScan | null> {
    this.worker.postMessage({ path, start, end, maxLine, plan });
    return this.done;
  }

  stop(): void {
    void this.worker.terminate();
  }
}

export function analyzeFile(path: string, opts: FileOptions = {}): ReadResult {
  const { fd, st } = openLog(path);
  const year = opts.year ?? new Date(st.mtimeMs).getUTCFullYear();
  const analyzer = new LogAnalyzer({ ...opts, year });
  const buf = Buffer.allocUnsafe(CHUNK);
  try {
    pushRange(path, fd, analyzer, 0, st.size, buf);
  } finally {
    fs.closeSync(fd);
  }
  return { report: analyzer.end(), analyzer, size: st.size, mtimeMs: st.mtimeMs };
}

export async function analyzeStream(
  stream: NodeJS.ReadableStream,
  opts: AnalyzerOptions = {},
): Promise<ReadResult> {
  const analyzer = new LogAnalyzer({ year: new Date().getUTCFullYear(), ...opts });
  // Pipes deliver 64 KB at a time; the core reads fewer, larger chunks faster, so gather them first.
  const batch = Buffer.allocUnsafe(4 << 20);
  let used = 0;
  let head: Buffer | null = null;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    head ??= Buffer.from(b.subarray(0, 8192));
    if (used + b.length > batch.length) {
      if (used > 0) analyzer.push(batch.subarray(0, used));
      used = 0;
    }
    if (b.length >= batch.length) analyzer.push(b);
    else {
      b.copy(batch, used);
      used += b.length;
    }
  }
  if (used > 0) analyzer.push(batch.subarray(0, used));
  return {
    report: analyzer.end(),
    analyzer,
    size: analyzer.bytes,
    mtimeMs: null,
    head: head ?? Buffer.alloc(0),
  };
}

/** What a local path names, for reading it: a file to read (and resume), a stream to read once, or neither. */
export type LocalKind = 'file' | 'stream' | 'socket' | 'device' | 'pseudo';

/**
 * Filesystems whose files say size 0 and make up their content when read (statfs f_type, from the kernel's
 * include/uapi/linux/magic.h): proc, sysfs, debugfs, tracefs, securityfs, cgroup, cgroup2, configfs.
 */
const PSEUDO_FS = new Set([
  0x9fa0, 0x62656572, 0x64626720, 0x74726163, 0x73636673, 0x27e0eb, 0x63677270, 0x62656570,
]);

/**
 * FIFOs and process substitutions (`<(cmd)`, a `/dev/fd/N` link to a pipe) are streams: read once, to their
 * end, never opened synchronously (an open blocks until a writer comes). Devices (`/dev/zero`, a tty) are no
 * log. Throws a one-line UsageError for a path that cannot be read.
 */
export function localKind(path: string): LocalKind {
  let st: fs.Stats;
  try {
    st = fs.statSync(path);
  } catch (err) {
    throw new UsageError(describeFsError(path, err));
  }
  if (st.isFIFO()) return 'stream';
  // A Unix socket's path cannot be opened (ENXIO): nothing to read there, pipe or file.
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'device';
  // Some of these block on read (/proc/kmsg) or never end; none is a server's log.
  if (st.isFile() && st.size === 0 && onPseudoFs(path)) return 'pseudo';
  return 'file';
}

function onPseudoFs(path: string): boolean {
  try {
    return PSEUDO_FS.has(fs.statfsSync(path).type);
  } catch {
    return false;
  }
}

/**
 * Reads a FIFO to its end. `onWaiting` is called once when no writer has come after a second (the face says so:
 * an open FIFO with no writer looks like a hang).
 */
export async function analyzeFifo(
  path: string,
  opts: AnalyzerOptions = {},
  onWaiting: (path: string) => void = () => {},
): Promise<ReadResult> {
  const stream = fs.createReadStream(path);
  const note = setTimeout(() => onWaiting(path), 1000);
  stream.once('open', () => clearTimeout(note));
  try {
    return await analyzeStream(stream, opts);
  } catch (err) {
    throw new UsageError(describeFsError(path, err));
  } finally {
    clearTimeout(note);
  }
}
