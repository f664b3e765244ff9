/**
 * One launch from its nodes' launches: the overall phase is the slowest node's, ready only when the head
 * serves, and a sentence naming the node that died first or holds the others back. Pure: matched launches
 * (with their clock skews) in, a MultiNodeReport out.
 *
 * Cause across nodes: a node that crashes leaves its peers waiting in the next collective until NCCL's
 * watchdog gives up (`Watchdog caught collective operation timeout`, after --dist-timeout), so the peers'
 * failures come later and are consequences; the node whose failure comes first on the corrected clock is the
 * root cause. While nothing failed, the launch waits for its slowest node: the lowest phase, and among nodes
 * in the same phase the one that reached it last (the others wait for it at the phase's collective).
 */
import type { LaunchReport, MultiNodeReport, NodeSummary } from '../base/report-types.js';
import { type FailureClass, type Outcome, type Phase, phaseRank } from '../base/types.js';
import type { Match, MatchedNode } from './match.js';
import { workerDone } from './worker.js';

export type { MultiNodeReport, NodeSummary } from '../base/report-types.js';

/** One node of a multi-node launch as a list row shows it (kept in the ledger's summary JSON). */
export interface NodeListEntry {
  name: string;
  nodeRank: number | null;
  head: boolean;
  outcome: Outcome;
  phase: Phase | null;
  /** This node died first or holds the others back. */
  culprit: boolean;
}

export function nodeList(m: MultiNodeReport): NodeListEntry[] {
  return m.nodes.map((n) => ({
    name: n.name,
    nodeRank: n.nodeRank,
    head: n.head,
    outcome: n.outcome,
    phase: n.phase,
    culprit: m.culprit?.name === n.name,
  }));
}

/** Failure classes a node gets when a peer dies: it waited in a collective until the timeout. */
const WAITING_CLASSES: ReadonlySet<FailureClass> = new Set(['nccl', 'timeout', 'killed']);

function rankSpan(ranks: string[]): string | null {
  if (!ranks.length) return null;
  const m = ranks.map((r) => /^([A-Z]+)(\d+)$/.exec(r)).filter((x): x is RegExpExecArray => x !== null);
  if (m.length !== ranks.length || new Set(m.map((x) => x[1])).size !== 1) return ranks.join(',');
  const nums = m.map((x) => Number(x[2])).sort((a, b) => a - b);
  const p = m[0]![1];
  return nums.length === 1 ? `${p}${nums[0]}` : `${p}${nums[0]}–${p}${nums[nums.length - 1]}`;
}

export function nodeLabel(
  n: { name: string; nodeRank: number | null; head: boolean },
  oneLog = false,
): string {
  // Ray's nodes have no node rank: an ip, or the driver's node, the head.
  if (oneLog) return n.head ? `${n.name} (head)` : n.name;
  return `${n.name} (node_rank ${n.nodeRank ?? 0}${n.head ? ', head' : ''})`;
}

function summary(n: MatchedNode): NodeSummary {
  const l = n.launch;
  const f = l.failure;
  return {
    name: n.name,
    nodeRank: n.identity.nodeRank,
    head: n.identity.head,
    via: n.identity.via,
    launch: n.index + 1,
    launches: n.launches,
    outcome: l.outcome,
    phase: l.phase,
    progress: l.progress ? { done: l.progress.done, total: l.progress.total, what: l.progress.what } : null,
    failure: f ? { class: f.class, message: f.message, line: f.line, rank: f.rank, time: f.time } : null,
    ranks: rankSpan(l.ranks),
    startTime: l.startTime,
    skew: n.skew,
    startLine: l.startLine,
    endLine: l.endLine,
    done: !n.identity.head && workerDone(l, null),
  };
}

/**
 * When a crashed node died, on the head's clock: its launch's last stamped line. The failure line's own stamp is
 * often missing (a traceback's exception line has none) or in another format (c10d's `[E221 09:02:05…]`), and
 * nothing a dead node's launch logs comes after its death by more than its exit lines.
 */
