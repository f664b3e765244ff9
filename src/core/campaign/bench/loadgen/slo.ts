/** `--slo ttft_ms=500,tpot_ms=50` (bench run, a sweep file's bench plan) as an Slo. */
import { UsageError } from '../../../../errors.js';
import type { Slo } from './types.js';

const bad = (msg: string) => new UsageError(`bench run: ${msg}`);

const SLO_KEYS: Record<string, keyof Slo> = { ttft_ms: 'ttftMs', tpot_ms: 'tpotMs', e2e_ms: 'e2eMs' };

export function parseSlo(v: string): Slo {
  const slo: Slo = {};
  for (const part of v.split(',')) {
    const [k, val] = part.split('=').map((x) => x.trim());
    const key = SLO_KEYS[k ?? ''];
    const n = Number(val);
    if (!key || val === undefined || val === '' || !Number.isFinite(n) || n <= 0)
      throw bad(
        `--slo ${v}: expected key=milliseconds pairs of ttft_ms, tpot_ms, e2e_ms (e.g. --slo ttft_ms=500,tpot_ms=50)`,
      );
    slo[key] = n;
  }
  return slo;
}
