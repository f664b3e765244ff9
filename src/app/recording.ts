/** Recording what is read into the ledger: where a log is, live verdicts kept on records, a live session's recorder. */
import fs from 'node:fs';
import path from 'node:path';
import type { LaunchRecord, LiveMark } from '../core/campaign/records.js';
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import type { Expectations } from '../core/verdict/expectations.js';
import { isKeptLiveState } from '../core/verdict/launch-state.js';
import type { Verdict } from '../core/verdict/verdict.js';
import type { ReadFile } from '../sources/stdin.js';
import { parseTarget } from '../sources/target.js';
import { expectationsFor } from '../store/history.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { recordFromReport } from '../store/record.js';
import { LaunchRecorder } from '../store/recorder.js';
import { LedgerError } from '../store/types.js';

/** Where a log is, as the ledger names it: `localhost` and the real path, or the ssh host and its path. */
export function logIdentity(log: string): { host: string; path: string; local: boolean } | null {
  if (log === '-') return null;
  const t = parseTarget(log);
  if (t.kind === 'ssh') return { host: t.host, path: t.path, local: false };
  // A container: its daemon's host, and `docker://NAME` (ingest-docker.ts's dockerLogKey).
  if (t.kind === 'docker') return { host: t.host ?? 'localhost', path: `docker://${t.name}`, local: false };
  let real = path.resolve(t.path);
  try {
    real = fs.realpathSync(real);
  } catch {
    // Not there yet (watch waits for it): the absolute path as given.
  }
  return { host: 'localhost', path: real, local: true };
}