function failureTs(n: MatchedNode): number | null {
  const ts = n.launch.endTs;
  if (ts === null || n.launch.relativeTime) return null;
  const own = c10Stamp(n.launch.failure?.message ?? '', ts);
  return (own !== null && own > ts ? own : ts) - n.skew;
}

/**
 * c10's own record stamp (c10/util/Logging.cpp: severity letter, month unpadded, day, time, file:line), as in
 * `[rank3]:[E221 11:32:05.512040118 ProcessGroupNCCL.cpp:632] … Watchdog caught collective operation timeout`:
 * the watchdog fires a whole timeout after the last line its node stamped, so that line alone would date the
 * consequence before its cause. The year is the one of `near` (the launch's last stamp).
 */
const C10_STAMP = /\[[IWEF](0?[1-9]|1[0-2])(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d+)? [\w.-]+:\d+\]/;

function c10Stamp(text: string, near: number): number | null {
  const m = C10_STAMP.exec(text);
  if (!m) return null;
  const year = new Date(near * 1000).getUTCFullYear();
  const at = (y: number) => Date.UTC(y, +m[1]! - 1, +m[2]!, +m[3]!, +m[4]!, +m[5]!) / 1000;
  // A launch stamped on 31 December whose watchdog fires on 1 January: the nearer year wins.
  const best = [year - 1, year, year + 1].map(at).sort((a, b) => Math.abs(a - near) - Math.abs(b - near))[0]!;
  return Number.isNaN(best) ? null : best;
}

/** When a node entered its current phase, on the head's clock. */
function phaseEntryTs(n: MatchedNode): number | null {
  const l = n.launch;
  const p = l.phases[l.phases.length - 1];
  if (!p || p.at === null || l.startTs === null) return null;
  return l.startTs + p.at - n.skew;
}

/** A worker's own end of startup (worker.ts) ranks with the head's ready. */
function effectiveRank(n: MatchedNode): number {
  const l = n.launch;
  if (!n.identity.head && workerDone(l, null)) return phaseRank('ready');
  return l.phase ? phaseRank(l.phase) : -1;
}

function hms(ts: number): string {
  return new Date(Math.round(ts) * 1000).toISOString().slice(11, 19);
}

function secs(s: number): string {
  const a = Math.round(Math.abs(s));
  return a < 120 ? `${a} s` : `${Math.floor(a / 60)} min ${a % 60} s`;
}

function skewNote(nodes: MatchedNode[], head: MatchedNode, oneLog: boolean): string | null {
  const off = nodes.filter((n) => n.skew !== 0);
  if (!off.length) return null;
  const parts = off.map(
    (n) => `${n.name}'s clock runs ${secs(n.skew)} ${n.skew > 0 ? 'ahead of' : 'behind'} ${head.name}'s`,
  );
  const how = oneLog
    ? 'measured from the order Ray forwarded their lines in'
    : 'aligned at the end of the distributed rendezvous, which every node leaves at once';
  return `clock skew corrected: ${parts.join('; ')} (${how})`;
}

