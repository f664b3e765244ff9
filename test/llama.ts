/**
 * A real llama.cpp `llama-server` (Debian's CPU build) with a tiny random GGUF model, for integration tests:
 * scripts/llama-server-setup.sh installs both into a cache directory without touching the system.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './helpers.js';

export const SETUP_SCRIPT = path.join(ROOT, 'scripts', 'llama-server-setup.sh');

/** `FIREDUP_LLAMA_DIR`, else `<repo>/node_modules/.cache/firedup-llama`, else `$TMPDIR/firedup-llama`. */
export function llamaCacheDir(): string {
  if (process.env.FIREDUP_LLAMA_DIR) return path.resolve(process.env.FIREDUP_LLAMA_DIR);
  const nm = path.join(ROOT, 'node_modules');
  if (fs.existsSync(nm)) return path.join(nm, '.cache', 'firedup-llama');
  return path.join(process.env.TMPDIR ?? os.tmpdir(), 'firedup-llama');
}

let ensured: string | null = null;

/**
 * Installs llama-server and tiny.gguf into the cache dir once (a no-op when already there) and returns the dir,
 * which holds `llama-server` (a wrapper script) and `tiny.gguf`. Throws with the script's output if it fails.
 */
export function ensureLlama(): string {
  if (ensured) return ensured;
  const dir = llamaCacheDir();
  const r = spawnSync('bash', [SETUP_SCRIPT, dir], { encoding: 'utf8', timeout: 5 * 60_000 });
  const ok = r.status === 0 && isFile(path.join(dir, 'llama-server')) && isFile(path.join(dir, 'tiny.gguf'));
  if (!ok) {
    const why = r.error
      ? r.error.message
      : r.signal
        ? `killed by ${r.signal}${r.signal === 'SIGTERM' ? ' (timed out after 5 minutes)' : ''}`
        : `exit code ${r.status}`;
    throw new Error(
      `could not set up llama-server in ${dir} (bash ${path.relative(ROOT, SETUP_SCRIPT)} ${dir}: ${why})\n` +
        `${r.stdout ?? ''}${r.stderr ?? ''}`.trim(),
    );
  }
  ensured = dir;
  return dir;
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).size > 0;
  } catch {
    return false;
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('no port'))));
    });
  });
}

export interface LlamaServer {
  child: ChildProcess;
  /** Sends `signal` (SIGTERM by default) unless already exited, and resolves once the process has exited
   * (SIGKILL after 10 s). */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Resolves once the process has exited, whatever stopped it. */
  exited(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/**
 * Spawns `DIR/llama-server -m MODEL --host 127.0.0.1 --port PORT -c 256 -np 1 -t 1 ...extraArgs` with stdout
 * and stderr appended to `log`, as `>> log 2>&1` would. MODEL defaults to DIR/tiny.gguf.
 */
export function startLlama(opts: {
  dir: string;
  log: string;
  port: number;
  model?: string;
  extraArgs?: string[];
}): LlamaServer {
  const model = opts.model ?? path.join(opts.dir, 'tiny.gguf');
  const args = [
    '-m',
    model,
    '--host',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '-c',
    '256',
    '-np',
    '1',
    '-t',
    '1',
  ];
  const fd = fs.openSync(opts.log, 'a');
  let child: ChildProcess;
  try {
    child = spawn(path.join(opts.dir, 'llama-server'), [...args, ...(opts.extraArgs ?? [])], {
      stdio: ['ignore', fd, fd],
    });
  } finally {
    fs.closeSync(fd);
  }
  live.add(child);
  const done = new Promise<void>((resolve) => {
    const finish = () => {
      live.delete(child);
      resolve();
    };
    if (child.exitCode !== null || child.signalCode !== null) finish();
    child.once('exit', finish);
    // A spawn failure (ENOENT) emits 'error' and no 'exit'.
    child.once('error', finish);
  });
  const exited = () => done;
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null && live.has(child)) {
      child.kill(signal);
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await done;
      clearTimeout(t);
    }
    await done;
  };
  return { child, stop, exited };
}

/** Polls `fn` every 50 ms until it returns true; rejects after `timeoutMs`. */
export async function waitFor(
  fn: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what = 'condition',
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    let ok = false;
    try {
      ok = await fn();
    } catch {
      ok = false;
    }
    if (ok) return;
    if (Date.now() >= end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** GET /health answers 200 (the model is loaded). */
export async function healthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}
