/**
 * Parses a log argument into a local path or an SSH target, in the forms users already type for scp, rsync
 * and lnav: `user@host:/path`, `alias:relative/path` (relative to the remote home) and `ssh://user@host:port/path`.
 */
import fs from 'node:fs';
import { type DockerTarget, describeDocker, parseDockerTarget } from './docker/target.js';

export type LogTarget =
  | { kind: 'local'; path: string }
  | { kind: 'ssh'; user: string | null; host: string; port: number | null; path: string }
  | DockerTarget;

/** A host as ssh accepts it: a name, an IPv4 address or a bracketed IPv6 address; no spaces or options. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_][A-Za-z0-9_.-]*)$/;
/** A user name: no `@`, `:` or `/`, and not starting with `-` so it can never read as an ssh option. */
const USER = /^[^@:/\s-][^@:/\s]*$/;

export function parseTarget(arg: string): LogTarget {
  if (arg.startsWith('ssh://')) return parseUrl(arg);
  // A container (docker.ts): `docker://` can never be scp's `host:path`, whose path would start with `//`.
  if (arg.startsWith('docker://')) return parseDockerTarget(arg);
  // An existing local file always wins, so `weird:name.log` in the current directory stays readable.
  if (fs.existsSync(arg)) return { kind: 'local', path: arg };
  const colon = arg.indexOf(':');
  // scp's rule: a `/` before the first `:` makes it a local path (`./a:b.log`, `/logs/x:y`).
  if (colon <= 0 || arg.slice(0, colon).includes('/')) return { kind: 'local', path: arg };
  const remote = arg.slice(0, colon);
  const path = arg.slice(colon + 1);
  const at = remote.lastIndexOf('@');
  const user = at >= 0 ? remote.slice(0, at) : null;
  const host = at >= 0 ? remote.slice(at + 1) : remote;
  if (!HOST.test(host) || (user !== null && !USER.test(user))) return { kind: 'local', path: arg };
  if (path === '') throw new Error(`${arg}: no remote path after ':'`);
  return { kind: 'ssh', user, host: unbracket(host), port: null, path };
}

function parseUrl(arg: string): LogTarget {
  // ssh://[user@]host[:port]/path: the path is absolute; `/~/x` names a file in the remote home.
  const m = /^ssh:\/\/(?:([^@/]+)@)?(\[[^\]]+\]|[^:/]+)(?::(\d+))?(\/.*)$/.exec(arg);
  if (!m) throw new Error(`${arg}: not an ssh://[user@]host[:port]/path target`);
  const [, user, host, port, rawPath] = m;
  if (!HOST.test(host!) || (user !== undefined && !USER.test(user)))
    throw new Error(`${arg}: bad user or host in ssh:// target`);
  const portNum = port === undefined ? null : Number(port);
  if (portNum !== null && (portNum < 1 || portNum > 65535)) throw new Error(`${arg}: bad port ${port}`);
  let path: string;
  try {
    path = decodeURIComponent(rawPath!);
  } catch {
    throw new Error(`${arg}: bad %-escape in the path (write % as %25)`);
  }
  if (path.startsWith('/~/')) path = path.slice(3);
  if (path === '' || path === '/') throw new Error(`${arg}: no remote path`);
  return { kind: 'ssh', user: user ?? null, host: unbracket(host!), port: portNum, path };
}

function unbracket(host: string): string {
  return host.startsWith('[') ? host.slice(1, -1) : host;
}

/** How a target is named in messages: the way the user wrote it, minus the ssh:// noise. */
export function describeTarget(t: LogTarget): string {
  if (t.kind === 'local') return t.path;
  if (t.kind === 'docker') return describeDocker(t);
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `${t.user ? `${t.user}@` : ''}${host}${t.port ? `:${t.port}` : ''}:${t.path}`;
}
