/**
 * Real engine-like processes for tests of identity (which process, port and launch is whose): the scripted
 * SGLang server (test/fixtures/scripted-sglang.mjs) started with a command line that reads like SGLang's, its
 * output appended to a log, and a decoy: another team's SGLang-looking server on a port of its own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT } from './helpers.js';

export const SCRIPTED_SGLANG = path.join(ROOT, 'test', 'fixtures', 'scripted-sglang.mjs');

/** A TCP port free now (the kernel's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export interface EngineProcess {
  child: ChildProcess;
  pid: number;
  port: number;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Resolves once something accepts connections on `port` (or after `ms`). */
export async function portOpen(port: number, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await new Promise<boolean>((resolve) => {
      const c = net.connect(port, '127.0.0.1');
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/**
 * Starts the scripted SGLang server: `node scripted-sglang.mjs python3 -m sglang.launch_server --model-path M
 * --port P ...extra`, its output appended to `log` (or discarded).
 */
export function startScriptedSglang(opts: {
  model: string;
  port: number;
  log?: string;
  extra?: string[];
}): EngineProcess {
  const out = opts.log ? fs.openSync(opts.log, 'a') : 'ignore';
  const child = spawn(
    process.execPath,
    [
      SCRIPTED_SGLANG,
      'python3',
      '-m',
      'sglang.launch_server',
      '--model-path',
      opts.model,
      '--port',
      String(opts.port),
      ...(opts.extra ?? []),
    ],
    { stdio: ['ignore', out, out], detached: false },
  );
  if (typeof out === 'number') fs.closeSync(out);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    child,
    pid: child.pid!,
    port: opts.port,
    exited,
    async stop(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

/**
 * Another team's SGLang-looking server, listening on a port of its own from the start, serving another model:
 * nothing ties it to any launch under test, and every live command must leave it alone.
 */
export async function startDecoy(model = 'other-team/Decoy-70B'): Promise<EngineProcess> {
  const port = await freePort();
  const p = startScriptedSglang({ model, port, extra: ['--serve-now'] });
  await portOpen(port);
  return p;
}
