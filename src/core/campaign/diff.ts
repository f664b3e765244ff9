/** What changed between two launches' configurations. */

/** Fields that change on every launch without anyone asking (random seeds, ports picked at random). */
export const VOLATILE = new Set([
  'random_seed',
  'nccl_port',
  'dist_init_port',
  'port_base',
  'seed_was_random',
]);

export interface ConfigChange {
  key: string;
  from: unknown;
  to: unknown;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

export function diffConfig(a: Record<string, unknown>, b: Record<string, unknown>): ConfigChange[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  const out: ConfigChange[] = [];
  for (const key of keys) {
    if (VOLATILE.has(key)) continue;
    const from = a[key];
    const to = b[key];
    if (!same(from, to))
      out.push({ key, from: from === undefined ? null : from, to: to === undefined ? null : to });
  }
  return out.sort((x, y) => x.key.localeCompare(y.key));
}
