/**
 * `status` on a live file: the log's own verdict is joined with the file's age and, when asked, the
 * process and the HTTP port. The log says where the launch is; the file's age says how long ago that was.
 */
import type { Observations } from '../core/observations.js';
import type { AnalysisReport } from '../core/report.js';
import { liveVerdict, type Verdict } from '../core/verdict.js';
import { probeHttp } from '../probes/http.js';
import { probeProcess } from '../probes/process.js';
import { UsageError } from './errors.js';

export function pidFlag(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--pid ${String(v)}: not a process id`);
  return n;
}

export function urlFlag(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  try {
    const u = new URL(String(v));
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    return u.toString().replace(/\/$/, '');
  } catch {
    throw new UsageError(`--url ${String(v)}: not an http(s) URL (e.g. http://127.0.0.1:30000)`);
  }
}

/**
 * The verdict now, for a log read once: the last progress happened `quietFor` log-seconds before the
 * file's last write, so on our clock it happened at mtime − quietFor. Standard input has no age: null.
 */
export async function statusVerdict(
  report: AnalysisReport,
  mtimeMs: number | null,
  opts: { url?: string; pid?: number },
): Promise<Verdict | null> {
  if (mtimeMs === null) return null;
  const last = report.launches[report.launches.length - 1]!;
  const obs: Observations = {};
  if (opts.pid !== undefined) obs.process = await probeProcess(opts.pid);
  if (opts.url) obs.http = await probeHttp(opts.url, last.engine ?? report.engine);
  const progressAt = mtimeMs / 1000 - (last.quietFor ?? 0);
  return liveVerdict({ report, obs, now: Date.now() / 1000, progressAt, logExists: true });
}
