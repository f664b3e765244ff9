/**
 * The ledger's contract: what a recorded launch, a benchmark and a target look like, and what the ledger answers.
 * Other parts (CLI, dashboard, exporter) code against these types and `LedgerStore` (ledger-store.ts) only; `ledger.ts`
 * implements them on SQLite, `pg/store.ts` on Postgres.
 */

import type { LaunchRecord } from '../core/campaign/records.js';
import type { NodeListEntry } from '../core/multinode/combine.js';

export type {
  BenchRecord,
  BenchResult,
  HistoryKey,
  IntendedLaunch,
  LatencyStats,
  LaunchNote,
  LaunchPath,
  LaunchRecord,
  LiveMark,
  SweepPointDetail,
  SweepPointRecord,
  SweepPointStatus,
  TargetRecord,
} from '../core/campaign/records.js';

import { FiredupError } from '../errors.js';

/** Where a log lives. `host` is `localhost` for a local file, else the ssh host as the user wrote it (alias or name). */
export interface LogKey {
  host: string;
  /** Absolute path for a local file; the remote path as given for an ssh target. */
  path: string;
}

/** What the ledger keeps per log file so the next read starts where the last one stopped. */
export interface LogState extends LogKey {
  id: number;
  /** `dev:ino` of the file when it was read (local), or the remote inode; null when unknown (stdin). */
  fileId: string | null;
  /** sha256 (hex) of the first `headLen` bytes: a file replaced or truncated changes it. */
  headHash: string | null;
  headLen: number;
  /** sha256 (hex) of the bytes just before `offset` (at most 4 KiB); null when not kept (remote, older ledgers). */
  tailHash?: string | null;
  /** Bytes consumed so far, always at a line boundary. */
  offset: number;
  /** Lines consumed so far (the analyzer's line counter at `offset`). */
  lines: number;
  /** The analyzer's resumable state at `offset` (opaque bytes from `LogAnalyzer.checkpoint()`), or null. */
  checkpoint: Uint8Array | null;
  /** Epoch seconds of the last update. */
  updatedAt: number;
}

/** A launch as lists show it: the record without its report, plus the few parts of the report a row shows. */
export type LaunchListItem = Omit<LaunchRecord, 'report'> & {
  phases: Array<{ phase: string; at: number | null; duration: number | null }>;
  /** The report's configSummary (the key flags). */
  configSummary: Record<string, unknown>;
  failure: { class: string; message: string } | null;
  /** A multi-node launch's nodes (kept in the summary JSON; absent for one node). */
  nodes?: NodeListEntry[];
};

export interface LaunchFilter {
  model?: string;
  host?: string;
  /** Epoch seconds: launches that started (or, without stamps, were first seen) at or after it. */
  since?: number;
  /** A LaunchState: the outcome, or the live verdict kept where the log leaves the launch open. */
  outcome?: string;
  /**
   * Config fields that must equal the value (compared as text: `true`, `64`, `flashinfer_trtllm`). `keys`,
   * when given, are the config keys any of which may hold it (`tp` is `tp_size` or `tensor_parallel_size`).
   */
  where?: Array<{ key: string; value: string; keys?: string[] }>;
  /** Launches read at this path (theirs or a copy's). */
  path?: string;
  /** Words each of which the launch's text must contain, ignoring case (the dashboard's search box). */
  text?: string[];
  /** Newest first when absent. */
  sort?: { by: LaunchSortKey; dir: 'asc' | 'desc' };
  limit?: number;
  /** Rows to skip (one page of the dashboard's table after another); only with `limit`. */
  offset?: number;
}

/** At most this many free-text terms in one query: each is one more pass over the row's text. */
export const MAX_TERMS = 16;

/** The dashboard table's sortable columns, sorted by the ledger query. */
export const LAUNCH_SORT_KEYS = [
  'start',
  'id',
  'host',
  'model',
  'engine',
  'outcome',
  'load',
  'peak',
  'median',
  'bench',
] as const;
export type LaunchSortKey = (typeof LAUNCH_SORT_KEYS)[number];

/** The values a filter of the table can take, each list sorted and bounded. */
export interface LaunchFacets {
  models: string[];
  hosts: string[];
  /** Launch states (outcome, or the live verdict kept), as `outcome=` takes them. */
  states: string[];
}

/** What `forget --path` did: the launches it removed, and those it kept because another place holds them. */
export interface PlaceForgotten {
  forgotten: string[];
  launches: number;
  benches: number;
  kept: string[];
}

export type LedgerErrorCode =
  | 'corrupt'
  | 'foreign'
  | 'too_new'
  | 'unwritable'
  | 'not_found'
  | 'ambiguous'
  | 'busy'
  | 'bad_filter'
  /** A Postgres ledger whose server cannot be reached (down, wrong host, no such database, timed out). */
  | 'unreachable'
  /** A Postgres ledger that refused the user (password, pg_hba). */
  | 'denied';

export class LedgerError extends FiredupError<LedgerErrorCode> {
  constructor(code: LedgerErrorCode, message: string) {
    super(code, message);
    this.name = 'LedgerError';
  }
}
