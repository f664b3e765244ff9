/**
 * Launching a server under watch, as a use case: `firedup launch` renders it, `firedup sweep` drives one per
 * point. The server runs in its own process group with its output appended to its log (launch-process.ts); a
 * LiveSession follows that log and probes the process, port and GPUs; the flags asked for are held against the
 * config the engine logs (FlagWatch); the launch is written to the ledger as it moves and once it is gone.
 * Nothing here prints: callers listen to the events.
 *
 * Events: `event` (a LiveEvent of this server's launches: phases, progress, verdicts; `launch` when one is
 * first counted as this server's), `tick` (the verdict, every poll), `mismatch` (a flag logged otherwise than
 * asked, once), `checked` (the intended-vs-logged summary, once conclusive), `install` (engine version found).
 */
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import type { EngineId } from '../core/base/types.js';
import { intendedUrl, type ParsedCommand, parseCommand } from '../core/campaign/intended.js';
import { redactArgv, selectEnv } from '../core/campaign/intended-env.js';
import type { IntendedLaunch } from '../core/campaign/records.js';
import { earlierRuns } from '../core/campaign/run-boundary.js';
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import type { Verdict } from '../core/verdict/verdict.js';
import { FiredupError } from '../errors.js';
import { discoverEngineInstall } from '../probes/engine-install.js';
import { FlagWatch } from './launch-check.js';
import { IntendedLaunchWriter, type ServerExit } from './launch-ledger.js';
import {
  countNewlines,
  exitStatus,
  type OpenedLog,
  openLog,
  signalServer,
  startServer,
} from './launch-process.js';
import { type LiveEvent, LiveSession } from './live.js';

export interface WatchedLaunchOptions {
  argv: string[];
  /** Where the server's output is appended. */
  log: string;
  /** null: record nothing. */
  ledgerPath: string | null;
  url?: string | null;
  engine?: EngineId | null;
  /** false: never run nvidia-smi. */
  gpu?: boolean;
  budgetScale?: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
  warn: (message: string) => void;
}

export type LaunchErrorCode = 'not_found' | 'not_runnable';

/** The server could not be started at all; `status` is what a shell would give (127, 126). */
export class LaunchError extends FiredupError<LaunchErrorCode> {
  constructor(
    code: LaunchErrorCode,
    message: string,
    readonly status: number,
  ) {
    super(code, message);
    this.name = 'LaunchError';
  }
}

export interface LaunchEnd {
  verdict: Verdict;
  exit: ServerExit;
  /** The shell's `$?` for the server. */
  status: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `p` at most `ms`, without a timer left behind to hold the process open. */
function settleWithin(p: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    p.then(done, done);
  });
}

export class WatchedLaunch extends EventEmitter {
  readonly session: LiveSession;
  readonly intended: IntendedLaunch;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Signals forwarded so far (a stop asked for: the exit is then a shutdown, not a crash). */
  stops = 0;
  private readonly recorder: IntendedLaunchWriter | null;
  private readonly flagWatch: FlagWatch;
  private readonly lineAtFrom = new Map<number, number>();
  private readonly stopDiscovery = new AbortController();
  private discovery: Promise<void> = Promise.resolve();
  private announced = 0;
  private exitedNow = false;

