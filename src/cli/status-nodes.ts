/** `status --node A --node B` and `runs --node …`: one launch read from every node's log. */

import { loadServeConfig } from '../app/fleet-config.js';
import {
  allLaunches,
  checkNodeTargets,
  latestLaunch,
  multiReport,
  nodesVerdict,
  readNodes,
  recordMultiLaunch,
} from '../app/multinode.js';
import { isRemote } from '../app/read-log.js';
import { keepVerdict } from '../app/recording.js';
import type { FlagSpec } from './args.js';
import { UsageError } from './errors.js';
import { formatRuns, formatStatus } from './format.js';
import { formatNodes, nodesLabel } from './format-nodes.js';
import { engineFlag, fifoNote, sshFlags } from './read.js';
import { withRecording } from './recording.js';
import { STATUS_EXIT, writeRunsJson } from './status-exit.js';
import { pidFlag, urlFlag } from './status-live.js';
import { colorWanted, makeStyle } from './style.js';

/** The `--node`, `--config`/`--target` flags these commands take besides their own. */
export const NODE_FLAGS: Record<string, FlagSpec> = {
  node: { type: 'string', multi: true },
  config: { type: 'string' },
  target: { type: 'string' },
};

/** `--config F --target NAME`: the nodes of a `[[target]]` with `nodes = [...]` in firedup.toml. */
function targetNodes(flags: Record<string, unknown>, cmd: string): string[] | null {
  const { config, target } = flags;
  if (config === undefined && target === undefined) return null;
  if (typeof config !== 'string' || typeof target !== 'string')
    throw new UsageError(
      `${cmd}: --config FILE and --target NAME go together (a [[target]] with nodes = [...])`,
    );
  const cfg = loadServeConfig(config);
  const t = cfg.nodeTargets.find((x) => x.name === target);
  if (t) return t.nodes;
  const one = cfg.targets.find((x) => x.name === target);
  if (one)
    throw new UsageError(
      `${cmd}: target ${target} in ${config} is one log (${one.log}): firedup ${cmd} ${one.log}`,
    );
  const names = [...cfg.nodeTargets, ...cfg.targets].map((x) => x.name).filter(Boolean);
  throw new UsageError(
    `${cmd}: no target named ${target} in ${config}${names.length ? ` (there: ${names.join(', ')})` : ''}`,
  );
}

/**
 * The nodes' logs (`--node` repeated, or a firedup.toml target's `nodes`), or null when the command reads one
 * log. A log named besides them is a mistake.
 */
export function nodeFlag(
  flags: Record<string, unknown>,
  positionals: string[],
  cmd: string,
): string[] | null {
  const given = flags.node as string[] | undefined;
  const fromFile = targetNodes(flags, cmd);
  if (given?.length && fromFile) throw new UsageError(`${cmd}: --node or --target, not both`);
  const nodes = given?.length ? given : fromFile;
  if (!nodes?.length) return null;
  if (positionals.length)
    throw new UsageError(`${cmd}: name every node's log with --node (got ${positionals.join(' ')} besides)`);
  return checkNodeTargets(nodes, cmd);
}

export async function multiStatus(nodes: string[], flags: Record<string, unknown>): Promise<number> {
  // --url and --pid probe this machine: they can only describe a local head node.
  const probes = { url: urlFlag(flags.url), pid: pidFlag(flags.pid) };
  const { report, launch, live } = await withRecording(flags, async (ledger) => {
    const reads = await readNodes(
      nodes,
      { engine: engineFlag(flags.engine), onWaitingForWriter: fifoNote },
      sshFlags(flags),
    );
    const { match, launch } = latestLaunch(reads);
    if (isRemote(reads[match.head]!.target) && (probes.url !== undefined || probes.pid !== undefined))
      throw new UsageError('status: --url and --pid are not supported for a remote head node yet');
    const live = await nodesVerdict(reads, match, launch.nodes, probes);
    const head = reads[match.head]!;
    const report = multiReport(reads, match.head, [
      ...head.res.report.launches.slice(0, match.nodes[match.head]!.index),
      launch,
    ]);
    const rec = await recordMultiLaunch(ledger, head.target, launch);
    await keepVerdict(ledger, head.target, report, rec ? [rec] : undefined, live);
    return { report, launch, live };
  });
  const m = launch.nodes;
  if (flags.json)
    process.stdout.write(`${JSON.stringify({ ...launch, launchCount: report.launches.length, live })}\n`);
  else {
    const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
    process.stdout.write(formatStatus(nodesLabel(m), report, st, live));
    process.stdout.write(formatNodes(m, st, live?.nodes ?? null));
  }
  if (live?.state === 'stalled') return 4;
  if (live?.state === 'dead') return 5;
  return STATUS_EXIT[launch.outcome];
}

export async function multiRuns(nodes: string[], flags: Record<string, unknown>): Promise<number> {
  const { report, last } = await withRecording(flags, async (ledger) => {
    const reads = await readNodes(
      nodes,
      { engine: engineFlag(flags.engine), onWaitingForWriter: fifoNote },
      sshFlags(flags),
    );
    const { match, launch } = latestLaunch(reads);
    const report = multiReport(reads, match.head, allLaunches(reads));
    await recordMultiLaunch(ledger, reads[match.head]!.target, launch);
    return { report, last: launch };
  });
  if (flags.json) {
    await writeRunsJson(report);
    return 0;
  }
  const st = makeStyle(colorWanted(process.stdout, Boolean(flags['no-color'])));
  process.stdout.write(formatRuns(nodesLabel(last.nodes), report, st));
  process.stdout.write(formatNodes(last.nodes, st));
  return 0;
}
