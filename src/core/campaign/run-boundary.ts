/**
 * Which launches of an appended-to log belong to the server started at byte `from` (`firedup launch`), and
 * which to runs before it. Pure: the line number of `from` comes from the caller.
 */
import type { LaunchReport } from '../base/report-types.js';

/** Lines of a launch that show it had got somewhere: a phase, readiness, a failure or a shutdown. */
function eventLines(l: LaunchReport): number[] {
  const lines = l.phases.map((p) => p.line);
  for (const e of [l.ready, l.failure, l.shutdown]) if (e) lines.push(e.line);
  return lines;
}

/**
 * How many leading launches are earlier runs. A launch that starts at or after `from` is the new server's.
 * The analyzer opens a launch only where a line starts one, and old lines that never got anywhere (a note,
 * a launch that died before its first phase) are not a launch of their own: then the launch holding `from`
 * continues into the new output and is the new server's, as long as nothing happened in it before `from`.
 * `lineAt(l)` gives the line number at `from`, counted from that launch's start.
 */
export function earlierRuns(
  launches: LaunchReport[],
  from: number,
  lineAt: (l: LaunchReport) => number,
): number {
  const after = launches.findIndex((l) => l.startOffset >= from);
  const before = after < 0 ? launches.length : after;
  const last = launches[before - 1];
  if (after >= 0 || !last || last.endOffset < from) return before;
  const line = lineAt(last);
  return eventLines(last).some((n) => n < line) ? before : before - 1;
}
