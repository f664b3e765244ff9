/**
 * nvidia-smi on the remote host: the local GPU probe with an exec that runs its argv through the SSH
 * session (quoted by the session, never joined into shell text). probeGpu's own deadline still holds.
 */
import type { GpuObservation } from '../../core/verdict/observations.js';
import { probeGpu } from '../gpu.js';
import type { RemoteHost } from '../types.js';

/** An exec for probeGpu; `prefix` goes before the argv (tests: `env PATH=...`). */
export function sshExec(session: RemoteHost, prefix: readonly string[] = [], timeoutMs = 2000) {
  return async (argv: string[]): Promise<string> => {
    const res = await session.run([...prefix, ...argv], timeoutMs, 'gpu');
    if (res.code !== 0) {
      const err = session.classify(res, argv[0] ?? '');
      // nvidia-smi prints its own failures on stdout.
      const said = res.stdout.toString('utf8').trim().split('\n')[0] ?? '';
      throw new Error(said && res.code !== 255 ? `nvidia-smi failed: ${said}` : (err?.message ?? 'failed'));
    }
    return res.stdout.toString('utf8');
  };
}

/** True when nvidia-smi is on the remote PATH (asked once per session, before probing). */
export async function remoteHasNvidiaSmi(session: RemoteHost, prefix: readonly string[] = []) {
  // No ssh client, no connection yet, or slow: no GPU probe (the follower reports connection errors itself).
  const res = await session
    .run([...prefix, 'sh', '-c', 'command -v nvidia-smi >/dev/null 2>&1'], 5000, 'gpu')
    .catch(() => null);
  return res?.code === 0;
}

export function probeRemoteGpu(session: RemoteHost, prefix: readonly string[] = []): Promise<GpuObservation> {
  return probeGpu({ exec: sshExec(session, prefix), timeoutMs: 4000 });
}