function crashed(
  nodes: MatchedNode[],
  oneLog: boolean,
  causeFirst: string | null,
): MultiNodeReport['culprit'] & { detail: string } {
  const failed = nodes.filter((n) => n.launch.outcome === 'crashed');
  // Earliest on the corrected clock (in one log: first in it); at equal (or unknown) times a node's own cause
  // beats waiting in a collective.
  const key = (n: MatchedNode, ts: number | null) => (oneLog ? (n.launch.failure?.line ?? null) : ts);
  const order = failed
    .map((n) => ({ n, ts: failureTs(n), waiting: WAITING_CLASSES.has(n.launch.failure?.class ?? 'other') }))
    .map((o) => ({ ...o, at: key(o.n, o.ts) }))
    .sort(
      (a, b) =>
        Number(b.n.name === causeFirst) - Number(a.n.name === causeFirst) ||
        (a.at ?? Infinity) - (b.at ?? Infinity) ||
        Number(a.waiting) - Number(b.waiting),
    );
  const first = order[0]!;
  const f = first.n.launch.failure!;
  const at = first.ts !== null ? ` at ${hms(first.ts)}` : '';
  const why = `${f.class}${f.rank ? ` on ${f.rank}` : ''}${f.phase ? ` in ${f.phase}` : ''}${at}: ${f.message}`;
  const later = order.slice(1).map((o) => {
    const gap =
      o.ts !== null && first.ts !== null && o.ts >= first.ts ? ` ${secs(o.ts - first.ts)} later` : '';
    return `${o.n.name}'s ${o.n.launch.failure?.class ?? 'failure'}${gap}`;
  });
  const alive = nodes
    .filter((n) => n.launch.outcome !== 'crashed')
    .map((n) => `${n.name} is left in ${n.launch.phase ?? 'its start'}`);
  const rest = [
    later.length
      ? `${later.join(', ')} ${later.length === 1 ? 'is its consequence' : 'are its consequences'}`
      : '',
    ...alive,
  ].filter(Boolean);
  return {
    name: first.n.name,
    nodeRank: first.n.identity.nodeRank,
    why,
    detail: `${nodeLabel({ name: first.n.name, nodeRank: first.n.identity.nodeRank, head: first.n.identity.head }, oneLog)} died first: ${why}${rest.length ? `; ${rest.join('; ')}` : ''}`,
  };
}

/**
 * In one log (Ray) the nodes' lines interleave as they happen, so a node that went silent while the others
 * went on in the same phase shows as such: its last stamped line (on the head's clock) is the earliest, by
 * more than this many seconds.
 */
const SILENT_GAP = 10;

/** When a node last logged, on the head's clock. */
function lastLineTs(n: MatchedNode): number | null {
  const ts = n.launch.endTs;
  return ts === null || n.launch.relativeTime ? null : ts - n.skew;
}

function silentOne(at: MatchedNode[]): { node: MatchedNode; why: string } | null {
  const entries = at
    .map((n) => ({ n, ts: lastLineTs(n) }))
    .filter((e): e is { n: MatchedNode; ts: number } => e.ts !== null)
    .sort((a, b) => a.ts - b.ts);
  if (entries.length < 2) return null;
  const quiet = entries[0]!;
  const gap = entries[1]!.ts - quiet.ts;
  if (gap < SILENT_GAP) return null;
  const on = entries.slice(1).map((e) => e.n.name);
  return {
    node: quiet.n,
    why: `it has logged nothing since ${hms(quiet.ts)} in ${quiet.n.launch.phase ?? 'its start'}, while ${on.join(', ')} went on for ${secs(gap)} and ${on.length === 1 ? 'waits' : 'wait'} for it`,
  };
}

/**
 * The node the others wait for: the lowest phase, then the one that reached it last; in one log (`oneLog`),
 * among nodes in the same phase, first the one that went silent while the others went on.
 */
export function slowest(nodes: MatchedNode[], oneLog = false): { node: MatchedNode; why: string } | null {
  const pending = nodes.filter(
    (n) => n.launch.outcome === 'in_progress' || effectiveRank(n) < phaseRank('ready'),
  );
  if (!pending.length) return null;
  const low = Math.min(...pending.map(effectiveRank));
  const at = pending.filter((n) => effectiveRank(n) === low);
  const others = nodes.filter((n) => !at.includes(n));
  if (at.length > 1 && oneLog) {
    // One log shows a node falling silent as it happens: a stronger sign than who entered the phase last.
    const quiet = silentOne(at);
    if (quiet) return quiet;
  }
  if (at.length === 1) {
    const n = at[0]!;
    const ahead = others.length
      ? `; ${others.map((o) => o.name).join(', ')} ${others.length === 1 ? 'is' : 'are'} further`
      : '';
    return { node: n, why: `the slowest node, in ${n.launch.phase ?? 'its start'}${ahead}` };
  }
  const entries = at.map((n) => ({ n, ts: phaseEntryTs(n) })).filter((e) => e.ts !== null) as Array<{
    n: MatchedNode;
    ts: number;
  }>;
  if (entries.length < 2) return null;
  entries.sort((a, b) => b.ts - a.ts);
  const last = entries[0]!;
  const gap = last.ts - entries[entries.length - 1]!.ts;
  if (gap < 2) return null;
  const waiting = entries.slice(1).map((e) => e.n.name);
  return {
    node: last.n,
    why: `it reached ${last.n.launch.phase} ${secs(gap)} after ${waiting.join(', ')}, which ${waiting.length === 1 ? 'waits' : 'wait'} for it there`,
  };
}

