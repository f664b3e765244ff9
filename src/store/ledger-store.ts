/**
 * The ledger as every caller sees it, whatever keeps it: a SQLite file (`sqlite-store.ts`, the user's own) or
 * a Postgres database shared by a team (`pg/store.ts`). Asynchronous because Postgres is; the SQLite side
 * answers at once. Every method throws LedgerError (a one-line message) for what the user can act on.
 */
import type { Annotation } from './record.js';
import type { NewSweepPoint, PointUpdate } from './sweeps.js';
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

export type { NewSweepPoint, PointUpdate } from './sweeps.js';

export interface SweepSummary {
  name: string;
  points: number;
  runs: number;
  startedAt: number;
  endedAt: number | null;
}

export interface LedgerStore {
  /** Where it is, as printed: the file's absolute path, or the database URL with its password redacted. */
  readonly path: string;
  /** `sqlite` or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';
  close(): Promise<void>;

  // ---- logs: where reading each file stopped
  getLog(key: LogKey): Promise<LogState | null>;
  /** The launches read so far and where reading stopped, together or not at all; returns the launches as kept. */
  saveProgress(state: Omit<LogState, 'id' | 'updatedAt'>, launches: LaunchRecord[]): Promise<LaunchRecord[]>;
  /** The file was replaced or truncated: read it again from the start. Its launches stay. */
  resetLog(key: LogKey): Promise<void>;
  /**
   * The launches recorded at this file (`fileId` at the key's place), in file order: where each starts and
   * the id it is kept under. What an incremental read asks for instead of holding every closed launch.
   */
  launchesAtLog(key: LogKey, fileId: string | null): Promise<Array<{ id: string; startOffset: number }>>;

  // ---- launches
  /** Returns the records as kept: a launch known from another path, a copy or a replay keeps that id. */
  upsertLaunches(recs: LaunchRecord[]): Promise<LaunchRecord[]>;
  /** The id this launch is kept under (its own, or its twin's), or null when not recorded. */
  keptId(r: LaunchRecord): Promise<string | null>;
  setLive(id: string, mark: LiveMark | null): Promise<void>;
  launchIdsAt(key: LogKey): Promise<string[]>;
  forget(ids: readonly string[], log?: LogKey): Promise<{ launches: number; benches: number }>;
  /**
   * Forgets one place: where reading it stopped, and its place on the launches read there. A launch another
   * place holds too stays (made from that place's reading if it was made from this one); the others go.
   */
  forgetPlace(log: LogKey): Promise<PlaceForgotten>;
  getLaunch(id: string): Promise<LaunchRecord | null>;
  /** Their reports as JSON text, as a read prints them (`runs --json`), in that order: no parsing. */
  reportTexts(ids: readonly string[]): Promise<string[]>;
  /** The launches named, in that order (one not recorded is left out). */
  getLaunches(ids: readonly string[]): Promise<LaunchRecord[]>;
  /** A launch the user named: its id, a unique prefix of 4+ hex characters, `last` or `last~N`. */
  resolve(ref: string): Promise<LaunchRecord>;
  /** Newest first. */
  list(filter?: LaunchFilter): Promise<LaunchRecord[]>;
  listItems(filter?: LaunchFilter): Promise<LaunchListItem[]>;
  /** How many launches the filter keeps, whatever its limit and offset (the table's total). */
  countLaunches(filter?: LaunchFilter): Promise<number>;
  /** The values the table's filters offer: models, hosts and states recorded, each sorted and bounded. */
  launchFacets(): Promise<LaunchFacets>;
  history(key: HistoryKey, beforeTs?: number, limit?: number): Promise<LaunchRecord[]>;

  // ---- benchmarks
  addBench(launchId: string, r: BenchResult): Promise<{ record: BenchRecord; added: boolean }>;
  /** Moves benchmark `id` onto `launchId` (a bench credited to the wrong launch); null when there is no such bench. */
  attachBench(id: number, launchId: string): Promise<BenchRecord | null>;
  /** Keeps a result no launch matched, with why (the same result kept before is not added twice). */
  keepUnattached(r: BenchResult, why: string): Promise<{ record: BenchRecord; added: boolean }>;
  /** Takes benchmark `id` off its launch, kept with why; null when there is no such bench. */
  detachBench(id: number, why: string): Promise<BenchRecord | null>;
  /** The benchmarks no launch holds, oldest first. */
  unattachedBenches(): Promise<BenchRecord[]>;
  /** Adds a note to launch `id`, or adds or removes a tag; the launch as it is now. */
  annotate(id: string, change: Annotation): Promise<LaunchRecord>;
  /** Deletes benchmark `id`; false when there is none. */
  removeBench(id: number): Promise<boolean>;
  benches(launchId: string): Promise<BenchRecord[]>;
  benchesOf(launchIds: readonly string[]): Promise<Map<string, BenchRecord[]>>;
  servingAt(host: string, port: number | null, ts: number): Promise<LaunchRecord | null>;

  // ---- sweeps
  openSweepPoint(p: NewSweepPoint): Promise<SweepPointRecord>;
  updateSweepPoint(id: number, u: PointUpdate): Promise<void>;
  sweepPoints(sweep: string): Promise<SweepPointRecord[]>;
  sweeps(): Promise<SweepSummary[]>;
  closeStaleSweepPoints(sweep: string): Promise<number>;

  // ---- targets
  addTarget(t: Omit<TargetRecord, 'id'>): Promise<TargetRecord>;
  targets(model?: string | null): Promise<TargetRecord[]>;
  removeTarget(id: number): Promise<boolean>;
}
