/**
 * Runs a sweep: for each point of the plan, launch its server under watch (launch-server.ts), wait for the live
 * verdict to say ready (a crash, a stall, a process gone or the ready timeout ends the point, with its cause and
 * evidence), hold the flags the engine logged against the ones asked for (a point that did not run what was asked
 * is marked `mismatch` and never benchmarked), benchmark it with runBench, record the results on its launch, then
 * stop its server (SIGTERM to the group, SIGKILL after the grace period) and wait until its port is closed and
 * its GPU memory is back before the next point. The ledger row of each run is opened before its server starts
 * and closed when it ends, so an interrupted sweep leaves nothing half-written.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { BenchError } from '../bench/errors.js';
import { type BenchPlan, type BenchRunResult, runBench } from '../bench/run.js';
import { servedModel, serverInfo } from '../bench/server-info.js';
import { randomPrompt, rng } from '../core/campaign/bench/loadgen/prompts.js';
import { parseSlo } from '../core/campaign/bench/loadgen/slo.js';
import { levelToBench } from '../core/campaign/bench/loadgen/to-result.js';
import type { Level } from '../core/campaign/bench/loadgen/types.js';
import { intendedUrl, parseCommand } from '../core/campaign/intended.js';
import { checkIntended, type Mismatch } from '../core/campaign/intended-check.js';
import { redactArgv } from '../core/campaign/intended-env.js';
import type { SweepPointDetail, SweepPointRecord, SweepPointStatus } from '../core/campaign/records.js';
import { type BenchSpec, expandPoints, pointIdentity, type SweepPoint } from '../core/campaign/sweep/plan.js';
import type { LaunchReport } from '../core/reading/report.js';
import type { Verdict } from '../core/verdict/verdict.js';
import { UsageError } from '../errors.js';
import { probeGpu } from '../probes/gpu.js';
import { MARKER_ENV, markedPids, sameProcess, startTimeOf } from '../probes/marked.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { openLedger } from '../store/open.js';
import { fingerprinted, LOCAL, wallOf } from './bench-import.js';
import { signalServer } from './launch-process.js';
import { LaunchError, WatchedLaunch } from './launch-server.js';
import { nvidiaSmiOnPath } from './live.js';
import type { LoadedSweep } from './sweep-file.js';

/** A point whose last run ended so is not run again by --resume (interrupted runs are). */
const FINISHED: ReadonlySet<SweepPointStatus> = new Set([
  'done',
  'bench_failed',
  'crashed',
  'stalled',
  'dead',
  'timeout',
  'mismatch',
  'not_started',
]);

const READY = new Set(['ready', 'serving', 'idle']);

export interface PlannedPoint extends SweepPoint {
  hash: string;
  log: string;
}

export type SweepEvent =
  | { type: 'skip'; point: PlannedPoint; run: SweepPointRecord }
  | { type: 'start'; point: PlannedPoint; run: number; pid: number; log: string }
  | { type: 'ready'; point: PlannedPoint; seconds: number; verdict: Verdict }
  | { type: 'checked'; point: PlannedPoint; mismatches: number; unobservable: string[] }
  | { type: 'bench'; point: PlannedPoint; result: BenchRunResult }
  | { type: 'stopping'; point: PlannedPoint; signal: NodeJS.Signals }
  | { type: 'end'; point: PlannedPoint; status: SweepPointStatus; detail: SweepPointDetail };

export interface SweepRunOptions {
  loaded: LoadedSweep;
  ledgerPath: string;
  resume: boolean;
  gpu: boolean;
  budgetScale?: number;
  env: NodeJS.ProcessEnv;
  warn: (m: string) => void;
  onEvent: (e: SweepEvent) => void;
  /** Ctrl-C: the current point is stopped and marked interrupted, no further point starts. */
  signal: AbortSignal;
  /** A second Ctrl-C: kill the current server at once. */
  kill: AbortSignal;
  /** `--max-points`: a grid larger than this is refused (default MAX_POINTS). */
  maxPoints?: number;
}

export interface SweepOutcome {
  planned: number;
  ran: number;
  skipped: number;
  interrupted: boolean;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);
const now = () => Date.now() / 1000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const slug = (s: string) => s.replace(/[^A-Za-z0-9_.=-]+/g, '_').slice(0, 80);

