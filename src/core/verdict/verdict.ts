/**
 * The live verdict: what the log says, what the process, the HTTP port and the GPUs say, and how long it
 * has been quiet, folded into one state with its reasons. Pure: a clock value comes in as an argument.
 *
 * Silence is measured from when the last line arrived as the file shows it (its mtime, or the moment a
 * follower received it) minus the log-seconds between the last progress and that line — never by comparing
 * the log's own timestamps with the clock: servers log local time, often in another zone. Every command
 * (`status`, `watch`, `wait`, `serve`) goes through `progressAt` so they agree on the same log.
 */

import type { AnalysisReport, LaunchReport } from '../base/report-types.js';
import type { Phase } from '../base/types.js';
import type { LiveState, Verdict, VerdictEvidence } from '../base/verdict-types.js';
import { engineModule } from '../engines/index.js';
import { rayVerdict } from '../multinode/live.js';
import { type Expectations, shortDuration, typicalBudget } from './expectations.js';
import type { GpuObservation, Observations } from './observations.js';

export { LIVE_STATES, type LiveState, type Verdict, type VerdictEvidence } from '../base/verdict-types.js';

/** The next step for a launch whose process is gone with no word of it in the log (the dashboard's too). */
export const NEXT_WHEN_KILLED =
  'it was killed from outside (kill -9, the OOM killer, a container stop): `dmesg -T | grep -i -E "killed|oom"` and the supervisor\'s logs';
/** The next step when the log says ready or serving but the address the user named refuses or fails. */
export const NEXT_WHEN_PORT_GONE =
  'is this the right address (--url)? otherwise the server is gone: `dmesg -T | grep -i -E "killed|oom"`';

/** Phases with no progress output of their own, where GPU or CPU activity shows the server is working. */
const SILENT: ReadonlySet<Phase> = new Set([
  'args',
  'dist_init',
  'weights_loaded',
  'kv_cache',
  'compile',
  'autotune',
  'cuda_graph',
  'warmup',
]);

/** Default silence budgets (seconds) when the engine gives none. */
const DEFAULT_BUDGET: Partial<Record<Phase, number>> = {
  args: 180,
  dist_init: 600,
  loading_weights: 300,
  weights_loaded: 60,
  kv_cache: 600,
  compile: 1200,
  autotune: 900,
  cuda_graph: 900,
  warmup: 180,
};

/** No shard for this many expected intervals means the load stopped (but never less than the floor). */
const TICK_INTERVALS = 8;
const TICK_FLOOR = 20;
/**
 * A server shutting down closes its port a moment before it logs why: a port that closed while the log was
 * still being written gets this long (seconds) for the shutdown or crash line to arrive before it is `dead`.
 */
export const PORT_GRACE = 5;
/** A serving launch with no sample for this long is idle, not stalled: servers are silent when idle. */
const IDLE_AFTER = 60;

export interface LiveInput {
  report: AnalysisReport | null;
  obs: Observations;
  /** Watcher's clock, seconds since the epoch. */
  now: number;
  /** When the launch last showed progress, on the watcher's clock (see ProgressClock). */
  progressAt: number | null;
  logExists: boolean;
  /** Multiplies every silence budget (a replay at 20× speed can use 0.05). Default 1. */
  budgetScale?: number;
  /** What earlier launches like this one took (from the ledger); null or absent: the default budgets. */
  expect?: Expectations | null;
  /**
   * The user named the server (`--url`): a launch the log calls ready whose port refuses or does not answer
   * is not ready. A port guessed from the logged config proves nothing (the log may come from another host).
   */
  urlNamed?: boolean;
  /** Probes that could not run, with why (`gpu: nvidia-smi not found`): said once in the evidence. */
  notProbed?: Array<{ source: VerdictEvidence['source']; why: string }>;
  /** Since when (watcher's clock) the named port has not answered; null or absent while it answers. */
  portDownSince?: number | null;
  /** When the log's last line arrived (watcher's clock): whether the log was still being written then. */
  logArrival?: number | null;
}

/**
 * When (seconds since the epoch) the latest launch last showed progress: the last line arrived at
 * `arrival` (the file's mtime, or when a follower received it), and the log says its last progress came
 * `quietFor` log-seconds before that line. Null without a launch; a log without timestamps: the arrival.
 */
