/**
 * `status` on a live file: the log's own verdict is joined with the file's age and the process and HTTP port,
 * found as `wait` finds them. The log says where the launch is; the file's age says how long ago that was; the
 * process says whether anyone is still there. One verdict, whichever command asks.
 */

import type { LiveMark } from '../core/campaign/records.js';
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import { type ContainerObservation, containerVerdict, publishedUrl } from '../core/verdict/container.js';
import type { Observations } from '../core/verdict/observations.js';
import { liveVerdict, progressAt, type Verdict } from '../core/verdict/verdict.js';
import { ENGINE_DEFAULT_PORTS } from '../probes/server-identity.js';

export interface StatusProbeOptions {
  url?: string;
  pid?: number;
  /**
   * Look for the launch's server on this machine, as `wait` does (a local log whose latest launch is open).
   * False: `--no-probe`, a remote log, standard input.
   */
  findProcess?: boolean;
  /** What the ledger kept of this launch: the pid an earlier look tied to it, and its live verdict. */
  recorded?: { pid: number | null; live: LiveMark | null } | null;
}

const DEFAULT_PORTS = ENGINE_DEFAULT_PORTS;

/** The port and model the launch's log claims for its server (as the live session builds its claim). */
function claimOf(last: LaunchReport, engine: string | null, url: string | undefined) {
  const c = last.configSummary;
  let port: number | undefined;
  if (url) {
    const u = new URL(url);
    port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  } else port = typeof c.port === 'number' ? c.port : engine ? DEFAULT_PORTS[engine] : undefined;
  return {
    port,
    portLogged: url !== undefined || typeof c.port === 'number',
    engine,
    model: typeof c.model === 'string' ? c.model : last.model,
    pids: last.pids,
  };
}

const FINAL = new Set(['dead', 'exited', 'crashed']);

/**
 * The verdict now, for a log read once: the last progress happened `quietFor` log-seconds before the
 * file's last write, so on our clock it happened at mtime − quietFor (`progressAt`, as `watch`, `wait` and
 * `serve` count it). Standard input has no age: null. A named `--url` that refuses, or a `--pid` that is
 * gone, makes a launch the log calls ready not ready (a readiness probe).
 */
export async function statusVerdict(
  report: AnalysisReport,
  mtimeMs: number | null,
  opts: StatusProbeOptions,
  container?: ContainerObservation,
): Promise<Verdict | null> {
  if (mtimeMs === null) return null;
  const last = report.launches[report.launches.length - 1]!;
  const engine = last.engine ?? report.engine;
  const obs: Observations = {};
  const open = last.outcome !== 'crashed' && last.outcome !== 'shutdown';
  // The probes load only when asked for: child_process and friends cost a plain `status` milliseconds.
  if (opts.pid !== undefined) {
    const { probeProcess } = await import('../probes/process.js');
    obs.process = { ...(await probeProcess(opts.pid)), tiedBy: 'named by --pid' };
  } else if (opts.findProcess && open && !container) {
    const { identifyServer, probeProcess } = await import('../probes/process.js');
    const found = await identifyServer(claimOf(last, engine, opts.url));
    if (found.pid !== null) obs.process = { ...(await probeProcess(found.pid)), tiedBy: found.tiedBy };
    else {
      // No process qualifies now. The pid an earlier look tied to this launch (kept in the ledger) being gone is
      // evidence too: the server is gone. One alive but no longer tied
      // (a reused pid) proves nothing.
      // Only a pid a look on this machine tied to the launch: the pids a log names may be another machine's (a
      // copied or pasted log), and their absence here proves nothing.
      const known = [opts.recorded?.pid ?? null].filter((p): p is number => p !== null);
      for (const pid of known) {
        const o = await probeProcess(pid);
        if (o.alive) {
          obs.processSearch = { why: found.why, candidates: found.candidates };
          break;
        }
        obs.process ??= {
          ...o,
          tiedBy:
            pid === opts.recorded?.pid
              ? 'an earlier look (watch, wait, launch) tied it to this launch; the ledger kept it'
              : `its pid ${pid} is in the log`,
        };
      }
      if (obs.processSearch) obs.process = undefined;
      else if (!obs.process) obs.processSearch = { why: found.why, candidates: found.candidates };
    }
  }
  // A container's published port is where its server answers here (evidence; only a named --url decides ready).
  const url = opts.url ?? (container && !container.daemonHost ? publishedUrl(container, last) : null);
  if (url) {
    const { probeHttp } = await import('../probes/http.js');
    obs.http = await probeHttp(url, engine);
  }
  const now = Date.now() / 1000;
  const v = liveVerdict({
    report,
    obs,
    now,
    progressAt: progressAt(last, Math.min(now, mtimeMs / 1000)),
    logExists: true,
    urlNamed: opts.url !== undefined,
  });
  // A verdict seen with more evidence (the process gone, a clean exit) stands over a weaker one seen with
  // less: the ledger keeps it until the log moves on (which clears it).
  // `--no-probe` reads the log alone, and says only what the log says.
  const kept = opts.findProcess ? (opts.recorded?.live ?? null) : null;
  if (kept?.final && !FINAL.has(v.state)) {
    return containerVerdict(
      {
        ...v,
        state: kept.state as Verdict['state'],
        final: true,
        why: `${kept.why} (seen by an earlier look at ${new Date(kept.at * 1000).toISOString().replace(/\.\d+Z$/, 'Z')})`,
        evidence: [
          ...(kept.evidence as Verdict['evidence']),
          ...v.evidence.filter((e) => e.source === 'log'),
        ],
      },
      container,
      last,
    );
  }
  return containerVerdict(v, container, last);
}
