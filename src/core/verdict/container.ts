/**
 * A container as evidence (`docker inspect`, `docker top`): its state, exit, OOM kill, restarts and health, as plain
 * data; and how that changes a live verdict read from the log alone. The container's facts answer "is it dead,
 * and why" where the log is silent: a server killed by the cgroup's memory limit writes no line about it.
 */

import type { LaunchReport } from '../base/report-types.js';
import type { Verdict, VerdictEvidence } from '../base/verdict-types.js';
import type { ContainerObservation, ContainerState } from './observations.js';

export type { ContainerObservation, ContainerState } from './observations.js';

const ZERO_TIME = /^0001-01-01/;

/** One container of `docker inspect`'s JSON array, as an observation. */
export function containerFromInspect(name: string, j: Record<string, any>, at: number): ContainerObservation {
  const s = j.State ?? {};
  const hc = j.HostConfig ?? {};
  const health = s.Health
    ? (() => {
        const log: Array<{ ExitCode?: number; Output?: string }> = s.Health.Log ?? [];
        const last = log[log.length - 1];
        return {
          status: String(s.Health.Status ?? ''),
          failingStreak: Number(s.Health.FailingStreak ?? 0),
          lastOutput: last?.Output?.trim() ? last.Output.trim().slice(0, 400) : null,
          lastExitCode: typeof last?.ExitCode === 'number' ? last.ExitCode : null,
        };
      })()
    : null;
  const ports: ContainerObservation['ports'] = [];
  for (const [key, binds] of Object.entries((j.NetworkSettings?.Ports ?? {}) as Record<string, any>)) {
    const [port, proto] = key.split('/');
    for (const b of (binds as Array<{ HostIp?: string; HostPort?: string }> | null) ?? []) {
      const hp = Number(b.HostPort);
      if (Number.isInteger(hp) && hp > 0)
        ports.push({
          containerPort: Number(port),
          proto: proto ?? 'tcp',
          hostIp: b.HostIp ?? '',
          hostPort: hp,
        });
    }
  }
  const time = (t: unknown) => (typeof t === 'string' && t !== '' && !ZERO_TIME.test(t) ? t : null);
  return {
    name,
    id: String(j.Id ?? ''),
    state: (s.Status as ContainerState) ?? null,
    exitCode: typeof s.ExitCode === 'number' ? s.ExitCode : null,
    oomKilled: s.OOMKilled === true,
    error: s.Error ? String(s.Error) : null,
    startedAt: time(s.StartedAt),
    finishedAt: time(s.FinishedAt),
    restartCount: Number(j.RestartCount ?? 0),
    restartPolicy: {
      name: hc.RestartPolicy?.Name || 'no',
      maxRetries: Number(hc.RestartPolicy?.MaximumRetryCount ?? 0),
    },
    health,
    memoryLimit: Number(hc.Memory) > 0 ? Number(hc.Memory) : null,
    ports,
    pid: Number(s.Pid) > 0 ? Number(s.Pid) : null,
    pids: [],
    image: typeof j.Config?.Image === 'string' ? j.Config.Image : null,
    at,
  };
}

/** A container that does not exist (removed): still an observation, its absence being the news. */
export function missingContainer(name: string, at: number): ContainerObservation {
  return {
    name,
    id: '',
    state: null,
    exitCode: null,
    oomKilled: false,
    error: null,
    startedAt: null,
    finishedAt: null,
    restartCount: 0,
    restartPolicy: { name: 'no', maxRetries: 0 },
    health: null,
    memoryLimit: null,
    ports: [],
    pid: null,
    pids: [],
    image: null,
    at,
  };
}

function mib(bytes: number): string {
  return bytes >= 1 << 30 && bytes % (1 << 30) === 0
    ? `${bytes / (1 << 30)} GiB`
    : `${Math.round(bytes / (1 << 20))} MiB`;
}

const SIGNALS: Record<number, string> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  6: 'SIGABRT',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  15: 'SIGTERM',
};

/** `exit code 137 (SIGKILL)`. */
function exitText(code: number | null): string {
  if (code === null) return 'no exit code';
  const sig = code > 128 ? SIGNALS[code - 128] : undefined;
  return `exit code ${code}${sig ? ` (${sig})` : ''}`;
}

function policyText(c: ContainerObservation): string {
  const p = c.restartPolicy;
  return p.name === 'on-failure' && p.maxRetries > 0 ? `on-failure:${p.maxRetries}` : p.name;
}