/** This process's sweep servers not stopped yet, by marker: what an exit path (a signal, an error) must stop. */
const live = new Map<string, number>();

const kill = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    // gone already
  }
};

/**
 * Kills at once every server this process's sweeps started and has not stopped, with whatever they started
 * (their group, and the processes carrying their marker). Synchronous: for `process.on('exit')`.
 */
export function killSweepServers(): void {
  for (const [marker, pid] of live) {
    signalServer(pid, 'SIGKILL');
    for (const p of markedPids(marker)) kill(p, 'SIGKILL');
  }
  live.clear();
}

/** Waits until no process carries `marker`, or `ms` passed; whether none is left. */
async function markedGone(marker: string, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (markedPids(marker).length) {
    if (Date.now() > end) return false;
    await sleep(100);
  }
  return true;
}

/** Stops what still carries `marker` (SIGTERM, SIGKILL after `graceMs`); the pids it found. */
async function stopMarked(marker: string, graceMs: number): Promise<number[]> {
  const found = markedPids(marker);
  if (!found.length) return [];
  for (const p of found) kill(p, 'SIGTERM');
  if (!(await markedGone(marker, graceMs))) {
    for (const p of markedPids(marker)) kill(p, 'SIGKILL');
    await markedGone(marker, 5000);
  }
  return found;
}

/**
 * Before a sweep runs: a point left `running` by a sweep process that is gone (kill -9, a closed terminal, a
 * crash) may have left its server up, holding the port every later point needs. It is stopped here, so the
 * point is re-run rather than each next one failing to bind. A sweep of the same name still at work is left
 * alone, and this one refused.
 */
async function reapStale(o: SweepRunOptions, ledger: LedgerStore): Promise<void> {
  const { spec } = o.loaded;
  const running = (await ledger.sweepPoints(spec.name)).filter((r) => r.status === 'running');
  for (const r of running) {
    const sw = r.detail.sweeper;
    if (sw && sw.pid !== process.pid && sameProcess(sw.pid, sw.startTime))
      throw new UsageError(
        `sweep ${spec.name} is already running (pid ${sw.pid}, at point ${r.pointIndex}): wait for it, or stop it (kill ${sw.pid}) and run this again`,
      );
  }
  for (const r of running) {
    const s = r.detail.server;
    if (!s) continue;
    // The group only while its leader is the same process: a pgid whose leader is gone may be reused.
    const leader = sameProcess(s.pid, s.startTime);
    const pids = new Set(markedPids(s.marker));
    if (leader) pids.add(s.pid);
    if (!pids.size) continue;
    o.warn(
      `point ${r.pointIndex}: the sweep that ran it ended without stopping its server (pid ${[...pids].join(', ')}): stopping it`,
    );
    if (leader) signalServer(s.pgid, 'SIGTERM');
    for (const p of markedPids(s.marker)) kill(p, 'SIGTERM');
    const until = Date.now() + spec.stopGraceS * 1000;
    const up = () => markedPids(s.marker).length > 0 || sameProcess(s.pid, s.startTime);
    while (up() && Date.now() < until) await sleep(100);
    if (sameProcess(s.pid, s.startTime)) signalServer(s.pgid, 'SIGKILL');
    await stopMarked(s.marker, 0);
    if (up()) o.warn(`point ${r.pointIndex}: its old server (pid ${s.pid}) is still there after SIGKILL`);
  }
}

/** The points with their identity and log path. */
export function planPoints(loaded: LoadedSweep, maxPoints?: number): PlannedPoint[] {
  const { spec } = loaded;
  return expandPoints(spec, maxPoints).map((p) => ({
    ...p,
    hash: sha(pointIdentity(p.argv, spec.bench)),
    log:
      spec.logMode === 'append'
        ? spec.logs
        : path.join(spec.logs, `point-${String(p.index).padStart(2, '0')}-${slug(p.label)}.log`),
  }));
}

