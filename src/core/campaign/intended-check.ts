/**
 * The flags a command line asked for against the configuration the server logged. A flag that reached the
 * server shows up in its dump with the same value; one that did not (overridden by a config file, a
 * wrapper script that rewrote argv, a post-init adjustment) is a mismatch. Absence only counts where the
 * engine dumps every setting (SGLang's `server_args`, vLLM's `args: Namespace(...)`, TGI's `Args {...}`):
 * vLLM's `non-default args` leaves out defaults and llama-server prints almost none, so there an absent
 * flag is "not observable", never a false mismatch. Pure.
 */

import type { EngineId } from '../base/types.js';
import { REDACTED } from '../config/redact.js';

export type CheckStatus = 'match' | 'mismatch' | 'absent' | 'unobservable';

export interface FlagCheck {
  key: string;
  intended: unknown;
  /** The logged value; null when absent or not observable. */
  observed: unknown;
  /** The key it was found under, when argparse abbreviated it (`--mem-frac` → mem_fraction_static). */
  observedKey: string;
  status: CheckStatus;
}

/** A mismatch as the ledger keeps it (IntendedLaunch.mismatches), with why. */
export interface Mismatch {
  key: string;
  intended: unknown;
  observed: unknown;
  reason: 'differs' | 'absent';
}

export interface IntendedCheck {
  checks: FlagCheck[];
  mismatches: Mismatch[];
  /** Keys the log cannot confirm or refute. */
  unobservable: string[];
  /** Whether the log holds a dump of every setting (absence is then meaningful). */
  fullDump: boolean;
}

/** Config sources (signature ids) that print every setting, defaults included. */
const FULL_DUMPS: Partial<Record<EngineId, string[]>> = {
  sglang: ['server_args'],
  vllm: ['args_namespace'],
  tgi: ['args'],
};

/** Flags consumed by the argument parser itself, never part of a dump. */
const NOT_CONFIG = new Set(['config', 'help', 'h']);

/** Whether a launch's config sources include a dump of every setting. */
export function hasFullDump(engine: EngineId | null, sources: Array<{ source: string }>): boolean {
  const full = engine ? FULL_DUMPS[engine] : undefined;
  return Boolean(full && sources.some((s) => full.includes(s.source)));
}

function canonical(v: unknown): string {
  if (typeof v === 'string' && /^[[{]/.test(v)) {
    try {
      return canonical(JSON.parse(v));
    } catch {
      return v;
    }
  }
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${k}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  // '8' and 8, 'True' and true: a dump may print a number or a flag as text.
  if (typeof v === 'string' && v !== '' && Number.isFinite(Number(v))) return String(Number(v));
  if (v === 'True' || v === 'False') return String(v === 'True');
  return String(v);
}

/** Whether a value asked for is the value logged (`--served-model-name a` is logged as `['a']`). */
export function sameValue(intended: unknown, observed: unknown): boolean {
  if (intended === REDACTED || observed === REDACTED) return intended === observed || observed === REDACTED;
  if (Array.isArray(observed) && !Array.isArray(intended) && observed.length === 1)
    return sameValue(intended, observed[0]);
  return canonical(intended) === canonical(observed);
}

/**
 * The observed key for an intended one: itself, or in a full dump the one key it abbreviates (argparse's
 * allow_abbrev: `--mem-frac` is mem_fraction_static). A partial dump may lack the full key, so no guessing.
 */
function observedKeyOf(key: string, config: Record<string, unknown>, fullDump: boolean): string | null {
  if (Object.hasOwn(config, key)) return key;
  if (!fullDump) return null;
  const longer = Object.keys(config).filter((k) => k.startsWith(key));
  return longer.length === 1 ? longer[0]! : null;
}

/** Holds each intended flag against the logged config (`config`, from `configSources`). */
export function checkIntended(
  engine: EngineId | null,
  flags: Record<string, unknown>,
  config: Record<string, unknown>,
  configSources: Array<{ source: string }>,
): IntendedCheck {
  const fullDump = hasFullDump(engine, configSources);
  const checks: FlagCheck[] = [];
  for (const [key, intended] of Object.entries(flags)) {
    if (NOT_CONFIG.has(key)) continue;
    const k = observedKeyOf(key, config, fullDump);
    if (k === null) {
      checks.push({
        key,
        intended,
        observed: null,
        observedKey: key,
        status: fullDump ? 'absent' : 'unobservable',
      });
      continue;
    }
    const observed = config[k];
    checks.push({
      key,
      intended,
      observed,
      observedKey: k,
      status: sameValue(intended, observed) ? 'match' : 'mismatch',
    });
  }
  return {
    checks,
    mismatches: checks
      .filter((c) => c.status === 'mismatch' || c.status === 'absent')
      .map((c) => ({
        key: c.observedKey,
        intended: c.intended,
        observed: c.observed,
        reason: c.status === 'absent' ? 'absent' : 'differs',
      })),
    unobservable: checks.filter((c) => c.status === 'unobservable').map((c) => c.key),
    fullDump,
  };
}