/** The container's facts, one line each, for a verdict's evidence. */
export function containerEvidence(c: ContainerObservation): VerdictEvidence[] {
  const out: VerdictEvidence[] = [];
  const who = `container ${c.name}`;
  if (c.state === null) return [{ source: 'process', text: `${who} does not exist (removed?)` }];
  let s = `${who} ${c.state}`;
  if (c.state === 'running' || c.state === 'paused') {
    s += `${c.pid ? `, pid ${c.pid} on the host` : ''}${c.pids.length > 1 ? `, ${c.pids.length} processes` : ''}${c.startedAt ? `, started ${c.startedAt.slice(0, 19)}Z` : ''}`;
  } else if (c.state === 'exited' || c.state === 'dead') {
    s += ` with ${exitText(c.exitCode)}${c.oomKilled ? ', OOMKilled' : ''}${c.finishedAt ? ` at ${c.finishedAt.slice(0, 19)}Z` : ''}`;
  }
  if (c.error) s += `; docker: ${c.error}`;
  out.push({ source: 'process', text: s });
  if (c.restartCount > 0 || c.restartPolicy.name !== 'no')
    out.push({
      source: 'process',
      text: `restarted ${c.restartCount} time${c.restartCount === 1 ? '' : 's'} (restart policy ${policyText(c)})`,
    });
  if (c.health)
    out.push({
      source: 'process',
      text: `health ${c.health.status}${c.health.failingStreak ? ` (${c.health.failingStreak} failing checks in a row)` : ''}${c.health.lastOutput ? `: last check said "${c.health.lastOutput.replace(/\s+/g, ' ').slice(0, 160)}"` : ''}`,
    });
  if (c.ports.length)
    out.push({
      source: 'process',
      text: `published ${c.ports.map((p) => `${p.containerPort}/${p.proto} → ${p.hostIp || '0.0.0.0'}:${p.hostPort}`).join(', ')}`,
    });
  return out;
}

/**
 * The verdict with the container's facts joined: evidence always; and where the container knows more than the log
 * (an OOM kill by the cgroup, a kill, a stop, a pause, a restart, a failing health check), the state and why.
 */
