/** Value coercion shared by the benchmark parsers: every missing, `inf`, `nan` or `not set` value becomes null. */
import type { LatencyStats } from '../records.js';

/** A finite number from a JSON value or a printed cell, else null (never NaN or Infinity: JSON cannot carry them). */
export function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (!/^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(s)) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** A non-empty string, else null (Python's None printed as text counts as missing). */
export function str(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  return s === '' || s === 'None' || s === 'not set' ? null : s;
}

export const stats = (mean: unknown, median: unknown, p99: unknown): LatencyStats => ({
  mean: num(mean),
  median: num(median),
  p99: num(p99),
});

/** x / y when both are known and y is positive (input tok/s from totals, when the tool prints no rate). */
export function ratio(x: number | null, y: number | null): number | null {
  if (x === null || y === null || y <= 0) return null;
  return Math.round((x / y) * 100) / 100;
}

/**
 * vLLM's result `date` (`%Y%m%d-%H%M%S`, the benchmark machine's local wall time, no zone) as epoch seconds
 * with the wall time written as UTC — the same convention as the server logs' timestamps (LaunchReport.startTs),
 * so a bench and the log it ran against compare on one clock.
 */
export function wallDate(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/.exec(v.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  const t = Date.UTC(y!, mo! - 1, d!, h!, mi!, s!);
  return Number.isFinite(t) ? t / 1000 : null;
}

/** Host and port from a `base_url` such as `http://10.0.0.5:30000`; nulls for what it does not say. */
export function fromUrl(v: unknown): { host: string | null; port: number | null } {
  const s = str(v);
  const m = s ? /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]+\]|[^:/?#]+)(?::(\d+))?/i.exec(s) : null;
  if (!m) return { host: null, port: null };
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port: m[2] ? Number(m[2]) : null };
}

/** A TCP port, or null. */
export function port(v: unknown): number | null {
  const n = num(v);
  return n !== null && Number.isInteger(n) && n > 0 && n < 65536 ? n : null;
}

/** Python's `json.dumps` writes bare `Infinity`, `-Infinity` and `NaN` (e.g. `"request_rate": Infinity`); JSON.parse
 * rejects them, so they become null outside strings before parsing. */
export function parsePythonJson(text: string): unknown {
  const fixed = text.replace(/"(?:[^"\\]|\\.)*"|-?\bInfinity\b|\bNaN\b/g, (t) =>
    t.startsWith('"') ? t : 'null',
  );
  return JSON.parse(fixed);
}
