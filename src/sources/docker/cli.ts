/**
 * The docker CLI as firedup runs it: an argument vector (never a shell line), `-H ssh://HOST` for a daemon on
 * another machine, and docker's failures turned into one line naming the container and what to check.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FiredupError } from '../../errors.js';
import { classifySsh } from '../ssh/session.js';
import { type DockerSsh, type DockerTarget, describeDocker } from './target.js';

export type DockerErrorKind = 'no-docker' | 'no-daemon' | 'no-container' | 'denied' | 'failed';

export class DockerError extends FiredupError<DockerErrorKind> {
  constructor(
    readonly kind: DockerErrorKind,
    message: string,
  ) {
    super(kind, message);
    this.name = 'DockerError';
  }
}

export interface DockerResult {
  /** The exit code; -1 when the docker CLI could not be run at all. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** argv for the docker CLI: the daemon's machine first (`-H ssh://…`), then the command's own words. */
export function dockerArgv(t: DockerTarget, args: readonly string[]): string[] {
  return [...(t.host ? ['-H', `ssh://${t.host}`] : []), ...args];
}

/**
 * The docker CLI's environment for a daemon on another machine. The docker CLI (20.10 as 28) runs `ssh` from PATH
 * with its own few options (`-o ConnectTimeout=30 -T -l USER -p PORT -- HOST docker system dial-stdio`) and takes
 * none from its user: no DOCKER_SSH_OPTS, no `-F`. So `--ssh-config` and `--ssh-option` reach it through an `ssh`
 * of firedup's own, first on PATH, that runs the real one with them (and BatchMode: a password prompt would hang).
 * Undefined (docker's own environment) for this machine's daemon.
 */
export function dockerEnv(t: DockerTarget): NodeJS.ProcessEnv | undefined {
  if (!t.host) return undefined;
  const dir = sshWrapper({ ...t.ssh, config: t.ssh?.config && path.resolve(t.ssh.config) });
  if (!dir) return undefined;
  return { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}` };
}

const wrappers = new Map<string, string | null>();

/**
 * A private directory holding `ssh` (a script running the real ssh with the options), made once per option set. It is
 * kept under the user's cache directory, named by its content, so that a run ended by a signal leaves nothing new
 * behind (the next run with the same options finds it); a temporary one, removed at exit, where that cannot be written.
 */
function sshWrapper(ssh: DockerSsh): string | null {
  const key = JSON.stringify([ssh.config ?? null, ssh.options ?? []]);
  const known = wrappers.get(key);
  if (known !== undefined) return known;
  for (const o of ssh.options ?? [])
    if (!/^[A-Za-z]+[= ]/.test(o) || o.includes('\n'))
      throw new DockerError('failed', `--ssh-option ${o}: expected KEY=VALUE`);
  const real = onPath('ssh');
  if (!real) {
    // docker says `exec: "ssh": executable file not found`: classified below.
    wrappers.set(key, null);
    return null;
  }
  // ssh keeps the first value it sees for an option: the user's come before ours.
  const argv = [
    real,
    ...(ssh.config ? ['-F', ssh.config] : []),
    ...(ssh.options ?? []).flatMap((o) => ['-o', o]),
    '-o',
    'BatchMode=yes',
  ];
  const script = `#!/bin/sh\n# firedup: the docker CLI's ssh, with --ssh-config and --ssh-option\nexec ${argv.map(shQuote).join(' ')} "$@"\n`;
  const dir = cachedWrapper(script) ?? tempWrapper(script);
  wrappers.set(key, dir);
  return dir;
}

/** `~/.cache/firedup/docker-ssh/HASH/ssh` (0700 all the way), or null where it cannot be made. */
function cachedWrapper(script: string): string | null {
  try {
    const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
    const hash = createHash('sha256').update(script).digest('hex').slice(0, 16);
    const dir = path.join(cache, 'firedup', 'docker-ssh', hash);
    const file = path.join(dir, 'ssh');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.statSync(dir);
    // Ours and no one else's to write, or not used.
    if (st.uid !== process.getuid?.() || (st.mode & 0o022) !== 0) return null;
    try {
      if (fs.readFileSync(file, 'utf8') === script) return dir;
    } catch {
      // Not there yet.
    }
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, script, { mode: 0o700 });
    fs.renameSync(tmp, file);
    return dir;
  } catch {
    return null;
  }
}

let tempRoot: string | null = null;