  private constructor(
    readonly opts: WatchedLaunchOptions,
    readonly cmd: ParsedCommand,
    readonly url: string | null,
    readonly log: OpenedLog,
    readonly child: ChildProcess,
    readonly pid: number,
  ) {
    super();
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null)
        resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    void this.exited.then(() => {
      this.exitedNow = true;
    });
    this.intended = {
      argv: redactArgv(opts.argv),
      cwd: opts.cwd,
      env: selectEnv(opts.env),
      engineVersion: null,
      git: null,
      flags: cmd.flags,
      mismatches: [],
      pid,
      startedAt: Date.now() / 1000,
    };
    this.recorder =
      opts.ledgerPath === null
        ? null
        : new IntendedLaunchWriter(
            opts.ledgerPath,
            { path: log.realPath, fileId: log.fileId, pid },
            opts.warn,
          );
    this.flagWatch = new FlagWatch(cmd.engine, cmd.flags);
    this.session = new LiveSession({
      log: opts.log,
      url: url ?? undefined,
      pid,
      pidTiedBy: 'the server firedup launch started',
      engine: cmd.engine ?? undefined,
      gpu: opts.gpu === false ? false : undefined,
      budgetScale: opts.budgetScale,
      earlier: (ls) => this.earlier(ls),
    });
  }

  /** Starts the server (its output appended to the log) and the watch; throws LaunchError if it cannot run. */
  static async start(opts: WatchedLaunchOptions): Promise<WatchedLaunch> {
    const cmd = parseCommand(opts.argv, opts.engine ?? null);
    const url = opts.url ?? intendedUrl(cmd.flags);
    const log = openLog(opts.log);
    let child: ChildProcess;
    try {
      child = startServer(opts.argv, log.fd, opts.cwd, opts.env);
    } finally {
      // The child holds its own copy of the descriptor.
      fs.closeSync(log.fd);
    }
    const spawnError = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', (e) => resolve(e));
    });
    if (spawnError) {
      const missing = spawnError.code === 'ENOENT';
      throw new LaunchError(
        missing ? 'not_found' : 'not_runnable',
        `${opts.argv[0]}: cannot run (${spawnError.code ?? spawnError.message})`,
        missing ? 127 : 126,
      );
    }
    const w = new WatchedLaunch(opts, cmd, url ?? null, log, child, child.pid!);
    w.wire();
    return w;
  }

  /** How many leading launches of the log are earlier runs (before this server's first byte). */
  earlier(ls: LaunchReport[]): number {
    return earlierRuns(ls, this.log.fromOffset, (l) => {
      let n = this.lineAtFrom.get(l.startOffset);
      if (n === undefined) {
        n = l.startLine + countNewlines(this.log.realPath, l.startOffset, this.log.fromOffset);
        this.lineAtFrom.set(l.startOffset, n);
      }
      return n;
    });
  }

  /** This server's launches (the log's earlier runs left out). */
  ours(r: AnalysisReport | null = this.session.currentReport): LaunchReport[] {
    return r ? r.launches.slice(this.earlier(r.launches)) : [];
  }

  /** Before the server's first launch line the session says "waiting" about the file: here the reason is known. */
  shown(v: Verdict): Verdict {
    return v.state === 'waiting' && this.ours().length === 0
      ? { ...v, why: 'waiting for the server to write its first line' }
      : v;
  }

  /** The ledger id of this server's latest launch, once recorded. */
  launchId(): string | null {
    const l = this.ours().at(-1);
    return l ? (this.recorder?.idOf(l.startOffset) ?? null) : null;
  }

  private wire(): void {
    const { session } = this;
    this.discovery = discoverEngineInstall(this.cmd, {
      cwd: this.opts.cwd,
      env: this.opts.env,
      signal: this.stopDiscovery.signal,
    }).then(
      (i) => {
        if (this.stopDiscovery.signal.aborted) return;
        this.intended.engineVersion = i.version;
        this.intended.git = i.git;
        this.emit('install', i);
        this.record();
      },
      () => undefined,
    );
    session.on('event', (e: LiveEvent) => {
      if (e.type === 'launch') return;
      // Phases of the runs already in the log are history, not this server.
      if (e.type === 'phase' && e.launch <= this.earlier(session.currentReport?.launches ?? [])) return;
      this.announce();
      this.emit('event', e.type === 'verdict' ? { type: 'verdict', verdict: this.shown(e.verdict) } : e);
    });
    session.on('tick', (v: Verdict) => {
      this.announce();
      this.emit('tick', this.shown(v));
      this.check(false);
      this.record();
    });
    session.start();
  }

  /** This server's launches are announced when first counted as its own, before their phases. */
  private announce(): void {
    const r = this.session.currentReport;
    const mine = this.ours(r);
    for (const l of mine.slice(this.announced)) {
      this.emit('event', {
        type: 'launch',
        launch: r!.launches.indexOf(l) + 1,
        line: l.startLine,
        time: l.startTime,
      } satisfies LiveEvent);
    }
    this.announced = Math.max(this.announced, mine.length);
  }

  private check(exited: boolean): void {
    const l = this.ours().at(-1);
    const news = l && this.flagWatch.update(l, exited);
    if (!l || !news) return;
    this.intended.mismatches = this.flagWatch.mismatches;
    for (const m of news.fresh) this.emit('mismatch', m);
    if (news.summary) this.emit('checked', news.summary, l);
  }

  private record(exit: ServerExit | null = null): void {
    this.recorder?.record(this.ours(), this.intended, Date.now() / 1000, exit);
  }

  /** Whether the server process has exited. */
  get gone(): boolean {
    return this.exitedNow;
  }

  /** Sends `sig` to the server's process group (and counts it as a stop asked for). */
  signal(sig: NodeJS.Signals): void {
    this.stops++;
    signalServer(this.pid, sig);
  }

  /**
   * Once the server has exited: reads what it wrote last, gives the final verdict, checks the flags a last
   * time and writes the final record (the exit status decides what the log leaves open).
   */
  async finish(): Promise<LaunchEnd> {
    const { code, signal } = await this.exited;
    const { session } = this;
    for (let i = 0; i < 40; i++) {
      session.tick();
      const size = fs.statSync(this.opts.log, { throwIfNoEntry: false })?.size ?? 0;
      if ((session.currentReport?.bytes ?? 0) >= size) break;
      await sleep(50);
    }
    const verdict = session.tick();
    session.stop();
    // The version and checkout belong in the final record; a discovery still stuck after 2 s is given up.
    await settleWithin(this.discovery, 2000);
    this.stopDiscovery.abort();
    this.check(true);
    const exit: ServerExit = { code, signal, stopped: this.stops > 0 };
    if (this.ours().length === 0)
      this.opts.warn(
        `${this.opts.log} shows no launch of this server (nothing it printed starts one): nothing recorded`,
      );
    this.record(exit);
    await this.recorder?.close();
    return { verdict: this.shown(verdict), exit, status: exitStatus(code, signal) };
  }
}