export function progressAt(launch: LaunchReport | null | undefined, arrival: number | null): number | null {
  if (!launch || arrival === null) return null;
  return arrival - (launch.quietFor ?? 0);
}

/**
 * Remembers when (on the watcher's clock) the latest launch last moved: the report only knows log
 * times. Feed it every report with the clock value at which it was read.
 */
export class ProgressClock {
  private key = '';
  private read = '';
  at: number | null = null;

  constructor(initial: number | null = null) {
    this.at = initial;
  }

  /**
   * `arrival`: when the last byte read arrived (the file's mtime; default `now`). With log timestamps the
   * answer is `progressAt` (the same as `status` computes); without, the arrival of the first report that
   * showed the current progress.
   */
  observe(report: AnalysisReport | null, now: number, arrival: number = now): number | null {
    const l = report?.launches[report.launches.length - 1];
    if (!l) return this.at;
    const key = `${report!.launches.length}:${l.lastProgressLine}:${l.phase}:${l.outcome}:${l.progress?.done ?? ''}:${l.graphProgress?.done ?? ''}`;
    // The same bytes seen again arrived no later than before: nothing moves.
    const read = `${key}:${report!.bytes}`;
    if (read === this.read) return this.at;
    this.read = read;
    if (l.quietFor !== null) {
      this.key = key;
      this.at = Math.min(now, progressAt(l, arrival)!);
    } else if (key !== this.key) {
      this.key = key;
      this.at = Math.min(now, arrival);
    }
    return this.at;
  }
}

function gpuLine(g: GpuObservation): string {
  if (g.error) return `nvidia-smi: ${g.error}`;
  const used = g.gpus.reduce((s, d) => s + d.memUsedMiB, 0);
  const util = g.gpus.map((d) => d.utilPct ?? 0);
  const maxUtil = util.length ? Math.max(...util) : 0;
  return `${g.gpus.length} GPU(s): ${(used / 1024).toFixed(1)} GiB used, utilisation up to ${maxUtil}%`;
}

/** GPUs working: utilisation, or memory moving between two observations. Null when unknown. */
export function gpuBusy(
  before: GpuObservation | null | undefined,
  now: GpuObservation | null | undefined,
): boolean | null {
  if (!now || now.error || now.gpus.length === 0) return null;
  if (now.gpus.some((g) => (g.utilPct ?? 0) >= 5)) return true;
  if (before && !before.error) {
    for (const g of now.gpus) {
      const b = before.gpus.find((x) => x.uuid === g.uuid);
      if (b && Math.abs(b.memUsedMiB - g.memUsedMiB) >= 256) return true;
    }
  }
  return false;
}

/** GPU memory held by anyone (MiB), or null when unknown. */
function gpuMemory(g: GpuObservation | null | undefined): number | null {
  if (!g || g.error || g.gpus.length === 0) return null;
  return g.gpus.reduce((s, d) => s + d.memUsedMiB, 0);
}

const phaseName = (p: Phase): string => (p === 'loading_weights' ? 'loading' : p.replaceAll('_', ' '));

function loadBudget(l: LaunchReport, budget: number): number {
  const rate = l.progress?.rate ?? null;
  if (!rate || rate <= 0) return budget;
  return Math.min(budget, Math.max(TICK_FLOOR, TICK_INTERVALS / rate));
}

/**
 * The verdict now. A launch whose one log carries several nodes' lines (Ray, multinode/ray.ts) is judged as
 * the log as a whole says, then told node by node and named after the node that died first or holds the
 * others back (multinode/live.ts rayVerdict), as `--node` tells a launch read from several logs.
 */
export function liveVerdict(input: LiveInput): Verdict {
  const v = oneLogVerdict(input);
  const nodes = input.report?.launches[input.report.launches.length - 1]?.nodes;
  return nodes?.layout === 'ray' ? rayVerdict(v, nodes) : v;
}

