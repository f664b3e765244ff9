/**
 * One host reached through the system OpenSSH client, so the user's ~/.ssh/config, ProxyJump, agent and
 * known_hosts all apply. Every command rides one multiplexed master connection (ControlMaster), whose socket
 * lives in a private 0700 directory so no other local user can borrow the authenticated connection.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FiredupError } from '../../errors.js';
import { shCommand } from './command.js';
import { RemoteShell } from './shell.js';

export interface SshHost {
  user: string | null;
  host: string;
  port: number | null;
}

export interface SshOptions {
  /** `--ssh-config FILE`, passed as `-F`. */
  config?: string;
  /** `--ssh-option KEY=VALUE` (repeatable), each passed as `-o KEY=VALUE`. */
  options?: readonly string[];
  /** Seconds the master outlives its last command. */
  persistSec?: number;
}

/**
 * Commands of one lane run one after another in their own remote shell: the log's stat polls never wait
 * behind a /proc snapshot, and a hung nvidia-smi holds up only the GPU probe.
 */
export type ShellLane = 'log' | 'probe' | 'gpu';

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Exit codes of our own remote scripts (chosen away from the shell's 126/127 and ssh's 255). */
export const REMOTE = {
  missing: 10,
  denied: 11,
  /** There, but none of the kinds below (a door, an unknown type). */
  notFile: 12,
  toolMissing: 13,
  directory: 14,
  fifo: 15,
  socket: 16,
  device: 17,
  pseudo: 18,
} as const;

export type SshErrorKind =
  | 'auth'
  | 'hostkey'
  | 'unreachable'
  | 'dropped'
  | 'missing'
  | 'denied'
  | 'not_file'
  | 'tool_missing'
  | 'timeout'
  | 'other';

/** `kind` is the code (kept under its old name too). */
export class SshError extends FiredupError<SshErrorKind> {
  constructor(
    readonly kind: SshErrorKind,
    message: string,
  ) {
    super(kind, message);
  }
}

let controlDir: string | null = null;
/** Every session of this process, for the exit hook. */
const sessions = new Set<SshSession>();

