/** What `status` exits with for each outcome, and `runs --json`'s writer: shared by one log and several nodes. */
import { once } from 'node:events';
import type { EarlierLaunches } from '../core/campaign/records.js';
import { type AnalysisReport, type LaunchReport, reportedEngine } from '../core/reading/report.js';
import type { TextSpool } from './spool.js';

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
 * of 100k launches never holds its whole report text in memory. `settled`: the launches reported as they
 * closed, which come before the report's own; `earlier`: those an earlier read left in the ledger, first of all.
 */
export async function writeRunsJson(
  report: AnalysisReport,
  settled?: TextSpool,
  earlier?: EarlierLaunches | null,
): Promise<void> {
  // a pipe's reader may be slower than this: wait for it rather than queue the whole report in memory
  const write = async (piece: string | Buffer): Promise<void> => {
    if (!process.stdout.write(piece)) await once(process.stdout, 'drain');
  };
  await write(
    `{"engine":${JSON.stringify(reportedEngine(report))},"program":${JSON.stringify(report.program ?? null)},"lines":${report.lines},"bytes":${report.bytes},"launches":[`,
  );
  let before = 0;
  if (earlier)
    for await (const page of earlier.reportTexts()) {
      let text = '';
      for (const r of page) text += (before++ ? ',' : '') + r;
      await write(text);
    }
  if (settled?.count) {
    if (before) await write(',');
    await settled.drain(write);
    before += settled.count;
  }
  let buf = '';
  const launches = report.launches;
  for (let i = 0; i < launches.length; i++) {
    buf += (i || before ? ',' : '') + JSON.stringify(launches[i]);
    if (buf.length > 1 << 20) {
      await write(buf);
      buf = '';
    }
  }
  await write(`${buf}]}\n`);
}
