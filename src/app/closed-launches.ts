/**
 * A read through the ledger keeps only the launches still open: each closed launch is written to the ledger as
 * it closes (a batch at a time) and dropped, so that memory, and the checkpoint saved with the offset, do not
 * grow with the number of launches. The launches the read let go are read back from the ledger, a page at a
 * time, by a command that prints them (`runs`), or the few a command needs (`status`: the one before the last).
 */
import type { EarlierLaunches, LaunchRecord } from '../core/campaign/records.js';
import type { LogKey } from '../store/types.js';

/** Closed launches written in one go: a few megabytes of records at most are held between writes. */
export const CLOSED_BATCH = 1000;
/** Batches given to the ledger and not yet written past which the read waits (`room`): memory stays bounded. */
const MAX_BEHIND = 4;
/**
 * Launches a batch holds where a writer's thread writes them as they come, in one transaction: each commit
 * rewrites most pages of the indexes on random keys (ids, fingerprints), so a first read of 100k launches
 * wrote 1.9 GB in batches of 1000 and 1.2 GB in batches of 5000.
 */
export const BULK_BATCH = 5000;
/** Launches handed to the writer's thread at a time while a batch is made (see BulkWriterLike.stage). */
const STAGE = 50;
/** Launches read back from the ledger at a time. */
const PAGE = 2000;

/** What keeping closed launches in the ledger needs of it (the stores have it; stand-ins in tests may not). */
export interface ClosedLedger {
  upsertLaunches(recs: LaunchRecord[]): Promise<LaunchRecord[]> | LaunchRecord[];
  launchesAtLog(
    key: LogKey,
    fileId: string | null,
  ): Promise<Array<{ id: string; startOffset: number }>> | Array<{ id: string; startOffset: number }>;
  getLaunches(ids: readonly string[]): Promise<LaunchRecord[]> | LaunchRecord[];
  reportTexts(ids: readonly string[]): Promise<string[]> | string[];
  /** A writer on another thread, where the store has one (SQLite: see store/bulk-writer.ts). */
  bulkWriter?(): BulkWriterLike | null;
}

export interface BulkWriterLike {
  /**
   * The launch as the writer sends it (plain rows): made at once, so no launch's objects wait in a batch; with
   * the launch's report as JSON (what `runs --json` prints) where making the row made it, else null.
   */
  prepare(rec: LaunchRecord): { write: object; text: string | null };
  /** Launches of the batch being made, handed over ahead of it (written with the next `write`). */
  stage?(part: object[]): void;
  write(prepared: object[]): Promise<void>;
  /** Settles once every batch given so far is written. */
  flushed(): Promise<void>;
  close(): Promise<void>;
}

export function keepsClosed(ledger: object | null): ledger is ClosedLedger {
  const l = ledger as Partial<ClosedLedger> | null;
  return (
    typeof l?.upsertLaunches === 'function' &&
    typeof l.launchesAtLog === 'function' &&
    typeof l.getLaunches === 'function' &&
    typeof l.reportTexts === 'function'
  );
}

/**
 * Where the closed launches of one read go: into batches, each written when full (`write` keeps the promise:
 * ingest waits for every write at the end of the read), the last part with the next save of progress.
 */
export class ClosedWriter {
  private pending: LaunchRecord[] = [];
  /** Launches made ready for the writer's thread, once it runs. */
  private prepared: object[] = [];
  /** Launches of the batch being made already handed to the writer's thread (see `stage`). */
  private staged = 0;
  /** Started with the first full batch: a read that closes few launches writes them with its save. */
  private bulk: BulkWriterLike | null | undefined;
  /** The batches handed to the ledger and not written yet, oldest first. */
  private readonly behindBy: Promise<void>[] = [];

  constructor(
    private readonly ledger: ClosedLedger,
    private readonly write: (run: () => Promise<unknown>) => Promise<unknown>,
  ) {}

  /**
   * `wantText`: the caller prints the report as JSON too; where the writer's thread runs, its row has that text
   * nearly made (returned, so that the report is not made into JSON twice). Otherwise null.
   */
  add(rec: LaunchRecord, wantText = false): string | null {
    if (this.bulk) {
      const { write, text } = this.bulk.prepare(rec);
      this.prepared.push(write);
      if (this.staged + this.prepared.length >= BULK_BATCH) this.send();
      else if (this.prepared.length >= STAGE && this.bulk.stage) {
        this.bulk.stage(this.prepared);
        this.staged += this.prepared.length;
        this.prepared = [];
      }
      return wantText ? text : null;
    }
    this.pending.push(rec);
    if (this.pending.length < CLOSED_BATCH) return null;
    if (this.bulk === undefined) this.bulk = this.ledger.bulkWriter?.() ?? null;
    const bulk = this.bulk;
    if (bulk) {
      this.prepared = this.take().map((r) => bulk.prepare(r).write);
      this.send();
      return null;
    }
    const batch = this.take();
    this.track(this.write(async () => void (await this.ledger.upsertLaunches(batch))));
    return null;
  }

  /** Hands the launches made ready so far to the writer's thread. */
  private send(): void {
    const bulk = this.bulk;
    if (!bulk || (!this.prepared.length && !this.staged)) return;
    const batch = this.prepared;
    this.prepared = [];
    this.staged = 0;
    this.track(this.write(() => bulk.write(batch)));
  }

