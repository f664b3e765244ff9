/**
 * Which launch of each node's log belongs to the same multi-node launch, and how far each node's clock is off.
 * Pure: launches in, a match (or one line saying why none) out.
 *
 * Clocks: nodes stamp their lines with their own clocks, which can disagree by minutes. The nodes' startups
 * meet at one moment the engines make collective: the end of the distributed rendezvous. SGLang's
 * `ModelRunner.init_torch_distributed` (srt/model_executor/model_runner.py) returns on every rank only once all
 * ranks of all nodes joined, and the next phase line (`Load weight begin.`) follows at once; vLLM's workers
 * likewise leave `init_distributed_environment`/`initialize_model_parallel` (distributed/parallel_state.py)
 * together. So the first phase after dist_init is the same instant on every node: the difference of its stamps
 * is the skew. Start times are compared only after that correction.
 */
import type { LaunchReport } from '../base/report-types.js';
import { type EngineId, phaseRank } from '../base/types.js';
import { type NodeIdentity, nodeIdentity } from './identity.js';

export interface NodeLog {
  /** What the user named: a path or host:path. */
  name: string;
  engine: EngineId | null;
  launches: LaunchReport[];
}

export interface MatchedNode {
  name: string;
  /** Index into the node log's launches. */
  index: number;
  launches: number;
  launch: LaunchReport;
  identity: NodeIdentity;
  /** Seconds this node's clock is ahead of the head's (0 when equal within SKEW_TOLERANCE or unknown). */
  skew: number;
  /** Whether skew could be measured (both nodes passed the rendezvous). */
  aligned: boolean;
}

export type Match =
  | {
      ok: true;
      head: number;
      nodes: MatchedNode[];
      notes: string[];
      /**
       * Every node's lines are in one log, in the order they arrived (Ray forwards them to the driver): which
       * failed first is the order of their failure lines there, whatever the nodes' clocks say.
       */
      oneLog?: boolean;
      /** A node the log itself names as the cause (Ray: the node of the actor the driver says died). */
      causeFirst?: string;
    }
  | { ok: false; error: string };

/**
 * Nodes started this far apart (after clock correction) are not one launch: torch's default process-group
 * timeout is 10 minutes (SGLang's --dist-timeout defaults to it), so a rendezvous never waits longer.
 */
export const START_WINDOW = 600;
/** Ranks leave the rendezvous within a second or two of each other: less than this is no skew. */
export const SKEW_TOLERANCE = 3;

/** Epoch seconds at which the launch left dist_init (its first later phase), on the node's own clock. */
export function rendezvousTs(l: LaunchReport): number | null {
  if (l.startTs === null || l.relativeTime) return null;
  let sawDist = false;
  for (const p of l.phases) {
    if (p.phase === 'dist_init') sawDist = true;
    else if (sawDist && phaseRank(p.phase) > phaseRank('dist_init') && p.at !== null) return l.startTs + p.at;
  }
  return null;
}

function mismatch(head: LaunchReport, hid: NodeIdentity, l: LaunchReport, id: NodeIdentity): string | null {
  if (id.nnodes === null || id.nnodes < 2)
    return 'its launch logged no multi-node flags (--nnodes/--node-rank, --data-parallel-size-local): a single-node launch';
  if (hid.nnodes !== null && id.nnodes !== hid.nnodes) return `nnodes ${id.nnodes} vs ${hid.nnodes}`;
  if (hid.addr && id.addr && hid.addr !== id.addr) return `rendezvous address ${id.addr} vs ${hid.addr}`;
  if (head.model && l.model && head.model !== l.model) return `model ${l.model} vs ${head.model}`;
  if (head.engine && l.engine && head.engine !== l.engine) return `engine ${l.engine} vs ${head.engine}`;
  if (id.nodeRank !== null && id.nodeRank === hid.nodeRank) return `both are node_rank ${id.nodeRank}`;
  return null;
}

function skewOf(head: LaunchReport, l: LaunchReport): { skew: number; aligned: boolean } {
  const a = rendezvousTs(head);
  const b = rendezvousTs(l);
  if (a === null || b === null) return { skew: 0, aligned: false };
  const d = b - a;
  return { skew: Math.abs(d) < SKEW_TOLERANCE ? 0 : Math.round(d), aligned: true };
}

