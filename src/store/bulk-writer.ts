/**
 * Writing many launches to a SQLite ledger on another thread: a first read of a log of 100k launches writes
 * 100k rows, which takes SQLite about as long as the analysis takes to find them. On a worker (ledger-writer.ts,
 * a connection of its own), the two run side by side. Batches are written in the order given; `flushed`
 * resolves once all those given so far are committed, so that a saved offset never counts a launch that is
 * not in the ledger yet.
 */
import { createRequire } from 'node:module';
import type { Worker } from 'node:worker_threads';
import { type LaunchWrite, launchWriteAndText } from './record.js';
import { type LaunchRecord, LedgerError, type LedgerErrorCode } from './types.js';

type Reply = { ok: true } | { ok: false; code: LedgerErrorCode; message: string };

export class BulkWriter {
  private readonly worker: Worker;
  private readonly waiting: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private last: Promise<void> = Promise.resolve();
  private failed: Error | null = null;

  constructor(file: string) {
    // Required here, not imported: only a read that closes many launches starts a writer, and loading
    // worker_threads costs every `firedup status` milliseconds.
    const { Worker: W } = createRequire(import.meta.url)(
      'node:worker_threads',
    ) as typeof import('node:worker_threads');
    this.worker = new W(new URL('./ledger-writer.js', import.meta.url), { workerData: { file } });
    this.worker.on('message', (m: Reply) => {
      const w = this.waiting.shift();
      if (m.ok) w?.resolve();
      else w?.reject(new LedgerError(m.code, m.message));
    });
    const fail = (err: Error) => {
      // An error from the thread arrives as a plain Error (a LedgerError's class does not cross): one line.
      const e =
        err instanceof LedgerError
          ? err
          : new LedgerError('unwritable', `cannot write ledger ${file}: ${err.message}`);
      this.failed ??= e;
      for (const w of this.waiting.splice(0)) w.reject(e);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new LedgerError('unwritable', 'the ledger writer stopped')));
  }

  /**
   * The launch as the writer's thread takes it: its row (JSON text, mostly), made on this thread so that what
   * crosses is cheap to copy and the work is shared between the two threads about evenly; with the report's
   * JSON, the same text as JSON.stringify of it, where the row has it (see launchRowAndText), else null.
   */
  prepare(rec: LaunchRecord): { write: LaunchWrite; text: string | null } {
    return launchWriteAndText(rec);
  }

  /**
   * Hands launches of the batch being made to the writer's thread ahead of it (written with the next `write`):
   * held here until the batch is full, their text would outlive the reading thread's young heap and cost
   * its collector more than the messages cost.
   */
  stage(part: LaunchWrite[]): void {
    if (!this.failed) this.worker.postMessage({ stage: part });
  }

  /** Writes a batch (with the launches staged before it) after those given before; the promise settles when it is committed (or refused). */
  write(batch: LaunchWrite[]): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    const done = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.worker.postMessage({ batch });
    this.last = done;
    return done;
  }

  /** Resolves once every batch given so far is committed; rejects with the first failure. */
  flushed(): Promise<void> {
    return this.last;
  }

  async close(): Promise<void> {
    await this.last.catch(() => {});
    this.worker.removeAllListeners('exit');
    this.worker.postMessage(null);
    await new Promise<void>((resolve) => {
      this.worker.once('exit', () => resolve());
    });
  }
}
