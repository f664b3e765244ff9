/** A live session on a container (`docker://NAME`): its log followed through docker, and the container's probes. */
import { UsageError } from '../errors.js';
import { DockerError } from '../sources/docker/cli.js';
import { DockerFollower } from '../sources/docker/follow.js';
import { probeContainer } from '../sources/docker/inspect.js';
import { parseDockerTarget } from '../sources/docker/target.js';
import { containerProbes } from './container-probes.js';
import { type LiveOptions, nvidiaSmiOnPath } from './live.js';

/**
 * What `watch`, `wait` and `serve` need to follow a container: checked first (a container that does not exist or a
 * daemon that does not answer is one line, not a wait), then the follower and the probes. The GPUs are this
 * machine's, for a container on this machine's daemon only.
 */
export async function dockerLive(
  log: string,
  noGpu: boolean,
  opts: { mustExist?: boolean } = {},
): Promise<Pick<LiveOptions, 'source' | 'localProbes' | 'probes' | 'gpu' | 'gpuAbsent'>> {
  let t: ReturnType<typeof parseDockerTarget>;
  try {
    t = parseDockerTarget(log);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (opts.mustExist !== false) {
    try {
      await probeContainer(t, { top: false });
    } catch (err) {
      if (err instanceof DockerError) throw new UsageError(err.message);
      throw err;
    }
  }
  const gpu = noGpu || t.host !== null ? false : nvidiaSmiOnPath();
  const gpuAbsent = noGpu
    ? undefined
    : t.host !== null
      ? `the GPUs of ${t.host} are not probed for a container there`
      : gpu
        ? undefined
        : 'nvidia-smi not found';
  return { source: new DockerFollower(t), localProbes: false, probes: containerProbes(t), gpu, gpuAbsent };
}
