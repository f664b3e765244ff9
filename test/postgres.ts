/**
 * A throwaway Postgres for tests: `initdb` into a temp dir, started on a Unix socket in that dir (no TCP port,
 * so nothing else on the machine can reach it or collide with it), stopped afterwards. Installs Debian's
 * `postgresql` when the binaries are missing (CI is a fresh Debian machine). Postgres refuses to run as root:
 * as root, the server runs as `nobody`, owning its temp dir.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tmpDir } from './helpers.js';

const SEARCH = [
  '/usr/local/bin',
  '/usr/lib/postgresql/17/bin',
  '/usr/lib/postgresql/16/bin',
  '/usr/lib/postgresql/15/bin',
];

export interface TestPostgres {
  dir: string;
  /** The socket directory. */
  socketDir: string;
  /** `postgres://` URL of the `postgres` database as the superuser, over the socket. */
  url: string;
  /** A fresh, empty database on this server: its URL. */
  createDatabase(): string;
  /** Stops the server at once (`immediate`): clients see it go away mid-conversation. */
  kill(): void;
  /** Starts it again on the same data (after kill). */
  restart(): void;
  stop(): void;
}

function findBin(name: string): string | null {
  for (const dir of SEARCH) {
    const p = path.join(dir, name);
    if (fs.existsSync(p)) return p;
  }
  return null;
}

export function ensurePostgres(): { initdb: string; pgCtl: string } {
  let initdb = findBin('initdb');
  let pgCtl = findBin('pg_ctl');
  if (!initdb || !pgCtl) {
    execFileSync(
      'sh',
      ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql'],
      { stdio: 'ignore' },
    );
    initdb = findBin('initdb');
    pgCtl = findBin('pg_ctl');
  }
  if (!initdb || !pgCtl)
    throw new Error(`no initdb/pg_ctl in ${SEARCH.join(', ')} after installing postgresql`);
  return { initdb, pgCtl };
}

/** Runs a Postgres binary as the user that owns the data directory (nobody, when the tests run as root). */
function asOwner(bin: string, args: string[], root: boolean): void {
  const [cmd, argv] = root ? [runuser(), ['-u', 'nobody', '--', bin, ...args]] : [bin, args];
  const r = spawnSync(cmd, argv, { encoding: 'utf8', cwd: '/' });
  if (r.status !== 0)
    throw new Error(`${bin} ${args.join(' ')} failed: ${r.error?.message ?? (r.stderr || r.stdout)}`);
}

/** runuser lives in sbin, which a non-login PATH (cron, `env -i`, some CI runners) leaves out. */
function runuser(): string {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/sbin']) {
    const p = path.join(dir || '.', 'runuser');
    if (fs.existsSync(p)) return p;
  }
  return 'runuser';
}

let seq = 0;

/**
 * The SSL set-up of a team's server: a self-signed certificate for localhost and 127.0.0.1, TCP on a loopback
 * port, and SSL connections only (pg_hba: hostssl trust, hostnossl reject).
 */
export interface TestPostgresSsl {
  port: number;
  /** The certificate, which is its own CA: what `sslrootcert=` names to verify the server. */
  caFile: string;
}

function freePortSync(): number {
  const r = spawnSync(
    process.execPath,
    [
      '-e',
      "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})",
    ],
    { encoding: 'utf8' },
  );
  return Number(r.stdout.trim());
}

function sslSetup(dir: string, data: string, root: boolean): { ssl: TestPostgresSsl; opts: string } {
  const caFile = path.join(dir, 'server.crt');
  const key = path.join(data, 'server.key');
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      caFile,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl req failed: ${r.error?.message ?? r.stderr}`);
  // Postgres refuses a key others can read; the server (nobody, as root) must own it.
  fs.chmodSync(key, 0o600);
  if (root) fs.chownSync(key, 65534, 65534);
  fs.writeFileSync(
    path.join(data, 'pg_hba.conf'),
    'local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n',
  );
  const port = freePortSync();
  return {
    ssl: { port, caFile },
    opts: `-p ${port} -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=${caFile} -c ssl_key_file=${key}`,
  };
}

export function startPostgres(opts: { ssl?: boolean } = {}): TestPostgres & { ssl: TestPostgresSsl | null } {
  const { initdb, pgCtl } = ensurePostgres();
  const root = process.getuid?.() === 0;
  const dir = tmpDir();
  const data = path.join(dir, 'data');
  const sock = path.join(dir, 'sock');
  fs.mkdirSync(sock);
  if (root) {
    fs.chownSync(dir, 65534, 65534);
    fs.chownSync(sock, 65534, 65534);
  }
  asOwner(initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '-N'], root);
  const ssl = opts.ssl ? sslSetup(dir, data, root) : null;
  const serverOpts = `-k ${sock} -c listen_addresses='' -c fsync=off -c full_page_writes=off -c max_connections=200${ssl ? ` ${ssl.opts}` : ''}`;
  const start = () =>
    asOwner(
      pgCtl,
      ['-D', data, '-o', serverOpts, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start'],
      root,
    );
  start();
  let running = true;
  const stop = (mode: string) => {
    if (!running) return;
    running = false;
    try {
      asOwner(pgCtl, ['-D', data, '-m', mode, '-w', 'stop'], root);
    } catch {
      // Already gone: nothing to stop.
    }
  };
  // A test that fails (or a runner that exits) must not leave a server behind.
  const onExit = () => stop('immediate');
  process.once('exit', onExit);
  // The socket is named after the port (.s.PGSQL.5432 by default).
  const at = `localhost${ssl ? `:${ssl.ssl.port}` : ''}`;
  const url = `postgres://postgres@${at}/postgres?host=${encodeURIComponent(sock)}`;
  return {
    dir,
    ssl: ssl?.ssl ?? null,
    socketDir: sock,
    url,
    createDatabase() {
      const name = `firedup_test_${process.pid}_${++seq}`;
      const r = spawnSync(
        'psql',
        [
          '-h',
          sock,
          '-p',
          String(ssl?.ssl.port ?? 5432),
          '-U',
          'postgres',
          '-d',
          'postgres',
          '-qAtc',
          `CREATE DATABASE ${name}`,
        ],
        {
          encoding: 'utf8',
        },
      );
      if (r.status !== 0) throw new Error(`createdb ${name}: ${r.stderr}`);
      return `postgres://postgres@${at}/${name}?host=${encodeURIComponent(sock)}`;
    },
    kill() {
      stop('immediate');
    },
    restart() {
      if (running) return;
      start();
      running = true;
    },
    stop() {
      stop('fast');
      process.removeListener('exit', onExit);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
