import type { ServerMatch } from '../probes/server-identity.js';
/** A live session on a container (`docker://NAME`): its log followed through docker, and the container's probes. */

import type { ContainerObservation } from '../core/verdict/container.js';
import type { ProcessObservation } from '../core/verdict/observations.js';
import { UsageError } from '../errors.js';
import { probeGpu } from '../probes/gpu.js';
import { probeHttp } from '../probes/http.js';
import { probeProcess } from '../probes/process.js';
import type { LiveProbes } from '../probes/types.js';
import { DockerError } from '../sources/docker/cli.js';
import { DockerFollower } from '../sources/docker/follow.js';
import { probeContainer } from '../sources/docker/inspect.js';
import { type DockerSsh, type DockerTarget, parseDockerTarget } from '../sources/docker/target.js';
import { type LiveOptions, nvidiaSmiOnPath } from './live.js';

/**
 * What `watch`, `wait` and `serve` need to follow a container: checked first (a container that does not exist or a
 * daemon that does not answer is one line, not a wait), then the follower and the probes. The GPUs are this
 * machine's, for a container on this machine's daemon only.
 */
export async function dockerLive(
  log: string,
  noGpu: boolean,
  opts: { mustExist?: boolean; ssh?: DockerSsh } = {},
): Promise<Pick<LiveOptions, 'source' | 'localProbes' | 'probes' | 'gpu' | 'gpuAbsent'>> {
  let t: ReturnType<typeof parseDockerTarget>;
  try {
    t = { ...parseDockerTarget(log), ssh: opts.ssh };
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

/**
 * A live session's probes for a container: the container itself (inspect, top); the process as docker knows it (the
 * container's first process, its CPU time and tree read from /proc when the daemon is this machine's), whatever pid
 * the session holds, since a restart gives the server a new one; HTTP at the published port (the session maps it);
 * the GPUs of this machine, whose processes the container's host pids claim.
 */
export function containerProbes(
  t: DockerTarget,
): LiveProbes & { container(): Promise<ContainerObservation> } {
  let last: ContainerObservation | null = null;
  const local = t.host === null;
  return {
    async container() {
      last = await probeContainer(t, { existed: true });
      return last;
    },
    async findPid(): Promise<ServerMatch> {
      last ??= await probeContainer(t, { existed: true });
      // The container's first process is the launch's by construction (its log is this container's); one that is
      // not running still answers (as gone, pid 0): the session then has a process to judge.
      const pid = last.pid ?? (last.state === null ? null : 0);
      if (pid === null) return { pid: null, why: `container ${t.name} not found`, candidates: [] };
      return { pid, tiedBy: `the first process of container ${t.name} (docker inspect)` };
    },
    async process(): Promise<ProcessObservation> {
      let c = last ?? (await probeContainer(t, { existed: true }));
      let running = c.state === 'running' || c.state === 'paused';
      const o = running && local && c.pid ? await probeProcess(c.pid) : null;
      if (o && !o.alive) {
        // Gone from /proc before docker noticed: docker's word (exit code, OOM kill, restart) comes a moment later.
        c = last = await probeContainer(t, { existed: true, top: false });
        running = c.state === 'running' || c.state === 'paused';
      }
      if (o?.alive) {
        // The container's processes as `docker top` lists them: the GPUs' processes are tied to it through these.
        const known = new Set([o.pid, ...o.children.map((x) => x.pid)]);
        const extra = c.pids.filter((p) => !known.has(p)).map((p) => ({ pid: p, name: '(container)' }));
        return { ...o, children: [...o.children, ...extra] };
      }
      return {
        pid: c.pid ?? 0,
        alive: running || c.state === 'restarting',
        exitCode: running ? null : c.exitCode,
        signal: null,
        cmdline: null,
        cpuSeconds: null,
        children: c.pids.filter((p) => p !== c.pid).map((p) => ({ pid: p, name: '(container)' })),
        listening: [],
        at: c.at,
      };
    },
    http: (url, engine) => probeHttp(url, engine),
    gpu: () => probeGpu(),
  };
}