export function containerVerdict(
  v: Verdict,
  c: ContainerObservation | null | undefined,
  l: LaunchReport | null,
): Verdict {
  if (!c) return v;
  const evidence = [
    ...containerEvidence(c),
    ...v.evidence.filter((e) => !/^pid \d+ (alive|is gone)/.test(e.text)),
  ];
  const out: Verdict = { ...v, evidence };
  const restarts = c.restartCount > 0 ? ` (restart ${c.restartCount}, policy ${policyText(c)})` : '';
  if (c.state === null) {
    if (v.final) return out;
    return {
      ...out,
      state: 'dead',
      final: true,
      why: `the container ${c.name} no longer exists (removed)${l ? '; the log stops here' : ''}`,
      next: `\`docker ps -a\`: was it removed (\`docker rm\`, \`--rm\`, compose down)? A new container under this name is read as a new log`,
    };
  }
  const ended = c.state === 'exited' || c.state === 'dead' || c.state === 'restarting';
  if (ended && c.oomKilled) {
    const limit = c.memoryLimit
      ? `the container's cgroup memory limit (--memory ${mib(c.memoryLimit)})`
      : `the container's cgroup memory limit`;
    const message = `the server hit ${limit} and the kernel's OOM killer ended it (docker inspect: OOMKilled, ${exitText(c.exitCode)})`;
    const again = c.state === 'restarting';
    return {
      ...out,
      state: 'crashed',
      final: !again,
      why: `killed: ${message}${again ? `; docker is restarting it${restarts}` : ''}`,
      next: `raise the limit (\`docker run --memory\`, compose \`mem_limit\`/\`deploy.resources.limits.memory\`) or lower the server's host memory (fewer CPU-side buffers, smaller --max-running-requests); \`docker inspect ${c.name}\``,
      failure: {
        class: 'killed',
        line: v.failure?.line ?? l?.endLine ?? 0,
        message,
        text: `OOMKilled: true (${exitText(c.exitCode)})`,
        exceptionType: null,
        rank: null,
        phase: l?.phase ?? null,
        time: c.finishedAt,
        hint: 'the cgroup memory limit of the container was reached',
        remedies: [],
        evidence: v.failure?.evidence ?? [],
      },
    };
  }
  if (c.state === 'restarting') {
    return {
      ...out,
      state: v.state === 'crashed' ? 'crashed' : 'dead',
      final: false,
      why: `${v.state === 'crashed' ? `${v.why}; ` : `the server exited (${exitText(c.exitCode)}) and `}docker is restarting the container${restarts}`,
      next: v.next ?? `\`docker logs ${c.name}\` around the exit; the restart will show here as a new launch`,
    };
  }
  if (c.state === 'paused')
    return {
      ...out,
      state: 'stalled',
      stalledIn: v.phase,
      final: false,
      why: `the container is paused (docker pause): the server is frozen${v.phase ? ` in ${v.phase}` : ''}`,
      next: `\`docker unpause ${c.name}\``,
    };
  if (c.state === 'exited' || c.state === 'dead') {
    if (v.state === 'crashed' || v.state === 'exited') return { ...out, final: true };
    const code = c.exitCode;
    if (code === 0)
      return {
        ...out,
        state: 'exited',
        final: true,
        why: `the container exited with code 0${v.phase ? ` in ${v.phase}` : ''} (the log says nothing about it)`,
      };
    if (code === 137)
      return {
        ...out,
        state: 'dead',
        final: true,
        why: `the container was killed (${exitText(code)}, not by the OOM killer): \`docker kill\`, or \`docker stop\` after its grace period`,
        next: `who stopped it: \`docker events --since 1h --filter container=${c.name}\``,
      };
    if (code === 143)
      return {
        ...out,
        state: 'exited',
        final: true,
        why: `the container was stopped (${exitText(code)}: \`docker stop\`)${v.phase ? ` in ${v.phase}` : ''}, and the server wrote no shutdown line`,
      };
    return {
      ...out,
      state: 'dead',
      final: true,
      why: `the container exited with ${exitText(code)}${c.error ? ` (docker: ${c.error})` : ''} and the log says nothing about it`,
      next: `\`docker logs --tail 50 ${c.name}\` and \`docker inspect ${c.name}\``,
    };
  }
  // Running: the log's verdict stands, with what docker knows said plainly.
  if (v.state === 'dead' && c.restartCount > 0)
    return {
      ...out,
      state: 'starting',
      final: false,
      why: `the server's process exited and docker restarted the container${restarts}: waiting for its first line`,
    };
  let why = out.why;
  if (c.restartCount > 0 && l)
    why += `; this launch is the container's restart ${c.restartCount} (policy ${policyText(c)})`;
  if (c.health?.status === 'unhealthy') {
    const said = c.health.lastOutput ? `: "${c.health.lastOutput.replace(/\s+/g, ' ').slice(0, 120)}"` : '';
    why =
      v.state === 'ready' || v.state === 'serving' || v.state === 'idle'
        ? `the log says ${v.state}, but docker's health check calls the container unhealthy (${c.health.failingStreak} failing checks${said})`
        : `${why}; docker's health check calls it unhealthy${said}`;
    return {
      ...out,
      why,
      next:
        out.next ??
        `the HEALTHCHECK command itself: \`docker inspect --format '{{json .State.Health}}' ${c.name}\``,
    };
  }
  return { ...out, why };
}

/** The ports the engines listen on by default (as live.ts's DEFAULT_PORTS): the container's side of the mapping. */
const ENGINE_PORTS: Record<string, number> = {
  sglang: 30000,
  vllm: 8000,
  llamacpp: 8080,
  tgi: 80,
  trtllm: 8000,
};

/**
 * Where this machine reaches the server in a running container: the host side of the port the log's config names
 * (or the engine's default), as docker published it; null when that port is not published.
 */
export function publishedUrl(c: ContainerObservation, l: LaunchReport | null): string | null {
  if (c.state !== 'running' || !l) return null;
  const cfg = l.configSummary as { port?: unknown };
  const port = typeof cfg.port === 'number' ? cfg.port : l.engine ? ENGINE_PORTS[l.engine] : undefined;
  const pub = c.ports.find((p) => p.containerPort === port && p.proto === 'tcp');
  if (!pub) return null;
  const any = !pub.hostIp || pub.hostIp === '0.0.0.0' || pub.hostIp === '::';
  // Another machine's daemon: its published port is reached at that machine's name, unless bound to its loopback.
  const remote = c.daemonHost
    ? c.daemonHost
        .replace(/^.*@/, '')
        .replace(/:\d+$/, '')
        .replace(/^\[(.*)\]$/, '$1')
    : null;
  if (remote && !any && /^127\.|^::1$/.test(pub.hostIp)) return null;
  const host = any ? (remote ?? '127.0.0.1') : pub.hostIp;
  return `http://${host.includes(':') ? `[${host}]` : host}:${pub.hostPort}`;
}
