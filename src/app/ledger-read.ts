/**
 * What a read through the ledger does with the launches that close, the same for a local log (ingest.ts) and a
 * remote one (ingest-remote.ts): each closed launch is written as it closes (closed-launches.ts) and let go, so
 * that memory and the checkpoint hold only the launches still open; a save of progress carries the closed ones
 * not written yet; a resumed read checks first that the ledger still has every launch the checkpoint let go;
 * and the result's `earlier` reads them back. The readers differ only in how bytes reach the analyzer.
 */

import type { EarlierLaunches } from '../core/campaign/records.js';
import type { LogAnalyzer } from '../core/reading/analyzer.js';
import { type LaunchReport, settledReport } from '../core/reading/report.js';
import type { LaunchRecord, LogKey, LogState } from '../store/types.js';
import { type ClosedLedger, ClosedWriter, earlierInLedger, keepsClosed } from './closed-launches.js';

/** What ingest needs of the ledger (the Ledger class, or a stand-in in tests). */
export interface LedgerLike {
  getLog(key: LogKey): Promise<LogState | null> | LogState | null;
  /** Returns the launches as kept (ids of launches already known from another path), or nothing (tests). */
  saveProgress(
    state: Omit<LogState, 'id' | 'updatedAt'>,
    launches: LaunchRecord[],
    // biome-ignore lint/suspicious/noConfusingVoidType: stand-ins in tests return nothing, typed void
  ): Promise<LaunchRecord[] | undefined | void> | LaunchRecord[] | undefined | void;
  resetLog(key: LogKey): Promise<void> | void;
  // The stores also have what keeping closed launches in the ledger takes (ClosedLedger); stand-ins may not.
}

/** Where each launch recorded at the log starts, and the id it is kept under, in file order. */
export type AtLog = Array<{ id: string; startOffset: number }>;

/** Bytes pushed between two looks at whether the ledger keeps up (see `push`): a few thousand launches at most. */
export const FEED_PIECE = 1 << 20;

/**
 * One read of one log through the ledger (or without one). `fileId`: the file id its launches are recorded
 * under in the ledger's places (launch_paths), which is what finds them again (`launchesAtLog`).
 */
export class LedgerRead {
  readonly keeps: ClosedLedger | null;
  /** The launches recorded at this file, when the read resumed from a checkpoint (see `resume`). */
  atLog: AtLog | null = null;
  private closed: ClosedWriter | null = null;
  private readonly writes: Promise<unknown>[] = [];
  private releasedBefore = 0;
  private streamed = false;

  constructor(
    private readonly ledger: LedgerLike | null,
    private readonly key: LogKey,
    private readonly fileId: string | null,
  ) {
    this.keeps = keepsClosed(ledger) ? ledger : null;
  }

  /**
   * The restored analyzer, or null when the ledger lost some of the launches its checkpoint let go (a `forget`):
   * a report continued from there would miss them, so the file is read again.
   */
  async resume(a: LogAnalyzer | null): Promise<LogAnalyzer | null> {
    this.atLog = a && this.keeps ? await this.keeps.launchesAtLog(this.key, this.fileId) : null;
    if (a && !sameReleased(a, this.atLog)) {
      this.atLog = null;
      return null;
    }
    return a;
  }

  /**
   * Reads through `a` from here on: closed launches go to the ledger (or to `onSettled` without one; a ledger
   * that cannot keep them needs the whole report). The writer's thread, if one starts, ends with `close`.
   */
  start(
    a: LogAnalyzer,
    recordOf: (l: LaunchReport) => LaunchRecord,
    onSettled?: (r: LaunchReport, text: string | null) => void,
  ): void {
    this.releasedBefore = a.released;
    this.streamed = onSettled !== undefined;
    const closed = this.keeps ? new ClosedWriter(this.keeps, (run) => track(this.writes, run)) : null;
    this.closed = closed;
    if (closed || (this.ledger === null && onSettled)) {
      a.settle = (l) => {
        const r = settledReport(a, l);
        if (r === null) return false;
        const text = closed ? closed.add(recordOf(r), onSettled !== undefined) : null;
        onSettled?.(r, text);
        return true;
      };
    }
  }

