/**
 * Keeps the ledger up to date while a log is watched: each launch is written when it first appears, when its
 * phase, outcome or failure changes, and otherwise at most every few seconds while it grows (throughput).
 */
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import { type RecordContext, recordFromReport } from './record.js';
import type { LaunchRecord } from './types.js';

// biome-ignore lint/suspicious/noConfusingVoidType: stand-ins in tests return nothing, typed void
type SinkAnswer = LaunchRecord[] | undefined | void;

export interface LaunchSink {
  /** Returns the records as kept (a launch known from another path keeps that id), or nothing (tests). */
  upsertLaunches(recs: LaunchRecord[]): SinkAnswer | Promise<SinkAnswer>;
}

/** How often a launch whose only change is more lines (serving samples) is written again. */
const REFRESH_S = 5;

export class LaunchRecorder {
  private readonly seen = new Map<number, { key: string; at: number; lines: number }>();

  constructor(
    private readonly sink: LaunchSink,
    private readonly where: Pick<RecordContext, 'host' | 'path' | 'fileId'>,
  ) {}

  /**
   * Writes what changed; returns the records written (empty when nothing did). `force` writes a launch that
   * only grew without waiting for the refresh interval (the last look before stopping).
   */
  async observe(
    report: AnalysisReport,
    now: number,
    pid: number | null = null,
    force = false,
  ): Promise<LaunchRecord[]> {
    const out: LaunchRecord[] = [];
    for (const l of report.launches) {
      // A pid found after the launch was first written (the search takes a moment) is written too. The start
      // line is in the key: another launch at the same offset (the file truncated and refilled) is not this one.
      const key = `${signature(l)}|${l === report.launches.at(-1) ? (pid ?? '') : ''}|${l.startText}`;
      const prev = this.seen.get(l.startOffset);
      if (prev && prev.key === key && (prev.lines === l.endLine || (!force && now - prev.at < REFRESH_S)))
        continue;
      this.seen.set(l.startOffset, { key, at: now, lines: l.endLine });
      out.push(this.record(l, now, l === report.launches.at(-1) ? pid : null));
    }
    if (!out.length) return out;
    return (await this.sink.upsertLaunches(out)) || out;
  }

  /** The record of one launch; `intended` stays as `firedup launch` wrote it (an upsert keeps it). */
  record(l: LaunchReport, now: number, pid: number | null = null): LaunchRecord {
    return recordFromReport(l, { ...this.where, now, pid });
  }
}

function signature(l: LaunchReport): string {
  return [
    l.outcome,
    l.phase,
    l.failure?.class ?? '',
    l.failure?.line ?? '',
    l.ready?.line ?? '',
    l.phases.length,
  ].join('|');
}