/** The bench plan runBench takes, from the sweep file's [bench] (prompts drawn once, the same for every point). */
export function benchPlan(b: BenchSpec, model: string): BenchPlan {
  const levels: Level[] = b.concurrency.map((concurrency) => ({ concurrency, rate: null }));
  const perLevel = levels.map((l) => b.requests ?? Math.max(20, 5 * (l.concurrency ?? 1)));
  const rand = rng(b.seed);
  const n = Math.min(Math.max(...perLevel) + b.warmup, 4096);
  return {
    endpoint: b.endpoint,
    model,
    prompts: Array.from({ length: n }, () => randomPrompt(rand, b.inputLen, b.outputLen)),
    levels,
    arrival: 'constant',
    requests: null,
    requestsPerLevel: perLevel,
    durationS: null,
    warmup: b.warmup,
    timeoutS: b.requestTimeoutS,
    ignoreEos: b.ignoreEos,
    slo: b.slo ? parseSlo(b.slo) : null,
    seed: b.seed,
  };
}

/** Resolves when nothing accepts connections on host:port any more (or `ms` passed). */
async function portClosed(url: URL, ms: number): Promise<boolean> {
  const port = Number(url.port || 80);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host, port });
      const done = (v: boolean) => {
        s.destroy();
        resolve(v);
      };
      s.setTimeout(1000, () => done(true));
      s.once('connect', () => done(true));
      s.once('error', () => done(false));
    });
    if (!open) return true;
    await sleep(200);
  }
  return false;
}

async function gpuUsedMiB(): Promise<number | null> {
  const g = await probeGpu();
  return g.error ? null : g.gpus.reduce((s, d) => s + d.memUsedMiB, 0);
}

function phasesOf(l: LaunchReport | undefined): SweepPointDetail['phases'] {
  return (l?.phases ?? []).map((p) => ({ phase: p.phase, duration: p.duration ?? null }));
}

export async function runSweep(o: SweepRunOptions): Promise<SweepOutcome> {
  const { spec, dir } = o.loaded;
  const points = planPoints(o.loaded, o.maxPoints);
  if (spec.logMode === 'per_point') fs.mkdirSync(spec.logs, { recursive: true });
  else fs.mkdirSync(path.dirname(spec.logs), { recursive: true });
  const ledger = await openLedger(o.ledgerPath);
  const out: SweepOutcome = { planned: points.length * spec.repeat, ran: 0, skipped: 0, interrupted: false };
  try {
    // A sweep of this name that died without closing its current point left it `running`: its server is
    // stopped, and the point was interrupted (re-run by --resume), not crashed.
    await reapStale(o, ledger);
    await ledger.closeStaleSweepPoints(spec.name);
    const kept = await ledger.sweepPoints(spec.name);
    for (const p of points) {
      for (let rep = 0; rep < spec.repeat; rep++) {
        if (o.signal.aborted) break;
        if (o.resume) {
          const done = kept.filter((r) => r.pointHash === p.hash && FINISHED.has(r.status));
          if (done.length > rep) {
            out.skipped++;
            o.onEvent({ type: 'skip', point: p, run: done[rep]! });
            continue;
          }
        }
        out.ran++;
        const status = await runPoint(o, ledger, p, dir);
        if (status === 'interrupted') out.interrupted = true;
      }
    }
    if (o.signal.aborted) out.interrupted = true;
  } finally {
    // An error mid-point leaves its server up: it goes with the sweep.
    killSweepServers();
    await ledger.close();
  }
  return out;
}

