/**
 * A fleet: the targets of firedup.toml watched together (`firedup ps`, and `serve`'s live targets), each a
 * WatchedTarget, remote ones sharing one ssh connection per host. `rows()` is what `ps` prints and its
 * `--json` gives, one row per target.
 */
import type { EngineId, FailureClass, Phase } from '../core/base/types.js';
import type { LiveState } from '../core/verdict/verdict.js';
import type { SshOptions } from '../sources/ssh/session.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { SshHosts, type SshHostsOptions } from './ssh-hosts.js';
import { WatchedNodes } from './watched-nodes.js';
import { type ContainerCard, type NodeCard, type TargetSpec, WatchedTarget } from './watched-target.js';

/** A fleet's target: one log, or a multi-node launch's logs shown as one (watched-nodes.ts). */
export type FleetTarget = WatchedTarget | WatchedNodes;

/** One target as `ps` shows it (the `--json` contract: fields may be added, never renamed). */
export interface FleetRow {
  name: string;
  /** `localhost`, or the ssh host as written. */
  host: string;
  log: string;
  engine: EngineId | null;
  model: string | null;
  /** The live verdict's state; `unreachable` when the host does not answer, `waiting` before the first verdict. */
  state: LiveState | 'unreachable';
  phase: Phase | null;
  progress: { done: number; total: number; ratio: number } | null;
  /** Which launch of the log (1-based), and when it started (from the log's stamps). */
  launch: number | null;
  startedAt: string | null;
  /** Seconds since the launch started, or null when the log has no start time. */
  age: number | null;
  /** The last output tok/s the log showed while serving. */
  tokS: number | null;
  failureClass: FailureClass | null;
  /** The verdict's one-line reason, or why the host could not be reached. */
  why: string;
  /** A multi-node target's nodes (absent for one log): each node's state, the head and the culprit. */
  nodes?: Array<Omit<NodeCard, 'gpus'>>;
  /** A container target (`docker://NAME`): docker's state, restarts, exit code, OOM kill and health. */
  container?: ContainerCard;
}

export interface FleetOptions extends SshHostsOptions {
  ledger: LedgerStore | null;
  ssh: SshOptions;
  gpu?: boolean;
  budgetScale?: number;
  pollMs?: number;
}

export class Fleet {
  readonly hosts: SshHosts;
  readonly targets: FleetTarget[];

  constructor(specs: readonly TargetSpec[], opts: FleetOptions) {
    this.hosts = new SshHosts(opts.ssh, opts);
    const watch = {
      ledger: opts.ledger,
      ssh: opts.ssh,
      hosts: this.hosts,
      gpu: opts.gpu,
      budgetScale: opts.budgetScale,
      pollMs: opts.pollMs,
    };
    this.targets = specs.map((s) => (s.nodes ? new WatchedNodes(s, watch) : new WatchedTarget(s, watch)));
  }

  /** Starts every target at once: a slow or dead host holds up only its own targets. */
  start(onError: (t: FleetTarget, e: Error) => void): void {
    for (const t of this.targets) t.start().catch((e: Error) => onError(t, e));
  }

  /** Resolves when every target has a first verdict or an unreachable host, or at the deadline. */
  settled(deadlineMs: number): Promise<void> {
    const done = () => this.targets.every((t) => t.judged || t.reach.state === 'unreachable');
    return new Promise((resolve) => {
      const until = Date.now() + deadlineMs;
      const check = () => {
        if (done() || Date.now() >= until) resolve();
        else setTimeout(check, 50);
      };
      check();
    });
  }

  rows(now = Date.now() / 1000): FleetRow[] {
    return this.targets.map((t) => fleetRow(t, now));
  }

  async stop(): Promise<void> {
    await Promise.all(this.targets.map((t) => t.stop()));
    await this.hosts.close();
  }
}

export function fleetRow(t: FleetTarget, now: number): FleetRow {
  const snap = t.snapshot();
  const v = snap.verdict;
  const l = snap.launch;
  const reach = t.reach;
  const unreachable = reach.state === 'unreachable';
  const p = v?.progress ?? null;
  return {
    name: t.spec.name,
    host: t.hostName,
    log: t.spec.log,
    engine: l?.engine ?? v?.engine ?? t.spec.engine ?? null,
    model: l?.model ?? null,
    state: unreachable ? 'unreachable' : !t.judged || !v ? 'waiting' : v.state,
    phase: v?.phase ?? l?.phase ?? null,
    progress: p ? { done: p.done, total: p.total, ratio: p.ratio } : null,
    launch: v?.launch ?? (l ? l.index : null),
    startedAt: l?.startTime ?? null,
    age: l?.startTs != null ? Math.max(0, Math.round(now - l.startTs)) : null,
    tokS: v?.throughput ?? null,
    failureClass: v?.failure?.class ?? l?.failure?.class ?? null,
    why: unreachable ? reach.message : (v?.why ?? 'connecting'),
    ...(snap.nodes ? { nodes: snap.nodes.map(({ gpus: _, ...n }) => n) } : {}),
    ...(snap.container ? { container: snap.container } : {}),
  };
}

/**
 * The exit code for scripts, the worst target deciding: 2 a crash, 5 a server dead or exited, 4 a stall,
 * 7 a host unreachable, 3 still starting (or not judged yet), 0 when every target is ready, serving or idle.
 */
export function fleetExitCode(rows: readonly FleetRow[]): number {
  const has = (...states: string[]) => rows.some((r) => states.includes(r.state));
  if (has('crashed')) return 2;
  if (has('dead', 'exited')) return 5;
  if (has('stalled')) return 4;
  if (has('unreachable')) return 7;
  if (rows.some((r) => !['ready', 'serving', 'idle'].includes(r.state))) return 3;
  return 0;
}
