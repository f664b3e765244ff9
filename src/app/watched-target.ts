/**
 * A watched target of a fleet (`firedup serve`, `firedup ps`): a live session on one log (local, or over SSH
 * with its probes on that host), whose state the dashboard, /metrics and `ps` read, whose launches go into
 * the ledger as they change, and whose changes are pushed as `live` and `launch` events.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import type { EngineId } from '../core/base/types.js';
import type { NodeVerdict } from '../core/multinode/live.js';
import type { LaunchReport } from '../core/reading/report.js';
import type { ContainerObservation } from '../core/verdict/container.js';
import type { GpuObservation } from '../core/verdict/observations.js';
import type { Verdict } from '../core/verdict/verdict.js';
import { identifyServer } from '../probes/process.js';
import type { SshOptions, SshSession } from '../sources/ssh/session.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { type LiveEvent, type LiveProbes, LiveSession, LOCAL_PROBES } from './live.js';
import { LiveThrottle } from './live-throttle.js';
import { LiveRecording, logIdentity } from './recording.js';
import { remoteLive } from './remote-live.js';
import type { HostReach, SshHosts } from './ssh-hosts.js';

export interface TargetSpec {
  /** Shown on the dashboard and as the `target` label. */
  name: string;
  /** A log path or an ssh target (`user@host:/path`), as given. */
  log: string;
  url?: string;
  pid?: number;
  engine?: EngineId;
  /** A multi-node launch: every node's log (`log` is the first), watched and joined (watched-nodes.ts). */
  nodes?: string[];
}

export interface GpuSummary {
  index: number;
  memUsedBytes: number;
  memTotalBytes: number;
  /** Utilisation 0–1, null when nvidia-smi did not say. */
  util: number | null;
}

/** One target now (the dashboard's live card: LiveTarget in web/api-types.ts). */
export interface TargetSnapshot {
  name: string;
  /** The log as given (`/var/log/sglang.log`, `root@gpu-box:/root/server.log`). */
  target: string;
  verdict: Verdict | null;
  /** The latest launch in the log. */
  launch: LaunchReport | null;
  gpus: GpuSummary[] | null;
  /** Epoch seconds of the last verdict. */
  updatedAt: number;
  /** Why the log's host cannot be reached (ssh's reason), or null. */
  unreachable: string | null;
  /** A multi-node target's nodes, each as its own session sees it (absent for one log). */
  nodes?: NodeCard[];
  /** A container target's state as docker gives it (absent for a log file). */
  container?: ContainerCard;
}

/** A container as `ps` and the dashboard show it: docker's state, restarts, exit and health. */
export interface ContainerCard {
  state: string;
  restarts: number;
  exitCode: number | null;
  oomKilled: boolean;
  health: string | null;
}

function containerCard(c: ContainerObservation | null | undefined): { container?: ContainerCard } {
  if (!c) return {};
  return {
    container: {
      state: c.state ?? 'removed',
      restarts: c.restartCount,
      exitCode: c.state === 'running' ? null : c.exitCode,
      oomKilled: c.oomKilled,
      health: c.health?.status ?? null,
    },
  };
}

/** One node of a multi-node target (the live card's node list, `ps --json`'s `nodes`, /metrics' `node`). */
export interface NodeCard {
  /** `node0`, `node1`, … in the order the target names them. */
  node: string;
  /** Its log as given. */
  target: string;
  host: string;
  /** The engine's head node (the one that serves), once the logs tell. */
  head: boolean;
  /** The rank its config gives it, once the logs match. */
  nodeRank: number | null;
  state: Verdict['state'] | 'unreachable' | 'unknown';
  phase: Verdict['phase'];
  progress: Verdict['progress'];
  why: string;
  /** This node died first or holds the others back. */
  culprit: boolean;
  gpus: GpuSummary[] | null;
}

export interface WatchOptions {
  ledger: LedgerStore | null;
  ssh: SshOptions;
  /** The fleet's shared ssh connections, one per host (without: one of its own per remote target). */
  hosts?: SshHosts;
  /** false: never run nvidia-smi; undefined: when it is on PATH (or on the remote PATH). */
  gpu?: boolean;
  budgetScale?: number;
  /** Test hooks; defaults as for `watch`. */
  pollMs?: number;
  clock?: () => number;
}

/** At most this often a `live` event per target (the last change always goes out). */
const LIVE_EVERY_MS = 500;
/**
 * A fleet's local targets look for their servers in one reading of /proc per round, up to a second old,
 * rather than each in its own (bench:fleet: 40 local targets searching alone were most of serve's CPU).
 */