function apart(s: number): string {
  const a = Math.abs(Math.round(s));
  if (a < 120) return `${a} s`;
  if (a < 7200) return `${Math.round(a / 60)} min`;
  return `${Math.round(a / 3600)} h`;
}

/**
 * Matches the other logs' launches to `headIndex` of the head log. Each other log contributes the launch that
 * agrees with the head's identity and starts closest to it (after clock correction), within START_WINDOW.
 */
export function matchTo(logs: NodeLog[], head: number, headIndex: number): Match {
  const hl = logs[head]!;
  const hLaunch = hl.launches[headIndex]!;
  const hid = nodeIdentity(hLaunch, hl.engine);
  const nodes: MatchedNode[] = [];
  for (const [i, log] of logs.entries()) {
    if (i === head) {
      nodes.push({
        name: log.name,
        index: headIndex,
        launches: log.launches.length,
        launch: hLaunch,
        identity: hid,
        skew: 0,
        aligned: rendezvousTs(hLaunch) !== null,
      });
      continue;
    }
    let best: MatchedNode | null = null;
    let bestGap = Infinity;
    let why: string | null = null;
    for (let k = log.launches.length - 1; k >= 0; k--) {
      const l = log.launches[k]!;
      const id = nodeIdentity(l, log.engine);
      const bad = mismatch(hLaunch, hid, l, id);
      if (bad) {
        why ??= bad;
        continue;
      }
      const { skew, aligned } = skewOf(hLaunch, l);
      const gap =
        l.startTs !== null && hLaunch.startTs !== null ? Math.abs(l.startTs - skew - hLaunch.startTs) : 0;
      if (gap > START_WINDOW) {
        why ??= `started ${apart(gap)} apart${aligned ? '' : ' (no common marker to align their clocks yet)'}`;
        continue;
      }
      if (gap < bestGap) {
        bestGap = gap;
        best = {
          name: log.name,
          index: k,
          launches: log.launches.length,
          launch: l,
          identity: id,
          skew,
          aligned,
        };
      }
    }
    if (!best)
      return { ok: false, error: `${log.name}: not the same launch as ${hl.name} (${why ?? 'no launch'})` };
    nodes.push(best);
  }
  const ranks = new Map<number, string>();
  for (const n of nodes) {
    const r = n.identity.nodeRank ?? 0;
    const dup = ranks.get(r);
    if (dup !== undefined)
      return {
        ok: false,
        error: `${n.name}: node_rank ${r} again (${dup} is node_rank ${r} too): name each node once`,
      };
    ranks.set(r, n.name);
  }
  const notes: string[] = [];
  if (hid.nnodes !== null && nodes.length < hid.nnodes)
    notes.push(`${nodes.length} of the launch's ${hid.nnodes} nodes given`);
  return { ok: true, head, nodes, notes };
}

/** The head node's log: the one whose latest launch is node rank 0 and not headless. */
export function findHead(logs: NodeLog[]): { head: number } | { error: string } {
  const heads: number[] = [];
  for (const [i, log] of logs.entries()) {
    const l = log.launches[log.launches.length - 1];
    if (!l) return { error: `${log.name}: no server launch recognised` };
    const id = nodeIdentity(l, log.engine);
    if (id.nnodes === null || id.nnodes < 2)
      return {
        error: `${log.name}: its latest launch logged no multi-node flags (--nnodes/--node-rank, --data-parallel-size-local): not a node of a multi-node launch`,
      };
    if (id.head) heads.push(i);
  }
  if (heads.length === 0)
    return { error: `no head node among ${logs.map((l) => l.name).join(', ')}: name node 0's log too` };
  if (heads.length > 1)
    return {
      error: `${logs[heads[1]!]!.name}: a head node too (like ${logs[heads[0]!]!.name}): logs of different launches?`,
    };
  return { head: heads[0]! };
}

/** The multi-node launch of the head's latest launch. */
export function matchLatest(logs: NodeLog[]): Match {
  const h = findHead(logs);
  if ('error' in h) return { ok: false, error: h.error };
  return matchTo(logs, h.head, logs[h.head]!.launches.length - 1);
}
