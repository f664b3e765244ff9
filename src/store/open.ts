/**
 * Opens the ledger a user named: a `postgres://` (or `postgresql://`) URL is a shared ledger on a Postgres
 * server, any other path a SQLite file. Another URL scheme is refused rather than taken for a file name.
 */
import { redactText } from '../core/config/redact.js';
import type { LedgerStore } from './ledger-store.js';
import { PgLedgerStore } from './pg/store.js';
import { SqliteLedgerStore } from './sqlite-store.js';
import { LedgerError } from './types.js';

const URL_SHAPE = /^[a-z][a-z0-9+.-]*:\/\//i;
const POSTGRES = /^postgres(ql)?:\/\//i;

/** True for a Postgres URL (the ledger lives on a server, not in a file). */
export function isPostgresUrl(spec: string): boolean {
  return POSTGRES.test(spec);
}

/** A URL of a scheme firedup cannot keep a ledger at: one line naming it (redacted). Null when fine. */
export function unsupportedUrl(spec: string): LedgerError | null {
  if (!URL_SHAPE.test(spec) || isPostgresUrl(spec)) return null;
  return new LedgerError(
    'unwritable',
    `ledger ${redactText(spec)}: a URL firedup cannot keep a ledger at; give a file path or a postgres:// URL`,
  );
}

/** Opens (creating it when missing) the ledger at `spec`. Throws LedgerError. */
export async function openLedger(spec: string): Promise<LedgerStore> {
  const bad = unsupportedUrl(spec);
  if (bad) throw bad;
  if (isPostgresUrl(spec)) return PgLedgerStore.open(spec);
  return SqliteLedgerStore.open(spec);
}

/**
 * For reading only: a SQLite ledger firedup may not write (a read-only file or directory) is read from a copy
 * in memory; a Postgres ledger is read as it is (the server decides who may write).
 */
export async function openLedgerForReading(spec: string, exists: (file: string) => boolean): Promise<LedgerStore> {
  try {
    return await openLedger(spec);
  } catch (e) {
    if (e instanceof LedgerError && e.code === 'unwritable' && !URL_SHAPE.test(spec) && exists(spec))
      return SqliteLedgerStore.openReadOnly(spec);
    throw e;
  }
}