/** One private directory per process for control sockets; removed at exit. */
function privateControlDir(): string {
  if (controlDir) return controlDir;
  // mkdtemp creates the directory 0700; short prefix because a socket path must fit in ~104 bytes.
  controlDir = fs.mkdtempSync(path.join(os.tmpdir(), 'fdssh-'));
  fs.chmodSync(controlDir, 0o700);
  const dir = controlDir;
  process.once('exit', () => {
    // However the process ends (a reader gone from `| head` exits from a stream's error handler), no master
    // is left to linger ControlPersist seconds, and with it go the remote commands that rode it. A master's
    // socket is in the directory: an empty one means none was started, and nothing is waited on.
    let masters = false;
    try {
      masters = fs.readdirSync(dir).length > 0;
    } catch {
      // Gone already: nothing to close.
    }
    for (const s of sessions) s.closeNow(masters);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return controlDir;
}

export class SshSession {
  readonly label: string;
  private readonly base: string[];

  constructor(
    readonly target: SshHost,
    opts: SshOptions = {},
  ) {
    // A host or user starting with '-' would be read by ssh as an option.
    if (target.host.startsWith('-') || target.user?.startsWith('-'))
      throw new Error(`${target.host}: bad host name`);
    this.label = `${target.user ? `${target.user}@` : ''}${target.host}${target.port ? `:${target.port}` : ''}`;
    const args: string[] = [];
    if (opts.config) args.push('-F', opts.config);
    // ssh keeps the first value it sees for an option: the user's come first so they override our defaults.
    for (const o of opts.options ?? []) {
      if (!/^[A-Za-z]+[= ]/.test(o)) throw new Error(`--ssh-option ${o}: expected KEY=VALUE`);
      args.push('-o', o);
    }
    args.push(
      '-o',
      'BatchMode=yes',
      '-o',
      'ControlMaster=auto',
      '-o',
      `ControlPath=${path.join(privateControlDir(), '%C')}`,
      '-o',
      `ControlPersist=${opts.persistSec ?? 60}`,
      // A silently dead network is noticed within ~15 s instead of hanging a follower forever.
      '-o',
      'ServerAliveInterval=5',
      '-o',
      'ServerAliveCountMax=3',
      '-o',
      'ConnectTimeout=10',
      // Log text and /proc listings compress 4-6x: on a WAN link to a GPU box that is most of the traffic. The
      // cost (zlib on ~30 KB/s of log) is noise; `--ssh-option Compression=no` turns it off.
      '-o',
      'Compression=yes',
    );
    if (target.port) args.push('-p', String(target.port));
    if (target.user) args.push('-l', target.user);
    this.base = args;
  }

  /** ssh's own arguments up to and including the host; `--` ends options so the host is never one. */
  private argv(extra: string[] = []): string[] {
    return [...this.base, ...extra, '--', this.target.host];
  }

  /**
   * Starts a remote command (a vector, quoted here) with its output streamed. Its stdin is a pipe that stays
   * open and is never written: its end, when this process or the client goes, is how the remote side learns
   * that nobody reads any more (remote.ts's `stream`).
   */
  spawn(remote: readonly string[]): ChildProcess {
    sessions.add(this);
    const child = spawn('ssh', [...this.argv(), shCommand(remote)], { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin!.on('error', () => {});
    this.streams.add(child);
    child.once('close', () => this.streams.delete(child));
    return child;
  }

  private readonly streams = new Set<ChildProcess>();

  /**
   * Ends everything at once, synchronously (the process is exiting: no promise will be awaited): the streams,
   * the shells, and the master when `master` says one may be up (`ssh -O exit`, bounded at 2 s).
   */
  closeNow(master: boolean): void {
    sessions.delete(this);
    for (const c of this.streams) if (c.exitCode === null) c.kill('SIGTERM');
    this.streams.clear();
    for (const sh of this.shells.values()) sh.close();
    this.shells.clear();
    if (master) spawnSync('ssh', this.argv(['-O', 'exit']), { stdio: 'ignore', timeout: 2000 });
  }

  /**
   * Runs a short remote command to completion, through the session's one remote shell (see shell.ts); a
   * timeout resolves with code null. Streams (tail -f, cat) use `spawn`.
   */
  run(remote: readonly string[], timeoutMs = 20_000, lane: ShellLane = 'probe'): Promise<RunResult> {
    sessions.add(this);
    let shell = this.shells.get(lane);
    if (!shell) {
      shell = new RemoteShell(() => {
        const child = spawn('ssh', [...this.argv(), shCommand(['sh'])], { stdio: ['pipe', 'pipe', 'pipe'] });
        // An idle shell must not keep firedup running: pending commands hold their own timers.
        child.unref();
        for (const s of [child.stdin, child.stdout, child.stderr])
          (s as unknown as { unref?(): void })?.unref?.();
        return child;
      });
      this.shells.set(lane, shell);
    }
    return shell.run(shCommand(remote), timeoutMs);
  }

  private readonly shells = new Map<ShellLane, RemoteShell>();

  /** The one-line error for a failed command on `file`, or null when it succeeded. */
  classify(res: { code: number | null; stderr: string }, file: string): SshError | null {
    const where = `${this.label}:${file}`;
    const why = lastLine(res.stderr);
    switch (res.code) {
      case 0:
        return null;
      case null:
        return new SshError('timeout', `${where}: ssh command timed out`);
      case REMOTE.missing:
        return new SshError('missing', `${where}: no such file on ${this.target.host}`);
      case REMOTE.denied:
        return new SshError(
          'denied',
          `${where}: permission denied on ${this.target.host} (log in as a user who can read it)`,
        );
      // The words of a local read of the same path (sources/file.ts describeFsError, app/read-log.ts).
      case REMOTE.directory:
        return new SshError(
          'not_file',
          `${where}: is a directory, not a log file (name the log file inside it)`,
        );
      case REMOTE.fifo:
        return new SshError(
          'not_file',
          `${where} is a FIFO, not a regular file: a remote log is read by offset (to read a pipe once: ssh ${this.target.host} cat ${file} | firedup status -)`,
        );
      case REMOTE.socket:
        return new SshError(
          'not_file',
          `${where} is a socket, not a regular file (name the server's log file)`,
        );
      case REMOTE.device:
        return new SshError('not_file', `${where}: a device, not a log file (name the server's log file)`);
      case REMOTE.pseudo:
        return new SshError(
          'not_file',
          `${where}: a kernel pseudo-file (/proc, /sys), not a log file (name the server's log file)`,
        );
      case REMOTE.notFile:
        return new SshError(
          'not_file',
          `${where}: not a regular file, not a log file (name the server's log file)`,
        );
      case REMOTE.toolMissing:
      case 127:
        return new SshError(
          'tool_missing',
          `${where}: a remote tool is missing (${why || 'sh, tail, stat or cat'})`,
        );
      case 255:
        return classifySsh(res.stderr, this.target.host, where);
      default:
        return new SshError(
          'other',
          `${where}: remote command failed with code ${res.code}${why ? `: ${why}` : ''}`,
        );
    }
  }

  /** Pid of the master connection, or null when there is none (used to tell whether it is up). */
  async masterPid(): Promise<number | null> {
    const res = await this.runSsh(['-O', 'check']);
    const m = /pid=(\d+)/.exec(res.stderr);
    return m ? Number(m[1]) : null;
  }

  /**
   * Asks the running master to forward `spec` (`-L`'s argument); false when there is no master yet or ssh
   * refused. Riding the master means no new login, and the forward ends with it.
   */
  async forward(spec: string): Promise<boolean> {
    return (await this.runSsh(['-O', 'forward', '-L', spec])).code === 0;
  }

  /** Closes the master connection (and with it every command still riding it). */
  async close(): Promise<void> {
    sessions.delete(this);
    for (const sh of this.shells.values()) sh.close();
    this.shells.clear();
    await this.runSsh(['-O', 'exit']);
  }

  private runSsh(extra: string[]): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve) => {
      const child = spawn('ssh', this.argv(extra), { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      child.stderr.on('data', (b: Buffer) => {
        err += b.toString();
      });
      child.on('error', () => resolve({ code: null, stderr: err }));
      child.on('close', (code) => resolve({ code, stderr: err }));
    });
  }
}

/** ssh itself failed (exit 255): its stderr says why. */
export function classifySsh(stderr: string, host: string, where: string): SshError {
  const s = stderr;
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key for .* has changed/i.test(s))
    return new SshError(
      'hostkey',
      `${where}: host key of ${host} has CHANGED (possible impersonation); check known_hosts`,
    );
  if (/Host key verification failed|No .* host key is known/i.test(s))
    return new SshError(
      'hostkey',
      `${where}: host key of ${host} is unknown or not trusted; connect once with ssh to accept it`,
    );
  if (/Permission denied \(|Too many authentication failures|no mutual signature/i.test(s))
    return new SshError('auth', `${where}: authentication failed for ${host} (key, agent or user?)`);
  if (/Could not resolve hostname|Name or service not known/i.test(s))
    return new SshError('unreachable', `${where}: host ${host} not found (DNS or ~/.ssh/config alias)`);
  if (/Connection refused/i.test(s))
    return new SshError(
      'unreachable',
      `${where}: connection to ${host} refused (sshd not running or wrong port)`,
    );
  if (/timed out|No route to host|Network is unreachable/i.test(s))
    return new SshError('unreachable', `${where}: host ${host} unreachable`);
  return new SshError(
    'dropped',
    `${where}: connection to ${host} dropped${lastLine(s) ? ` (${lastLine(s)})` : ''}`,
  );
}

function lastLine(s: string): string {
  const lines = s
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? '';
}