  /** Closed launches not written yet (a read that closed some has something to save). */
  get unwritten(): number {
    return this.closed?.size ?? 0;
  }

  /**
   * Saves the offset and checkpoint with the open launches `recs`, when asked, with the state of that moment:
   * SQLite writes it there and then (a read killed later resumes from it); Postgres, whose store writes one
   * transaction after another, once the synchronous read lets it. `finish` waits for every one, and fails with
   * the first failure. The closed launches not written yet go with it: a checkpoint never counts a launch the
   * ledger lacks. Returns `recs` as kept.
   */
  save(state: Omit<LogState, 'id' | 'updatedAt'>, recs: LaunchRecord[]): Promise<LaunchRecord[]> {
    const ledger = this.ledger!;
    const closed = this.closed;
    const before = closed?.take() ?? [];
    const all = before.length ? [...before, ...recs] : recs;
    const run = () =>
      Promise.resolve(ledger.saveProgress(state, all)).then((kept) => (kept || all).slice(before.length));
    // Batches written on another thread go first: the offset saved must not count a launch not written.
    return track(this.writes, closed?.behind ? () => closed.flushed().then(run) : run);
  }

  /** Whether `push` pushes a chunk in pieces (launches are written as they close). */
  get inPieces(): boolean {
    return this.closed !== null;
  }

  /**
   * Pushes a chunk, a piece at a time when launches are written as they close: the read waits whenever the
   * ledger falls behind, or a read far ahead of it would hold every launch of a chunk (8 MB of a log of short
   * launches is 20k of them) queued for writing. The analyzer takes bytes cut anywhere.
   */
  async push(a: LogAnalyzer, chunk: Buffer): Promise<void> {
    if (!this.closed) return a.push(chunk);
    for (let at = 0; at < chunk.length; at += FEED_PIECE) {
      a.push(chunk.subarray(at, Math.min(chunk.length, at + FEED_PIECE)));
      const wait = this.closed.room();
      if (wait) await wait;
    }
  }

  /**
   * Waits for every write of the read, then gives the launches let go into the ledger, read back when asked:
   * all of them, or only those of earlier reads when this one handed its own to `onSettled`.
   */
  async finish(a: LogAnalyzer): Promise<EarlierLaunches | null> {
    await Promise.all(this.writes);
    const count = this.streamed ? this.releasedBefore : a.released;
    return this.keeps && count > 0 ? earlierInLedger(this.keeps, this.key, this.fileId, count) : null;
  }

  /** Stops the closed launches' writer thread, once its batches are written: however the read ends. */
  async close(): Promise<void> {
    await this.closed?.close();
  }
}

/** Runs a write now, keeping its promise in `writes` (handled here, thrown by the read's final wait). */
function track<T>(writes: Promise<unknown>[], fn: () => Promise<T>): Promise<T> {
  let run: Promise<T>;
  try {
    run = fn();
  } catch (e) {
    run = Promise.reject(e);
  }
  run.catch(() => {});
  writes.push(run);
  return run;
}

/**
 * True when the ledger has every launch the checkpoint let go (as many recorded at this file before the first
 * launch it kept): it may have lost some to `forget`, and a report continued from there would miss them.
 */
function sameReleased(a: LogAnalyzer, atLog: AtLog | null): boolean {
  if (a.released === 0) return true;
  if (atLog === null) return false;
  const first = a.launches[0]?.startOffset ?? Number.POSITIVE_INFINITY;
  let n = 0;
  while (n < atLog.length && atLog[n]!.startOffset < first) n++;
  return n === a.released;
}

/** The records with the ids the ledger keeps them under (a copy's twin), where it has them. */
export function keptIds(recs: LaunchRecord[], atLog: AtLog): LaunchRecord[] {
  const byOffset = new Map(atLog.map((x) => [x.startOffset, x.id]));
  return recs.map((r) => {
    const id = byOffset.get(r.startOffset);
    return id && id !== r.id ? { ...r, id } : r;
  });
}
