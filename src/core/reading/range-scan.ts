/**
 * Reads a byte range of a log that another reader will join later: serving lines are summed into runs,
 * every other line is kept whole, in order. The reader of the part before applies these segments after its
 * own lines (`LogAnalyzer.applySegments`), which gives the same report as reading the file straight through
 * while the two parts are read at the same time on two cores.
 */

import type { TimeSeries } from '../base/stats.js';
import type { EngineId } from '../base/types.js';
import { DEFAULT_MAX_LINE, LineSplitter, type RawLineSink } from '../lines/splitter.js';
import { BulkHook, type ServingRunData } from './bulk.js';
import { importShapes, type LineScanner, SCANNERS, type ScanEnv, type ShapePlan } from './scan.js';

/** What a shape scanner's run was read with: the joining reader applies it only where it has the same. */
export interface Assumed {
  engine: EngineId;
  lastTs: number | null;
  year: number;
}

export type Segment =
  | { kind: 'run'; run: ServingRunData; assumed?: Assumed }
  | { kind: 'line'; no: number; offset: number; bytes: Uint8Array; terminated: boolean };

export interface RangeScan {
  segments: Segment[];
  /** Lines in the range (numbers in segments count from 1 at the range start). */
  lines: number;
  /** Where the scanner stopped keeping segments (too many other lines, a line longer than the limit): the
   * joining reader reads the file itself from there. Line number relative to the range start. */
  stoppedAt: { lineNo: number; offset: number } | null;
}

export class RangeScanner {
  private readonly splitter: LineSplitter;
  private readonly segments: Segment[] = [];
  private kept = 0;
  private stoppedAt: RangeScan['stoppedAt'] = null;
  private ending = false;
  /** The year and last time a shape scanner's next run starts with. */
  private lastTs: number | null = null;
  private year = 0;

  /**
   * `plan`: the serving lines are another engine's, read by its shape scanner with the table of shapes the
   * first reader learned (LogAnalyzer.shapePlan); else SGLang's, read by its bulk reader.
   */
  constructor(
    startOffset: number,
    private readonly maxKeptBytes = 8 << 20,
    maxLine = DEFAULT_MAX_LINE,
    plan?: ShapePlan,
  ) {
    let shape: { scanner: LineScanner; env: ScanEnv } | null = null;
    if (plan !== undefined) {
      const scanner = SCANNERS[plan.engine]!();
      // One launch for the whole range: the runs are joined only to the launch the plan was made for.
      scanner.launch = plan;
      // A shape the table lacks is kept as a line, for the first reader's general path to read.
      scanner.classify = () => null;
      importShapes(scanner, plan.table);
      shape = { scanner, env: { year: plan.year, lastTs: plan.lastTs, maxLine: plan.maxLine } };
    }
    const hook = new BulkHook(
      () => shape === null && this.stoppedAt === null,
      // Plain data crosses to the other thread; class instances would arrive without their methods.
      (run) => {
        const data = { ...run, series: (run.series as TimeSeries).toData() };
        if (shape === null) {
          this.segments.push({ kind: 'run', run: data });
          return;
        }
        const { env } = shape;
        this.segments.push({
          kind: 'run',
          run: data,
          assumed: { engine: plan!.engine, lastTs: this.lastTs, year: this.year },
        });
        // What the joining reader will have after this run (LogAnalyzer.applyRun), if nothing between changes it.
        if (run.lastTs !== null) env.lastTs = run.lastTs;
        env.year = run.year;
        this.lastTs = env.lastTs;
        this.year = env.year;
      },
      () => (shape !== null && this.stoppedAt === null ? shape : null),
    );
    if (shape !== null) {
      this.lastTs = shape.env.lastTs;
      this.year = shape.env.year;
    }
    this.splitter = new LineSplitter(this.onLine, maxLine, hook);
    this.splitter.seek(0, startOffset);
  }

  push(chunk: Uint8Array): void {
    if (this.stoppedAt === null) this.splitter.push(chunk);
  }

  end(): RangeScan {
    this.ending = true;
    if (this.stoppedAt === null) this.splitter.end();
    return { segments: this.segments, lines: this.splitter.lines, stoppedAt: this.stoppedAt };
  }

  private onLine: RawLineSink = (buf, s, e, no, offset, truncated) => {
    if (this.stoppedAt !== null) return;
    if (truncated || this.kept + (e - s) > this.maxKeptBytes) {
      this.stoppedAt = { lineNo: no - 1, offset };
      return;
    }
    this.kept += e - s;
    this.segments.push({
      kind: 'line',
      no,
      offset,
      bytes: Uint8Array.from(buf.subarray(s, e)),
      terminated: !this.ending,
    });
  };
}

/** Shifts a run's line numbers by the lines that came before its range. */
export function shiftRun(r: ServingRunData, by: number): ServingRunData {
  return {
    ...r,
    firstLine: r.firstLine + by,
    lastLine: r.lastLine + by,
    lastSampleLine: r.lastSampleLine === null ? null : r.lastSampleLine + by,
    ...(r.progressLine === undefined ? {} : { progressLine: r.progressLine + by }),
    peak: r.peak && { ...r.peak, line: r.peak.line + by },
  };
}
