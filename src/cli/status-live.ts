/** `--pid` and `--url`, the flags that name a server's process and address (status, watch, wait, launch). */
import { UsageError } from './errors.js';

export function pidFlag(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--pid ${String(v)}: not a process id`);
  return n;
}

export function urlFlag(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  try {
    const u = new URL(String(v));
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    return u.toString().replace(/\/$/, '');
  } catch {
    throw new UsageError(`--url ${String(v)}: not an http(s) URL (e.g. http://127.0.0.1:30000)`);
  }
}