const FLEET_LOCAL_PROBES: LiveProbes = {
  ...LOCAL_PROBES,
  findPid: (o) => identifyServer({ ...o, shareMs: 1000 }),
};
/** The follower's errors that mean the host, not the file: ssh's own failures as classifySsh words them. */
const CONNECTION_LOST =
  /refused|unreachable|not found \(DNS|dropped|timed out|authentication failed|host key|cannot run ssh/;
/** How soon a target whose host did not answer tries again (the hosts' own retry delay decides). */
const RETRY_MS = 5000;

export function gpuSummary(g: GpuObservation | null | undefined): GpuSummary[] | null {
  if (!g || g.error) return null;
  return g.gpus.map((d) => ({
    index: d.index,
    memUsedBytes: d.memUsedMiB * 1024 * 1024,
    memTotalBytes: d.memTotalMiB * 1024 * 1024,
    util: d.utilPct === null ? null : d.utilPct / 100,
  }));
}

/** Emits `live` (TargetSnapshot) and `launch` (LaunchRecord, just upserted into the ledger). */
export class WatchedTarget extends EventEmitter {
  private session: LiveSession | null = null;
  private ssh: SshSession | null = null;
  private readonly host: string;
  /** Absolute path for a local log; the remote path for an ssh one. */
  private readonly path: string;
  private readonly remote: boolean;
  private readonly container: boolean;
  private readonly clock: () => number;
  /** Writes this target's launches into the ledger and answers its history (as `watch` does). */
  private readonly rec: LiveRecording | null;
  private lastVerdictKey = '';
  private lastLiveKey = '';
  private readonly liveThrottle = new LiveThrottle(LIVE_EVERY_MS, () => this.emit('live', this.snapshot()));
  private sourceError: { at: number; bytes: number; message: string } | null = null;
  private hostReach: HostReach = { state: 'connecting' };
  private retryTimer: NodeJS.Timeout | null = null;
  private updatedAt = 0;
  private stopped = false;

  constructor(
    readonly spec: TargetSpec,
    private readonly opts: WatchOptions,
  ) {
    super();
    this.clock = opts.clock ?? (() => Date.now() / 1000);
    // The same identity as `firedup watch` and `runs` give the log, so a launch has one id whoever records it.
    const where = logIdentity(spec.log)!;
    // A container is reached through docker (docker-live.ts), not through the fleet's ssh connections.
    this.container = spec.log.startsWith('docker://');
    this.remote = !where.local && !this.container;
    this.host = where.host;
    this.path = where.path;
    this.rec = opts.ledger
      ? new LiveRecording(opts.ledger, where, (e) =>
          this.emit('warning', `${spec.name}: ledger: ${e.message}`),
        )
      : null;
  }

  /** The ssh host as written (`gpu-a`, `root@gpu-a`), or `localhost` for a local log. */
  get hostName(): string {
    return this.host;
  }

  /**
   * Whether the log's host answers: always `up` for a local log; for a remote one, the shared connection's
   * state, then the follower's (a host that drops later shows as unreachable until bytes flow again).
   */
  get reach(): HostReach {
    if (!this.remote) return { state: 'up' };
    if (this.hostReach.state !== 'up' || !this.session) return this.hostReach;
    // Only the connection's failures (session.ts's classifySsh words), not the file's (denied, not a log).
    if (this.sourceError && CONNECTION_LOST.test(this.sourceError.message) && !this.up)
      return { state: 'unreachable', kind: 'dropped', message: this.sourceError.message };
    return this.hostReach;
  }

  /** Whether the session has given its first real verdict (after the log and the first probes). */
  get judged(): boolean {
    return this.session?.judgedOnce ?? false;
  }

  async start(): Promise<void> {
    const hosts = this.opts.hosts;
    if (this.remote && hosts) {
      this.hostReach = await hosts.connect(this.spec.log);
      if (this.stopped) return;
      if (this.hostReach.state !== 'up') {
        // Not answering: said at once; tried again later without holding up any other target.
        this.liveThrottle.schedule();
        this.retryTimer = setTimeout(() => {
          this.retryTimer = null;
          this.start().catch((e: Error) => this.emit('warning', `${this.spec.name}: ${e.message}`));
        }, RETRY_MS);
        this.retryTimer.unref();
        return;
      }
    } else if (this.remote) this.hostReach = { state: 'up' };
    const remote = this.remote
      ? await remoteLive(this.spec.log, this.opts.ssh, this.opts.gpu === false, hosts?.session(this.spec.log))
      : this.container
        ? {
            session: null,
            opts: await (await import('./docker-live.js')).dockerLive(
              this.spec.log,
              this.opts.gpu === false,
              { mustExist: false, ssh: this.opts.ssh },
            ),
          }
        : null;
    if (this.stopped) {
      if (!hosts) await remote?.session?.close();
      return;
    }
    // A shared session belongs to the fleet's hosts, which close it; an own one is this target's.
    this.ssh = hosts ? null : (remote?.session ?? null);
    const s = new LiveSession({
      probes: remote ? undefined : FLEET_LOCAL_PROBES,
      ...remote?.opts,
      log: this.spec.log,
      url: this.spec.url,
      pid: this.spec.pid,
      engine: this.spec.engine,
      gpu: this.opts.gpu === false ? false : remote?.opts.gpu,
      budgetScale: this.opts.budgetScale,
      expect: this.rec?.expect,
      pollMs: this.opts.pollMs,
      clock: this.opts.clock,
    });
    this.session = s;
    this.rec?.readingFrom(() => s.readFile());
    s.on('event', (e: LiveEvent) => {
      if (e.type !== 'source') return;
      if (e.kind === 'error')
        this.sourceError = { at: this.clock(), bytes: s.currentReport?.bytes ?? 0, message: e.detail };
      else if (e.kind === 'appeared' || e.kind === 'reset') this.sourceError = null;
    });
    s.on('tick', (v: Verdict) => this.onTick(v));
    s.start();
    // A multi-node target joins its nodes' sessions once each exists (watched-nodes.ts).
    this.emit('session', s);
  }

  /** The live session, once the log's host answered (null before). */
  get liveSession(): LiveSession | null {
    return this.session;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.liveThrottle.stop();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.session) {
      this.session.stop();
      // What was read last goes into the ledger too.
      this.record(true);
      await this.rec?.flush();
    }
    await this.ssh?.close();
  }

  private latest(): LaunchReport | null {
    const r = this.session?.currentReport;
    return r?.launches[r.launches.length - 1] ?? null;
  }

  /** Readable log and running probes; a source error counts until bytes flow again. */
  get up(): boolean {
    const s = this.session;
    if (!s) return false;
    if (this.sourceError) {
      if ((s.currentReport?.bytes ?? 0) > this.sourceError.bytes) this.sourceError = null;
      else return false;
    }
    if (this.remote || this.container) return s.logAvailable;
    try {
      fs.accessSync(this.path, fs.constants.R_OK);
      return fs.statSync(this.path).isFile();
    } catch {
      return false;
    }
  }

  snapshot(): TargetSnapshot {
    const reach = this.reach;
    const launch = this.latest();
    const gpus = gpuSummary(this.session?.observations.gpu);
    const nodes = this.rayCards(launch, gpus);
    return {
      name: this.spec.name,
      target: this.spec.log,
      verdict: this.session?.verdict ?? null,
      launch,
      gpus,
      updatedAt: this.updatedAt,
      unreachable: reach.state === 'unreachable' ? reach.message : null,
      ...(nodes ? { nodes } : {}),
      ...containerCard(this.session?.observations.container),
    };
  }

  /**
   * A Ray launch's nodes, read from the one log (every line names its node by Ray's `ip=`), as the cards of
   * a `nodes = [...]` target: `ps`, the dashboard and /metrics show both kinds alike. The GPUs probed are
   * this host's, the driver's.
   */
  private rayCards(launch: LaunchReport | null, gpus: GpuSummary[] | null): NodeCard[] | undefined {
    const m = launch?.nodes;
    if (m?.layout !== 'ray') return undefined;
    const v = this.session?.verdict as (Verdict & { nodes?: NodeVerdict[] }) | null | undefined;
    return m.nodes.map((n) => {
      const joined = v?.nodes?.find((x) => x.name === n.name);
      return {
        node: n.name,
        target: this.spec.log,
        host: n.head ? this.host : n.name,
        head: n.head,
        nodeRank: n.nodeRank,
        state: joined?.state ?? 'unknown',
        phase: joined?.phase ?? n.phase,
        progress: joined?.progress ?? null,
        why: joined?.why ?? 'no verdict yet',
        culprit: m.culprit?.name === n.name,
        gpus: n.head ? gpus : null,
      };
    });
  }

  /** What /metrics reads (MetricsTarget in web/metrics.ts). */
  metrics(): TargetSnapshot & { host: string; up: boolean } {
    return { ...this.snapshot(), host: this.host, up: this.up };
  }

  private onTick(v: Verdict): void {
    this.updatedAt = this.clock();
    const vkey = `${v.state}|${v.phase}|${v.launch}|${v.stalledIn}|${v.failure?.line ?? ''}`;
    const changed = vkey !== this.lastVerdictKey;
    this.lastVerdictKey = vkey;
    this.record(changed);
    const l = this.latest();
    const p = v.progress;
    const lkey = `${vkey}|${p ? `${p.done}/${p.total}` : ''}|${l ? `${l.startOffset}:${l.endLine}` : ''}`;
    if (lkey !== this.lastLiveKey) {
      this.lastLiveKey = lkey;
      this.liveThrottle.schedule();
    }
  }

  /**
   * Writes the launches that changed (phase, outcome, failure at once; more lines at most every few seconds),
   * `force`: whatever grew, now; each one written goes out as a `launch` event.
   */
  private record(force: boolean): void {
    const report = this.session?.currentReport ?? null;
    const pid = this.session?.observations.process?.pid ?? null;
    void this.rec?.observe(report, pid, { now: this.clock(), force }).then((written) => {
      for (const r of written) this.emit('launch', r);
    });
    // The dashboard's table reads the ledger: it shows stalled or dead as this live view does.
    void this.rec?.verdict(this.session?.verdict ?? null, report, this.clock());
  }
}
