/** A live session on a remote log: the SSH follower and the probes that run on that host, over one connection. */

import { UsageError } from '../errors.js';
import { remoteProbes } from '../probes/remote/index.js';
import { remoteHasNvidiaSmi } from '../probes/remote/remote-gpu.js';
import { SshFollower } from '../sources/ssh/follow.js';
import { type SshOptions, SshSession } from '../sources/ssh/session.js';
import { parseTarget } from '../sources/target.js';
import type { LiveOptions } from './live.js';

/** Follows a log on another machine through the system ssh client. */
function sshSource(
  target: string,
  ssh: SshOptions,
  shared?: SshSession,
): { follower: SshFollower; session: SshSession } {
  const t = parseTarget(target);
  if (t.kind !== 'ssh') throw new UsageError(`${target}: not a remote log`);
  try {
    const session = shared ?? new SshSession(t, ssh);
    // Bytes stream continuously through `tail -f`; the stat poll only detects truncation and rotation.
    return { follower: new SshFollower(session, t.path, { pollMs: 2000 }), session };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * What a live session on a remote log needs: the SSH follower, and probes that all run on that host over
 * the same connection (`--pid` and `--url` name the process and address there). nvidia-smi is asked for
 * there once (this also opens the connection). Shared by `watch`/`wait` and `serve`; a fleet passes the
 * host's `shared` session (ssh-hosts.ts), which the caller then closes, not the target.
 */
export async function remoteLive(
  log: string,
  ssh: SshOptions,
  noGpu: boolean,
  shared?: SshSession,
): Promise<{
  opts: Pick<LiveOptions, 'source' | 'localProbes' | 'probes' | 'gpu' | 'gpuAbsent'>;
  session: SshSession;
}> {
  const { follower, session } = sshSource(log, ssh, shared);
  const gpu = noGpu ? false : await remoteHasNvidiaSmi(session);
  const t = parseTarget(log);
  const gpuAbsent = noGpu || gpu ? undefined : `nvidia-smi not found on ${t.kind === 'ssh' ? t.host : log}`;
  return {
    opts: { source: follower, localProbes: false, probes: remoteProbes(session), gpu, gpuAbsent },
    session,
  };
}
