/**
 * The docker CLI as firedup runs it: an argument vector (never a shell line), `-H ssh://HOST` for a daemon on
 * another machine, and docker's failures turned into one line naming the container and what to check.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { FiredupError } from '../../errors.js';
import { type DockerTarget, describeDocker } from './target.js';

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

/** Runs `docker ARGS` for the target's daemon; never throws (the caller classifies). */
export function runDocker(
  t: DockerTarget,
  args: readonly string[],
  timeoutMs = 15_000,
): Promise<DockerResult> {
  return new Promise((resolve) => {
    execFile(
      'docker',
      dockerArgv(t, args),
      { timeout: timeoutMs, maxBuffer: 64 << 20, encoding: 'utf8' },
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
  return spawn('docker', dockerArgv(t, args), { stdio: ['ignore', 'pipe', 'pipe'] });
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
  const err = res.stderr.trim();
  const daemon = t.host ? `the Docker daemon on ${t.host}` : 'the Docker daemon';
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
