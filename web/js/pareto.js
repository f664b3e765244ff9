/**
 * The Pareto front of a sweep's levels: those no other level beats on both median TPOT (lower) and output tok/s
 * (higher). Pure, so that it can be held against known points outside a browser.
 */

/** `points` as [tpotMs, outputTokS]; levels without a TPOT (one-token or unstreamed replies) are not passed in. */
export function paretoFront(points) {
  const ok = points.filter((p) => Number.isFinite(p[0]) && Number.isFinite(p[1]) && p[0] > 0);
  // Lowest TPOT first; at one TPOT the fastest first, so that its slower twins are not on the front.
  const sorted = ok.slice().sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const front = [];
  let best = -Infinity;
  for (const p of sorted)
    if (p[1] > best) {
      front.push(p);
      best = p[1];
    }
  return front;
}

/**
 * The front as a staircase through its points (each step holds its throughput until the next, slower point
 * buys more): the region under it is what the sweep reached. A front of one point is that point alone.
 */
export function frontSteps(front) {
  const out = [];
  front.forEach((p, i) => {
    if (i > 0) out.push([p[0], front[i - 1][1]]);
    out.push(p);
  });
  return out;
}
