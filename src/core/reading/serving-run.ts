/**
 * A run of serving lines as data: what the bulk reader (bulk.ts) and the shape scanner (scan.ts) sum a busy
 * server's lines into, and the launch (launch.ts) or the joining reader (range-scan.ts) applies. Its own module so
 * that the two readers, one of which drives the other, share it without importing each other.
 */
import type { SeriesSummary, TimeSeries, TimeSeriesData } from '../base/stats.js';

/** Everything a run of serving lines changes in a launch. Plain data, so a worker thread can send it. */
export interface ServingRunData {
  lines: number;
  firstLine: number;
  lastLine: number;
  firstOffset: number;
  lastOffset: number;
  /** Byte offset just past the run's last newline. */
  endOffset: number;
  /** null: no line of the run prints a time (llama-server). */
  firstTs: number | null;
  lastTs: number | null;
  /** The reading's year after the run; -1: the run's lines carry no year (SGLang's `[HH:MM:SS` stamps), it stays. */
  year: number;
  tags: string[];
  requests: number;
  samples: number;
  gen: SeriesSummary;
  prompt: SeriesSummary;
  running: SeriesSummary;
  queued: SeriesSummary;
  kv: SeriesSummary;
  series: TimeSeries | TimeSeriesData;
  peak: {
    genTps: number;
    promptTps: number | null;
    running: number | null;
    queued: number | null;
    kvUsage: number | null;
    ts: number | null;
    line: number;
    text: string;
  } | null;
  lastSampleLine: number | null;
  /** The JS scanners (scan.ts) also say: the pids of the lines' process prefixes, the lines an engine rule
   * matched (else all), and the last line that moved the launch with its time (else the last line, lastTs). */
  pids?: number[];
  engineLines?: number;
  progressLine?: number;
  progressTs?: number | null;
  /** The generic reader (generic-scan.ts) says whether any line of the run was a request or serving line: a run of
   * lines that only move the launch's end (false) ends no stall, as on the general path. */
  busy?: boolean;
}
