/** `watch`/`wait --node A --node B`: one live session per node's log, joined (app/multinode-live.ts). */
import { type LiveOptions, LiveSession } from '../app/live.js';
import { checkNodeTargets } from '../app/multinode.js';
import { MultiNodeLive, recordJoined } from '../app/multinode-live.js';
import { isRemote } from '../app/read-log.js';
import { remoteLive } from '../app/remote-live.js';
import type { Verdict } from '../core/verdict/verdict.js';
import { parseTarget } from '../sources/target.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { UsageError } from './errors.js';
import { sshFlags } from './read.js';

/** Where a remote node's host cannot be reached, say so before watching: one line naming the node. */
async function reachable(
  target: string,
  session: Awaited<ReturnType<typeof remoteLive>>['session'],
): Promise<void> {
  const t = parseTarget(target);
  const res = await session.run(['true'], 15_000);
  const err = session.classify(res, t.kind === 'docker' ? target : t.path);
  if (err)
    throw new UsageError(
      `--node ${err.message.includes(target) ? err.message : `${target}: ${err.message}`}`,
    );
}

/**
 * The joined session of every node. `--url` and `--pid` name one server, which for several nodes would be
 * ambiguous: each node's process and port are found from its own log and host.
 */
export async function nodesSession(
  nodes: string[],
  flags: Record<string, unknown>,
  checkLocal: (log: string) => void,
  base: Omit<LiveOptions, 'log'>,
  cmd: string,
): Promise<MultiNodeLive> {
  checkNodeTargets(nodes, cmd);
  if (flags.url !== undefined || flags.pid !== undefined)
    throw new UsageError(
      `${cmd}: --url and --pid name one server; with --node each node's is found from its log`,
    );
  const sessions = await Promise.all(
    nodes.map(async (log) => {
      if (!isRemote(log)) {
        checkLocal(log);
        return { name: log, session: new LiveSession({ ...base, log }) };
      }
      const ssh = await remoteLive(log, sshFlags(flags), Boolean(flags['no-gpu']));
      await reachable(log, ssh.session);
      return {
        name: log,
        session: new LiveSession({ ...base, ...ssh.opts, log, gpu: flags['no-gpu'] ? false : ssh.opts.gpu }),
      };
    }),
  );
  return new MultiNodeLive(sessions);
}

/** Keeps the joined launch and its verdict in the ledger (one launch, the head's, with its nodes). */
export async function recordNodes(
  ledger: LedgerStore | null,
  live: MultiNodeLive,
  v: Verdict | null,
): Promise<void> {
  await recordJoined(ledger, live, v);
}
