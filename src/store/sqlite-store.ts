/** The SQLite ledger (src/store/ledger.ts, synchronous) behind the asynchronous LedgerStore interface. */
import { BulkWriter } from './bulk-writer.js';
import { Ledger } from './ledger.js';
import type { LedgerStore, NewSweepPoint, PointUpdate, SweepSummary } from './ledger-store.js';
import type { Annotation } from './record.js';
import type {
  BenchRecord,
  BenchResult,
  HistoryKey,
  LaunchFacets,
  LaunchFilter,
  LaunchListItem,
  LaunchRecord,
  LiveMark,
  LogKey,
  LogState,
  PlaceForgotten,
  SweepPointRecord,
  TargetRecord,
} from './types.js';

export class SqliteLedgerStore implements LedgerStore {
  readonly kind = 'sqlite' as const;

  constructor(
    readonly ledger: Ledger,
    /** An in-memory copy of a file firedup may not write (openReadOnly): no other connection may write it. */
    private readonly copy = false,
  ) {}

  /** Opens (creating it when missing) the SQLite ledger at `file`. Throws LedgerError. */
  static open(file: string): SqliteLedgerStore {
    return new SqliteLedgerStore(Ledger.open(file));
  }

  /** A ledger firedup may read but not write, from a copy in memory (see Ledger.openReadOnly). */
  static openReadOnly(file: string): SqliteLedgerStore {
    return new SqliteLedgerStore(Ledger.openReadOnly(file), true);
  }

  get path(): string {
    return this.ledger.path;
  }

  async close(): Promise<void> {
    this.ledger.close();
  }

  async getLog(key: LogKey): Promise<LogState | null> {
    return this.ledger.getLog(key);
  }

  async saveProgress(
    state: Omit<LogState, 'id' | 'updatedAt'>,
    launches: LaunchRecord[],
  ): Promise<LaunchRecord[]> {
    return this.ledger.saveProgress(state, launches);
  }

  async resetLog(key: LogKey): Promise<void> {
    this.ledger.resetLog(key);
  }

  async launchesAtLog(
    key: LogKey,
    fileId: string | null,
  ): Promise<Array<{ id: string; startOffset: number }>> {
    return this.ledger.launchesAtLog(key, fileId);
  }

  async reportTexts(ids: readonly string[]): Promise<string[]> {
    return this.ledger.reportTexts(ids);
  }

  async getLaunches(ids: readonly string[]): Promise<LaunchRecord[]> {
    return this.ledger.getLaunches(ids);
  }

  /** A writer of launches on another thread, with its own connection to the file (see bulk-writer.ts). */
  bulkWriter(): BulkWriter | null {
    return this.copy ? null : new BulkWriter(this.ledger.path);
  }

  async upsertLaunches(recs: LaunchRecord[]): Promise<LaunchRecord[]> {
    return this.ledger.upsertLaunches(recs);
  }

  async keptId(r: LaunchRecord): Promise<string | null> {
    return this.ledger.keptId(r);
  }

  async setLive(id: string, mark: LiveMark | null): Promise<void> {
    this.ledger.setLive(id, mark);
  }

  async launchIdsAt(key: LogKey): Promise<string[]> {
    return this.ledger.launchIdsAt(key);
  }

  async forget(ids: readonly string[], log?: LogKey): Promise<{ launches: number; benches: number }> {
    return this.ledger.forget(ids, log);
  }

  async forgetPlace(log: LogKey): Promise<PlaceForgotten> {
    return this.ledger.forgetPlace(log);
  }

  async getLaunch(id: string): Promise<LaunchRecord | null> {
    return this.ledger.getLaunch(id);
  }

  async resolve(ref: string): Promise<LaunchRecord> {
    return this.ledger.resolve(ref);
  }

  async list(filter?: LaunchFilter): Promise<LaunchRecord[]> {
    return this.ledger.list(filter);
  }

  async listItems(filter?: LaunchFilter): Promise<LaunchListItem[]> {
    return this.ledger.listItems(filter);
  }

  async countLaunches(filter?: LaunchFilter): Promise<number> {
    return this.ledger.countLaunches(filter);
  }

  async launchFacets(): Promise<LaunchFacets> {
    return this.ledger.launchFacets();
  }

  async history(key: HistoryKey, beforeTs?: number, limit?: number): Promise<LaunchRecord[]> {
    return this.ledger.history(key, beforeTs, limit);
  }

  async addBench(launchId: string, r: BenchResult): Promise<{ record: BenchRecord; added: boolean }> {
    return this.ledger.addBench(launchId, r);
  }

  async attachBench(id: number, launchId: string): Promise<BenchRecord | null> {
    return this.ledger.attachBench(id, launchId);
  }

  async keepUnattached(r: BenchResult, why: string): Promise<{ record: BenchRecord; added: boolean }> {
    return this.ledger.keepUnattached(r, why);
  }

  async detachBench(id: number, why: string): Promise<BenchRecord | null> {
    return this.ledger.detachBench(id, why);
  }

  async unattachedBenches(): Promise<BenchRecord[]> {
    return this.ledger.unattachedBenches();
  }

  async annotate(id: string, change: Annotation): Promise<LaunchRecord> {
    return this.ledger.annotate(id, change);
  }

  async removeBench(id: number): Promise<boolean> {
    return this.ledger.removeBench(id);
  }

  async benches(launchId: string): Promise<BenchRecord[]> {
    return this.ledger.benches(launchId);
  }

  async benchesOf(launchIds: readonly string[]): Promise<Map<string, BenchRecord[]>> {
    return this.ledger.benchesOf(launchIds);
  }

  async servingAt(host: string, port: number | null, ts: number): Promise<LaunchRecord | null> {
    return this.ledger.servingAt(host, port, ts);
  }

  async openSweepPoint(p: NewSweepPoint): Promise<SweepPointRecord> {
    return this.ledger.openSweepPoint(p);
  }

  async updateSweepPoint(id: number, u: PointUpdate): Promise<void> {
    this.ledger.updateSweepPoint(id, u);
  }

  async sweepPoints(sweep: string): Promise<SweepPointRecord[]> {
    return this.ledger.sweepPoints(sweep);
  }

  async sweeps(): Promise<SweepSummary[]> {
    return this.ledger.sweeps();
  }

  async closeStaleSweepPoints(sweep: string): Promise<number> {
    return this.ledger.closeStaleSweepPoints(sweep);
  }

  async addTarget(t: Omit<TargetRecord, 'id'>): Promise<TargetRecord> {
    return this.ledger.addTarget(t);
  }

  async targets(model?: string | null): Promise<TargetRecord[]> {
    return this.ledger.targets(model);
  }

  async removeTarget(id: number): Promise<boolean> {
    return this.ledger.removeTarget(id);
  }
}
