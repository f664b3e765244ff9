/**
 * Who and where a record comes from (issue 24.9): a ledger shared by a team holds launches of many machines,
 * and `localhost` (the log's place, as `host` keeps it) would be every one of them.
 */
import os from 'node:os';

// Each launch's row names its machine and user, and the first read of a long log writes 100,000 of them:
// os.userInfo() reads the passwd database each time (getpwuid), most of that read's system time. Both are
// kept for a few seconds, so that a `watch` or `serve` that runs for days still sees a renamed host.
const KEEP_MS = 5000;
let machine: { name: string; at: number } | null = null;
let user: { name: string | null; at: number } | null = null;

/** This machine as people name it: its hostname. */
export function thisMachine(): string {
  const now = Date.now();
  if (machine === null || now - machine.at > KEEP_MS)
    machine = { name: os.hostname() || 'localhost', at: now };
  return machine.name;
}

/** The account running firedup; null where the system cannot say (no passwd entry in a container). */
export function thisUser(): string | null {
  const now = Date.now();
  if (user === null || now - user.at > KEEP_MS) user = { name: lookUpUser(), at: now };
  return user.name;
}

function lookUpUser(): string | null {
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
