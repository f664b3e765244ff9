/**
 * "Did you mean": the closest of a few known names to what was typed. Used for commands, flags and enum
 * values, so a typo costs one line that names the fix instead of a trip to --help.
 */

/** Edit distance with adjacent transpositions (`stauts` is one edit from `status`, not two). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[a.length]![b.length]!;
}

/**
 * The known name closest to `typed`, or null when none is close enough to be a typo of it: within a third of
 * its length in edits (at least one), or a name that starts with what was typed (`--out` for `--outcome`)
 * or that the typed word starts with (`crash` for `crashed`).
 */
export function closest(typed: string, known: readonly string[]): string | null {
  const t = typed.toLowerCase();
  let best: string | null = null;
  let bestD = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const kl = k.toLowerCase();
    let dist = editDistance(t, kl);
    // A prefix either way is a strong hint even when many letters are missing.
    if (t.length >= 3 && (kl.startsWith(t) || t.startsWith(kl))) dist = Math.min(dist, 1);
    if (dist < bestD) {
      best = k;
      bestD = dist;
    }
  }
  const allowed = Math.max(1, Math.floor(t.length / 3));
  return best !== null && bestD <= allowed ? best : null;
}

/** `; did you mean X?` or nothing: appended to the one-line error. */
export function didYouMean(typed: string, known: readonly string[], show = (s: string) => s): string {
  const c = closest(typed, known);
  return c === null ? '' : `; did you mean ${show(c)}?`;
}
