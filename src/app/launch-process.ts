/**
 * The server process of `firedup launch`: its log opened for appending, the process started in its own
 * process group writing straight into that file, and its exit turned into a shell-style status.
 *
 * The child gets the log's descriptor (O_APPEND) as stdout and stderr, exactly like `nohup cmd >> log 2>&1`:
 * no pipe passes through firedup, so nothing is lost or blocked if firedup is slow or dies, and the server's
 * writes interleave at line granularity as the kernel appends them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.js';

export interface OpenedLog {
  fd: number;
  /** The absolute real path (what the ledger keys the log by). */
  realPath: string;
  /** `dev:ino`. */
  fileId: string;
  /** Where the log ended before the server started. */
  size: number;
  /**
   * Launches starting at or after this byte are the new server's: the size, or the start of the last line
   * when the file does not end in a newline (the server's first line then continues that line).
   */
  fromOffset: number;
}

/** Opens (creating it) the log for appending; a missing directory or no permission is the user's to fix. */
export function openLog(file: string): OpenedLog {
  let fd: number;
  // Looked at before opening: opening a FIFO with no reader for writing blocks before the server starts.
  const before = fs.statSync(file, { throwIfNoEntry: false });
  if (before && !before.isFile() && !before.isDirectory())
    throw new UsageError(`launch: --log ${file}: not a regular file (a FIFO or a device); name a log file`);
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT, 0o644);
  } catch (err) {
    throw new UsageError(`launch: --log ${file}: ${whyNotWritable(err)}`);
  }
  const st = fs.fstatSync(fd);
  if (!st.isFile()) {
    fs.closeSync(fd);
    throw new UsageError(`launch: --log ${file}: not a regular file`);
  }
  return {
    fd,
    realPath: fs.realpathSync(file),
    fileId: `${st.dev}:${st.ino}`,
    size: st.size,
    fromOffset: lastLineStart(file, st.size),
  };
}

function whyNotWritable(err: unknown): string {
  switch ((err as NodeJS.ErrnoException)?.code) {
    case 'ENOENT':
      return 'its directory does not exist (create it, or choose another --log)';
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 'not writable (choose another --log)';
    case 'EISDIR':
      return 'is a directory (name a file inside it)';
    case 'ENOTDIR':
      return 'a parent of this path is not a directory';
    default:
      return `cannot open for appending (${(err as Error)?.message ?? err})`;
  }
}

/** Offset of the start of the file's last line, or `size` when it ends in a newline (or is empty). */
function lastLineStart(file: string, size: number): number {
  if (size === 0) return 0;
  const len = Math.min(size, 64 << 10);
  const buf = Buffer.alloc(len);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return size;
  }
  try {
    fs.readSync(fd, buf, 0, len, size - len);
  } finally {
    fs.closeSync(fd);
  }
  if (buf[len - 1] === 0x0a) return size;
  const nl = buf.lastIndexOf(0x0a);
  // A last line longer than what was read: start from what was read rather than scan the whole file.
  return nl < 0 ? size - len : size - len + nl + 1;
}

/** `firedup-<engine or program>-<yyyymmdd-hhmmss>.log` in the current directory, local time. */
export function defaultLogName(what: string, now: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  const name = what.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^[.]+/, '') || 'server';
  return `firedup-${name}-${stamp}.log`;
}

/**
 * Starts the server with the log as stdout and stderr, stdin closed (a server in the background must not
 * read the terminal), in a new session so that its workers form one process group firedup can signal and
 * the terminal's Ctrl-C reaches firedup alone.
 */
export function startServer(argv: string[], fd: number, cwd: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ['ignore', fd, fd], detached: true });
}

/** Sends `signal` to the server's process group (its workers too), or to the server alone if the group is gone. */
export function signalServer(pid: number, signal: NodeJS.Signals): boolean {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, signal);
      return true;
    } catch {
      // ESRCH: no such group (or process); try the next.
    }
  }
  return false;
}

/** A shell's `$?`: the exit code, or 128 + the signal's number. */
export function exitStatus(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const n = signal ? os.constants.signals[signal] : undefined;
  return n === undefined ? 1 : 128 + n;
}

/** The command as the shell would find it, or a UsageError with the shell's status: 127 missing, 126 not runnable. */
export function checkCommand(name: string, env: NodeJS.ProcessEnv, cwd: string): void {
  const candidates = name.includes('/')
    ? [path.resolve(cwd, name)]
    : (env.PATH ?? '').split(':').map((d) => path.join(path.resolve(cwd, d || '.'), name));
  let found: string | null = null;
  for (const c of candidates) {
    try {
      if (fs.statSync(c).isFile()) {
        found = c;
        try {
          fs.accessSync(c, fs.constants.X_OK);
          return;
        } catch {
          // Keep looking: the shell also skips a non-executable file on PATH.
        }
      }
    } catch {
      // Not there.
    }
  }
  if (found) throw new UsageError(`launch: ${name}: not executable (chmod +x ${found})`, 126);
  throw new UsageError(
    name.includes('/')
      ? `launch: ${name}: no such file`
      : `launch: ${name}: command not found on PATH (check the spelling, or activate the environment that has it)`,
    127,
  );
}

/** Newlines in bytes [start, end) of the file (0 if it cannot be read): turns an offset into a line number. */
export function countNewlines(file: string, start: number, end: number): number {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return 0;
  }
  const buf = Buffer.alloc(1 << 20);
  let n = 0;
  try {
    for (let at = start; at < end; ) {
      const got = fs.readSync(fd, buf, 0, Math.min(buf.length, end - at), at);
      if (got <= 0) break;
      for (let i = buf.indexOf(0x0a, 0); i >= 0 && i < got; i = buf.indexOf(0x0a, i + 1)) n++;
      at += got;
    }
  } finally {
    fs.closeSync(fd);
  }
  return n;
}
