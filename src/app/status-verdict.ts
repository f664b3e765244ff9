/**
 * `status` on a live file: the log's own verdict is joined with the file's age and, when asked, the
 * process and the HTTP port. The log says where the launch is; the file's age says how long ago that was.
 */
import { type ContainerObservation, containerVerdict, publishedUrl } from '../core/container.js';
import type { Observations } from '../core/observations.js';
import type { AnalysisReport } from '../core/report.js';
import { liveVerdict, progressAt, type Verdict } from '../core/verdict.js';

/**
 * The verdict now, for a log read once: the last progress happened `quietFor` log-seconds before the
 * file's last write, so on our clock it happened at mtime − quietFor (`progressAt`, as `watch`, `wait` and
 * `serve` count it). Standard input has no age: null. A named `--url` that refuses, or a `--pid` that is
 * gone, makes a launch the log calls ready not ready (a readiness probe).
 */
export async function statusVerdict(
  report: AnalysisReport,
  mtimeMs: number | null,
  opts: { url?: string; pid?: number },
  container?: ContainerObservation,
): Promise<Verdict | null> {
  if (mtimeMs === null) return null;
  const last = report.launches[report.launches.length - 1]!;
  const obs: Observations = {};
  // The probes load only when asked for: child_process and friends cost a plain `status` milliseconds.
  if (opts.pid !== undefined)
    obs.process = await (await import('../probes/process.js')).probeProcess(opts.pid);
  // A container's published port is where its server answers here (evidence; only a named --url decides ready).
  const url = opts.url ?? (container && !container.daemonHost ? publishedUrl(container, last) : null);
  if (url) obs.http = await (await import('../probes/http.js')).probeHttp(url, last.engine ?? report.engine);
  const now = Date.now() / 1000;
  const v = liveVerdict({
    report,
    obs,
    now,
    progressAt: progressAt(last, Math.min(now, mtimeMs / 1000)),
    logExists: true,
    urlNamed: opts.url !== undefined,
  });
  return containerVerdict(v, container, last);
}