  private track(write: Promise<unknown>): void {
    const done = write.then(
      () => {},
      () => {},
    );
    this.behindBy.push(done);
    void done.then(() => this.behindBy.splice(this.behindBy.indexOf(done), 1));
  }

  /** Whether batches are written on another thread: a save must then wait for them (see `flushed`). */
  get behind(): boolean {
    return Boolean(this.bulk);
  }

  /**
   * Settles once the ledger is at most a few batches behind (null: it is): the read waits for it between
   * chunks, or a ledger slower than the read (a remote Postgres) would have every launch queued in memory.
   */
  room(): Promise<void> | null {
    return this.behindBy.length > MAX_BEHIND ? this.behindBy[0]! : null;
  }

  /** Settles once the launches given so far are written (those of a batch not full yet are sent now). */
  flushed(): Promise<void> {
    this.send();
    return this.bulk ? this.bulk.flushed() : Promise.resolve();
  }

  /** Stops the writer's thread, once its batches are written. */
  async close(): Promise<void> {
    this.send();
    await this.bulk?.close();
  }

  /** The launches not written yet, for the save of progress that writes them with the offset. */
  take(): LaunchRecord[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  get size(): number {
    return this.pending.length + this.prepared.length + this.staged;
  }
}

/** Keys of a report that hold a line number of the log, or a byte offset in it. */
const LINE_KEYS = new Set(['line', 'startLine', 'endLine', 'lastLine', 'peakLine', 'lastProgressLine']);
const OFFSET_KEYS = new Set(['startOffset', 'endOffset']);

/** The report with every line number moved by `lines` and every offset by `bytes` (a copy at another place). */
function shifted<T>(value: T, lines: number, bytes: number): T {
  if (Array.isArray(value)) return value.map((v) => shifted(v, lines, bytes)) as T;
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'number' && LINE_KEYS.has(k)) out[k] = v + lines;
    else if (typeof v === 'number' && OFFSET_KEYS.has(k)) out[k] = v + bytes;
    else out[k] = shifted(v, lines, bytes);
  }
  return out as T;
}

/**
 * A recorded launch as read at this place of the log: a launch read at several places (a copy, a replay) has
 * one record, made from the reading that saw most of it, maybe at another place, whose lines and offsets are
 * that file's. What `runs LOG` and `diff LOG` show of LOG is LOG's: its path, and where in it the launch is.
 */
export function atPlace(
  rec: LaunchRecord,
  key: LogKey,
  fileId: string | null,
  startOffset: number,
): LaunchRecord {
  const place = rec.paths.find((p) => p.host === key.host && p.path === key.path);
  const startLine = place?.startLine ?? rec.report.startLine;
  const lines = startLine - rec.report.startLine;
  const bytes = startOffset - rec.report.startOffset;
  const report = lines === 0 && bytes === 0 ? rec.report : shifted(rec.report, lines, bytes);
  if (rec.host === key.host && rec.path === key.path && report === rec.report) return rec;
  return { ...rec, host: key.host, path: key.path, fileId, startLine, startOffset, report };
}

/** The report's own start offset, from its JSON text without parsing it (its first `,"startOffset":` key). */
function textOffset(text: string): number | null {
  const at = text.indexOf(',"startOffset":');
  if (at < 0) return null;
  const m = /^-?\d+/.exec(text.slice(at + 15, at + 40));
  return m ? Number(m[0]) : null;
}

/** The first `count` launches recorded at this file, read back from the ledger (see EarlierLaunches). */
export function earlierInLedger(
  ledger: ClosedLedger,
  key: LogKey,
  fileId: string | null,
  count: number,
): EarlierLaunches {
  let at: Promise<Array<{ id: string; startOffset: number }>> | null = null;
  // Asked once, when first needed: after the read's writes, which the list must include.
  const atOf = (): Promise<Array<{ id: string; startOffset: number }>> => {
    at ??= Promise.resolve(ledger.launchesAtLog(key, fileId)).then((xs) => xs.slice(0, count));
    return at;
  };
  /** The launches of `page` as read here (see atPlace), in its order. */
  const records = async (page: Array<{ id: string; startOffset: number }>): Promise<LaunchRecord[]> => {
    const got = await ledger.getLaunches(page.map((x) => x.id));
    const byId = new Map(got.map((r) => [r.id, r]));
    return page.flatMap((x) => {
      const r = byId.get(x.id);
      return r ? [atPlace(r, key, fileId, x.startOffset)] : [];
    });
  };
  return {
    count,
    async *reportTexts() {
      const all = await atOf();
      for (let i = 0; i < all.length; i += PAGE) {
        const page = all.slice(i, i + PAGE);
        const texts = await ledger.reportTexts(page.map((x) => x.id));
        // Most records were made from this place's reading: their text as kept. Those made from another
        // place's (a copy read first, or one that saw more) are read back and moved to this place.
        const elsewhere =
          texts.length !== page.length || texts.some((t, k) => textOffset(t) !== page[k]!.startOffset);
        yield elsewhere ? (await records(page)).map((r) => JSON.stringify(r.report)) : texts;
      }
    },
    async last(n) {
      const all = await atOf();
      return n <= 0 ? [] : await records(all.slice(Math.max(0, all.length - n)));
    },
  };
}