async function runPoint(
  o: SweepRunOptions,
  ledger: LedgerStore,
  p: PlannedPoint,
  dir: string,
): Promise<SweepPointStatus> {
  const { spec } = o.loaded;
  const cmd = parseCommand(p.argv, spec.engine);
  const url = spec.url ?? intendedUrl(cmd.flags) ?? null;
  // Something already on the point's port would answer its bench, and the server would fail to bind: that is
  // not the point's failure, and recording it so would have --resume skip the point for ever.
  if (url && !(await portClosed(new URL(url), 5000)))
    throw new UsageError(
      `point ${p.index}: ${url} already accepts connections before its server started (a server the sweep did not start?): stop it, then firedup sweep --resume ${o.loaded.file}`,
    );
  const row = await ledger.openSweepPoint({
    sweep: spec.name,
    pointHash: p.hash,
    pointIndex: p.index,
    flags: p.values,
    // As `launch` records a command: a secret on the command line never reaches the ledger.
    argv: redactArgv(p.argv),
    plan: { ...spec.bench, targets: spec.targets },
    startedAt: now(),
  });
  const detail: SweepPointDetail = { log: p.log, timings: {} };
  let linking: Promise<void> = Promise.resolve();
  const end = async (status: SweepPointStatus): Promise<SweepPointStatus> => {
    await linking;
    await ledger.updateSweepPoint(row.id, { status, detail, endedAt: now() });
    o.onEvent({ type: 'end', point: p, status, detail });
    return status;
  };
  const gpuBaseline = o.gpu && nvidiaSmiOnPath() ? await gpuUsedMiB() : null;
  const marker = `${row.id}-${randomBytes(6).toString('hex')}`;
  detail.sweeper = { pid: process.pid, startTime: startTimeOf(process.pid) };
  await ledger.updateSweepPoint(row.id, { detail });

  let w: WatchedLaunch;
  try {
    w = await WatchedLaunch.start({
      argv: p.argv,
      log: p.log,
      ledgerPath: o.ledgerPath,
      url,
      engine: spec.engine,
      gpu: o.gpu ? undefined : false,
      budgetScale: o.budgetScale,
      cwd: dir,
      // Inherited by all it starts, even what leaves its process group: how they are found to be stopped.
      env: { ...o.env, [MARKER_ENV]: marker },
      warn: o.warn,
    });
  } catch (e) {
    if (!(e instanceof LaunchError)) throw e;
    detail.cause = e.message;
    return end('not_started');
  }
  live.set(marker, w.pid);
  detail.pid = w.pid;
  // In the ledger before anything else can happen: a sweep killed outright leaves how to find its server.
  detail.server = { pid: w.pid, pgid: w.pid, startTime: startTimeOf(w.pid), marker };
  await ledger.updateSweepPoint(row.id, { detail });
  o.onEvent({ type: 'start', point: p, run: row.run, pid: w.pid, log: p.log });
  const setLaunch = () => {
    const id = w.launchId();
    if (id && id !== row.launchId) {
      row.launchId = id;
      // Written behind the session's tick; `end` waits for it, and its error is the sweep's.
      linking = linking.then(() => ledger.updateSweepPoint(row.id, { launchId: id }));
      linking.catch(() => {});
    }
  };
  w.on('tick', setLaunch);
  // A second Ctrl-C kills the server's group at once.
  const onKill = () => w.signal('SIGKILL');
  o.kill.addEventListener('abort', onKill, { once: true });

  let status: SweepPointStatus;
  const t0 = now();
  const readyState = await waitReady(w, spec.readyTimeoutS, o.signal);
  detail.timings!.ready = Math.round((now() - t0) * 100) / 100;
  const l = w.ours().at(-1);
  if (readyState.kind === 'ready') {
    o.onEvent({ type: 'ready', point: p, seconds: detail.timings!.ready, verdict: readyState.verdict });
    // Intended against logged, now that the engine has said what it runs with.
    const c = l ? checkIntended(l.engine ?? cmd.engine, cmd.flags, l.config, l.configSources) : null;
    detail.mismatches = c?.mismatches ?? [];
    detail.unobservable = c?.unobservable ?? [];
    o.onEvent({
      type: 'checked',
      point: p,
      mismatches: detail.mismatches.length,
      unobservable: detail.unobservable,
    });
    if (detail.mismatches.length) {
      status = 'mismatch';
      detail.cause = mismatchCause(detail.mismatches);
    } else status = await benchPoint(o, ledger, w, p, url, detail);
  } else if (readyState.kind === 'mismatch') {
    // Caught before ready: the engine printed its config, and it is not what was asked; no point loading on.
    status = 'mismatch';
    detail.mismatches = w.intended.mismatches;
    detail.cause = readyState.why;
  } else {
    status = readyState.kind;
    const v = readyState.verdict;
    detail.cause = readyState.why;
    detail.failureClass = v?.failure?.class ?? l?.failure?.class ?? null;
    detail.evidence = (v?.evidence ?? []).slice(0, 8);
  }

  // Stop the server (if still up) and wait until it is really gone.
  const t1 = now();
  if (!w.gone) {
    o.onEvent({ type: 'stopping', point: p, signal: 'SIGTERM' });
    w.signal('SIGTERM');
    let grace: NodeJS.Timeout | undefined;
    const exited = await Promise.race([
      w.exited.then(() => true),
      new Promise<boolean>((r) => {
        grace = setTimeout(() => r(false), spec.stopGraceS * 1000);
      }),
    ]);
    clearTimeout(grace);
    if (!exited) {
      o.onEvent({ type: 'stopping', point: p, signal: 'SIGKILL' });
      w.signal('SIGKILL');
    }
  }
  const fin = await w.finish();
  o.kill.removeEventListener('abort', onKill);
  // What outlived the server: workers left in its group, and those that left it (setsid) with its marker.
  const stray = await stopMarked(marker, spec.stopGraceS * 1000);
  live.delete(marker);
  if (stray.length) {
    detail.stray = stray;
    o.warn(
      `point ${p.index}: stopped ${stray.length} process${stray.length === 1 ? '' : 'es'} its server left running (pid ${stray.join(', ')})`,
    );
  }
  setLaunch();
  detail.exit = { code: fin.exit.code, signal: fin.exit.signal };
  // A crash found only once the process was gone (the log's last lines) still counts as a crash.
  if (status === 'dead' && fin.verdict.state === 'crashed') {
    status = 'crashed';
    detail.cause = fin.verdict.why;
    detail.failureClass = fin.verdict.failure?.class ?? detail.failureClass ?? null;
    detail.evidence = fin.verdict.evidence.slice(0, 8);
  }
  if (url) {
    const closed = await portClosed(new URL(url), 30_000);
    if (!closed) o.warn(`point ${p.index}: ${url} still accepts connections 30 s after the server exited`);
  }
  if (gpuBaseline !== null) {
    const until = Date.now() + 120_000;
    for (;;) {
      const used = await gpuUsedMiB();
      if (used === null || used <= gpuBaseline + 1024) break;
      if (Date.now() > until) {
        o.warn(
          `point ${p.index}: GPU memory still ${used} MiB in use (was ${gpuBaseline} MiB before the point)`,
        );
        break;
      }
      await sleep(1000);
    }
  }
  detail.timings!.stop = Math.round((now() - t1) * 100) / 100;
  const rec = row.launchId ? await ledger.getLaunch(row.launchId) : null;
  detail.loadSeconds = rec?.loadSeconds ?? null;
  detail.phases = phasesOf(rec?.report ?? l);
  if (o.signal.aborted && status !== 'done' && status !== 'interrupted') {
    status = 'interrupted';
    detail.cause = `interrupted (Ctrl-C)${detail.cause ? ` after: ${detail.cause}` : ''}`;
  }
  return end(status);
}

