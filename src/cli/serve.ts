/**
 * `firedup serve`: the dashboard (launch history from the ledger, live targets), its JSON API and event
 * stream, and /metrics for Prometheus, until SIGINT or SIGTERM.
 */

import os from 'node:os';
import { Fleet } from '../app/fleet.js';
import { loadServeConfig } from '../app/fleet-config.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { openLedger } from '../store/open.js';
import { LedgerError } from '../store/types.js';
import { generateToken, isLoopbackHost, TOKEN_RE } from '../web/auth.js';
import { DashboardServer } from '../web/server.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { targetSpecs } from './fleet-specs.js';
import { openForReading } from './ledger-commands.js';
import { engineFlag, sshFlags } from './read.js';
import { ledgerFile } from './recording.js';
import { budgetScale } from './watch.js';

export const FLAGS: Record<string, FlagSpec> = {
  port: { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  ledger: { type: 'string' },
  watch: { type: 'string', multi: true },
  config: { type: 'string' },
  engine: { type: 'string' },
  'no-gpu': { type: 'boolean' },
  'ssh-config': { type: 'string' },
  'ssh-option': { type: 'string', multi: true },
  help: { type: 'boolean', alias: 'h' },
};

const USAGE = `firedup serve — the dashboard, its JSON API and /metrics for Prometheus

Usage:
  firedup serve [--port 7070] [--host 127.0.0.1] [--token T] [--ledger PATH] [--watch LOG]... [--config firedup.toml]

  Prints one line per URL it listens on, and runs until Ctrl-C (SIGINT) or SIGTERM.

Options:
  --port P          TCP port (default 7070; 0 picks a free one)
  --host H          address to bind (default 127.0.0.1). Any address but loopback needs a token: every
                    request must carry it (the printed URL has it as ?token=..., which sets a cookie)
  --token T         the token (16+ characters of A-Z a-z 0-9 . _ ~ -); default: a random one, printed
  --ledger PATH     the launch ledger (default: $FIREDUP_LEDGER or ~/.local/share/firedup/ledger.db)
  --watch LOG       watch a log live (a path, or user@host:/path over ssh); repeatable. Its launches are
                    recorded into the ledger as they change, and /metrics describes it
  --config FILE     firedup.toml: host, port, token, ledger, ssh_config, ssh_options and [[target]] tables
                    with log, name, url, pid, engine (see examples/firedup.toml)
  --engine NAME     read the --watch logs as sglang, vllm, trtllm, tgi or llamacpp
  --no-gpu          do not run nvidia-smi
  --ssh-config F    ssh client config for remote logs (ssh -F)
  --ssh-option K=V  an ssh option for remote logs (ssh -o), repeatable
`;

/** The longest a clean shutdown may take per step. */
const SHUTDOWN_MS = 3000;

function portFlag(v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new UsageError(`serve: --port ${v}: a port from 0 to 65535`);
  return n;
}

/** What to print: one URL per address the socket listens on. */
export function listenUrls(host: string, port: number, token: string | null): string[] {
  const q = token ? `?token=${token}` : '';
  const fmt = (a: string) => `http://${a.includes(':') ? `[${a}]` : a}:${port}/${q}`;
  if (host !== '0.0.0.0' && host !== '::') return [fmt(host)];
  const addrs: string[] = [];
  for (const list of Object.values(os.networkInterfaces()))
    for (const a of list ?? []) {
      if (a.family === 'IPv4' || (host === '::' && a.family === 'IPv6' && !a.address.startsWith('fe80')))
        addrs.push(a.address);
    }
  return addrs.length ? addrs.map(fmt) : [fmt(host)];
}

function listenError(e: NodeJS.ErrnoException, host: string, port: number): UsageError {
  if (e.code === 'EADDRINUSE')
    return new UsageError(
      `serve: port ${port} on ${host} is already in use: stop what holds it or pick another with --port`,
    );
  if (e.code === 'EACCES')
    return new UsageError(
      `serve: not allowed to listen on ${host}:${port} (ports below 1024 need root): pick another with --port`,
    );
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN')
    return new UsageError(`serve: --host ${host}: not an address of this machine`);
  return new UsageError(`serve: cannot listen on ${host}:${port}: ${e.message}`);
}

export async function serveCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS, 'serve');
  if (flags.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length)
    throw new UsageError(`serve: unexpected ${positionals[0]} (watch a log with --watch ${positionals[0]})`);
  const cfg = typeof flags.config === 'string' ? loadServeConfig(flags.config) : null;
  const host = (typeof flags.host === 'string' ? flags.host : cfg?.host) ?? '127.0.0.1';
  if (host.trim() === '') throw new UsageError('serve: --host is empty');
  const port = portFlag(flags.port as string | undefined, cfg?.port ?? 7070);
  const given = typeof flags.token === 'string' ? flags.token : cfg?.token;
  if (given !== undefined && !TOKEN_RE.test(given))
    throw new UsageError('serve: --token must be 16 to 256 characters of A-Z a-z 0-9 . _ ~ -');
  // A token given is always required; without one, only a loopback bind goes without.
  const token = given ?? (isLoopbackHost(host) ? null : generateToken());
  const engine = engineFlag(flags.engine);
  const watch = Array.isArray(flags.watch) ? flags.watch.map(String) : [];
  const specs = targetSpecs(watch, cfg, engine);
  const ssh = sshFlags(flags);
  if (ssh.config === undefined && cfg?.sshConfig) ssh.config = cfg.sshConfig;
  if (!ssh.options?.length && cfg?.sshOptions) ssh.options = cfg.sshOptions;

  let ledger: LedgerStore;
  try {
    // With nothing to watch the dashboard only reads: a read-only ledger (a shared copy) is enough.
    const file = ledgerFile(flags, cfg?.ledger);
    ledger = specs.length ? await openLedger(file) : await openForReading(file);
  } catch (e) {
    if (e instanceof LedgerError) throw new UsageError(e.message);
    throw e;
  }
  const scale = budgetScale();
  // Remote targets on one host share one ssh connection (src/app/fleet.ts, as `ps` does).
  const fleet = new Fleet(specs, {
    ledger,
    ssh,
    gpu: flags['no-gpu'] ? false : undefined,
    budgetScale: scale,
  });
  const targets = fleet.targets;
  const server = new DashboardServer({ ledger, targets, token });
  let addr: { port: number };
  try {
    addr = await server.listen(port, host);
  } catch (e) {
    await ledger.close();
    throw listenError(e as NodeJS.ErrnoException, host, port);
  }
  for (const t of targets) t.on('warning', (msg: string) => process.stderr.write(`firedup serve: ${msg}\n`));
  fleet.start((t, e) => process.stderr.write(`firedup serve: ${t.spec.name}: ${e.message}\n`));
  for (const u of listenUrls(host, addr.port, token)) process.stdout.write(`${u}\n`);
  process.stderr.write(
    `firedup serve: ledger ${ledger.path}; ${targets.length ? `watching ${targets.map((t) => t.spec.name).join(', ')}` : 'no live targets (--watch LOG)'}; metrics at /metrics; Ctrl-C to stop\n`,
  );

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  // Closing ssh masters can hang on a dead network: shutdown takes a few seconds at most.
  const bounded = (p: Promise<unknown>) =>
    Promise.race([p.catch(() => {}), new Promise((r) => setTimeout(r, SHUTDOWN_MS).unref())]);
  await bounded(fleet.stop());
  await bounded(server.close());
  await bounded(ledger.close());
  // Whatever a remote session left behind (an ssh child still exiting) must not keep the command alive.
  setTimeout(() => process.exit(process.exitCode ?? 0), SHUTDOWN_MS).unref();
  return 0;
}
