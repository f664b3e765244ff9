/**
 * One log, several nodes: a launch run across nodes by Ray (vLLM's `--distributed-executor-backend ray`, its
 * default across nodes; SGLang with Ray) writes one log, the driver's, and Ray forwards every worker's output
 * into it (log_to_driver; ray/_private/worker.py print_worker_logs) behind a prefix:
 *
 * - `(<actor> pid=<pid>) ` for a worker on the driver's own node (Ray prints no ip when it is the driver's),
 * - `(<actor> pid=<pid>, ip=<node ip>) ` for a worker on another node,
 * - `(pid=<pid>[, ip=…]) ` before the actor has a name, `(raylet[, ip=…]) ` for the raylet's own lines;
 *
 * the driver's own lines have none (vLLM V0: the API server and the engine with the driver worker, rank 0) or
 * vLLM's own process prefix (V1: `(EngineCore_0 pid=…)`, which is the Ray driver). So the node of a line is
 * its `ip=`, and the driver's node is every line without one (lines/prefix.ts reads it, launch.ts RayNodes
 * keeps a builder per node). This turns those nodes into the same multi-node reading `--node` gives
 * (combine.ts): the head is the driver's node, since it alone serves; a node's clock is its own (each worker
 * stamps its lines before Ray forwards them), measured from the order the lines arrived in (launch.ts).
 *
 * A single-node launch under Ray (tensor parallel on one machine, the common case) forwards lines with no ip
 * at all, and stays a one-node launch. So does a log whose forwarded lines all come from one node that the
 * driver's node does not share GPUs with (a CPU-only Ray head, or an excerpt with no driver lines): the driver's
 * node counts only when it runs a worker itself, seen from a Ray actor of its own (a prefix without ip) or from
 * its own lines loading the model (vLLM V0's driver worker).
 */
import type { LaunchReport } from '../base/report-types.js';
import { combineNodes, type MultiNodeReport } from './combine.js';
import { type MatchedNode, SKEW_TOLERANCE } from './match.js';

/** The name the driver's node goes by: Ray prints no ip for it. */
export const DRIVER = 'driver';

export interface RayNodeReading {
  ip: string | null;
  actors: string[];
  lines: number;
  /** Seconds its clock runs ahead of the driver's node's, from arrival order; null when unmeasured. */
  skew: number | null;
  launch: LaunchReport;
}

/** A line in which Ray names the node of a worker that died or failed (launch.ts RayBlame). */
export interface RayBlameReading {
  ip: string;
  line: number;
  text: string;
  oom: boolean;
}

/** Whether the nodes read are a multi-node launch (see the header): two nodes with GPUs at work. */
export function isRayMultiNode(
  nodes: RayNodeReading[],
  localActors: boolean,
  blame: RayBlameReading[] = [],
): boolean {
  const named = new Set(blame.map((b) => b.ip));
  const ips = new Set([
    ...nodes.filter((n) => n.ip !== null && n.lines > 0).map((n) => n.ip),
    ...nodes.filter((n) => n.ip !== null && named.has(n.ip)).map((n) => n.ip),
    ...named,
  ]).size;
  if (ips >= 2) return true;
  if (ips < 1) return false;
  const driver = nodes.find((n) => n.ip === null);
  if (!driver || driver.lines === 0) return false;
  return (
    localActors ||
    driver.launch.phases.some((p) => p.phase === 'loading_weights' || p.phase === 'weights_loaded')
  );
}

/** A node's clock against the driver's, from the order its lines arrived in (launch.ts RayNode.skew). */
function skewOf(measured: number | null): { skew: number; aligned: boolean } {
  if (measured === null) return { skew: 0, aligned: false };
  return { skew: Math.abs(measured) < SKEW_TOLERANCE ? 0 : Math.round(measured), aligned: true };
}

const UP = new Set(['ready', 'serving', 'shutdown', 'ended']);

/**
 * A failure's rank as Ray's prefix gives it: the actor's name says little (every worker is a
 * `RayWorkerWrapper`), its pid tells them apart (`RayWorkerWrapper pid=5306`).
 */
