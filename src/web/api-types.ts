/**
 * The JSON the dashboard's API sends (see the contract in docs/dashboard.md). The pages
 * (web/js/) read exactly these shapes; fields may be added, never renamed.
 */

import type { GpuSummary, TargetSnapshot } from '../app/watched-target.js';
import type { BenchRecord, LaunchRecord, TargetRecord } from '../core/campaign/records.js';
import type { NodeListEntry } from '../core/multinode/combine.js';
import type { LaunchReport, ThroughputReport } from '../core/reading/report.js';
import type { LaunchFacets } from '../store/types.js';

/** A target evaluated against one launch: pass is null when the launch has no value for the metric. */
export interface TargetResult {
  expr: string;
  actual: number | null;
  pass: boolean | null;
  /** Where the value came from: `log`, or the bench run (`bench #3 (sglang, concurrency 64)`). */
  from: string | null;
}

/** The numbers of the latest benchmark run attached to a launch (milliseconds, tokens per second). */
export interface BenchSummary {
  outputTokS: number | null;
  totalTokS: number | null;
  ttftMedianMs: number | null;
  ttftP99Ms: number | null;
  tpotMedianMs: number | null;
  itlMedianMs: number | null;
}

/** A launch for the table: the record without its (large) report, plus what a row shows. */
export type LaunchSummary = Omit<LaunchRecord, 'report'> & {
  phases: Array<{ phase: string; at: number | null; duration: number | null }>;
  keyFlags: Record<string, unknown>;
  bench: BenchSummary | null;
  targets: TargetResult[];
  failure: { class: string; message: string } | null;
  /** A multi-node launch's nodes (absent for one node). */
  nodes?: NodeListEntry[];
};

/** One page of the table: `launches` from `offset` on, at most `limit`, of `total` the filters keep. */
export interface LaunchesResponse {
  launches: LaunchSummary[];
  targets: TargetRecord[];
  total: number;
  offset: number;
  limit: number;
  /** With `facets=1`: the values the table's filters offer (models, hosts, states), each sorted and bounded. */
  facets?: LaunchFacets;
}

/**
 * A throughput series as two columns: `ts[i]` (epoch seconds, the log's clock) and `tokS[i]` (generation
 * tok/s) are point i. A series can hold 100,000 points: two flat arrays parse and plot much faster than
 * one `[ts, tok/s]` pair per point.
 */
export interface SeriesColumns {
  ts: Array<number | null>;
  tokS: Array<number | null>;
}

/** A launch record as the API sends it: the report's throughput without its series (sent as SeriesColumns). */
export type ApiLaunch = Omit<LaunchRecord, 'report'> & {
  /** The launch's logged config, where status, runs and show put it too (the same object as `report.config`). */
  config: Record<string, unknown>;
  report: Omit<LaunchReport, 'throughput'> & { throughput: Omit<ThroughputReport, 'series'> | null };
};

export interface LaunchDetailResponse {
  launch: ApiLaunch;
  /** The launch's throughput series; null when it has none (never served). */
  series: SeriesColumns | null;
  benches: BenchRecord[];
  targets: TargetResult[];
  /** A launch a live look left stalled or dead: why, what to do next, how long the log was quiet; else null. */
  lastLook: LastLook | null;
}

/** The verdict a live look kept on a launch the log leaves open (src/web/last-look.ts). */
export interface LastLook {
  state: string;
  /** Epoch seconds of the look (the recording process's clock). */
  at: number;
  why: string;
  phase: string | null;
  next: string;
  /** Seconds between the log's last line and the look; null when the two clocks cannot be compared. */
  quietFor: number | null;
  /** The log's last line's time, as written. */
  lastLineTime: string | null;
}

export interface CompareResponse {
  launches: ApiLaunch[];
  /** Each launch's throughput series, in the order of `launches`. */
  series: Array<SeriesColumns | null>;
  /** Config fields whose values differ among the launches, sorted by key; one value per launch (null: unset). */
  changes: Array<{ key: string; values: unknown[] }>;
  /** Group name → the changed keys in it, for display. */
  groups: Record<string, string[]>;
}

export type { GpuSummary };

/** One watched target as the live page shows it: the use case's snapshot, served as it is. */
export type LiveTarget = TargetSnapshot;

export interface LiveResponse {
  targets: LiveTarget[];
}

/**
 * The `summary` event every client of /api/events gets (on connect, then at most once a second as states
 * change): the live cards counted by state, whatever their number.
 */
export interface LiveSummary {
  targets: number;
  states: Record<string, number>;
}
