/**
 * Follows a log file as it grows (`tail -F` semantics) for a live watcher: every byte is delivered once, in
 * order, and each discontinuity (copytruncate, rotation, delete and recreate) is announced before the bytes
 * that follow it.
 *
 * Correctness comes from polling fstat/stat only: fs.watch misses events on network filesystems and inside
 * containers, and a poll every 100 ms costs two stat calls, so it is not used even as a hint.
 */
import fs from 'node:fs';
import nodePath from 'node:path';
import { describeFsError, openRegular } from './file.js';
import type { Backlog, FollowEvent, ReadFile } from './live-source.js';

export type { FollowEvent } from './live-source.js';

export interface FollowOptions {
  pollMs?: number;
  chunkBytes?: number;
}

/** Bytes kept from just before the read offset: a rewrite of them means the file was truncated and refilled. */
const TAIL = 64;
/**
 * Bytes kept from the file's start. A refill that ends as the old content did (the same last line, a server's
 * shutdown or ready line) passes the tail's check; its first line (a launch's first stamp) does not. The
 * ledger's incremental read checks the same two places (app/ingest.ts: the head's and the tail's hashes).
 */
const HEAD = 4096;

/** Node's fs errors carry the failing syscall; an exception without one was thrown by the listener. */
function isFsError(err: unknown): err is NodeJS.ErrnoException {
  return typeof (err as NodeJS.ErrnoException)?.syscall === 'string';
}

/**
 * Where `path` leads now, if that is still the file just opened (`st`, from its descriptor); else, a link
 * repointed in between, the path as given made absolute (the next poll sees the rotation anyway).
 */
function realPathOf(path: string, st: fs.Stats): string {
  try {
    const real = fs.realpathSync(path);
    const at = fs.statSync(real);
    if (at.ino === st.ino && at.dev === st.dev) return real;
  } catch {
    // Gone already: as given.
  }
  return nodePath.resolve(path);
}

export class FileFollower {
  private readonly pollMs: number;
  private readonly chunkBytes: number;
  private buf: Buffer | null = null;
  private readonly tail = Buffer.alloc(TAIL);
  private readonly probe = Buffer.alloc(HEAD);
  private tailLen = 0;
  private readonly head = Buffer.alloc(HEAD);
  private headLen = 0;
  /** The open file's mtime and ctime when its content was last checked: unchanged, it was not refilled. */
  private checkedTimes = '';
  /** How many times the bytes at the path started over (a reset): the launches read since are new ones. */
  private resets = 0;
  private fd: number | null = null;
  private ident: { dev: number; ino: number } | null = null;
  private offset = 0;
  private onEvent: ((e: FollowEvent) => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** 'missing' was announced and the path has not been opened since. */
  private missing = false;
  /** A file was opened before: a later one is announced with a reset. */
  private hadFile = false;
  /** The last error announced, so a persistent one is reported once, not every poll. */
  private lastError: string | null = null;
  /** Whether a first look at the path was taken: before it, the file's size is unknown. */
  private looked = false;
  /** The size of the open file when it was opened: what it already held. */
  private heldAtOpen = 0;
  /** The file last opened; kept after it is closed, since what was read from it is still its. */
  private opened: ReadFile | null = null;

  constructor(
    private readonly path: string,
    opts: FollowOptions = {},
  ) {
    this.pollMs = Math.max(1, opts.pollMs ?? 100);
    this.chunkBytes = Math.max(TAIL, opts.chunkBytes ?? 4 << 20);
  }

  /** Device and inode of the file being read, or null while none is open. */
  get identity(): { dev: number; ino: number } | null {
    return this.ident ? { ...this.ident } : null;
  }

  /**
   * The file whose bytes were delivered last, by its real path: a symlink repointed since names another file,
   * and a record of these bytes must name the one they came from (null before any was opened).
   */
  file(): ReadFile | null {
    return this.opened ? { ...this.opened, generation: this.resets } : null;
  }

  /** How much of what the file held when opened is still unread (null: none; it is being followed). */
  backlog(): Backlog | null {
    if (!this.looked) return { read: 0, total: null };
    return this.fd !== null && this.offset < this.heldAtOpen
      ? { read: this.offset, total: this.heldAtOpen }
      : null;
  }

  start(onEvent: (e: FollowEvent) => void): void {
    if (this.onEvent) throw new Error('FileFollower: already started');
    this.onEvent = onEvent;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.closeFd();
  }

  /**
   * Reads to the end of what the file holds now, at once, not at the next poll: the caller is about to judge
   * by it (a server's process just went away: its last lines are all written, and say how it ended).
   */
  catchUp(): void {
    if (this.stopped || !this.onEvent) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      while (this.step() && !this.stopped);
      this.lastError = null;
    } catch (err) {
      if (!isFsError(err)) throw err;
      this.fail(err);
    }
    if (!this.stopped) this.schedule(this.pollMs);
  }

  private schedule(ms: number): void {
    // unref: a follower alone must not keep the process alive.
    this.timer = setTimeout(this.tick, ms);
    this.timer.unref();
  }

  private tick = (): void => {
    this.timer = null;
    if (this.stopped) return;
    let more = false;
    try {
      more = this.step();
      // A failure that went away is reported again if it comes back.
      this.lastError = null;
    } catch (err) {
      // Only filesystem failures become events; an exception thrown by the listener is its own bug.
      if (!isFsError(err)) throw err;
      this.fail(err);
    }
    // A backlog (the existing content of a large file) is read one chunk per turn of the event loop.
    if (!this.stopped) this.schedule(more ? 0 : this.pollMs);
  };

  private emit(e: FollowEvent): void {
    if (!this.stopped) this.onEvent?.(e);
  }