export function combineNodes(m: Extract<Match, { ok: true }>): MultiNodeReport {
  const head = m.nodes[m.head]!;
  const nodes = m.nodes.map(summary);
  const note = skewNote(m.nodes, head, m.oneLog === true);
  const base = {
    nnodes: head.identity.nnodes,
    head: head.name,
    skewNote: note,
    notes: m.notes,
    nodes,
  };
  const tail = note ? ` (${note})` : '';
  if (m.nodes.some((n) => n.launch.outcome === 'crashed')) {
    const c = crashed(m.nodes, m.oneLog === true, m.causeFirst ?? null);
    const failed = m.nodes.find((n) => n.name === c.name)!;
    return {
      ...base,
      outcome: 'crashed',
      phase: failed.launch.phase,
      culprit: { name: c.name, nodeRank: c.nodeRank, why: c.why },
      verdict: `crashed: ${c.detail}${tail}`,
    };
  }
  const hl = head.launch;
  if (
    hl.outcome === 'ready' ||
    hl.outcome === 'serving' ||
    hl.outcome === 'shutdown' ||
    hl.outcome === 'ended'
  ) {
    const workers = m.nodes
      .filter((n) => n !== head)
      .map((n) => `${n.name} ${workerDone(n.launch, null) ? 'ready' : (n.launch.phase ?? n.launch.outcome)}`);
    return {
      ...base,
      outcome: hl.outcome,
      phase: hl.phase,
      culprit: null,
      verdict: `${hl.outcome}: the head ${head.name} ${hl.outcome === 'serving' ? 'serves' : hl.outcome === 'ready' ? 'is ready' : hl.outcome === 'shutdown' ? 'shut down' : 'ended'}${workers.length ? `; ${workers.join(', ')}` : ''}${tail}`,
    };
  }
  const s = slowest(m.nodes, m.oneLog === true);
  const phase = s
    ? s.node.launch.phase
    : (m.nodes
        .map((n) => n.launch.phase)
        .sort((a, b) => (a ? phaseRank(a) : -1) - (b ? phaseRank(b) : -1))[0] ?? null);
  return {
    ...base,
    outcome: 'in_progress',
    phase,
    culprit: s ? { name: s.node.name, nodeRank: s.node.identity.nodeRank, why: s.why } : null,
    verdict: s
      ? `in ${phase}: ${nodeLabel({ name: s.node.name, nodeRank: s.node.identity.nodeRank, head: s.node.identity.head }, m.oneLog === true)} holds the launch back: ${s.why}${tail}`
      : `in ${phase ?? 'its start'} on every node${tail}`,
  };
}

/** The launch a multi-node reading is shown as: the head's launch with the overall outcome and phase. */
export function headLaunch(
  m: Extract<Match, { ok: true }>,
  r: MultiNodeReport,
): LaunchReport & { nodes: MultiNodeReport } {
  const head = m.nodes[m.head]!.launch;
  const culprit = r.culprit ? m.nodes.find((n) => n.name === r.culprit!.name)!.launch : null;
  return {
    ...head,
    outcome: r.outcome,
    phase: r.phase,
    // The failure shown is the root cause's, wherever it happened.
    failure: r.outcome === 'crashed' && culprit ? culprit.failure : head.failure,
    nodes: r,
  };
}
