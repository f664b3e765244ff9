/** Where the ledger lives when `--ledger` is not given. */
import os from 'node:os';
import path from 'node:path';

/** FIREDUP_LEDGER, else the XDG data directory (`~/.local/share` when XDG_DATA_HOME is unset or empty). */
export function defaultLedgerPath(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  if (env.FIREDUP_LEDGER) return path.resolve(env.FIREDUP_LEDGER);
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.local', 'share');
  return path.join(base, 'firedup', 'ledger.db');
}
