/**
 * Opens the ledger a user named: a `postgres://` (or `postgresql://`) URL is a shared ledger on a Postgres
 * server, any other path a SQLite file. Another URL scheme is refused rather than taken for a file name.
 */
import type { LedgerStore } from './ledger-store.js';
import { isPostgresUrl, isUrl, unsupportedUrl } from './ledger-url.js';
import { SqliteLedgerStore } from './sqlite-store.js';
import { LedgerError } from './types.js';

/** Opens (creating it when missing) the ledger at `spec`. Throws LedgerError. */
export async function openLedger(spec: string): Promise<LedgerStore> {
  const bad = unsupportedUrl(spec);
  if (bad) throw bad;
  // Loaded only for a Postgres ledger: a command on a SQLite one does not pay for node-postgres.
  if (isPostgresUrl(spec)) return (await import('./pg/store.js')).PgLedgerStore.open(spec);
  return SqliteLedgerStore.open(spec);
}

/**
 * For reading only: a SQLite ledger firedup may not write (a read-only file or directory) is read from a copy
 * in memory; a Postgres ledger is read as it is (the server decides who may write).
 */
export async function openLedgerForReading(
  spec: string,
  exists: (file: string) => boolean,
): Promise<LedgerStore> {
  try {
    return await openLedger(spec);
  } catch (e) {
    if (e instanceof LedgerError && e.code === 'unwritable' && !isUrl(spec) && exists(spec))
      return SqliteLedgerStore.openReadOnly(spec);
    throw e;
  }
}
