/**
 * What `firedup launch` writes to the ledger: the new launch with what was intended, when it first shows in
 * the log, whenever its outcome, phase or the intended-vs-logged check changes, and once the server is gone.
 * A ledger that cannot be opened or written costs a warning, never the launch.
 */

import type { IntendedLaunch, LaunchRecord } from '../core/campaign/records.js';
import { redactText } from '../core/config/redact.js';
import type { LaunchReport } from '../core/reading/report.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { openLedger } from '../store/open.js';
import { recordFromReport } from '../store/record.js';

export interface ServerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Whether firedup forwarded a stop (Ctrl-C, SIGTERM) before it exited. */
  stopped: boolean;
}

/**
 * The record once the process is gone. The log's verdict stands when it says how the launch ended; a log
 * that stops mid-launch or while serving cannot, and the exit status can: asked to stop (or exit 0) is a
 * shutdown, anything else a crash (`killed` for a signal nobody forwarded, e.g. the OOM killer's SIGKILL).
 */
export function afterExit(rec: LaunchRecord, exit: ServerExit): LaunchRecord {
  if (rec.outcome === 'crashed' || rec.outcome === 'shutdown') return rec;
  if (exit.stopped || exit.code === 0) return { ...rec, outcome: 'shutdown' };
  return { ...rec, outcome: 'crashed', failureClass: rec.failureClass ?? (exit.signal ? 'killed' : 'other') };
}

export interface RecorderContext {
  /** Absolute real path of the log. */
  path: string;
  fileId: string;
  pid: number | null;
}

export class IntendedLaunchWriter {
  private ledger: Promise<LedgerStore> | null = null;
  private failed = false;
  /** Writes go one after another, behind the session (a Postgres ledger answers later); close() waits for them. */
  private queue: Promise<void> = Promise.resolve();
  private readonly written = new Map<string, string>();
  /** Launch start offset → the id the ledger keeps it under. */
  private readonly ids = new Map<number, string>();

  constructor(
    private readonly ledgerPath: string,
    private readonly ctx: RecorderContext,
    private readonly warn: (message: string) => void,
  ) {}

  /** Upserts each of `launches` whose recorded state changed since the last call; `exit` once the server is gone. */
  record(
    launches: LaunchReport[],
    intended: IntendedLaunch,
    now: number,
    exit: ServerExit | null = null,
  ): void {
    if (this.failed) return;
    const recs: LaunchRecord[] = [];
    for (const rep of launches) {
      let rec = recordFromReport(rep, {
        host: 'localhost',
        path: this.ctx.path,
        fileId: this.ctx.fileId,
        pid: this.ctx.pid,
        now,
        intended,
      });
      // The log of a llama-server names no version; the binary told us.
      if (rec.version === null && intended.engineVersion) rec = { ...rec, version: intended.engineVersion };
      if (exit) rec = afterExit(rec, exit);
      const key = JSON.stringify([
        rec.outcome,
        rec.phase,
        rec.failureClass,
        rec.configHash,
        rec.version,
        intended.mismatches,
        intended.git?.head ?? null,
        exit !== null,
      ]);
      if (this.written.get(rec.id) === key) continue;
      this.written.set(rec.id, key);
      recs.push(rec);
    }
    if (recs.length === 0) return;
    this.queue = this.queue.then(async () => {
      if (this.failed) return;
      try {
        this.ledger ??= openLedger(this.ledgerPath);
        const kept = await (await this.ledger).upsertLaunches(recs);
        recs.forEach((r, i) => {
          this.ids.set(r.startOffset, kept[i]?.id ?? r.id);
        });
      } catch (err) {
        // One warning: the server runs on, only its history is not kept.
        this.failed = true;
        this.warn(
          `ledger ${redactText(this.ledgerPath)}: ${(err as Error).message} — this launch is not recorded`,
        );
      }
    });
  }

  /** The ledger id of the launch starting at this offset, once written. */
  idOf(startOffset: number): string | null {
    return this.ids.get(startOffset) ?? null;
  }

  /** Once every write asked for is done. */
  async close(): Promise<void> {
    await this.queue;
    try {
      await (await this.ledger)?.close();
    } catch {
      // Closing a ledger that failed to open has nothing left to lose.
    }
    this.ledger = null;
  }
}
