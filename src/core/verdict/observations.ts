/**
 * What the probes saw, as plain data: the live verdict (verdict.ts) takes these and a clock value. The
 * probes (src/probes/) produce them; nothing here touches a process, a socket or a GPU.
 */

export interface ProcessObservation {
  pid: number;
  alive: boolean;
  /** Exit code or signal, when firedup started the process itself; null otherwise. */
  exitCode: number | null;
  signal: string | null;
  cmdline: string | null;
  /** CPU seconds (user + system) of the process and its live descendants. */
  cpuSeconds: number | null;
  children: Array<{ pid: number; name: string }>;
  /** TCP ports the process tree listens on. */
  listening: number[];
  /** Seconds since the epoch when observed. */
  at: number;
  /** How the process was tied to the launch (`it listens on port 8000, the port the log names`, `--pid`). */
  tiedBy?: string | null;
}

/** A process that looks like the engine but was not tied to the launch, and why. */
export interface ProcessCandidate {
  pid: number;
  cmdline: string | null;
  listening: number[];
  why: string;
}

/** A search for the launch's server that found none, or several: never one picked among them. */
export interface ProcessSearch {
  why: string;
  candidates: ProcessCandidate[];
}

export type HttpState = 'refused' | 'timeout' | 'error' | 'http';

export interface HttpObservation {
  url: string;
  /** The health endpoint: refused (nothing listens), timeout, another error, or an HTTP status. */
  health: { state: HttpState; status: number | null; ms: number | null; detail: string | null };
  /** What the server says about itself, where its endpoints tell (redacted). */
  version: string | null;
  model: string | null;
  serverConfig: Record<string, unknown> | null;
  at: number;
}

export interface GpuDevice {
  index: number;
  uuid: string;
  name: string;
  memUsedMiB: number;
  memTotalMiB: number;
  utilPct: number | null;
  powerW: number | null;
  powerLimitW: number | null;
}

export interface GpuApp {
  pid: number;
  name: string;
  gpuUuid: string;
  usedMiB: number | null;
}

export interface GpuObservation {
  gpus: GpuDevice[];
  apps: GpuApp[];
  /** Set when nvidia-smi could not be run or read: the GPUs are then unknown, not idle. */
  error: string | null;
  at: number;
}

export interface Observations {
  /** The container the server runs in (`docker://NAME`), from docker inspect; absent for a plain log. */
  container?: ContainerObservation | null;
  process?: ProcessObservation | null;
  http?: HttpObservation | null;
  gpu?: GpuObservation | null;
  /** The previous GPU observation, to tell memory or utilisation moving. */
  gpuBefore?: GpuObservation | null;
  /** The last search for the server, when it tied no process to the launch. */
  processSearch?: ProcessSearch | null;
  /** The previous process observation, to tell CPU time moving. */
  processBefore?: ProcessObservation | null;
}

/** A container as the probe saw it (`docker inspect`, `docker top`); container.ts reads it and corrects a verdict. */
export type ContainerState = 'created' | 'running' | 'paused' | 'restarting' | 'removing' | 'exited' | 'dead';

export interface ContainerObservation {
  /** The name as given (`docker://NAME`'s NAME) and the container's full id. */
  name: string;
  id: string;
  /** null: no such container (removed, or never created). */
  state: ContainerState | null;
  exitCode: number | null;
  oomKilled: boolean;
  /** The daemon's own error (a failed start), or null. */
  error: string | null;
  /** ISO times; null when docker gives its zero time. */
  startedAt: string | null;
  finishedAt: string | null;
  restartCount: number;
  restartPolicy: { name: string; maxRetries: number };
  health: {
    status: string;
    failingStreak: number;
    lastOutput: string | null;
    lastExitCode: number | null;
  } | null;
  /** The cgroup memory limit in bytes (`--memory`), or null for none. */
  memoryLimit: number | null;
  /** Published ports: the container's `8080/tcp` and where the host listens for it. */
  ports: Array<{ containerPort: number; proto: string; hostIp: string; hostPort: number }>;
  /** The container's first process as the host sees it (0 when not running), and all of them (`docker top`). */
  pid: number | null;
  pids: number[];
  image: string | null;
  /** The ssh host of the daemon (`docker://HOST/NAME`), or null for this machine's: where the published ports are. */
  daemonHost?: string | null;
  /** Seconds since the epoch when observed. */
  at: number;
}
