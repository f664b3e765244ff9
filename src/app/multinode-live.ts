/**
 * `watch`/`wait --node …`: one live session per node (each following its log, locally or over ssh, with its
 * own probes), joined into one verdict for the launch by src/core/multinode. It offers what `watch` uses of a
 * single LiveSession: `event`, `tick` and `mismatch` events, `verdict`, `currentReport`, `observations`.
 */
import { EventEmitter } from 'node:events';
import type { LaunchRecord } from '../core/campaign/records.js';
import { combineNodes, headLaunch, type MultiNodeReport } from '../core/multinode/combine.js';
import { nodeIdentity } from '../core/multinode/identity.js';
import { combineVerdicts } from '../core/multinode/live.js';
import { matchLatest } from '../core/multinode/match.js';
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import type { Observations } from '../core/verdict/observations.js';
import type { Verdict } from '../core/verdict/verdict.js';
import type { LedgerStore } from '../store/ledger-store.js';
import type { LiveEvent, LiveSession } from './live.js';
import { recordMultiLaunch } from './multinode.js';
import { keepVerdict } from './recording.js';

/** How long a node's crash waits for its peers' logs before the launch is called down (see holdDown). */
const DOWN_GRACE_S = 3;

export interface LiveNodeSession {
  name: string;
  session: LiveSession;
}

/** A node's own events, tagged with the node (`--json` gets `node`, the text view a `[node]` prefix). */
export type NodeEvent = LiveEvent & { node?: string };

export class MultiNodeLive extends EventEmitter {
  verdict: Verdict | null = null;
  private report: AnalysisReport | null = null;
  private across: MultiNodeReport | null = null;
  private head = 0;
  private lastKey = '';
  private mismatchSaid = false;

  constructor(private readonly nodes: LiveNodeSession[]) {
    super();
    for (const n of nodes) {
      n.session.on('event', (e: LiveEvent) => {
        // Each node's own verdicts are folded into the launch's: only the joined one is told.
        if (e.type !== 'verdict') this.emit('event', { ...e, node: n.name } satisfies NodeEvent);
      });
      n.session.on('tick', () => this.join());
    }
  }

  start(): void {
    for (const n of this.nodes) n.session.start();
  }

  stop(): void {
    for (const n of this.nodes) n.session.stop();
  }

  /** Joins the nodes' verdicts now (every node ticks on its own: this runs after each of their ticks). */
  tick(): Verdict {
    for (const n of this.nodes) n.session.tick();
    return this.join() ?? this.verdict!;
  }

  private join(): Verdict | null {
    if (this.nodes.some((n) => n.session.verdict === null)) return null;
    const logs = this.nodes.map((n) => ({
      name: n.name,
      engine: n.session.currentReport?.engine ?? null,
      launches: n.session.currentReport?.launches ?? [],
    }));
    this.across = null;
    if (logs.every((l) => l.launches.length)) {
      const m = matchLatest(logs);
      if (m.ok) {
        this.head = m.head;
        this.across = combineNodes(m);
        const r = this.nodes[m.head]!.session.currentReport!;
        this.report = { ...r, launches: [...r.launches.slice(0, -1), headLaunch(m, this.across)] };
      } else if (!this.mismatchSaid && this.nodes.every((n) => n.session.verdict?.state !== 'waiting')) {
        // Logs of different launches: said once; the command decides whether that ends it.
        this.mismatchSaid = true;
        this.emit('mismatch', m.error);
      }
    }
    if (!this.across) {
      // Before every node has a matching launch: the head is the node whose config says so, when one does.
      const i = logs.findIndex((l) => {
        const last = l.launches.at(-1);
        return (
          last !== undefined &&
          nodeIdentity(last, l.engine).nnodes !== null &&
          nodeIdentity(last, l.engine).head
        );
      });
      if (i >= 0) this.head = i;
      this.report = this.nodes[this.head]!.session.currentReport;
    }
    const v = this.holdDown(
      combineVerdicts(
        this.nodes.map((n, i) => ({ name: n.name, head: i === this.head, verdict: n.session.verdict })),
        this.across,
      ),
    );
    this.verdict = v;
    const key = `${v.state}|${v.phase}|${v.launch}|${v.stalledIn}|${this.across?.culprit?.name ?? ''}|${v.failure?.line ?? ''}`;
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.emit('event', { type: 'verdict', verdict: v } satisfies LiveEvent);
    }
    this.emit('tick', v, this.report);
    return v;
  }

  /** When a node was first seen down while the others were not, and the last verdict from before it. */
  private downSince: number | null = null;
  private beforeDown: Verdict | null = null;

  /**
   * A node seen down first is not always the one that died first: its peers' lines arrive by their own paths
   * (another ssh stream, a slower disk), and a peer's OOM is often what made this node's NCCL watchdog fire.
   * While the others are still up, the launch's previous verdict stands for a few seconds, so the node
   * named is the one the logs say died first, not the one whose log came in first.
   */
  private holdDown(v: Verdict): Verdict {
    if (v.state !== 'crashed' && v.state !== 'dead') {
      this.downSince = null;
      this.beforeDown = v;
      return v;
    }
    const now = Date.now() / 1000;
    this.downSince ??= now;
    const allDown = this.nodes.every((n) =>
      ['crashed', 'dead', 'exited'].includes(n.session.verdict?.state ?? ''),
    );
    if (allDown || !this.beforeDown || now - this.downSince >= DOWN_GRACE_S) return v;
    return {
      ...this.beforeDown,
      final: false,
      why: `${v.why}; waiting up to ${DOWN_GRACE_S} s for the other nodes' logs, to name the node that died first`,
    };
  }

  /** The head's report, its latest launch read across the nodes once they match. */
  get currentReport(): AnalysisReport | null {
    return this.report;
  }

  get acrossNodes(): MultiNodeReport | null {
    return this.across;
  }

  get headName(): string {
    return this.nodes[this.head]!.name;
  }

  get observations(): Observations {
    return this.nodes[this.head]!.session.observations;
  }

  /** Whether every node has given a verdict that counts (`ps` prints from then). */
  get judgedOnce(): boolean {
    return this.verdict !== null && this.nodes.every((n) => n.session.judgedOnce);
  }
}

/**
 * Keeps the joined launch and its verdict in the ledger (one launch, the head's, with its nodes), once the
 * nodes' launches match; returns the record written.
 */
export async function recordJoined(
  ledger: LedgerStore | null,
  live: MultiNodeLive,
  v: Verdict | null,
): Promise<LaunchRecord | null> {
  const report = live.currentReport;
  const last = report?.launches.at(-1) as (LaunchReport & { nodes?: unknown }) | undefined;
  if (!ledger || !report || !last?.nodes || !live.acrossNodes) return null;
  const rec = await recordMultiLaunch(ledger, live.headName, { ...last, nodes: live.acrossNodes });
  await keepVerdict(ledger, live.headName, report, rec ? [rec] : undefined, v);
  return rec;
}
