/**
 * A live session: follows the log, runs the probes on their own schedules, and turns each new report and
 * observation into a verdict. `watch` renders it; `wait` waits for a final one. One I/O edge around the
 * pure core: the follower and the probes feed it, `liveVerdict` decides.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import type { EngineId } from '../core/base/types.js';
import { LogAnalyzer } from '../core/reading/analyzer.js';
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import { containerVerdict, publishedUrl } from '../core/verdict/container.js';
import type { Expectations } from '../core/verdict/expectations.js';
import type {
  GpuObservation,
  HttpObservation,
  Observations,
  ProcessObservation,
} from '../core/verdict/observations.js';
import { liveVerdict, ProgressClock, type Verdict } from '../core/verdict/verdict.js';
import { probeGpu } from '../probes/gpu.js';
import { probeHttp } from '../probes/http.js';
import { identifyServer, probeProcess } from '../probes/process.js';
import type { ServerClaim } from '../probes/server-identity.js';
import { ENGINE_DEFAULT_PORTS } from '../probes/server-identity.js';
import type { LiveProbes } from '../probes/types.js';
import { FileFollower, type FollowEvent } from '../sources/follow.js';
import { type Backlog, type LiveSource, type ReadFile, StreamSource } from '../sources/stdin.js';

export interface LiveOptions {
  log: string;
  url?: string;
  pid?: number;
  /** How `pid` is tied to the launch (default: named by --pid); `launch` says it started it. */
  pidTiedBy?: string;
  engine?: EngineId;
  /** Probe the GPUs with nvidia-smi (default: when it is on PATH). */
  gpu?: boolean;
  pollMs?: number;
  probeMs?: number;
  gpuMs?: number;
  /** The clock, seconds since the epoch (tests move it). */
  clock?: () => number;
  /** Scales the silence budgets (FIREDUP_BUDGET_SCALE), for replays at high speed. */
  budgetScale?: number;
  /** Skip launches that are already over when the session starts (`wait --next`: a relaunch is coming). */
  skipEnded?: boolean;
  /** The timeout the command will give up at (seconds), only to say so while the log is missing. */
  timeout?: number | null;
  /** Why the GPUs cannot be probed although asked for (remote: no nvidia-smi there). */
  gpuAbsent?: string;
  /**
   * How many leading launches are earlier runs, skipped (`firedup launch` appends a new server to a log and
   * knows where the log ended): no guessing from probes.
   */
  earlier?: (launches: LaunchReport[]) => number;
  /** What earlier launches like this one took (the ledger's history), for budgets and "usually takes". */
  expect?: (launch: LaunchReport) => Expectations | null | Promise<Expectations | null>;
  /** Where the bytes come from, when not a local file or standard input (an SSH follower). */
  source?: LiveSource;
  /** Probe the local process table and port (off for a log on another machine). */
  localProbes?: boolean;
  /** Probes to use instead of the local ones (a remote host's, through SSH); they run even when localProbes is off. */
  probes?: LiveProbes;
}

export type { LiveProbes };

export const LOCAL_PROBES: LiveProbes = {
  process: (pid) => probeProcess(pid),
  findPid: (claim) => identifyServer(claim),
  http: (url, engine) => probeHttp(url, engine),
  gpu: () => probeGpu(),
};

/** Events for `--json` (newline-delimited) and the plain view. */
export type LiveEvent =
  | { type: 'launch'; launch: number; line: number; time: string | null }
  | { type: 'phase'; launch: number; phase: string; line: number; time: string | null; text: string }
  | {
      type: 'progress';
      launch: number;
      phase: string;
      done: number;
      total: number;
      eta: number | null;
      rate: number | null;
    }
  | { type: 'verdict'; verdict: Verdict }
  /** The log's history is still being read (a long log): no verdict before its end. */
  | { type: 'reading'; read: number; total: number; text: string }
  | { type: 'source'; kind: FollowEvent['kind']; detail: string };

/** Seconds between two searches for the server's process while none is found. */
const PID_SEARCH_EVERY = 5;
/** The longest gap between two searches for a server that is not found. */
const PID_SEARCH_MAX = 60;