function oneLogVerdict(input: LiveInput): Verdict {
  const { report, obs, now, progressAt } = input;
  const l = report?.launches[report.launches.length - 1] ?? null;
  const engine = l?.engine ?? report?.engine ?? null;
  const evidence: VerdictEvidence[] = [];
  const proc = obs.process ?? null;
  const http = obs.http ?? null;
  const gpu = obs.gpu ?? null;
  if (proc) {
    evidence.push({
      source: 'process',
      text: proc.alive
        ? `pid ${proc.pid} alive${proc.cpuSeconds !== null ? `, ${proc.cpuSeconds.toFixed(1)} s CPU` : ''}${proc.children.length ? `, ${proc.children.length} children` : ''}${proc.listening.length ? `, listening on ${proc.listening.join(', ')}` : ''}`
        : `pid ${proc.pid} is gone${proc.exitCode !== null ? ` (exit code ${proc.exitCode})` : proc.signal ? ` (${proc.signal})` : ''}`,
    });
    if (proc.tiedBy)
      evidence.push({ source: 'process', text: `pid ${proc.pid} is this launch's: ${proc.tiedBy}` });
  } else if (obs.processSearch) {
    const s = obs.processSearch;
    const list = s.candidates
      .slice(0, 4)
      .map((c) => `pid ${c.pid} (${c.cmdline ?? '?'}${c.why ? `: ${c.why}` : ''})`)
      .join('; ');
    evidence.push({
      source: 'process',
      text: `no process tied to this launch: ${s.why}${list ? `; candidates: ${list}${s.candidates.length > 4 ? `; ${s.candidates.length - 4} more` : ''}` : ''}`,
    });
  }
  if (http) {
    const h = http.health;
    evidence.push({
      source: 'http',
      text: `${http.url}: ${h.state === 'http' ? `HTTP ${h.status}` : h.state}${h.detail ? ` (${h.detail})` : ''}`,
    });
  }
  if (gpu) {
    evidence.push({ source: 'gpu', text: gpuLine(gpu) });
    if (gpu.apps.length) {
      // Which processes hold GPU memory, and whether they belong to the server being watched.
      const tree = new Set(proc ? [proc.pid, ...proc.children.map((c) => c.pid)] : []);
      const held = gpu.apps.map(
        (a) => `${a.pid}${tree.has(a.pid) ? ' (server)' : ''} ${a.usedMiB ?? '?'} MiB`,
      );
      evidence.push({ source: 'gpu', text: `memory held by pid ${held.join(', ')}` });
    }
  }

  for (const n of input.notProbed ?? []) evidence.push({ source: n.source, text: `not probed (${n.why})` });

  const base: Verdict = {
    state: 'waiting',
    engine,
    phase: l?.phase ?? null,
    outcome: l?.outcome ?? null,
    launch: l ? report!.launches.length : null,
    launches: report?.launches.length ?? 0,
    progress: null,
    quietFor: null,
    budget: null,
    stalledIn: null,
    why: '',
    evidence,
    next: null,
    failure: l?.failure ?? null,
    throughput: l?.throughput?.last ?? null,
    final: false,
    typical: null,
    readyEta: null,
  };
  if (!l) {
    base.why = input.logExists ? 'no launch in the log yet' : 'the log does not exist yet';
    if (proc && !proc.alive) {
      return { ...base, state: 'dead', final: true, why: `${base.why}, and the process is gone` };
    }
    return base;
  }
  const hints = engine ? engineModule(engine).hints : {};
  const quiet = progressAt !== null ? Math.max(0, now - progressAt) : null;
  base.quietFor = quiet === null ? null : Math.round(quiet * 10) / 10;
  const p = l.phase === 'cuda_graph' && l.graphProgress ? l.graphProgress : l.progress;
  if (p) base.progress = { done: p.done, total: p.total, ratio: p.ratio, rate: p.rate, eta: p.eta };
  const cited = logEvidence(l);
  if (cited) evidence.unshift({ source: 'log', ...cited });

  // What the log says outright. The launch is over: probes taken while it ran (`HTTP 200`, `pid alive`)
  // describe a server that is gone, so only what agrees with the end (a process gone, a port closed)
  // stays: probes end with the process.
  if (l.outcome === 'crashed' || l.outcome === 'shutdown') {
    const ended = evidence.filter(
      (e) =>
        e.source === 'gpu' ||
        (e.source === 'process' && proc !== null && !proc.alive) ||
        (e.source === 'http' && http !== null && http.health.state !== 'http'),
    );
    if (l.outcome === 'crashed') {
      const f = l.failure!;
      ended.unshift(...f.evidence.map((e) => ({ source: 'log' as const, line: e.line, text: e.text })));
      return {
        ...base,
        evidence: ended,
        state: 'crashed',
        final: true,
        why: `${f.class}: ${f.message}`,
        next: f.hint,
      };
    }
    ended.unshift({ source: 'log', line: l.shutdown!.line, text: l.shutdown!.text });
    return {
      ...base,
      evidence: ended,
      state: 'exited',
      final: true,
      why: 'the server shut down cleanly (shutdown lines in the log)',
    };
  }

  // The process is gone without a word in the log.
  if (proc && !proc.alive) {
    const mem = gpuMemory(gpu);
    const released = mem === null ? null : mem < 1024;
    const why = `the process (pid ${proc.pid}) is gone and the log says nothing about it${released === true ? '; the GPUs hold no memory' : released === false ? `; ${(mem! / 1024).toFixed(1)} GiB still held on the GPUs` : ''}`;
    return {
      ...base,
      state: 'dead',
      final: true,
      why,
      next: NEXT_WHEN_KILLED,
    };
  }

  const phase = l.phase;
  if (phase === 'ready' || phase === 'serving') {
    const ready = { ...base, final: false };
    const h = http?.health.state;
    if (http && input.urlNamed && h !== 'http') {
      // A readiness probe must not pass on the log's word alone: nothing listening is not ready.
      const what = h === 'timeout' ? 'does not answer' : h === 'refused' ? 'refuses connections' : 'fails';
      const since = input.portDownSince ?? null;
      const arrival = input.logArrival ?? null;
      if (
        h !== 'timeout' &&
        since !== null &&
        arrival !== null &&
        now - since < PORT_GRACE &&
        since - arrival < PORT_GRACE
      )
        return {
          ...ready,
          state: phase,
          why: `the log says ${phase} but ${http.url} ${what} since ${Math.round(now - since)} s; the log was still being written, so it gets ${PORT_GRACE} s to say whether the server shut down`,
        };
      return {
        ...ready,
        state: h === 'timeout' ? 'stalled' : 'dead',
        stalledIn: h === 'timeout' ? phase : null,
        why: `the log says ${phase} but ${http.url} ${what}${http.health.detail ? ` (${http.health.detail})` : ''}`,
        next:
          h === 'timeout'
            ? `the server holds the port but does not answer: ${proc ? `py-spy dump --pid ${proc.pid}` : 'py-spy dump --pid <server pid>'}`
            : NEXT_WHEN_PORT_GONE,
      };
    }
    if (http && h !== 'http' && h !== 'timeout' && proc === null) {
      ready.evidence.push({ source: 'clock', text: 'the log says ready but the port does not answer' });
    }
    if (phase === 'serving' && quiet !== null && quiet > IDLE_AFTER) {
      return {
        ...ready,
        state: 'idle',
        why: `serving, no batch for ${Math.round(quiet)} s (idle: servers print nothing without requests)`,
      };
    }
    return {
      ...ready,
      state: phase,
      why:
        phase === 'ready'
          ? 'the server says it is ready'
          : `serving${l.throughput ? ` at ${l.throughput.last} tok/s` : ''}`,
    };
  }

  // Starting up: is it moving?
  const state: LiveState =
    phase === null
      ? 'starting'
      : phase === 'loading_weights'
        ? 'loading'
        : phase === 'args'
          ? 'starting'
          : phase;
  const engineBudget = engine ? engineModule(engine).silentBudget[phase ?? 'args'] : undefined;
  let budget = engineBudget ?? DEFAULT_BUDGET[phase ?? 'args'] ?? 300;
  const silent = phase === null || SILENT.has(phase);
  const usual = phase ? input.expect?.phases[phase] : undefined;
  if (usual && phase) {
    base.typical = { phase, median: usual.median, n: usual.n, basis: input.expect!.basis };
    // In a silent phase the silence is the phase's length so far, which history knows; a loading bar's
    // silence is the gap between shards, which the bar's own rate knows better.
    if (silent) budget = typicalBudget(usual);
  }
  const toReady = input.expect?.toReady;
  if (toReady && l.duration !== null)
    base.readyEta = Math.max(0, Math.round(toReady.median - l.duration - (quiet ?? 0)));
  if (phase === 'loading_weights') budget = loadBudget(l, budget);
  budget *= input.budgetScale ?? 1;
  base.budget = Math.round(budget);
  const usually =
    usual && phase ? ` (${phaseName(phase)} usually takes ${shortDuration(usual.median)} here)` : '';
  const busy = gpuBusy(obs.gpuBefore, gpu);
  const cpuMoving =
    proc && obs.processBefore && proc.cpuSeconds !== null && obs.processBefore.cpuSeconds !== null
      ? proc.cpuSeconds - obs.processBefore.cpuSeconds > 0.05
      : null;
  const working = silent && (busy === true || cpuMoving === true);
  if (quiet !== null && quiet > budget && !working) {
    const where = phase ?? 'startup';
    const rate =
      phase === 'loading_weights' && l.progress?.rate
        ? ` (shards were arriving at ${l.progress.rate}/s)`
        : '';
    const signs: string[] = [];
    if (busy === false) signs.push('GPUs idle');
    if (cpuMoving === false) signs.push('CPU time not moving');
    return {
      ...base,
      // A stalled launch has no time left to tell: the bar's ETA was of a load that stopped.
      progress: base.progress ? { ...base.progress, eta: null } : null,
      state: 'stalled',
      stalledIn: phase,
      why: `no progress in ${where} for ${Math.round(quiet)} s, over the ${Math.round(budget)} s this phase gets${usually}${rate}${signs.length ? `; ${signs.join(', ')}` : ''}`,
      next:
        hints[`stalled:${phase ?? 'args'}` as keyof typeof hints] ??
        (proc ? `py-spy dump --pid ${proc.pid}` : 'py-spy dump --pid <server pid>'),
    };
  }
  // The bar's ETA counted from its own line: quiet for longer than it said, it is overdue, not "about 1 s left".
  if (base.progress?.eta != null && quiet !== null && quiet > base.progress.eta)
    base.progress = { ...base.progress, eta: null };
  const eta = base.progress?.eta;
  return {
    ...base,
    state,
    why:
      (phase === 'loading_weights' && base.progress
        ? `loading weights ${base.progress.done}/${base.progress.total}${eta !== null && eta !== undefined ? `, about ${Math.round(eta)} s left` : ''}`
        : working
          ? `${phase}: quiet for ${Math.round(quiet ?? 0)} s but working (${busy ? 'GPUs busy' : 'CPU time moving'})`
          : `${phase ?? 'starting'}${quiet !== null ? `, last progress ${Math.round(quiet)} s ago` : ''}`) +
      usually +
      (base.readyEta !== null && toReady
        ? `; ready in about ${shortDuration(base.readyEta)} going by ${toReady.n} earlier launch${toReady.n > 1 ? 'es' : ''}`
        : ''),
  };
}

/**
 * The log line a verdict on this launch cites: the loading bar's own line while weights load (the latest sign
 * of life, and the one a stall is measured from), else the latest phase's first line. `status`, `watch`,
 * `wait`, the hooks and the dashboard all cite this one, so no two outputs point at different lines.
 */
export function logEvidence(l: LaunchReport): { line: number; text: string } | null {
  if (l.progress && l.phase === 'loading_weights') return { line: l.progress.line, text: l.progress.text };
  const p = l.phases[l.phases.length - 1];
  return p ? { line: p.line, text: p.text } : null;
}

/** Exit code of `firedup wait` for a final or timed-out verdict. */
export function waitExitCode(v: Verdict): number {
  switch (v.state) {
    case 'ready':
    case 'serving':
    case 'idle':
      return 0;
    case 'crashed':
      return 2;
    case 'stalled':
      return 4;
    case 'exited':
    case 'dead':
      return 5;
    default:
      return 6;
  }
}
