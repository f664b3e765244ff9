/**
 * The container probe: `docker inspect` (state, exit, OOM kill, restarts, health, published ports, memory limit) and
 * `docker top` (its processes as host pids, which tie the GPUs' processes to it). It runs beside the process probe:
 * a server in its own PID namespace, or on another machine's daemon, is seen through docker.
 */
import { type ContainerObservation, containerFromInspect, missingContainer } from '../core/container.js';
import type { ProcessObservation } from '../core/observations.js';
import { classifyDocker, DockerError, runDocker } from '../sources/docker/cli.js';
import type { DockerTarget } from '../sources/docker/target.js';
import { probeGpu } from './gpu.js';
import { probeHttp } from './http.js';
import { probeProcess } from './process.js';
import type { LiveProbes } from './types.js';

/**
 * The container now. A container that does not exist is an observation (state null), not an error, once it has
 * existed (`existed`): removed under a watch is news. Docker itself failing (no daemon, no CLI) throws a DockerError.
 */
export async function probeContainer(
  t: DockerTarget,
  opts: { existed?: boolean; top?: boolean } = {},
): Promise<ContainerObservation> {
  const res = await runDocker(t, ['inspect', '--type', 'container', '--', t.name], 10_000);
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
    async findPid() {
      last ??= await probeContainer(t, { existed: true });
      // A container that is not running still answers (as gone): the session then has a process to judge.
      return last.pid ?? (last.state === null ? null : 0);
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
