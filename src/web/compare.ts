/**
 * `/api/compare`: which configuration fields differ among two to four launches, grouped the way
 * `firedup diff` groups them (parallelism, memory, scheduling, kernels, …). Volatile fields (random seeds,
 * ports picked at random) never count as a difference: they change on every launch.
 */

import { diffConfig } from '../core/campaign/diff.js';
import type { LaunchRecord } from '../core/campaign/records.js';
import { groupByConfig } from '../core/config/groups.js';

export function compareConfigs(launches: ReadonlyArray<{ report: Pick<LaunchRecord['report'], 'config'> }>): {
  changes: Array<{ key: string; values: unknown[] }>;
  groups: Record<string, string[]>;
} {
  const configs = launches.map((l) => l.report?.config ?? {});
  // A field differs among them exactly when it differs between the first and one of the others.
  const keys = new Set<string>();
  for (const c of configs.slice(1)) for (const d of diffConfig(configs[0]!, c)) keys.add(d.key);
  const sorted = [...keys].sort((a, b) => a.localeCompare(b));
  const changes = sorted.map((key) => ({
    key,
    values: configs.map((c) => (Object.hasOwn(c, key) ? c[key] : null)),
  }));
  const groups: Record<string, string[]> = {};
  for (const g of groupByConfig(changes)) groups[g.group] = g.items.map((c) => c.key);
  return { changes, groups };
}
