/**
 * A multi-node target of a fleet (`[[target]] nodes = [...]` in firedup.toml, for `serve` and `ps`): one
 * launch over several nodes shown as one target. Each node is a WatchedTarget of its own (its log followed
 * and its process, port and GPUs probed on its host, remote nodes riding the fleet's one ssh connection per
 * host) that records nothing; once every node's session exists they are joined by MultiNodeLive, whose
 * verdict is the target's (the slowest node's phase, ready only when the head serves, the culprit named) and
 * whose launch goes into the ledger as one launch with its nodes, as `watch --node` records it.
 */
import { EventEmitter } from 'node:events';
import type { LaunchRecord } from '../core/campaign/records.js';
import type { NodeVerdict } from '../core/multinode/live.js';
import type { Verdict } from '../core/verdict/verdict.js';
import { LiveThrottle } from './live-throttle.js';
import { MultiNodeLive, recordJoined } from './multinode-live.js';
import type { HostReach } from './ssh-hosts.js';
import {
  gpuSummary,
  type NodeCard,
  type TargetSnapshot,
  type TargetSpec,
  WatchedTarget,
  type WatchOptions,
} from './watched-target.js';

/** At most this often a `live` event (as for one log), and a ledger write while nothing changed. */
const LIVE_EVERY_MS = 500;
const RECORD_EVERY_MS = 5000;

export class WatchedNodes extends EventEmitter {
  readonly nodes: WatchedTarget[];
  private live: MultiNodeLive | null = null;
  private updatedAt = 0;
  private lastKey = '';
  private lastVerdictKey = '';
  private readonly liveThrottle = new LiveThrottle(LIVE_EVERY_MS, () => this.emit('live', this.snapshot()));
  private lastRecordAt = 0;
  private writes: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    readonly spec: TargetSpec,
    private readonly opts: WatchOptions,
  ) {
    super();
    const logs = spec.nodes ?? [spec.log];
    // The nodes record nothing themselves: the launch is one record, the head's, written from the join.
    this.nodes = logs.map(
      (log, i) =>
        new WatchedTarget(
          { name: `${spec.name}-node${i}`, log, engine: spec.engine },
          { ...opts, ledger: null },
        ),
    );
    for (const n of this.nodes) {
      n.on('warning', (m: string) => this.emit('warning', m));
      n.on('session', () => this.join());
      // A node's host going unreachable (or coming back) changes the card before any verdict does.
      n.on('live', () => this.liveThrottle.schedule());
    }
  }

  /** The first node's host (`localhost` or the ssh host as written): the `host` of the target's series. */
  get hostName(): string {
    return this.nodes[0]!.hostName;
  }

  /** Unreachable as soon as one node's host is: the launch cannot be judged without it. */
  get reach(): HostReach {
    for (const n of this.nodes) {
      const r = n.reach;
      if (r.state === 'unreachable') return { ...r, message: `${n.spec.log}: ${r.message}` };
    }
    const connecting = this.nodes.find((n) => n.reach.state === 'connecting');
    return connecting ? connecting.reach : { state: 'up' };
  }

  get judged(): boolean {
    return this.live?.judgedOnce ?? false;
  }

  get up(): boolean {
    return this.nodes.every((n) => n.up);
  }

  async start(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.start()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.liveThrottle.stop();
    await Promise.all(this.nodes.map((n) => n.stop()));
    // What was read last goes into the ledger too.
    if (this.live) this.record(true);
    await this.writes;
  }

  /** Joins the nodes once each has its session (a node whose host answers late joins when it does). */
  private join(): void {
    if (this.live || this.stopped) return;
    const sessions = this.nodes.map((n) => n.liveSession);
    if (sessions.some((s) => s === null)) return;
    // Named by their logs, as `watch --node` names them: the verdict says which log holds the launch back.
    const live = new MultiNodeLive(this.nodes.map((n, i) => ({ name: n.spec.log, session: sessions[i]! })));
    live.on('tick', (v: Verdict) => this.onTick(v));
    live.on('mismatch', (msg: string) => this.emit('warning', `${this.spec.name}: ${msg}`));
    this.live = live;
  }

  private onTick(v: Verdict): void {
    this.updatedAt = Date.now() / 1000;
    const vkey = `${v.state}|${v.phase}|${v.launch}|${v.stalledIn}|${v.failure?.line ?? ''}|${this.live?.acrossNodes?.culprit?.name ?? ''}`;
    const changed = vkey !== this.lastVerdictKey;
    this.lastVerdictKey = vkey;
    this.record(changed);
    const nodes = this.cards()
      .map((c) => `${c.state}:${c.phase}:${c.progress ? `${c.progress.done}/${c.progress.total}` : ''}`)
      .join(',');
    const key = `${vkey}|${nodes}|${v.progress ? `${v.progress.done}/${v.progress.total}` : ''}`;
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.liveThrottle.schedule();
    }
  }

  /** A change of verdict at once, otherwise what grew at most every few seconds; one write at a time. */
  private record(force: boolean): void {
    const live = this.live;
    if (!live || !this.opts.ledger) return;
    const now = Date.now();
    if (!force && now - this.lastRecordAt < RECORD_EVERY_MS) return;
    this.lastRecordAt = now;
    const v = live.verdict;
    this.writes = this.writes
      .then(() => recordJoined(this.opts.ledger, live, v))
      .then(
        (rec: LaunchRecord | null) => {
          if (rec) this.emit('launch', rec);
        },
        (e: Error) => this.emit('warning', `${this.spec.name}: ledger: ${e.message}`),
      );
  }

  /** Each node as the joined verdict sees it, or, before the join, as its own session does. */
  private cards(): NodeCard[] {
    const v = this.live?.verdict as (Verdict & { nodes?: NodeVerdict[] }) | null | undefined;
    const across = this.live?.acrossNodes ?? null;
    return this.nodes.map((n, i) => {
      const log = n.spec.log;
      const own = n.snapshot();
      const joined = v?.nodes?.find((x) => x.name === log);
      const summary = across?.nodes.find((x) => x.name === log);
      const reach = n.reach;
      return {
        node: `node${i}`,
        target: log,
        host: n.hostName,
        head: summary?.head ?? joined?.head ?? false,
        nodeRank: summary?.nodeRank ?? null,
        state:
          reach.state === 'unreachable' ? 'unreachable' : (joined?.state ?? own.verdict?.state ?? 'unknown'),
        phase: joined?.phase ?? own.verdict?.phase ?? null,
        progress: joined?.progress ?? own.verdict?.progress ?? null,
        why:
          reach.state === 'unreachable' ? reach.message : (joined?.why ?? own.verdict?.why ?? 'connecting'),
        culprit: across?.culprit?.name === log,
        gpus: gpuSummary(n.liveSession?.observations.gpu),
      };
    });
  }

  snapshot(): TargetSnapshot {
    const reach = this.reach;
    const report = this.live?.currentReport ?? null;
    const cards = this.cards();
    return {
      name: this.spec.name,
      target: (this.spec.nodes ?? [this.spec.log]).join(' '),
      verdict: this.live?.verdict ?? null,
      launch: report?.launches.at(-1) ?? null,
      // The head's GPUs, as for one server; every node's are in `nodes`.
      gpus: cards.find((c) => c.head)?.gpus ?? cards[0]?.gpus ?? null,
      updatedAt: this.updatedAt,
      unreachable: reach.state === 'unreachable' ? reach.message : null,
      nodes: cards,
    };
  }

  metrics(): TargetSnapshot & { host: string; up: boolean } {
    return { ...this.snapshot(), host: this.hostName, up: this.up };
  }
}
