/**
 * The MCP face answers through the CLI's JSON contract (README, "JSON contract"): each tool call runs `firedup
 * CMD --json …` as a child, so an agent gets exactly the verdict a person gets from the same command, and a
 * command that misbehaves costs one call, never the server. Every run is bounded in time (killed, process
 * group and all, at its deadline) and in output (what it prints past the cap is dropped and said so).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own command: three levels up from dist/src/mcp/ and from dist/bundle/cli/ alike. */
export const FIREDUP_BIN = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../bin/firedup.js',
);

/** What a tool's command may print before the rest is dropped: far more than any report, far less than memory. */
export const MAX_OUTPUT = 8 * 1024 * 1024;

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  truncated: boolean;
}

export interface CliOptions {
  /** Seconds before the command is stopped (SIGTERM to its group, SIGKILL 10 s later). */
  timeoutS: number;
  /** Extra environment (the server's --ledger, for instance). */
  env?: Record<string, string>;
  /** Each complete stdout line as it comes (a `wait --json` event stream). */
  onLine?: (line: string) => void;
  signal?: AbortSignal;
  /** What stops it first (default SIGTERM): SIGINT lets `sweep` and `bench run` stop as on a Ctrl-C. */
  stopSignal?: NodeJS.Signals;
}

/** The environment a command child runs in: plain text (no colour, no width), the server's ledger. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  delete env.COLUMNS;
  delete env.FORCE_COLOR;
  return env;
}

export function runCli(args: string[], opts: CliOptions): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FIREDUP_BIN, ...args], {
      env: childEnv(opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own group: a deadline or a cancelled call stops the command and whatever it started (ssh).
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let pending = '';
    let truncated = false;
    let timedOut = false;
    const take = (s: string, cur: string): string => {
      if (cur.length + s.length <= MAX_OUTPUT) return cur + s;
      truncated = true;
      return cur + s.slice(0, Math.max(0, MAX_OUTPUT - cur.length));
    };
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (s: string) => {
      stdout = take(s, stdout);
      if (!opts.onLine) return;
      pending += s;
      let nl = pending.indexOf('\n');
      while (nl >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (line.trim()) opts.onLine(line);
        nl = pending.indexOf('\n');
      }
      if (pending.length > MAX_OUTPUT) pending = '';
    });
    child.stderr.on('data', (s: string) => {
      stderr = take(s, stderr);
    });
    const stop = () => stopGroup(child, opts.stopSignal);
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, opts.timeoutS * 1000);
    const onAbort = () => stop();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => {
      stderr += `${err.message}\n`;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (opts.onLine && pending.trim()) opts.onLine(pending);
      resolve({ code, signal, stdout, stderr, timedOut, truncated });
    });
  });
}

/** SIGTERM (or `first`) to the child's process group, SIGKILL if it is still there 10 s later. */
export function stopGroup(child: ChildProcess, first: NodeJS.Signals = 'SIGTERM'): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const kill = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      try {
        child.kill(sig);
      } catch {}
    }
  };
  kill(first);
  const t = setTimeout(() => kill('SIGKILL'), 10_000);
  t.unref();
  child.once('close', () => clearTimeout(t));
}

/** The command's own one-line message (its last stderr line), without the `firedup: ` it starts with. */
export function cliMessage(run: CliRun): string {
  const lines = run.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const last = lines.at(-1) ?? '';
  return last.replace(/^firedup: /, '');
}