  private fail(err: NodeJS.ErrnoException): void {
    const message = describeFsError(this.path, err);
    if (message === this.lastError) return;
    this.lastError = message;
    this.emit({ kind: 'error', message });
  }

  private noteMissing(): void {
    if (this.missing) return;
    this.missing = true;
    this.emit({ kind: 'missing' });
  }

  private closeFd(): void {
    if (this.fd === null) return;
    try {
      fs.closeSync(this.fd);
    } catch {
      // Closing a descriptor we own fails only if it is already gone; nothing to recover.
    }
    this.fd = null;
    this.ident = null;
  }

  /** One poll; true when more bytes are already waiting. */
  private step(): boolean {
    this.looked = true;
    if (this.fd === null) return this.openPath('recreated');
    const cur = fs.fstatSync(this.fd);
    const atPath = fs.statSync(this.path, { throwIfNoEntry: false });
    if (atPath && atPath.ino === this.ident!.ino && atPath.dev === this.ident!.dev) return this.readNew(cur);
    // The path no longer names our file: finish the old one first (its writer may have appended since).
    if (this.readNew(cur) || this.stopped) return !this.stopped;
    if (!atPath) {
      // Renamed away (still linked): the writer may keep appending until it reopens, so keep reading it.
      // Deleted: nobody else can see what is written to it any more, so let it go.
      if (cur.nlink === 0) this.closeFd();
      this.noteMissing();
      return false;
    }
    const reason = cur.nlink === 0 ? 'recreated' : 'rotated';
    this.closeFd();
    return this.openPath(reason);
  }

  private openPath(reason: 'rotated' | 'recreated'): boolean {
    if (this.stopped) return false;
    let opened: { fd: number; st: fs.Stats };
    try {
      // Never blocks: a FIFO put at the path is refused (an error event, once), not waited on.
      opened = openRegular(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.noteMissing();
      return false;
    }
    // Identity comes from the descriptor, not the path, so a swap between stat and open cannot fool it.
    const { fd, st } = opened;
    this.fd = fd;
    this.ident = { dev: st.dev, ino: st.ino };
    this.opened = { path: realPathOf(this.path, st), dev: st.dev, ino: st.ino };
    this.startOver();
    this.heldAtOpen = st.size;
    if (this.missing) {
      this.missing = false;
      this.emit({ kind: 'appeared' });
    }
    if (this.hadFile) this.announceReset(reason);
    this.hadFile = true;
    return this.stopped ? false : this.readNew(st);
  }

  private startOver(): void {
    this.offset = 0;
    this.tailLen = 0;
    this.headLen = 0;
    this.checkedTimes = '';
  }

  private announceReset(reason: 'truncated' | 'rotated' | 'recreated'): void {
    this.resets++;
    this.emit({ kind: 'reset', reason });
  }

  /**
   * Reads at most one chunk of what the file holds past the offset; true when more is waiting. A file that
   * shrank was truncated; one that grew, or was written without growing (its mtime or ctime moved), is checked
   * for a refill: truncated and written again up to the old size or past it between two polls, which its size
   * alone does not show.
   */
  private readNew(st: fs.Stats): boolean {
    const fd = this.fd!;
    const size = st.size;
    const times = `${st.mtimeMs}:${st.ctimeMs}`;
    const touched = times !== this.checkedTimes;
    this.checkedTimes = times;
    if (size < this.offset || ((size > this.offset || touched) && !this.contentIntact(fd))) {
      this.announceReset('truncated');
      this.startOver();
      this.checkedTimes = times;
      // What the refill holds already is the new file's history: read whole before a verdict, like a file
      // just opened (the old size would be a backlog a shorter refill never reaches: "reading" for good).
      this.heldAtOpen = size;
      if (this.stopped) return false;
    }
    if (size <= this.offset) return false;
    this.buf ??= Buffer.allocUnsafe(this.chunkBytes);
    const n = fs.readSync(fd, this.buf, 0, this.buf.length, this.offset);
    if (n === 0) return false;
    const chunk = this.buf.subarray(0, n);
    this.keepHead(chunk, this.offset);
    this.keepTail(chunk);
    const at = this.offset;
    this.offset += n;
    this.emit({ kind: 'data', chunk, offset: at });
    return this.offset < size;
  }

  /**
   * A copytruncate followed by as many writes as we had read or more leaves the size at or above our offset,
   * so size alone misses it; the bytes just before the offset, or the file's first bytes, having changed
   * give it away.
   */
  private contentIntact(fd: number): boolean {
    return (
      this.same(fd, this.tail, this.tailLen, this.offset - this.tailLen) &&
      this.same(fd, this.head, this.headLen, 0)
    );
  }

  /** Whether the file holds `len` bytes at `at` equal to `kept`'s first `len`. */
  private same(fd: number, kept: Buffer, len: number, at: number): boolean {
    if (len === 0) return true;
    const got = fs.readSync(fd, this.probe, 0, len, at);
    return got === len && this.probe.compare(kept, 0, len, 0, got) === 0;
  }

  /** Keeps what of `chunk` (read at `at`) falls in the file's first HEAD bytes. */
  private keepHead(chunk: Buffer, at: number): void {
    if (at !== this.headLen || this.headLen >= HEAD) return;
    const n = chunk.copy(this.head, this.headLen, 0, Math.min(chunk.length, HEAD - this.headLen));
    this.headLen += n;
  }

  private keepTail(chunk: Buffer): void {
    if (chunk.length >= TAIL) {
      chunk.copy(this.tail, 0, chunk.length - TAIL);
      this.tailLen = TAIL;
      return;
    }
    const keep = Math.min(this.tailLen, TAIL - chunk.length);
    this.tail.copyWithin(0, this.tailLen - keep, this.tailLen);
    chunk.copy(this.tail, keep);
    this.tailLen = keep + chunk.length;
  }
}
