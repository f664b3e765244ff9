/**
 * `--since`: a date, a date-time or an age. Launch times in the ledger are the logs' wall time written as UTC
 * (LaunchReport.startTs), so a date or time without a zone is read the same way, and an age counts back from
 * this machine's wall clock on that scale; a time with a zone (Z, +02:00) is exact.
 */
import { UsageError } from './errors.js';

const AGE = /^(\d+(?:\.\d+)?)\s*(s|m|min|h|d|w)$/i;
const UNIT: Record<string, number> = { s: 1, m: 60, min: 60, h: 3600, d: 86400, w: 604800 };
const DATE = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?))?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/** Epoch seconds (wall time as UTC) of `--since VALUE`; `now` is this machine's epoch seconds. */
export function parseSince(value: string, now: number): number {
  const v = value.trim();
  const age = AGE.exec(v);
  if (age) {
    const wallNow = now - new Date(now * 1000).getTimezoneOffset() * 60;
    return wallNow - Number(age[1]) * UNIT[age[2]!.toLowerCase()]!;
  }
  const m = DATE.exec(v);
  if (m) {
    const [, day, time, zone] = m;
    const ms = Date.parse(`${day}T${time ?? '00:00'}${zone ? zone.toUpperCase() : 'Z'}`);
    if (Number.isFinite(ms)) {
      // A zone makes it an instant; on the log's scale that instant reads as this machine's wall time.
      const t = ms / 1000;
      return zone ? t - new Date(ms).getTimezoneOffset() * 60 : t;
    }
  }
  throw new UsageError(
    `--since ${value}: expected a date (2026-11-30), a date-time (2026-11-30T14:00, or with Z/+02:00) or an age (30m, 2h, 3d, 1w)`,
  );
}
