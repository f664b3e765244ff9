/**
 * Asks nvidia-smi what the GPUs are doing. A watcher polls this every few seconds while a server
 * starts, so it must never hang on a wedged driver (nvidia-smi can block for minutes after an Xid):
 * one deadline covers both queries, and the process group is killed when it passes.
 */
import { spawn } from 'node:child_process';
import { APPS_QUERY_FIELDS, GPU_QUERY_FIELDS, parseComputeApps, parseGpuQuery } from '../core/verdict/gpu.js';
import type { GpuObservation } from '../core/verdict/observations.js';

/** Runs argv (no shell) and resolves with stdout; `signal` asks it to stop. */
export type ExecArgv = (argv: string[], signal?: AbortSignal) => Promise<string>;

export interface ProbeGpuOptions {
  timeoutMs?: number;
  /** Where the command runs: locally by default; tests use a fake, the SSH layer a remote. */
  exec?: ExecArgv;
}

export const GPU_QUERY_ARGV = [
  'nvidia-smi',
  `--query-gpu=${GPU_QUERY_FIELDS.join(',')}`,
  '--format=csv,noheader,nounits',
];
export const APPS_QUERY_ARGV = [
  'nvidia-smi',
  `--query-compute-apps=${APPS_QUERY_FIELDS.join(',')}`,
  '--format=csv,noheader,nounits',
];

/** Why a command failed: `code` is ENOENT when it is not on PATH, ABORT when it was stopped. */
export class ExecError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

// nvidia-smi's own output is a few KB per GPU; anything far bigger is not its output.
const MAX_OUTPUT = 4 << 20;

/**
 * Runs argv[0] found on `env.PATH`, without a shell. On abort the whole process group is killed and the
 * promise rejects at once, without waiting for a grandchild that still holds the pipes open.
 */
export function runArgv(argv: string[], opts: { signal?: AbortSignal; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<string>((resolve, reject) => {
    const [cmd, ...args] = argv;
    if (!cmd) return reject(new ExecError('empty command', 'EINVAL'));
    if (opts.signal?.aborted) return reject(new ExecError(`${cmd} aborted`, 'ABORT'));
    // detached: its own process group, so a stop reaches whatever it spawned too.
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: opts.env, detached: true });
    let out = '';
    let err = '';
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const onAbort = () => {
      killGroup();
      finish(() => reject(new ExecError(`${cmd} stopped`, 'ABORT')));
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.length > MAX_OUTPUT) onAbort();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (err.length < 65536) err += d;
    });
    child.on('error', (e: NodeJS.ErrnoException) =>
      finish(() => reject(new ExecError(`${cmd}: ${e.message}`, e.code ?? 'ERROR'))),
    );
    child.on('close', (code, signal) =>
      finish(() => {
        if (code === 0) return resolve(out);
        // nvidia-smi prints its failures ("couldn't communicate with the NVIDIA driver") on stdout.
        const said = firstLine(err) ?? firstLine(out) ?? '';
        const how = code !== null ? `exit code ${code}` : `signal ${signal}`;
        reject(new ExecError(`${cmd} failed (${how})${said ? `: ${said}` : ''}`, 'EXIT'));
      }),
    );
  });
}

function firstLine(text: string): string | null {
  const line = text.split('\n').find((l) => l.trim() !== '');
  return line ? line.trim().slice(0, 300) : null;
}

function describe(e: unknown, timeoutMs: number): string {
  if (e instanceof ExecError) {
    if (e.code === 'ENOENT') return 'nvidia-smi not found on PATH';
    if (e.code === 'ABORT') return `nvidia-smi did not answer within ${timeoutMs} ms`;
    return e.message;
  }
  return `nvidia-smi: ${e instanceof Error ? e.message : String(e)}`;
}

/** GPUs and their compute processes; `error` set (and nothing listed) when nvidia-smi could not tell. */
export async function probeGpu(opts: ProbeGpuOptions = {}): Promise<GpuObservation> {
  const timeoutMs = opts.timeoutMs ?? 2000;
  const exec = opts.exec ?? ((argv, signal) => runArgv(argv, { signal }));
  const at = Date.now() / 1000;
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  // Raced rather than trusted: an injected exec (SSH) may ignore the signal, and the deadline holds anyway.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new ExecError('deadline', 'ABORT'));
    }, timeoutMs);
  });
  try {
    const [gpuCsv, appsCsv] = await Promise.race([
      Promise.all([exec(GPU_QUERY_ARGV, abort.signal), exec(APPS_QUERY_ARGV, abort.signal)]),
      deadline,
    ]);
    const gpus = parseGpuQuery(gpuCsv, at);
    if (gpus.length === 0 && gpuCsv.trim() !== '') {
      return { gpus: [], apps: [], error: `unreadable nvidia-smi output: ${firstLine(gpuCsv)}`, at };
    }
    return { gpus, apps: parseComputeApps(appsCsv), error: null, at };
  } catch (e) {
    // The sibling query may still run; stop it too.
    abort.abort();
    return { gpus: [], apps: [], error: describe(e, timeoutMs), at };
  } finally {
    clearTimeout(timer);
  }
}
