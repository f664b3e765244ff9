/** What `status` exits with for each outcome, and `runs --json`'s writer: shared by one log and several nodes. */
import type { AnalysisReport, LaunchReport } from '../core/report.js';

export const STATUS_EXIT: Record<LaunchReport['outcome'], number> = {
  ready: 0,
  serving: 0,
  crashed: 2,
  in_progress: 3,
  shutdown: 5,
  // Never the latest launch of a file (a later launch is what ended it); there for completeness.
  ended: 5,
};

/**
 * `runs --json`: the same bytes as one JSON.stringify of the whole, written a launch at a time, so that a log
 * of 100k launches never holds its whole report text in memory.
 */
export function writeRunsJson(report: AnalysisReport): void {
  process.stdout.write(
    `{"engine":${JSON.stringify(report.engine)},"lines":${report.lines},"bytes":${report.bytes},"launches":[`,
  );
  let buf = '';
  const launches = report.launches;
  for (let i = 0; i < launches.length; i++) {
    buf += (i ? ',' : '') + JSON.stringify(launches[i]);
    if (buf.length > 1 << 20) {
      process.stdout.write(buf);
      buf = '';
    }
  }
  process.stdout.write(`${buf}]}\n`);
}