function localFileId(file: string): string | null {
  try {
    const st = fs.statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * What the ledger keeps of a live verdict: stalled, dead and exited say more than a log left open; any other
 * verdict about the launch clears what an earlier look kept. `undefined`: this verdict says nothing (no launch yet).
 */
export function liveMark(v: Verdict | null, now: number): LiveMark | null | undefined {
  if (!v || v.launch === null || v.state === 'waiting') return undefined;
  if (!isKeptLiveState(v.state)) return null;
  return {
    state: v.state,
    at: now,
    why: v.why,
    phase: v.stalledIn ?? v.phase,
    evidence: v.evidence.slice(0, 8).map((e) => ({ ...e })),
    // An exit is in the log itself (its shutdown lines), and a refused port may answer later: only a process
    // seen gone is what no later read of the log can see again.
    final:
      v.state === 'dead' && v.evidence.some((e) => e.source === 'process' && /^pid \d+ is gone/.test(e.text)),
  };
}

/**
 * What the ledger kept of the latest launch before this look: the pid an earlier look (watch, wait, launch)
 * tied to it, and its live verdict. Null when it is not recorded (or the ledger is off or busy).
 */
export async function recordedLive(
  ledger: LedgerStore | null,
  log: string,
  report: AnalysisReport,
  records: LaunchRecord[] | undefined,
): Promise<{ pid: number | null; live: LiveMark | null } | null> {
  const last = report.launches.at(-1);
  const where = logIdentity(log);
  if (!ledger || !last || !where) return null;
  const rec =
    records?.find((r) => r.startOffset === last.startOffset) ??
    recordFromReport(last, { host: where.host, path: where.path, fileId: null, now: Date.now() / 1000 });
  try {
    const id = await ledger.keptId(rec);
    const kept = id ? await ledger.getLaunch(id) : null;
    return kept ? { pid: kept.pid, live: kept.live } : null;
  } catch (err) {
    if (!(err instanceof LedgerError)) throw err;
    return null;
  }
}

/**
 * Keeps `status`'s verdict on the latest launch's record (already written by the read), so that a launch
 * called stalled is listed stalled, not in progress forever. A busy ledger loses the verdict, not the read.
 */
export async function keepVerdict(
  ledger: LedgerStore | null,
  log: string,
  report: AnalysisReport,
  records: LaunchRecord[] | undefined,
  v: Verdict | null,
): Promise<void> {
  const last = report.launches.at(-1);
  const mark = liveMark(v, Date.now() / 1000);
  const where = logIdentity(log);
  if (!ledger || !last || mark === undefined || !where) return;
  const rec =
    records?.find((r) => r.startOffset === last.startOffset) ??
    recordFromReport(last, { host: where.host, path: where.path, fileId: null, now: Date.now() / 1000 });
  try {
    const id = await ledger.keptId(rec);
    if (id) await ledger.setLive(id, mark);
  } catch (err) {
    if (!(err instanceof LedgerError)) throw err;
  }
}

/**
 * Recording for a live session (`watch`, `wait`, `serve`): writes launches, answers history. Writes go one
 * after another in the order asked (a session ticks faster than a remote ledger may answer); `flush()` waits
 * for the last one.
 */
export class LiveRecording {
  private recorder: LaunchRecorder | null = null;
  private fileId: string | null = null;
  /** The live verdict last kept, as `launch start|state`, so a verdict repeated every tick is written once. */
  private keptLive = '';
  private checkedAt = Number.NEGATIVE_INFINITY;
  private queue: Promise<unknown> = Promise.resolve();
  /** The file the session's report was read from (see readingFrom). */
  private source: (() => ReadFile | null) | null = null;
  private sourcePath: string | null = null;
  /**
   * How many times the source's bytes had started over when the recorder was made: a log truncated and
   * refilled is the same file (path and inode) with new launches, which a recorder that saw the old ones
   * would take for launches it wrote already (same start offset, maybe the same outcome and phase).
   */
  private generation: number | undefined;

  constructor(
    private readonly ledger: LedgerStore,
    private readonly where: { host: string; path: string; local: boolean },
    /** A busy or broken ledger never stops the watching: its errors come here (default: dropped). */
    private readonly onError: (err: LedgerError) => void = () => {},
  ) {}

  /**
   * Records what the session read under the file it read it from: the path given may be a symlink that was
   * repointed (b.log's launch then recorded under a.log's path and inode, which show --lines found "changed"),
   * and a look at the path now may see another file than the one the report is of.
   */
  readingFrom(source: () => ReadFile | null): void {
    this.source = source;
  }

  private current(now: number): LaunchRecorder {
    const read = this.where.local ? this.source?.() : null;
    if (read) {
      const id = `${read.dev}:${read.ino}`;
      if (
        id !== this.fileId ||
        read.path !== this.sourcePath ||
        read.generation !== this.generation ||
        !this.recorder
      ) {
        this.fileId = id;
        this.sourcePath = read.path;
        this.generation = read.generation;
        this.recorder = new LaunchRecorder(this.ledger, { ...this.where, path: read.path, fileId: id });
      }
      return this.recorder;
    }
    // Nothing opened now (the file went away): what was read is still the last file's.
    if (this.source && this.recorder) return this.recorder;
    // A rotated or recreated file is another file: its launches get ids of their own.
    if (this.where.local && now - this.checkedAt >= 1) {
      this.checkedAt = now;
      const id = localFileId(this.where.path);
      if (id !== this.fileId || !this.recorder) {
        this.fileId = id;
        this.recorder = new LaunchRecorder(this.ledger, { ...this.where, fileId: id });
      }
    }
    this.recorder ??= new LaunchRecorder(this.ledger, { ...this.where, fileId: null });
    return this.recorder;
  }

  /** Runs `fn` after every write asked before it; a ledger error goes to onError and gives `fallback`. */
  private enqueue<T>(fn: () => Promise<T>, fallback: T): Promise<T> {
    const run = this.queue.then(fn).catch((err: unknown) => {
      if (!(err instanceof LedgerError)) throw err;
      this.onError(err);
      return fallback;
    });
    this.queue = run.catch(() => {});
    return run;
  }

  /** Writes the launches that changed (see LaunchRecorder); resolves to those written. */
  observe(
    report: AnalysisReport | null,
    pid: number | null,
    { now = Date.now() / 1000, force = false }: { now?: number; force?: boolean } = {},
  ): Promise<LaunchRecord[]> {
    if (!report || report.launches.length === 0) return Promise.resolve([]);
    // The file this report is of is known now; what changed is decided when the write's turn comes.
    const recorder = this.current(now);
    return this.enqueue(() => recorder.observe(report, now, pid, force), []);
  }

  /** Keeps the verdict on the latest launch's record when it changed (see liveMark); call after observe(). */
  verdict(v: Verdict | null, report: AnalysisReport | null, now = Date.now() / 1000): Promise<void> {
    const last = report?.launches.at(-1);
    const mark = liveMark(v, now);
    if (!last || mark === undefined) return Promise.resolve();
    const rec = this.current(now).record(last, now);
    // By the launch's id and the source's generation: a refilled log's launch at the same offset, in the same
    // state, is another launch, and its record gets the verdict too.
    const key = `${this.generation ?? ''}|${rec.id}|${mark?.state ?? ''}`;
    if (key === this.keptLive) return Promise.resolve();
    this.keptLive = key;
    return this.enqueue(async () => {
      let kept = false;
      try {
        const id = await this.ledger.keptId(rec);
        if (id) {
          await this.ledger.setLive(id, mark);
          kept = true;
        }
      } finally {
        // Not recorded yet, or the write failed: ask again on the next verdict.
        if (!kept && this.keptLive === key) this.keptLive = '';
      }
    }, undefined);
  }

  /** Every write asked so far, done (or failed and reported). */
  flush(): Promise<void> {
    return this.enqueue(async () => {}, undefined);
  }

  /** What earlier launches like this one took; asked once per config (see LiveSession), answered later. */
  expect = (l: LaunchReport): Promise<Expectations | null> => {
    const now = Date.now() / 1000;
    const rec = this.current(now).record(l, now);
    return expectationsFor(this.ledger, rec).catch((err: unknown) => {
      if (err instanceof LedgerError) return null;
      throw err;
    });
  };
}

/** Who and where, for the faces (hooks, notes): the store keeps the same on every record. */
export { machineOf, thisMachine, thisUser } from '../store/identity.js';