/** A log untouched this long when `wait --next` starts holds only history. */
const ENDED_LONG_AGO = 5;
/** A history this long (bytes) is read long enough to say so, every READING_SAID_EVERY seconds. */
const READING_SAID_FROM = 64 << 20;
const READING_SAID_EVERY = 2;
/** How often "waiting for PATH to appear" is repeated while the log is missing. */
const MISSING_EVERY = 30;

const DEFAULT_PORTS: Partial<Record<EngineId, number>> = ENGINE_DEFAULT_PORTS;

/** Bytes as the user reads a file's size: MB below a gigabyte, GB above, one decimal under ten. */
function fmtBytes(n: number): string {
  const [v, unit] = n >= 1e9 ? [n / 1e9, 'GB'] : [n / 1e6, 'MB'];
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${unit}`;
}

function fmtSeconds(s: number): string {
  return s % 3600 === 0 ? `${s / 3600}h` : s % 60 === 0 ? `${s / 60}m` : `${s}s`;
}

export function nvidiaSmiOnPath(): boolean {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && fs.existsSync(`${dir}/nvidia-smi`)) return true;
  }
  return false;
}

export class LiveSession extends EventEmitter {
  private analyzer: LogAnalyzer;
  private readonly follower: LiveSource;
  private readonly clock: () => number;
  private readonly progressClock = new ProgressClock();
  private timers: NodeJS.Timeout[] = [];
  private logExists = false;
  private dirty = true;
  private report: AnalysisReport | null = null;
  private obs: Observations = {};
  private pid: number | null;
  /** How `pid` was tied to the launch, said in the verdict's evidence. */
  private tiedBy: string | null = null;
  private probing = { process: false, http: false, gpu: false };
  private lastKey = '';
  private seenLaunches = 0;
  private seenPhases = new Map<number, number>();
  private lastProgress = '';
  verdict: Verdict | null = null;
  /**
   * Launches already in the file that are over (crashed, shut down, or whose process or port is gone)
   * when watching starts: a relaunch appended to the same file is what the user is waiting for, so these
   * are skipped. Undefined until the first probes have answered.
   */
  private baseline: number | undefined;
  private startedAt = 0;
  private lastPidSearch = Number.NEGATIVE_INFINITY;
  private pidSearches = 0;
  private searchLaunches = 0;
  /** Size of the log when the session started: only launches that began before it can be skipped. */
  private initialBytes = 0;
  /** Seconds the log had not been written when the session started. */
  private initialIdle = 0;
  private probedOnce = false;
  /** When the last byte read arrived, as the file shows it (its mtime) or as received (stdin, ssh). */
  private arrival: number | null = null;
  /** Since when (session clock) the log has been missing, and when that was last said. */
  private missingSince: number | null = null;
  private missingSaid = Number.NEGATIVE_INFINITY;
  private notProbed: NonNullable<Parameters<typeof liveVerdict>[0]['notProbed']> = [];
  /** Whether the first verdict that counts (after the first probes) has been given. */
  private judged = false;

  constructor(private readonly opts: LiveOptions) {
    super();
    this.clock = opts.clock ?? (() => Date.now() / 1000);
    this.analyzer = this.newAnalyzer();
    this.follower = opts.source
      ? opts.source
      : opts.log === '-'
        ? new StreamSource(process.stdin, () => setTimeout(() => this.emit('end'), 2 * (opts.pollMs ?? 100)))
        : new FileFollower(opts.log, { pollMs: opts.pollMs ?? 100 });
    this.pid = opts.pid ?? null;
    if (this.pid !== null) this.tiedBy = opts.pidTiedBy ?? 'named by --pid';
  }

  private newAnalyzer(): LogAnalyzer {
    return new LogAnalyzer({
      engine: this.opts.engine,
      year: new Date(this.clock() * 1000).getUTCFullYear(),
    });
  }

  start(): void {
    this.startedAt = this.clock();
    try {
      if (this.opts.log === '-' || this.opts.source) throw new Error('no local file: no history to skip');
      const st = fs.statSync(this.opts.log);
      // An empty file exists too: "the log does not exist yet" would send the user hunting for a path.
      this.logExists = true;
      this.initialBytes = st.size;
      this.initialIdle = this.startedAt - st.mtimeMs / 1000;
    } catch {
      this.initialBytes = 0;
    }
    this.follower.start((e) => this.onFollow(e));
    const probeMs = this.opts.probeMs ?? 1000;
    // These timers keep the process alive while the session runs; stop() clears them.
    const every = (ms: number, fn: () => void) => {
      this.timers.push(setInterval(fn, ms));
    };
    every(this.opts.pollMs ?? 100, () => this.tick());
    // /proc reads are cheap: the process is checked twice as often as the port, so a kill -9 shows fast.
    const probing = this.opts.localProbes !== false || this.opts.probes !== undefined;
    if (probing) {
      every(probeMs / 2, () => void this.probeProcessAndHttp(false));
      every(probeMs, () => void this.probeProcessAndHttp(true));
    } else this.probedOnce = true;
    const gpu = this.opts.gpu ?? nvidiaSmiOnPath();
    if (this.opts.gpuAbsent) this.notProbed = [{ source: 'gpu', why: this.opts.gpuAbsent }];
    else if (this.opts.gpu === undefined && !gpu)
      this.notProbed = [{ source: 'gpu', why: 'nvidia-smi not found' }];
    if (gpu) every(this.opts.gpuMs ?? 2000, () => void this.probeGpus());
    if (probing) void this.probeProcessAndHttp();
    if (gpu) void this.probeGpus();
  }

  /** The file the current report was read from (local logs; null for other sources, or before one opened). */
  readFile(): ReadFile | null {
    return this.follower.file?.() ?? null;
  }

  stop(): void {
    this.follower.stop();
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
  }

  private onFollow(e: FollowEvent): void {
    switch (e.kind) {
      case 'data':
        this.logExists = true;
        this.missingSince = null;
        this.analyzer.push(e.chunk);
        this.dirty = true;
        // No local file to stat: a remote one tells its mtime for the bytes it already held; else now.
        if (!this.localFile) this.arrival = Math.min(this.clock(), this.follower.arrival?.() ?? this.clock());
        break;
      case 'reset':
        // A new file at the path (rotated, truncated, recreated): its launches are read afresh.
        this.analyzer = this.newAnalyzer();
        this.seenLaunches = 0;
        this.seenPhases.clear();
        this.dirty = true;
        this.emit('event', { type: 'source', kind: e.kind, detail: e.reason } satisfies LiveEvent);
        break;
      case 'missing':
        this.logExists = false;
        this.dirty = true;
        this.missingSince = this.clock();
        this.missingSaid = Number.NEGATIVE_INFINITY;
        break;
      case 'appeared':
        this.logExists = true;
        this.missingSince = null;
        this.emit('event', {
          type: 'source',
          kind: e.kind,
          detail: `${this.opts.log} appeared`,
        } satisfies LiveEvent);
        break;
      case 'error':
        this.emit('event', { type: 'source', kind: e.kind, detail: e.message } satisfies LiveEvent);
        break;
    }
  }

  private latest(): LaunchReport | null {
    return this.report?.launches[this.report.launches.length - 1] ?? null;
  }

  private get localFile(): boolean {
    return this.opts.log !== '-' && !this.opts.source;
  }

  /** The log's mtime (seconds), capped at now: when its last line arrived. */
  private fileArrival(now: number): number {
    try {
      return Math.min(now, fs.statSync(this.opts.log).mtimeMs / 1000);
    } catch {
      return now;
    }
  }

  /** Recomputes the report (when new bytes came) and the verdict (always: silence grows with time). */
  tick(): Verdict {
    const now = this.clock();
    // A verdict on part of the log would be a confident wrong answer (an old launch serving, where the file's
    // end says the relaunch crashed): none is given until what the file held is read, and the report is not
    // rebuilt meanwhile, which would only slow the reading.
    const backlog = this.follower.backlog?.() ?? null;
    if (backlog) return this.reading(backlog, now);
    if (this.dirty) {
      this.report = this.analyzer.report();
      this.dirty = false;
      if (this.localFile && this.logExists) this.arrival = this.fileArrival(now);
      this.emitLogEvents();
    }
    this.sayMissing(now);
    const earlier = this.opts.earlier;
    const outcome = this.latest()?.outcome;
    if (earlier) this.baseline = earlier(this.report?.launches ?? []);
    else if (
      this.baseline === undefined &&
      // Ready needs the probes' word (a named port that refuses is not ready); a crash or a shutdown in
      // the log does not, and is told at once.
      (this.probedOnce ||
        now - this.startedAt > 3 ||
        (!this.opts.skipEnded && (outcome === 'crashed' || outcome === 'shutdown')))
    ) {
      this.baseline = this.opts.skipEnded ? this.staleLaunches() : 0;
    }
    const report = this.current(now);
    this.freshHttpOnReady(report);
    const progressAt = this.progressClock.observe(report, now, this.arrival ?? now);
    let v = liveVerdict({
      report,
      obs: this.baseline === undefined ? {} : this.obs,
      now,
      progressAt,
      logExists: this.logExists,
      budgetScale: this.opts.budgetScale,
      expect: this.expectFor(report),
      urlNamed: this.opts.url !== undefined,
      notProbed: this.notProbed,
      portDownSince: this.portDownSince,
      logArrival: this.arrival,
    });
    if (this.baseline === undefined)
      v = {
        ...v,
        state: 'waiting',
        why: this.missingSince !== null ? this.missingText(now) : 'reading the log and probing the server',
      };
    else if (this.missingSince !== null && !report?.launches.length) v = { ...v, why: this.missingText(now) };
    else if (this.baseline > 0 && v.launch !== null)
      v = { ...v, launch: v.launch + this.baseline, launches: v.launches + this.baseline };
    else if (report && report.launches.length === 0 && this.report && this.report.launches.length > 0) {
      const old = this.report.launches[this.report.launches.length - 1]!;
      v = {
        ...v,
        state: 'waiting',
        why: earlier
          ? 'waiting for the server to write its first line'
          : `waiting for a new launch: the last one in the log (line ${old.startLine}) is over (${old.outcome === 'in_progress' || old.outcome === 'serving' || old.outcome === 'ready' ? 'its server is gone' : old.outcome})`,
      };
    }
    // A container's own state (docker inspect) where the server runs in one: OOM kill, stop, restart, health.
    if (this.baseline !== undefined && this.obs.container)
      v = containerVerdict(v, this.obs.container, this.latest());
    this.verdict = v;
    // Before the first probes answered, the verdict is a placeholder: scripts reading --json get the
    // judged one first.
    if (this.baseline !== undefined) this.judged = true;
    // A container's restart or health change is news even when the log's state is the same.
    const c = this.obs.container;
    const key = `${v.state}|${v.phase}|${v.launch}|${v.stalledIn}|${v.failure?.line ?? ''}|${c ? `${c.restartCount}:${c.health?.status ?? ''}` : ''}`;
    if (this.judged && key !== this.lastKey) {
      this.lastKey = key;
      this.emit('event', { type: 'verdict', verdict: v } satisfies LiveEvent);
    }
    this.emit('tick', v, this.report);
    return v;
  }

  private lastReadingSaid = Number.NEGATIVE_INFINITY;

  /** The placeholder verdict while the log's history is read, said every few seconds for a long log. */
  private reading(b: Backlog, now: number): Verdict {
    const what = this.opts.source ? 'the log' : this.opts.log;
    const why =
      b.total === null
        ? `opening ${what}`
        : `reading ${what}: ${fmtBytes(b.read)} of ${fmtBytes(b.total)} (${Math.floor((100 * b.read) / Math.max(1, b.total))} %); no verdict before its end`;
    const v: Verdict = {
      ...liveVerdict({ report: null, obs: {}, now, progressAt: null, logExists: true }),
      state: 'waiting',
      why,
    };
    this.verdict = v;
    if (
      b.total !== null &&
      b.total >= READING_SAID_FROM &&
      now - this.lastReadingSaid >= READING_SAID_EVERY
    ) {
      this.lastReadingSaid = now;
      this.emit('event', { type: 'reading', read: b.read, total: b.total, text: why } satisfies LiveEvent);
    }
    this.emit('tick', v, this.report);
    return v;
  }

  private missingText(now: number): string {
    const t = this.opts.timeout;
    const so = Math.round(now - (this.missingSince ?? now));
    return `waiting for ${this.opts.log} to appear (${so}s so far, ${t ? `timeout ${fmtSeconds(t)}` : 'no timeout'})`;
  }

  /** A missing log is said at once and every MISSING_EVERY seconds, never waited on silently. */
  private sayMissing(now: number): void {
    if (this.missingSince === null || now - this.missingSaid < MISSING_EVERY) return;
    this.missingSaid = now;
    this.emit('event', {
      type: 'source',
      kind: 'missing',
      detail: this.missingText(now),
    } satisfies LiveEvent);
  }

  /** The report without the launches that were over before watching started. */
  private current(now: number): AnalysisReport | null {
    void now;
    if (!this.report || !this.baseline) return this.report;
    return { ...this.report, launches: this.report.launches.slice(this.baseline) };
  }

  private staleLaunches(): number {
    const r = this.report;
    if (!r) return 0;
    const old = r.launches.filter((x) => x.startOffset < this.initialBytes);
    const l = old[old.length - 1];
    if (!l) return 0;
    // A launch that began after we started watching is never stale.
    if (old.length < r.launches.length) return old.length;
    // A crash or shutdown written just now is what the user is waiting on, not history.
    if ((l.outcome === 'crashed' || l.outcome === 'shutdown') && this.initialIdle >= ENDED_LONG_AGO)
      return old.length;
    const proc = this.obs.process;
    if (proc && !proc.alive) return old.length;
    const http = this.obs.http;
    const up = l.outcome === 'serving' || l.outcome === 'ready';
    if (!proc && up && http && http.health.state === 'refused') return old.length;
    return 0;
  }

  private emitLogEvents(): void {
    const r = this.report!;
    r.launches.forEach((l, i) => {
      const n = i + 1;
      if (n > this.seenLaunches) {
        this.seenLaunches = n;
        this.emit('event', {
          type: 'launch',
          launch: n,
          line: l.startLine,
          time: l.startTime,
        } satisfies LiveEvent);
      }
      const seen = this.seenPhases.get(n) ?? 0;
      for (const p of l.phases.slice(seen)) {
        this.emit('event', {
          type: 'phase',
          launch: n,
          phase: p.phase,
          line: p.line,
          time: p.start,
          text: p.text,
        } satisfies LiveEvent);
      }
      this.seenPhases.set(n, l.phases.length);
    });
    const l = this.latest();
    const p = l && (l.phase === 'cuda_graph' && l.graphProgress ? l.graphProgress : l.progress);
    if (l && p) {
      const key = `${r.launches.length}:${p.what}:${p.done}/${p.total}`;
      if (key !== this.lastProgress) {
        this.lastProgress = key;
        this.emit('event', {
          type: 'progress',
          launch: r.launches.length,
          phase: l.phase ?? '',
          done: p.done,
          total: p.total,
          eta: p.eta,
          rate: p.rate,
        } satisfies LiveEvent);
      }
    }
  }

  /** What the launch's log says about its server: the evidence a process must match to be its server. */
  private claim(l: LaunchReport, url: string | null): ServerClaim {
    const port = url
      ? Number(new URL(url).port) || (new URL(url).protocol === 'https:' ? 443 : 80)
      : undefined;
    const c = l.configSummary;
    const model = typeof c.model === 'string' ? c.model : l.model;
    return {
      port,
      portLogged: this.opts.url !== undefined || typeof c.port === 'number',
      engine: l.engine ?? this.report?.engine ?? null,
      model,
      pids: l.pids,
    };
  }

  /** The URL to probe: --url, or the host and port the parsed config names. */
  private url(): string | null {
    if (this.opts.url) return this.opts.url;
    const l = this.latest();
    if (!l) return null;
    const c = l.configSummary;
    const port = typeof c.port === 'number' ? c.port : l.engine ? DEFAULT_PORTS[l.engine] : undefined;
    if (!port) return null;
    const host = typeof c.host === 'string' && c.host !== '0.0.0.0' && c.host !== '::' ? c.host : '127.0.0.1';
    // In a container the port is the container's: the host side of its published port is what answers here.
    const pub = this.obs.container ? publishedUrl(this.obs.container, l) : null;
    if (pub) return pub;
    return `http://${host}:${port}`;
  }

  /**
   * A port probed before the log said ready proves nothing about the ready server: a refusal from then must
   * not make the launch `dead`. When the latest launch becomes ready, the old answer goes and the port is
   * probed again at once.
   */
  private freshHttpOnReady(report: AnalysisReport | null): void {
    const phase = report?.launches[report.launches.length - 1]?.phase;
    const up = phase === 'ready' || phase === 'serving';
    if (up && !this.wasUp) {
      this.upSince = Date.now() / 1000;
      // The port's history was an earlier server's (or of before ready): this one must answer first.
      this.portAnswered = false;
      this.portDownSince = null;
      if (this.obs.http) {
        this.obs = { ...this.obs, http: undefined };
        void this.probeProcessAndHttp(true);
      }
    }
    this.wasUp = up;
  }

  private wasUp = false;
  /** Since when (session clock) the port has not answered; null while it answers or before it was asked. */
  private portDownSince: number | null = null;
  /** Whether the port has answered: only a port that closed gets a grace, never one that never opened. */
  private portAnswered = false;
  private processLooked = false;
  private httpLooked = false;
  /** Wall time the latest launch was first seen ready (probes stamp their answers in wall time). */
  private upSince = 0;

  private async probeProcessAndHttp(withHttp = true): Promise<void> {
    const l = this.latest();
    const engine = l?.engine ?? this.report?.engine ?? null;
    const url = this.url();
    if (!this.probing.process) {
      this.probing.process = true;
      try {
        // Looking for the server scans the whole process table (remotely: one ssh command with all of it):
        // every few seconds at first, then less and less often while nothing is found (the server may run
        // elsewhere); a new launch in the log starts the search over.
        if (this.searchLaunches !== this.report?.launches.length) {
          this.searchLaunches = this.report?.launches.length ?? 0;
          this.pidSearches = 0;
          // A process found for an earlier launch is not the relaunch's: its server is searched for afresh.
          if (this.opts.pid === undefined && this.pid !== null) {
            this.pid = null;
            this.tiedBy = null;
            this.lastPidSearch = Number.NEGATIVE_INFINITY;
            this.obs = {
              ...this.obs,
              process: undefined,
              processBefore: undefined,
              processSearch: undefined,
            };
          }
        }
        // The first searches of a launch come a second apart: a reading of /proc begun just before the server
        // started misses it, and a verdict should not wait 5 s for the next. (Over ssh a search is one command
        // listing every process: those keep their pace.)
        const every =
          this.pidSearches < 3 && this.opts.probes === undefined
            ? 1
            : Math.min(PID_SEARCH_MAX, PID_SEARCH_EVERY * 2 ** Math.max(0, this.pidSearches - 3));
        if (this.pid === null && l && this.clock() - this.lastPidSearch >= every) {
          this.lastPidSearch = this.clock();
          this.pidSearches++;
          const found = await this.probes.findPid(this.claim(l, url));
          if (found.pid !== null) {
            this.pid = found.pid;
            this.tiedBy = found.tiedBy;
            this.obs = { ...this.obs, processSearch: undefined };
          } else this.obs = { ...this.obs, processSearch: { why: found.why, candidates: found.candidates } };
        }
        if (this.pid !== null) {
          const o: ProcessObservation = { ...(await this.probes.process(this.pid)), tiedBy: this.tiedBy };
          // A container's state is asked after the process and both are taken together: docker's word is at least as
          // new as the process's (an exit code, an OOM kill, a restart), and no verdict sees one without the other.
          const c = this.probes.container ? await this.probes.container() : undefined;
          this.obs = {
            ...this.obs,
            processBefore: this.obs.process ?? null,
            process: o,
            ...(c ? { container: c } : {}),
          };
          // Gone: every line it wrote is in the file, and the last ones say whether it shut down or died. They
          // are read now, before the next verdict, or a clean exit could be judged by the lines before it.
          if (!o.alive || (c && c.state !== 'running')) this.follower.catchUp?.();
        } else if (this.probes.container) {
          this.obs = { ...this.obs, container: await this.probes.container() };
        }
        if (l) this.processLooked = true;
      } catch {
        // Only injected (remote) probes throw: a dropped or slow ssh says nothing about the server, so the
        // last observation stands and the next round tries again.
      } finally {
        this.probing.process = false;
      }
    }
    // A container's port is known once docker has said where it is published: asked again after that probe.
    const httpUrl = this.probes.container ? (this.obs.container ? this.url() : null) : url;
    if (withHttp && httpUrl && !this.probing.http) {
      this.probing.http = true;
      try {
        const o: HttpObservation = await this.probes.http(httpUrl, engine);
        // An answer to a probe sent before the log said ready is dropped (see freshHttpOnReady).
        if (!(this.wasUp && o.at < this.upSince)) {
          this.obs = { ...this.obs, http: o };
          if (o.health.state === 'http') {
            this.portAnswered = true;
            this.portDownSince = null;
          } else if (this.portDownSince === null && this.portAnswered) {
            this.portDownSince = this.clock();
            // A port closing is often a shutdown whose lines are on their way: what is already written is
            // read before the next verdict.
            this.follower.catchUp?.();
          }
        }
        if (l) this.httpLooked = true;
      } catch {
        // As above: no forward yet, or ssh failed; keep the last observation.
      } finally {
        this.probing.http = false;
      }
    }
    // The first full round of probes that saw a launch decides which launches were already over: both the
    // process (searched for, or probed) and the port, whichever call of this each finished in. A container's
    // verdict rests on docker's word: not before it has been heard.
    if (
      l &&
      (this.processLooked || this.probes.container) &&
      (this.httpLooked || url === null) &&
      (!this.probes.container || this.obs.container)
    )
      this.probedOnce = true;
  }

  private get probes(): LiveProbes {
    return this.opts.probes ?? LOCAL_PROBES;
  }

  private async probeGpus(): Promise<void> {
    if (this.probing.gpu) return;
    this.probing.gpu = true;
    try {
      const o: GpuObservation = await this.probes.gpu();
      this.obs = { ...this.obs, gpuBefore: this.obs.gpu ?? null, gpu: o };
    } catch {
      // probeGpu reports its own failures; only a throwing injected probe lands here.
    } finally {
      this.probing.gpu = false;
    }
  }

  private expectFor(report: AnalysisReport | null): Expectations | null {
    const l = report?.launches.at(-1);
    if (!l || !this.opts.expect) return null;
    // The config (hence the history) is known once the launch has printed it; ask again only when it may
    // have changed, not on every tick.
    const key = `${l.startOffset}:${l.configSources.length}:${Object.keys(l.config).length}`;
    if (this.expectKey !== key) {
      this.expectKey = key;
      const got = this.opts.expect(l);
      if (got instanceof Promise) {
        // A remote ledger answers later: the default budgets apply until it does.
        this.expectation = null;
        got.then(
          (e) => {
            if (this.expectKey === key) this.expectation = e;
          },
          () => {},
        );
      } else this.expectation = got;
    }
    return this.expectation;
  }

  private expectKey = '';
  private expectation: Expectations | null = null;

  get currentReport(): AnalysisReport | null {
    return this.report;
  }

  /** Whether the log exists and bytes came from it (false while it is missing). */
  get logAvailable(): boolean {
    return this.logExists;
  }

  get observations(): Observations {
    return this.obs;
  }

  /** Whether a verdict that counts has been given (the first probes answered): `ps` prints from then. */
  get judgedOnce(): boolean {
    return this.judged;
  }
}