function mismatchCause(ms: Array<{ key: string; intended: unknown; observed: unknown }>): string {
  return `the engine logged other flags than asked: ${ms
    .map((m) => `${m.key} asked ${JSON.stringify(m.intended)}, logged ${JSON.stringify(m.observed ?? null)}`)
    .join('; ')}`;
}

type ReadyState =
  | { kind: 'ready'; verdict: Verdict }
  | {
      kind: 'crashed' | 'stalled' | 'dead' | 'timeout' | 'interrupted' | 'mismatch';
      verdict: Verdict | null;
      why: string;
    };

/** Until the live verdict says ready, or something ends the point: crash, stall, process gone, timeout, Ctrl-C. */
function waitReady(w: WatchedLaunch, timeoutS: number, signal: AbortSignal): Promise<ReadyState> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () =>
        done({
          kind: 'timeout',
          verdict: w.session.verdict,
          why: `not ready after ${timeoutS} s (timeouts.ready)`,
        }),
      timeoutS * 1000,
    );
    const onTick = (v: Verdict) => {
      if (READY.has(v.state) && w.ours().length > 0) done({ kind: 'ready', verdict: v });
      else if (v.state === 'crashed') done({ kind: 'crashed', verdict: v, why: v.why });
      else if (v.state === 'stalled') done({ kind: 'stalled', verdict: v, why: v.why });
      else if (v.state === 'dead' || v.state === 'exited') done({ kind: 'dead', verdict: v, why: v.why });
    };
    const onAbort = () =>
      done({ kind: 'interrupted', verdict: w.session.verdict, why: 'interrupted (Ctrl-C) before ready' });
    // A flag logged with another value than asked: the point would not run what it stands for.
    const onMismatch = (m: Mismatch) => {
      if (m.reason === 'differs')
        done({ kind: 'mismatch', verdict: w.session.verdict, why: mismatchCause(w.intended.mismatches) });
    };
    // The process gone before ready: what the log says decides (crashed), else it died without a word.
    void w.exited.then(({ code, signal: sig }) =>
      setTimeout(
        () =>
          done({
            kind: 'dead',
            verdict: w.session.verdict,
            why: `the server exited before ready (${sig ? `killed by ${sig}` : `exit code ${code}`})`,
          }),
        300,
      ),
    );
    let settled = false;
    function done(s: ReadyState) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      w.off('tick', onTick);
      w.off('mismatch', onMismatch);
      signal.removeEventListener('abort', onAbort);
      resolve(s);
    }
    w.on('tick', onTick);
    w.on('mismatch', onMismatch);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

