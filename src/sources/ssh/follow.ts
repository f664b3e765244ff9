/**
 * Follows a remote log over SSH with the same events as FileFollower: one long-lived `tail -c +N -f` stream
 * delivers new bytes as they are written (nothing is re-read), and a cheap `stat` on the shared master
 * connection every poll spots truncation, rotation and deletion. `offset` counts only bytes we received, so a
 * dropped connection resumes at exactly the next byte: nothing lost, nothing doubled.
 *
 * Known window: GNU tail restarts by itself at byte 0 on truncation (and says so on stderr, which we act on
 * at once), so bytes written just after a truncation may be delivered before the 'reset'; everything after
 * the reset is exact. A copytruncate refilled past our offset before a poll is not detected (FileFollower
 * compares the bytes before the offset; this does not yet).
 */
import type { ChildProcess } from 'node:child_process';
import type { FollowEvent } from '../follow.js';
import type { Backlog } from '../stdin.js';
import { parseIdent, remoteArgv } from './remote.js';
import type { SshSession } from './session.js';

export interface SshFollowOptions {
  /** How often the remote file's identity and size are checked. */
  pollMs?: number;
  /** Reconnect delays double from minBackoffMs up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

type ResetReason = 'truncated' | 'rotated' | 'recreated';

export class SshFollower {
  private readonly pollMs: number;
  private readonly minBackoff: number;
  private readonly maxBackoff: number;
  private backoff: number;
  private onEvent: ((e: FollowEvent) => void) | null = null;
  private stopped = false;
  private child: ChildProcess | null = null;
  private connectTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private polling = false;
  /** Inode of the file being streamed, as the remote stat printed it. */
  private ino: string | null = null;
  private offset = 0;
  private missing = false;
  private hadFile = false;
  /** Why the next stream starts from 0: announced once its header confirms a file is there. */
  private pendingReset: ResetReason | null = null;
  /** A new inode at the path, seen once: the next poll switches to it (one poll for the old one to drain). */
  private rotateSeen: string | null = null;
  private lastError: string | null = null;
  /** The remote file's mtime and size when the current stream started (its header line). */
  private startMtime: number | null = null;
  private startSize = 0;

  constructor(
    private readonly session: SshSession,
    readonly path: string,
    opts: SshFollowOptions = {},
  ) {
    this.pollMs = Math.max(10, opts.pollMs ?? 1000);
    this.minBackoff = opts.minBackoffMs ?? 250;
    this.maxBackoff = opts.maxBackoffMs ?? 5000;
    this.backoff = this.minBackoff;
  }

  /**
   * When the bytes just received arrived as the remote file shows it: those already in the file when the
   * stream started were written by its mtime then; later ones arrive as they are written (null: now).
   */
  arrival(): number | null {
    return this.startMtime !== null && this.offset <= this.startSize ? this.startMtime : null;
  }

  /** How much of what the remote file held when the stream started is still to come (null: none). */
  backlog(): Backlog | null {
    if (this.ino === null)
      return this.hadFile || this.missing || this.lastError !== null || this.stopped
        ? null
        : { read: 0, total: null };
    return this.offset < this.startSize ? { read: this.offset, total: this.startSize } : null;
  }

  /** Bytes received so far from the current file. */
  get position(): number {
    return this.offset;
  }

  start(onEvent: (e: FollowEvent) => void): void {
    if (this.onEvent) throw new Error('SshFollower: already started');
    this.onEvent = onEvent;
    this.connect();
    this.schedulePoll();
  }

  stop(): void {
    this.stopped = true;
    if (this.connectTimer) clearTimeout(this.connectTimer);
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.connectTimer = this.pollTimer = null;
    this.killStream();
  }

  private emit(e: FollowEvent): void {
    if (!this.stopped) this.onEvent?.(e);
  }

  private fail(message: string): void {
    if (message === this.lastError) return;
    this.lastError = message;
    this.emit({ kind: 'error', message });
  }

  private noteMissing(): void {
    if (this.missing) return;
    this.missing = true;
    this.emit({ kind: 'missing' });
  }

  private killStream(): void {
    const c = this.child;
    this.child = null;
    // Detach first: the exit of a stream we ended on purpose must not be taken for a dropped connection.
    c?.removeAllListeners('close');
    c?.stdout?.removeAllListeners('data');
    c?.kill('SIGTERM');
  }

  private reconnectIn(ms: number): void {
    if (this.stopped || this.connectTimer) return;
    this.connectTimer = setTimeout(() => {
      this.connectTimer = null;
      this.connect();
    }, ms);
    this.connectTimer.unref();
  }

