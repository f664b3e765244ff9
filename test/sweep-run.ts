/**
 * `firedup sweep` as its tests run it: a child process whose JSON lines are collected as they come, killed if it
 * outlives `killAfterMs`, and the ledger's points for a sweep read back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Ledger } from '../src/store/ledger.js';
import type { SweepPointRecord } from '../src/store/types.js';
import { BIN } from './helpers.js';

export interface SweepRun {
  child: ChildProcess;
  events: Array<Record<string, any>>;
  stdout: () => string;
  stderr: () => string;
  done: Promise<number | null>;
}

export function spawnSweep(
  args: string[],
  ledger: string,
  cwd: string,
  opts: { env?: NodeJS.ProcessEnv; killAfterMs?: number } = {},
): SweepRun {
  const child = spawn(process.execPath, [BIN, 'sweep', '--no-gpu', '--ledger', ledger, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Array<Record<string, any>> = [];
  let all = '';
  let buf = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    all += d;
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.startsWith('{')) events.push(JSON.parse(line));
    }
  });
  child.stderr!.on('data', (d) => (err += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 90_000);
  const done = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { child, events, stdout: () => all, stderr: () => err, done };
}

/** The points the ledger holds for sweep `name`. */
export function sweepPoints(ledger: string, name: string): SweepPointRecord[] {
  const l = Ledger.open(ledger);
  try {
    return l.sweepPoints(name);
  } finally {
    l.close();
  }
}
