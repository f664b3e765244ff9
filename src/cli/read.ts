/** The flags every log-reading command shares (`--engine`, `--ssh-config`, `--ssh-option`); the reading itself is app/read-log.ts. */
import { readLog, readWarning } from '../app/read-log.js';
import { ENGINES, type EngineId } from '../core/base/types.js';
import type { ReadResult } from '../sources/file.js';
import type { SshOptions } from '../sources/ssh/session.js';
import { choice } from './args.js';

export function engineFlag(v: unknown): EngineId | undefined {
  if (v === undefined) return undefined;
  return choice('', '--engine', String(v), ENGINES, 'an engine');
}

/** `--ssh-config` and `--ssh-option` as parsed flags, for SshSession. */
export function sshFlags(flags: Record<string, unknown>): SshOptions {
  const opt = flags['ssh-option'];
  const options = opt === undefined ? [] : Array.isArray(opt) ? opt.map(String) : [String(opt)];
  const config = typeof flags['ssh-config'] === 'string' ? flags['ssh-config'] : undefined;
  return { config, options };
}

/** Reads a log for a command, printing on stderr the warning the read owes the user, if any. */
export async function readLogForCli(...args: Parameters<typeof readLog>): Promise<ReadResult> {
  args[1] = { onWaitingForWriter: fifoNote, ...args[1] };
  const res = await readLog(...args);
  const warning = readWarning(args[0], res);
  if (warning) process.stderr.write(`firedup: warning: ${warning}\n`);
  return res;
}

/** What a read of a FIFO with no writer says on stderr, so that waiting does not look like a hang. */
export function fifoNote(path: string): void {
  process.stderr.write(`firedup: ${path}: a FIFO with no writer yet; waiting for one (Ctrl-C to stop)\n`);
}