function withPid(l: LaunchReport): LaunchReport {
  const f = l.failure;
  if (!f?.rank || /\d/.test(f.rank)) return l;
  let pid: string | null = null;
  for (const m of f.text.matchAll(/\(([A-Za-z][\w-]*) pid=(\d+)/g)) if (m[1] === f.rank) pid = m[2]!;
  return pid === null ? l : { ...l, failure: { ...f, rank: `${f.rank} pid=${pid}` } };
}

/** A node with no line of its own: what the driver's reading knows of the launch, none of its progress. */
function unseen(like: LaunchReport, line: number): LaunchReport {
  return {
    ...like,
    outcome: 'in_progress',
    phase: null,
    failure: null,
    progress: null,
    graphProgress: null,
    phases: [],
    ranks: [],
    pids: [],
    startLine: line,
    endLine: line,
    startTs: null,
    endTs: null,
    startTime: null,
    endTime: null,
    lastProgressTs: null,
    ready: null,
    shutdown: null,
  };
}

/**
 * The node of a worker the driver says died (or raised): crashed there, its failure the driver's line that
 * names it. Ray's memory monitor names an out-of-memory kill; an ActorDiedError lists the likely causes (the
 * OOM killer, `ray stop --force`, a segfault) without knowing which: killed.
 */
function diedThere(l: LaunchReport, b: RayBlameReading): LaunchReport {
  const message = b.oom
    ? `Ray's memory monitor killed its worker: the node ran low on memory (line ${b.line})`
    : `its Ray worker died or failed, as the driver's log says at line ${b.line}`;
  return {
    ...l,
    outcome: 'crashed',
    // When it died is not known: its last line is only when it was last heard of.
    endTs: null,
    failure: {
      class: b.oom ? 'oom' : 'killed',
      line: b.line,
      message,
      text: b.text,
      exceptionType: null,
      rank: null,
      phase: l.phase,
      time: null,
      hint: null,
      remedies: [],
      evidence: [{ line: b.line, text: b.text }],
    },
  };
}

/**
 * The launch as a multi-node one: `whole` is its reading from every line of the log, `nodes` each node's. The
 * outcome, phase and failure are the reading across nodes' (the root cause's failure, wherever it happened;
 * its line numbers are this log's as any other's); the rest stays the whole log's.
 */
export function rayLaunch(
  whole: LaunchReport,
  nodes: RayNodeReading[],
  blame: RayBlameReading[] = [],
): LaunchReport & { nodes: MultiNodeReport } {
  const driver = nodes.find((n) => n.ip === null)!;
  const blamed = whole.outcome === 'crashed' ? (blame.find((b) => b.ip !== null) ?? null) : null;
  const others = nodes.filter((n) => n !== driver && (n.lines > 0 || n.ip === blamed?.ip));
  // A node Ray names as the dead worker's that never logged a line of its own still took part.
  if (blamed && !others.some((n) => n.ip === blamed.ip))
    others.push({
      ip: blamed.ip,
      actors: [],
      lines: 0,
      skew: null,
      launch: unseen(driver.launch, blamed.line),
    });
  let told = false;
  const placed = [driver, ...others].map((n0) => {
    const n = { ...n0, launch: withPid(n0.launch) };
    if (!blamed || n.ip !== blamed.ip || n.launch.outcome === 'crashed') return n;
    told = true;
    return { ...n, launch: diedThere(n.launch, blamed) };
  });
  // The driver's reading stands for the launch's end: a shutdown, a line of another launch after it.
  const head: LaunchReport = {
    ...driver.launch,
    outcome:
      driver.launch.outcome === 'crashed'
        ? 'crashed'
        : whole.outcome === 'shutdown' || whole.outcome === 'ended'
          ? whole.outcome
          : driver.launch.outcome,
  };
  const up = UP.has(head.outcome);
  const matched: MatchedNode[] = placed.map((n, i) => {
    // A worker has no ready line of its own: the driver is up only once every worker's init returned.
    const l =
      i === 0
        ? head
        : up && n.launch.outcome === 'in_progress'
          ? { ...n.launch, outcome: 'ready' as const }
          : n.launch;
    const { skew, aligned } = i === 0 ? { skew: 0, aligned: true } : skewOf(n.skew);
    const actors = n.actors.length ? ` (${n.actors.join(', ')})` : '';
    return {
      name: n.ip ?? DRIVER,
      index: 0,
      launches: 1,
      launch: l,
      identity: {
        nnodes: placed.length,
        nodeRank: i,
        addr: null,
        head: i === 0,
        via: i === 0 ? `ray driver${actors}` : `ray ip=${n.ip}${actors}`,
      },
      skew,
      aligned,
    };
  });
  const across = {
    ...combineNodes({
      ok: true,
      head: 0,
      nodes: matched,
      notes: [],
      oneLog: true,
      ...(blamed ? { causeFirst: blamed.ip } : {}),
    }),
    layout: 'ray' as const,
  };
  const culprit = across.culprit ? matched.find((n) => n.name === across.culprit!.name)!.launch : null;
  return {
    ...whole,
    outcome: whole.outcome === 'ended' && across.outcome !== 'crashed' ? 'ended' : across.outcome,
    phase: across.phase ?? whole.phase,
    // The failure shown is the root cause's, unless all its node has is the driver's word for it: then the
    // driver's own failure, which quotes it.
    failure:
      across.outcome === 'crashed' && culprit?.failure && !(told && across.culprit?.name === blamed?.ip)
        ? culprit.failure
        : whole.failure,
    nodes: across,
  };
}