  /** Ends the current stream and starts the file over from byte 0, announcing `reason` first. */
  private restart(reason: ResetReason): void {
    this.killStream();
    this.pendingReset = reason;
    this.offset = 0;
    this.ino = null;
    this.rotateSeen = null;
    this.connect();
  }

  private connect(): void {
    if (this.stopped || this.child) return;
    const child = this.session.spawn(remoteArgv('stream', this.path, this.offset));
    this.child = child;
    let header: Buffer | null = Buffer.alloc(0);
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => {
      stderr += b.toString();
      // GNU tail starts over at byte 0 by itself on truncation and says so: act now rather than at the next poll.
      if (this.child === child && /file truncated/.test(stderr)) this.restart('truncated');
    });
    child.stdout!.on('data', (b: Buffer) => {
      if (this.child !== child) return;
      if (header) {
        const all = Buffer.concat([header, b]);
        const nl = all.indexOf(10);
        if (nl < 0) {
          header = all;
          return;
        }
        header = null;
        if (!this.accept(all.subarray(0, nl).toString())) return;
        b = all.subarray(nl + 1);
      }
      if (b.length === 0) return;
      const at = this.offset;
      this.offset += b.length;
      this.emit({ kind: 'data', chunk: b, offset: at });
    });
    child.on('error', (e) => this.fail(`${this.session.label}:${this.path}: cannot run ssh: ${e.message}`));
    child.on('close', (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      const err = this.session.classify({ code: signal ? 255 : code, stderr }, this.path);
      if (err?.kind === 'missing') {
        this.noteMissing();
        this.reconnectIn(this.pollMs);
        return;
      }
      // A stream that ends cleanly (tail killed remotely) is a drop too: the file may still grow.
      const message = err?.message ?? `${this.session.label}:${this.path}: stream ended`;
      const delay = this.backoff;
      this.backoff = Math.min(this.maxBackoff, this.backoff * 2);
      this.fail(`${message}; retrying with backoff`);
      this.reconnectIn(delay);
    });
  }

  /** Checks a new stream's `inode size` line against what we had; false when it had to start over. */
  private accept(line: string): boolean {
    const id = parseIdent(line);
    if (!id) {
      this.killStream();
      this.fail(
        `${this.session.label}:${this.path}: unexpected remote output ${JSON.stringify(line.slice(0, 80))}`,
      );
      this.reconnectIn(this.backoff);
      return false;
    }
    if (this.ino !== null && id.ino !== this.ino) {
      this.restart(this.missing ? 'recreated' : 'rotated');
      return false;
    }
    if (id.size < this.offset) {
      this.restart('truncated');
      return false;
    }
    this.backoff = this.minBackoff;
    this.lastError = null;
    this.ino = id.ino;
    this.startMtime = id.mtime;
    this.startSize = id.size;
    if (this.missing) {
      this.missing = false;
      this.emit({ kind: 'appeared' });
    }
    const reason = this.pendingReset;
    this.pendingReset = null;
    if (reason && this.hadFile) this.emit({ kind: 'reset', reason });
    this.hadFile = true;
    return !this.stopped;
  }

  private schedulePoll(): void {
    if (this.stopped) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void this.poll().finally(() => this.schedulePoll());
    }, this.pollMs);
    this.pollTimer.unref();
  }

  /** One identity check while streaming; a failing check is left to the stream to report. */
  private async poll(): Promise<void> {
    if (this.polling || !this.child || this.ino === null) return;
    this.polling = true;
    // The size is compared with what had arrived when stat ran: bytes that arrive while it runs are newer.
    const before = this.offset;
    try {
      const res = await this.session.run(
        remoteArgv('stat', this.path),
        Math.max(5000, this.pollMs * 5),
        'log',
      );
      if (this.stopped || !this.child || this.ino === null) return;
      const err = this.session.classify(res, this.path);
      if (err?.kind === 'missing') {
        // Renamed away or deleted: keep streaming the old file (its writer may still append) until a new one appears.
        this.noteMissing();
        return;
      }
      const id = err ? null : parseIdent(res.stdout.toString());
      if (!id) return;
      if (id.ino !== this.ino) {
        if (this.rotateSeen === id.ino) this.restart(this.missing ? 'recreated' : 'rotated');
        else this.rotateSeen = id.ino;
        return;
      }
      this.rotateSeen = null;
      if (id.size < before) this.restart('truncated');
    } finally {
      this.polling = false;
    }
  }
}
