/**
 * Reading a multi-node launch once (`status --node A --node B`, `runs --node …`): every node's log (local or
 * over ssh, read side by side), matched into one launch by src/core/multinode, judged per node and across
 * nodes, and recorded in the ledger as one launch (the head's) that carries its nodes.
 */

import type { LaunchRecord } from '../core/campaign/records.js';
import { combineNodes, headLaunch, type MultiNodeReport } from '../core/multinode/combine.js';
import { combineVerdicts, type NodeVerdict } from '../core/multinode/live.js';
import { type Match, matchLatest, matchTo, type NodeLog } from '../core/multinode/match.js';
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import type { Verdict } from '../core/verdict/verdict.js';
import { FiredupError, UsageError } from '../errors.js';
import type { ReadResult } from '../sources/file.js';
import type { SshOptions } from '../sources/ssh/session.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { recordFromReport } from '../store/record.js';
import { LedgerError } from '../store/types.js';
import { explainNoLaunch, type ReadLogOptions, readLog } from './read-log.js';
import { logIdentity } from './recording.js';
import { statusVerdict } from './status-verdict.js';

export interface NodeRead {
  target: string;
  res: ReadResult;
}

export type MultiLaunch = LaunchReport & { nodes: MultiNodeReport };

/** At most this many nodes per launch: a typo'd glob should not open a hundred ssh connections. */
export const MAX_NODES = 64;

/** The node targets as given, checked: at least two, none twice. */
export function checkNodeTargets(targets: string[], cmd: string): string[] {
  if (targets.length < 2)
    throw new UsageError(
      `${cmd}: --node names one node's log; name every node of the launch (--node A --node B)`,
    );
  if (targets.length > MAX_NODES)
    throw new UsageError(`${cmd}: ${targets.length} nodes; at most ${MAX_NODES}`);
  const seen = new Set<string>();
  for (const t of targets) {
    if (t === '-')
      throw new UsageError(`${cmd}: --node -: a node's log must be a file or host:path, not stdin`);
    if (seen.has(t)) throw new UsageError(`${cmd}: --node ${t} given twice`);
    seen.add(t);
  }
  return targets;
}

/** Reads every node's log side by side; a node that cannot be read is one line naming it. */
export async function readNodes(
  targets: string[],
  opts: ReadLogOptions,
  ssh: SshOptions,
): Promise<NodeRead[]> {
  const reads = await Promise.allSettled(targets.map((t) => readLog(t, opts, ssh, null)));
  return reads.map((r, i) => {
    const target = targets[i]!;
    if (r.status === 'rejected') {
      const err = r.reason as Error;
      if (!(err instanceof FiredupError)) throw err;
      const msg = err.message.includes(target) ? err.message : `${target}: ${err.message}`;
      throw new UsageError(`--node ${msg}`);
    }
    if (!r.value.report.launches.length) throw new UsageError(`--node ${explainNoLaunch(target, r.value)}`);
    return { target, res: r.value };
  });
}

function nodeLogs(reads: NodeRead[]): NodeLog[] {
  return reads.map((r) => ({ name: r.target, engine: r.res.report.engine, launches: r.res.report.launches }));
}

function ok(m: Match): Extract<Match, { ok: true }> {
  if (!m.ok) throw new UsageError(m.error);
  return m;
}

/** The latest multi-node launch: the head's latest launch and each node's launch that matches it. */
export function latestLaunch(reads: NodeRead[]): {
  match: Extract<Match, { ok: true }>;
  launch: MultiLaunch;
} {
  const match = ok(matchLatest(nodeLogs(reads)));
  return { match, launch: headLaunch(match, combineNodes(match)) };
}

/**
 * Every launch of the head's log, each with the nodes that match it; a head launch no other node matches (an
 * attempt the other nodes never joined) is listed as the head's alone. The latest must match: otherwise the
 * logs are of different launches, said in one line.
 */
export function allLaunches(reads: NodeRead[]): LaunchReport[] {
  const { match } = latestLaunch(reads);
  const logs = nodeLogs(reads);
  const head = logs[match.head]!;
  return head.launches.map((l, i) => {
    const m = matchTo(logs, match.head, i);
    return m.ok ? headLaunch(m, combineNodes(m)) : l;
  });
}

/** One AnalysisReport for the launch: the head's, its launches replaced by the multi-node ones. */
export function multiReport(reads: NodeRead[], head: number, launches: LaunchReport[]): AnalysisReport {
  const r = reads[head]!.res.report;
  return { ...r, launches };
}

/**
 * `status`'s verdict now for each node (its file's age, and for the head the probes asked for), and across
 * them. Null when no node's file has an age (never: --node takes files and ssh targets).
 */
export async function nodesVerdict(
  reads: NodeRead[],
  match: Extract<Match, { ok: true }>,
  across: MultiNodeReport,
  headProbes: { url?: string; pid?: number },
): Promise<(Verdict & { nodes: NodeVerdict[] }) | null> {
  const verdicts = await Promise.all(
    match.nodes.map((n, i) => {
      const r = reads[i]!.res;
      // The node's matched launch is its latest as far as the verdict is concerned.
      const report = { ...r.report, launches: r.report.launches.slice(0, n.index + 1) };
      return statusVerdict(report, r.mtimeMs, i === match.head ? headProbes : {});
    }),
  );
  if (verdicts.every((v) => v === null)) return null;
  return combineVerdicts(
    match.nodes.map((n, i) => ({ name: n.name, head: i === match.head, verdict: verdicts[i] ?? null })),
    across,
  );
}

/**
 * Records the multi-node launch as one launch: the head's record, its report carrying the nodes. Only the head's
 * place is recorded; a worker's log read on its own later is a launch of its own. A busy ledger loses the
 * record, not the reading.
 */
export async function recordMultiLaunch(
  ledger: LedgerStore | null,
  headTarget: string,
  launch: MultiLaunch,
): Promise<LaunchRecord | null> {
  const where = logIdentity(headTarget);
  if (!ledger || !where) return null;
  try {
    const rec = recordFromReport(launch, {
      host: where.host,
      path: where.path,
      fileId: null,
      now: Date.now() / 1000,
    });
    return (await ledger.upsertLaunches([rec]))[0] ?? null;
  } catch (err) {
    if (err instanceof LedgerError) throw new UsageError(err.message);
    throw err;
  }
}
