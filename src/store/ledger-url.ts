/** What a ledger spec names: a Postgres server (a `postgres://` URL), another URL (refused), or a SQLite file. */
import { redactText } from '../core/config/redact.js';
import { LedgerError } from './types.js';

const URL_SHAPE = /^[a-z][a-z0-9+.-]*:\/\//i;
const POSTGRES = /^postgres(ql)?:\/\//i;

/** True for a Postgres URL (the ledger lives on a server, not in a file). */
export function isPostgresUrl(spec: string): boolean {
  return POSTGRES.test(spec);
}

/** True for anything written as a URL (`scheme://…`), Postgres or not. */
export function isUrl(spec: string): boolean {
  return URL_SHAPE.test(spec);
}

/** A URL of a scheme firedup cannot keep a ledger at: one line naming it (redacted). Null when fine. */
export function unsupportedUrl(spec: string): LedgerError | null {
  if (!isUrl(spec) || isPostgresUrl(spec)) return null;
  return new LedgerError(
    'unwritable',
    `ledger ${redactText(spec)}: a URL firedup cannot keep a ledger at; give a file path or a postgres:// URL`,
  );
}
