/**
 * A watched target of `firedup serve`: a live session on one log (local, or over SSH with its probes on
 * that host), whose state the dashboard and /metrics read, whose launches go into the ledger as they
 * change, and whose changes are pushed to open pages as `live` and `launch` events.
 */
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { type LiveEvent, LiveSession } from '../app/live.js';
import { LiveRecording, logIdentity } from '../app/recording.js';
import { remoteLive } from '../app/remote-live.js';
import type { GpuObservation } from '../core/observations.js';
import type { LaunchReport } from '../core/report.js';
import type { EngineId } from '../core/types.js';
import type { Verdict } from '../core/verdict.js';
import type { SshOptions, SshSession } from '../sources/ssh/session.js';
import type { LedgerStore } from '../store/ledger-store.js';
import type { GpuSummary, LiveTarget } from './api-types.js';
import type { MetricsTarget } from './metrics.js';

export interface TargetSpec {
  /** Shown on the dashboard and as the `target` label. */
  name: string;
  /** A log path or an ssh target (`user@host:/path`), as given. */
  log: string;
  url?: string;
  pid?: number;
  engine?: EngineId;
}

export interface WatchOptions {
  ledger: LedgerStore | null;
  ssh: SshOptions;
  /** false: never run nvidia-smi; undefined: when it is on PATH (or on the remote PATH). */
  gpu?: boolean;
  budgetScale?: number;
  /** Test hooks; defaults as for `watch`. */
  pollMs?: number;
  clock?: () => number;
}

/** At most this often a `live` event per target (the last change always goes out). */
const LIVE_EVERY_MS = 500;

function gpuSummary(g: GpuObservation | null | undefined): GpuSummary[] | null {
  if (!g || g.error) return null;
  return g.gpus.map((d) => ({
    index: d.index,
    memUsedBytes: d.memUsedMiB * 1024 * 1024,
    memTotalBytes: d.memTotalMiB * 1024 * 1024,
    util: d.utilPct === null ? null : d.utilPct / 100,
  }));
}

/** Emits `live` (LiveTarget) and `launch` (LaunchRecord, just upserted into the ledger). */
export class WatchedTarget extends EventEmitter {
  private session: LiveSession | null = null;
  private ssh: SshSession | null = null;
  private readonly host: string;
  /** Absolute path for a local log; the remote path for an ssh one. */
  private readonly path: string;
  private readonly remote: boolean;
  private readonly clock: () => number;
  /** Writes this target's launches into the ledger and answers its history (as `watch` does). */
  private readonly rec: LiveRecording | null;
  private lastVerdictKey = '';
  private lastLiveKey = '';
  private lastLiveAt = 0;
  private liveTimer: NodeJS.Timeout | null = null;
  private sourceError: { at: number; bytes: number } | null = null;
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
    this.remote = !where.local;
    this.host = where.host;
    this.path = where.path;
    this.rec = opts.ledger
      ? new LiveRecording(opts.ledger, where, (e) =>
          this.emit('warning', `${spec.name}: ledger: ${e.message}`),
        )
      : null;
  }

  async start(): Promise<void> {
    const remote = this.remote
      ? await remoteLive(this.spec.log, this.opts.ssh, this.opts.gpu === false)
      : null;
    if (this.stopped) {
      await remote?.session.close();
      return;
    }
    this.ssh = remote?.session ?? null;
    const s = new LiveSession({
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
    s.on('event', (e: LiveEvent) => {
      if (e.type !== 'source') return;
      if (e.kind === 'error') this.sourceError = { at: this.clock(), bytes: s.currentReport?.bytes ?? 0 };
      else if (e.kind === 'appeared' || e.kind === 'reset') this.sourceError = null;
    });
    s.on('tick', (v: Verdict) => this.onTick(v));
    s.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.liveTimer) clearTimeout(this.liveTimer);
    this.liveTimer = null;
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
    if (this.remote) return s.logAvailable;
    try {
      fs.accessSync(this.path, fs.constants.R_OK);
      return fs.statSync(this.path).isFile();
    } catch {
      return false;
    }
  }

  snapshot(): LiveTarget {
    return {
      name: this.spec.name,
      target: this.spec.log,
      verdict: this.session?.verdict ?? null,
      launch: this.latest(),
      gpus: gpuSummary(this.session?.observations.gpu),
      updatedAt: this.updatedAt,
    };
  }

  metrics(): MetricsTarget {
    const s = this.snapshot();
    return { name: s.name, host: this.host, up: this.up, verdict: s.verdict, launch: s.launch, gpus: s.gpus };
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
      this.scheduleLive();
    }
  }

  private scheduleLive(): void {
    if (this.liveTimer) return;
    const wait = Math.max(0, this.lastLiveAt + LIVE_EVERY_MS - Date.now());
    this.liveTimer = setTimeout(() => {
      this.liveTimer = null;
      if (this.stopped) return;
      this.lastLiveAt = Date.now();
      this.emit('live', this.snapshot());
    }, wait);
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