async function benchPoint(
  o: SweepRunOptions,
  ledger: LedgerStore,
  w: WatchedLaunch,
  p: PlannedPoint,
  url: string | null,
  detail: SweepPointDetail,
): Promise<SweepPointStatus> {
  const { spec } = o.loaded;
  if (!url) {
    detail.cause =
      'no URL to benchmark: give url = "http://host:port" in the sweep file, or --port in the command';
    return 'bench_failed';
  }
  const base = new URL(url).origin;
  const abort = new AbortController();
  const onAbort = () => abort.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => abort.abort(), spec.benchTimeoutS * 1000);
  // A server that crashes mid-bench ends the bench: its figures would be the crash's.
  let crashed: Verdict | null = null;
  const onTick = (v: Verdict) => {
    if (v.state === 'crashed' || v.state === 'dead') {
      crashed = v;
      abort.abort();
    }
  };
  w.on('tick', onTick);
  const t0 = now();
  try {
    let model: string;
    try {
      model = spec.bench.model ?? (await servedModel(base));
    } catch (e) {
      if (!(e instanceof BenchError)) throw e;
      detail.cause = `bench: ${e.message}`;
      return 'bench_failed';
    }
    const server = await serverInfo(base);
    const result = await runBench(base, benchPlan(spec.bench, model), { signal: abort.signal });
    detail.timings!.bench = Math.round((now() - t0) * 100) / 100;
    o.onEvent({ type: 'bench', point: p, result });
    if (crashed) {
      const v = crashed as Verdict;
      detail.cause = `during the bench: ${v.why}`;
      detail.failureClass = v.failure?.class ?? null;
      detail.evidence = v.evidence.slice(0, 8);
      return v.state === 'crashed' ? 'crashed' : 'dead';
    }
    if (o.signal.aborted) {
      detail.cause = 'interrupted (Ctrl-C) during the bench: its figures are not recorded';
      return 'interrupted';
    }
    const launchId = w.launchId();
    const ok = result.levels.some((l) => l.metrics.completed > 0);
    if (ok && launchId) {
      const u = new URL(base);
      const host = LOCAL.has(u.hostname.toLowerCase()) ? 'localhost' : u.hostname;
      detail.benchIds = [];
      for (const l of result.levels)
        detail.benchIds.push(
          (
            await ledger.addBench(
              launchId,
              fingerprinted(
                levelToBench(l.metrics, {
                  url: base,
                  host,
                  port: Number(u.port || 80),
                  model,
                  endpoint: result.endpoint,
                  finishedAtWall: wallOf(l.endedAt),
                  startedAtEpoch: l.startedAt,
                  slo: spec.bench.slo ? { ...parseSlo(spec.bench.slo) } : null,
                  server,
                }),
              ),
            )
          ).record.id,
        );
    }
    if (!ok) {
      const err = result.levels.flatMap((l) => l.metrics.errors)[0];
      detail.cause = `no request succeeded${err ? `: ${err.message}` : ''}${abort.signal.aborted ? ` (bench timeout ${spec.benchTimeoutS} s)` : ''}`;
      return 'bench_failed';
    }
    if (!launchId) {
      detail.cause = 'benchmarked, but the launch was not recorded in the ledger (see the warning above)';
      return 'bench_failed';
    }
    return 'done';
  } finally {
    clearTimeout(timer);
    w.off('tick', onTick);
    o.signal.removeEventListener('abort', onAbort);
  }
}
