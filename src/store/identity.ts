/**
 * Who and where a record comes from (issue 24.9): a ledger shared by a team holds launches of many machines,
 * and `localhost` (the log's place, as `host` keeps it) would be every one of them.
 */
import os from 'node:os';

/** This machine as people name it: its hostname. */
export function thisMachine(): string {
  return os.hostname() || 'localhost';
}

/** The account running firedup; null where the system cannot say (no passwd entry in a container). */
export function thisUser(): string | null {
  try {
    return os.userInfo().username || null;
  } catch {
    return process.env.USER || process.env.LOGNAME || null;
  }
}

/** The machine a log at `host` was written on: this one for a local file, else the ssh host as given. */
export function machineOf(host: string): string {
  return host === 'localhost' ? thisMachine() : host;
}

/**
 * A launch's machine in SQL, one `?` for this machine's name: its own column, else (rows recorded before
 * machines were) the log's host, `localhost` being the machine that reads the ledger.
 */
export const MACHINE_SQL = `coalesce(machine, CASE WHEN host = 'localhost' THEN ? ELSE host END)`;
