/**
 * `firedup mcp`: firedup as a Model Context Protocol server for coding agents, over stdio (what an agent's
 * settings file starts) or Streamable HTTP. It starts the MCP face (src/mcp/), as `serve` starts the dashboard.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { McpContext } from '../mcp/context.js';
import { type FlagSpec, parseArgs } from './args.js';
import { UsageError } from './errors.js';
import { writeOut } from './stdout.js';

export const FLAGS: Record<string, FlagSpec> = {
  'allow-launch': { type: 'boolean' },
  ledger: { type: 'string' },
  'no-ledger': { type: 'boolean' },
  http: { type: 'boolean' },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
};

function version(): string {
  // Three levels up from dist/src/cli/ and from dist/bundle/cli/ alike: the package root.
  return (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;
}

export async function mcpCommand(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, FLAGS, 'mcp');
  if (positionals.length)
    throw new UsageError(
      `mcp: takes no arguments (got ${positionals.join(' ')}); the agent names logs in its calls`,
    );
  if (flags.ledger !== undefined && flags['no-ledger'])
    throw new UsageError('mcp: --ledger and --no-ledger: give one');
  // the command children inherit it, as a shell's FIREDUP_LEDGER=off
  if (flags['no-ledger']) process.env.FIREDUP_LEDGER = 'off';
  const ctx: McpContext = {
    // a relative --ledger is this directory's, whatever directory a command child is asked about
    ledger: typeof flags.ledger === 'string' ? ledgerPath(flags.ledger) : null,
    allowLaunch: Boolean(flags['allow-launch']),
  };
  if (!flags.http) {
    for (const f of ['host', 'port', 'token'])
      if (flags[f] !== undefined) throw new UsageError(`mcp: --${f} is for --http; stdio needs no address`);
    const { serveStdio } = await import('../mcp/stdio.js');
    await serveStdio(ctx, version());
    return 0;
  }
  const { McpHttpServer, generateToken, isLoopbackHost, TOKEN_RE } = await import('../mcp/http.js');
  const host = typeof flags.host === 'string' ? flags.host : '127.0.0.1';
  if (host.trim() === '') throw new UsageError('mcp: --host is empty');
  const portText = typeof flags.port === 'string' ? flags.port : '7071';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535)
    throw new UsageError(`mcp: --port ${portText}: a port from 0 to 65535`);
  const given = typeof flags.token === 'string' ? flags.token : undefined;
  if (given !== undefined && !TOKEN_RE.test(given))
    throw new UsageError('mcp: --token must be 16 to 256 characters of A-Z a-z 0-9 . _ ~ -');
  // The dashboard's rule: a token given is always required; without one only a loopback bind goes without.
  const token = given ?? (isLoopbackHost(host) ? null : generateToken());
  const server = new McpHttpServer(ctx, version(), { host, port, token });
  let url: string;
  try {
    url = await server.listen();
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EADDRINUSE')
      throw new UsageError(`mcp: port ${port} on ${host} is already in use: pick another with --port`);
    if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
      throw new UsageError(`mcp: --host ${host}: not an address of this machine`);
    throw new UsageError(`mcp: cannot listen on ${host}:${port}: ${err.message}`);
  }
  writeOut(`${url}${token ? `  (Authorization: Bearer ${token})` : ''}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await server.close();
  return 0;
}

function ledgerPath(p: string): string {
  return /^postgres(?:ql)?:\/\//.test(p) ? p : path.resolve(p);
}
