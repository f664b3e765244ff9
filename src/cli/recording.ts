/**
 * Every command that reads a log records what it learned in the ledger (`--ledger PATH`, FIREDUP_LEDGER,
 * else the XDG data dir; `--no-ledger` to skip). This is the CLI's one place that decides where and whether.
 */

import path from 'node:path';
import { redactText } from '../core/config/redact.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { isPostgresUrl, unsupportedUrl } from '../store/ledger-url.js';
import { openLedger } from '../store/open.js';
import { defaultLedgerPath } from '../store/paths.js';
import { LedgerError } from '../store/types.js';
import type { FlagSpec } from './args.js';
import { UsageError } from './errors.js';

export const RECORD_FLAGS: Record<string, FlagSpec> = {
  ledger: { type: 'string' },
  'no-ledger': { type: 'boolean' },
};

/**
 * The ledger file: `--ledger PATH`, else one a config file names, else FIREDUP_LEDGER, else the XDG data dir.
 * Every command that opens the ledger asks here.
 */
export function ledgerFile(flags: Record<string, unknown>, configured?: string): string {
  const given = flags.ledger;
  if (given !== undefined && (typeof given !== 'string' || given.trim() === ''))
    throw new UsageError('--ledger needs a path: --ledger ~/firedup.db');
  if (typeof given === 'string') return notUrl(given, '--ledger');
  if (configured) return notUrl(configured, 'ledger (firedup.toml)');
  if (process.env.FIREDUP_LEDGER === 'off')
    throw new UsageError('FIREDUP_LEDGER=off: there is no ledger to use; name one with --ledger PATH');
  if (process.env.FIREDUP_LEDGER) return notUrl(process.env.FIREDUP_LEDGER, 'FIREDUP_LEDGER');
  return defaultLedgerPath();
}

/**
 * A `postgres://` URL is a shared ledger, kept as given; another URL is never taken for a file name (the path
 * it resolves to would be nonsense); anything else is a SQLite file.
 */
function notUrl(value: string, where: string): string {
  if (isPostgresUrl(value)) return value;
  const bad = unsupportedUrl(value);
  if (bad)
    throw new UsageError(
      `${where} ${redactText(value)}: a URL firedup cannot keep a ledger at; give a file path or a postgres:// URL`,
    );
  return path.resolve(value);
}

/**
 * The ledger to record into, or null with `--no-ledger` (or FIREDUP_LEDGER=off); `configured`: the one a
 * config file names (firedup.toml's `ledger`).
 */
export async function recordingLedger(
  flags: Record<string, unknown>,
  configured?: string,
): Promise<LedgerStore | null> {
  if (
    flags['no-ledger'] ||
    (flags.ledger === undefined && !configured && process.env.FIREDUP_LEDGER === 'off')
  )
    return null;
  const file = ledgerFile(flags, configured);
  try {
    return await openLedger(file);
  } catch (err) {
    if (!(err instanceof LedgerError)) throw err;
    // A ledger that cannot be created (read-only home) must not stop anyone reading a log: say so, go on.
    // Nor can a damaged one: the report first, then why it was not recorded.
    if (err.code === 'unwritable' || err.code === 'corrupt') {
      process.stderr.write(`firedup: not recording: ${err.message}\n`);
      return null;
    }
    throw new UsageError(err.message);
  }
}

/** Ledger failures that say it cannot take writes now, not that the command was asked something wrong. */
const CANNOT_WRITE = new Set(['unwritable', 'busy', 'unreachable']);

/**
 * Runs a one-shot read with the recording ledger open (none for standard input), closing it after. With
 * `readAgain`, a ledger that fails while the read writes to it (the disk filled up under it) costs the
 * recording, not the report: said in one line, and `fn` runs again without a ledger. Only for an `fn` that
 * has written nothing to stdout before it can fail, and whose log can be read twice (a file, not a pipe:
 * those are read without the ledger anyway).
 */
export async function withRecording<T>(
  flags: Record<string, unknown>,
  fn: (ledger: LedgerStore | null) => Promise<T>,
  { readAgain = false }: { readAgain?: boolean } = {},
): Promise<T> {
  const ledger = await recordingLedger(flags);
  let failed: LedgerError | null = null;
  try {
    return await fn(ledger);
  } catch (err) {
    if (!readAgain || !ledger || !(err instanceof LedgerError) || !CANNOT_WRITE.has(err.code)) throw err;
    failed = err;
  } finally {
    // A ledger that just failed may fail to close too: the first failure is the one to tell.
    await ledger?.close().catch((e: unknown) => {
      if (!failed) throw e;
    });
  }
  process.stderr.write(`firedup: not recording: ${failed!.message}\n`);
  return await fn(null);
}
