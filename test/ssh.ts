/**
 * A throwaway sshd for tests: its own host key, user key, authorized_keys and sshd_config in a temp dir, on
 * 127.0.0.1 at a free port. The machine's own sshd and ~/.ssh are never touched. Installs Debian's
 * openssh-server when /usr/sbin/sshd is missing (CI is a fresh Debian machine and runs as root).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { tmpDir } from './helpers.js';

const SSHD = '/usr/sbin/sshd';

export interface TestSshd {
  dir: string;
  port: number;
  /** Client config: `Host firedup-test` reaches this sshd as root with the test key. */
  config: string;
  /** A second user key that authorized_keys does not list. */
  wrongKey: string;
  /** A key whose sessions see a PATH without `tail` (a server missing a tool). */
  toolKey: string;
  /** A key whose commands run as uid/gid 65534 (nobody): root-only files are unreadable to it. */
  nobodyKey: string;
  stop(): void;
}

export function ensureSshd(): void {
  if (fs.existsSync(SSHD)) return;
  execFileSync(
    'sh',
    ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openssh-server'],
    {
      stdio: 'ignore',
    },
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function keygen(file: string): void {
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'firedup-test', '-f', file], {
    stdio: 'ignore',
  });
}

/** Waits until the port accepts connections (sshd is ready) or the process died. */
async function waitListening(port: number, proc: ChildProcess, log: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (proc.exitCode !== null) throw new Error(`sshd exited: ${fs.readFileSync(log, 'utf8')}`);
    const ok = await new Promise<boolean>((r) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        r(true);
      });
      s.on('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('sshd did not start listening');
}

export async function startSshd(): Promise<TestSshd> {
  ensureSshd();
  const dir = tmpDir();
  const port = await freePort();
  keygen(path.join(dir, 'host_key'));
  keygen(path.join(dir, 'user_key'));
  keygen(path.join(dir, 'wrong_key'));
  keygen(path.join(dir, 'tool_key'));
  keygen(path.join(dir, 'nobody_key'));
  // The remote login shell may reset PATH (root's .bashrc), so the tool key forces a command that sets it
  // after: sh, stat, cat and ls are there, tail is not.
  const noTail = path.join(dir, 'bin-notail');
  fs.mkdirSync(noTail);
  for (const tool of ['sh', 'stat', 'cat', 'ls']) fs.symlinkSync(`/usr/bin/${tool}`, path.join(noTail, tool));
  const forced = `command="PATH=${noTail}; export PATH; eval \\"$SSH_ORIGINAL_COMMAND\\""`;
  // Logging in as a real non-root user would mean adding one to this machine; dropping to nobody does not.
  const asNobody =
    'command="exec setpriv --reuid=65534 --regid=65534 --clear-groups /bin/sh -c \\"$SSH_ORIGINAL_COMMAND\\""';
  const pub = (name: string) => fs.readFileSync(path.join(dir, `${name}.pub`), 'utf8');
  fs.writeFileSync(
    path.join(dir, 'authorized_keys'),
    `${pub('user_key')}${forced} ${pub('tool_key')}${asNobody} ${pub('nobody_key')}`,
  );
  // sshd needs its privilege-separation directory even when run by hand.
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const sshdConfig = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    sshdConfig,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${dir}/host_key`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      `PidFile ${dir}/sshd.pid`,
      // Tests run as root in CI; only the test key may log in, never a password.
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      // The temp dir is not root-owned 0755 all the way up; the key files are ours anyway.
      'StrictModes no',
      'UsePAM no',
      'MaxSessions 100',
      'MaxStartups 100',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const log = path.join(dir, 'sshd.log');
  // Its own process group, so stop() also ends the per-connection children it forked.
  const proc = spawn(SSHD, ['-D', '-e', '-f', sshdConfig], {
    stdio: ['ignore', 'ignore', fs.openSync(log, 'a')],
    detached: true,
  });
  await waitListening(port, proc, log);
  const config = path.join(dir, 'ssh_config');
  fs.writeFileSync(
    config,
    [
      'Host firedup-test',
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      '  User root',
      `  IdentityFile ${dir}/user_key`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${dir}/known_hosts`,
      '  StrictHostKeyChecking accept-new',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  );
  return {
    dir,
    port,
    config,
    wrongKey: path.join(dir, 'wrong_key'),
    toolKey: path.join(dir, 'tool_key'),
    nobodyKey: path.join(dir, 'nobody_key'),
    stop() {
      try {
        process.kill(-proc.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