function tempWrapper(script: string): string {
  if (!tempRoot) {
    // mkdtemp makes it 0700: no other user can put an `ssh` of their own in it.
    tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'fddocker-'));
    const root = tempRoot;
    process.once('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  }
  const dir = fs.mkdtempSync(path.join(tempRoot, 'w'));
  fs.writeFileSync(path.join(dir, 'ssh'), script, { mode: 0o700 });
  return dir;
}

function shQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** The first executable NAME on PATH, or null. */
function onPath(name: string): string | null {
  for (const d of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!d) continue;
    const p = path.join(d, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** Runs `docker ARGS` for the target's daemon; never throws (the caller classifies), but for a bad --ssh-option. */
export function runDocker(
  t: DockerTarget,
  args: readonly string[],
  timeoutMs = 15_000,
): Promise<DockerResult> {
  return new Promise((resolve) => {
    execFile(
      'docker',
      dockerArgv(t, args),
      { timeout: timeoutMs, maxBuffer: 64 << 20, encoding: 'utf8', env: dockerEnv(t) },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { code?: string | number }) | null;
        if (e && e.code === 'ENOENT') resolve({ code: -1, stdout: '', stderr: '' });
        else resolve({ code: e ? (typeof e.code === 'number' ? e.code : null) : 0, stdout, stderr });
      },
    );
  });
}

/** Spawns `docker ARGS` with its output as streams (`docker logs`). */
export function spawnDocker(t: DockerTarget, args: readonly string[]): ChildProcess {
  return spawn('docker', dockerArgv(t, args), { stdio: ['ignore', 'pipe', 'pipe'], env: dockerEnv(t) });
}

/** Why a docker command failed, in one line naming the container, or null when it did not. */
export function classifyDocker(t: DockerTarget, res: DockerResult): DockerError | null {
  const what = describeDocker(t);
  if (res.code === -1)
    return new DockerError(
      'no-docker',
      `${what}: the docker CLI is not installed here (apt-get install docker.io, or put docker on PATH)`,
    );
  if (res.code === 0) return null;
  if (res.code === null && res.stderr.trim() === '')
    return new DockerError(
      'no-daemon',
      `${what}: docker did not answer in time${t.host ? ` (through ssh to ${t.host})` : ''}: check \`docker${t.host ? ` -H ssh://${t.host}` : ''} ps\``,
    );
  const err = res.stderr.trim();
  const daemon = t.host ? `the Docker daemon on ${t.host}` : 'the Docker daemon';
  if (t.host) {
    // The docker CLI's words for its ssh failing: `command [ssh … dial-stdio] has exited with exit status N, …
    // stderr=WHAT SSH OR THE REMOTE SHELL SAID`.
    const m = /exited with exit status (\d+)[^\n]*?stderr=([\s\S]*)$/.exec(err);
    if (m?.[1] === '255') return new DockerError('no-daemon', classifySsh(m[2]!, t.host, what).message);
    if (m?.[1] === '127' || (m && /docker: (command )?not found/.test(m[2]!)))
      return new DockerError(
        'no-docker',
        `${what}: the docker CLI is not on ${t.host}'s PATH (docker://HOST/NAME runs \`docker system dial-stdio\` there through ssh)`,
      );
    if (/exec: "ssh": executable file not found/.test(err))
      return new DockerError(
        'no-docker',
        `${what}: ssh is not installed here (docker://HOST/NAME reaches ${t.host} with the system ssh)`,
      );
  }
  if (/no such (container|object)/i.test(err))
    return new DockerError(
      'no-container',
      `${what}: no such container on ${t.host ?? 'this machine'} (check the name with \`docker ps -a\`${t.host ? ` on ${t.host}` : ''})`,
    );
  if (/cannot connect to the docker daemon|is the docker daemon running|daemon is not running/i.test(err))
    return new DockerError(
      'no-daemon',
      `${what}: ${daemon} is not running or not reachable (${daemonAddress(t)}): start it (\`systemctl start docker\`) or set DOCKER_HOST`,
    );
  if (/permission denied/i.test(err))
    return new DockerError(
      'denied',
      `${what}: permission denied on ${daemon}'s socket (add the user to the docker group, or run as root)`,
    );
  if (t.host && /ssh|connection|host key|could not resolve/i.test(err))
    return new DockerError('no-daemon', `${what}: cannot reach ${t.host} through ssh (${firstLine(err)})`);
  return new DockerError('failed', `${what}: docker failed: ${firstLine(err) || `exit code ${res.code}`}`);
}

function daemonAddress(t: DockerTarget): string {
  if (t.host) return `ssh://${t.host}`;
  return process.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
}

function firstLine(s: string): string {
  return (s.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 300);
}
