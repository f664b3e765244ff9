/**
 * The last line of defence before JSON leaves the server. Records are redacted when they are made, but a
 * ledger written by an older or other tool, or an IntendedLaunch captured from a shell environment, may
 * still hold a credential: every value under a secret-looking key, every token-shaped string and every
 * value following a secret flag in an argv is masked here too.
 */

import { redactArgv } from '../core/campaign/intended-env.js';
import type { IntendedLaunch, LaunchRecord } from '../core/campaign/records.js';
import { isSecretKey, REDACTED, redactConfig } from '../core/config/redact.js';

/** `['--api-key', 'x']` and `['--api-key=x']` both lose `x` (the same rule `launch` applies when it records). */
export function scrubArgv(argv: readonly string[]): string[] {
  return redactArgv([...argv]).map((a) => redactConfig(a));
}

function scrubIntended(x: IntendedLaunch | null): IntendedLaunch | null {
  if (!x) return x;
  // Environment values are kept only as far as they cannot be a credential: any secret-looking name is
  // masked whatever its value (redactConfig leaves `HF_TOKEN=True`, an env var never means "use cached").
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(x.env ?? {}))
    env[k] = isSecretKey(k) && v !== '' ? REDACTED : redactConfig(v);
  return { ...redactConfig(x), argv: scrubArgv(x.argv ?? []), env };
}

export function scrubRecord<T extends Pick<Partial<LaunchRecord>, 'intended'>>(r: T): T {
  const out = redactConfig(r);
  if ('intended' in r) (out as Partial<LaunchRecord>).intended = scrubIntended(r.intended ?? null);
  return out;
}

/** Any other payload (live targets): secret keys and token-shaped strings masked. */
export function scrub<T>(v: T): T {
  return redactConfig(v);
}
