/**
 * The container probe: `docker inspect` (state, exit, OOM kill, restarts, health, published ports, memory limit) and
 * `docker top` (its processes as host pids, which tie the GPUs' processes to it). It runs beside the process probe:
 * a server in its own PID namespace, or on another machine's daemon, is seen through docker.
 */
import {
  type ContainerObservation,
  containerFromInspect,
  missingContainer,
} from '../../core/verdict/container.js';
import { classifyDocker, DockerError, runDocker } from './cli.js';
import type { DockerTarget } from './target.js';

/**
 * The container now. A container that does not exist is an observation (state null), not an error, once it has
 * existed (`existed`): removed under a watch is news. Docker itself failing (no daemon, no CLI) throws a DockerError.
 */
export async function probeContainer(
  t: DockerTarget,
  opts: { existed?: boolean; top?: boolean } = {},
): Promise<ContainerObservation> {
  // Through ssh the docker CLI connects anew each time (and gives ssh 30 s to do it).
  const res = await runDocker(t, ['inspect', '--type', 'container', '--', t.name], t.host ? 40_000 : 10_000);
  const at = Date.now() / 1000;
  const err = classifyDocker(t, res);
  if (err) {
    if (err.kind === 'no-container' && opts.existed)
      return { ...missingContainer(t.name, at), daemonHost: t.host };
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.stdout);
  } catch {
    throw new DockerError('failed', `docker://${t.name}: docker inspect gave no JSON`);
  }
  const j = Array.isArray(parsed) ? parsed[0] : null;
  if (!j || typeof j !== 'object') return missingContainer(t.name, at);
  const c = { ...containerFromInspect(t.name, j as Record<string, unknown>, at), daemonHost: t.host };
  if (opts.top !== false && c.state === 'running') c.pids = await topPids(t);
  return c;
}

/** The container's processes as the host numbers them (`docker top NAME -o pid`); empty when docker cannot say. */
async function topPids(t: DockerTarget): Promise<number[]> {
  const res = await runDocker(t, ['top', '--', t.name, '-o', 'pid'], 1_500);
  if (res.code !== 0) return [];
  return res.stdout
    .split('\n')
    .slice(1)
    .map((l) => Number(l.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}
