/** Where the ledger lives when `--ledger` is not given. */
import { createRequire } from 'node:module';
import path from 'node:path';
import { isUrl } from './ledger-url.js';

/** FIREDUP_LEDGER, else the XDG data directory (`~/.local/share` when XDG_DATA_HOME is unset or empty). */
export function defaultLedgerPath(env: NodeJS.ProcessEnv = process.env, home: string = homeDir()): string {
  // A URL (`postgres://…`) is kept as given: resolved as a path it would be nonsense.
  if (env.FIREDUP_LEDGER)
    return isUrl(env.FIREDUP_LEDGER) ? env.FIREDUP_LEDGER : path.resolve(env.FIREDUP_LEDGER);
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'share');
  return path.join(base, 'firedup', 'ledger.db');
}

/**
 * os.homedir() without loading node:os (a millisecond of every `firedup status`) where it need not: it too
 * answers $HOME when set and not empty, and asks the password database only otherwise.
 */
export function homeDir(): string {
  return (
    process.env.HOME || (createRequire(import.meta.url)('node:os') as typeof import('node:os')).homedir()
  );
}
