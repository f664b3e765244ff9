/**
 * Small SVG charts for the live cards: a sparkline (a line over time, its last point marked) and a history
 * strip. No library: a card is redrawn on every event, and an SVG path of a few hundred points is cheap.
 */
import { s } from './dom.js';

/**
 * `xs`, `ys`: equal-length arrays (nulls skipped). `yMax`: the top of the scale (default: the data's max).
 * The element carries `data-points` (how many points it drew), for tests and for the curious.
 */
export function sparkline(xs, ys, { width = 240, height = 40, yMax, label, cls = '' } = {}) {
  const pts = [];
  for (let i = 0; i < xs.length; i++)
    if (xs[i] !== null && ys[i] !== null && Number.isFinite(xs[i]) && Number.isFinite(ys[i]))
      pts.push([xs[i], ys[i]]);
  const svg = s('svg', {
    class: `spark ${cls}`,
    viewBox: `0 0 ${width} ${height}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': label ?? 'sparkline',
    'data-points': pts.length,
  });
  if (!pts.length) return svg;
  const x0 = pts[0][0];
  const x1 = pts[pts.length - 1][0];
  const top = yMax ?? Math.max(...pts.map((p) => p[1]));
  const pad = 2;
  const X = (x) => (x1 > x0 ? pad + ((x - x0) / (x1 - x0)) * (width - 2 * pad) : width - pad);
  const Y = (y) => height - pad - (top > 0 ? (Math.min(y, top) / top) * (height - 2 * pad) : 0);
  const d = pts.map((p, i) => `${i ? 'L' : 'M'}${X(p[0]).toFixed(1)},${Y(p[1]).toFixed(1)}`).join('');
  const area = `${d}L${X(pts[pts.length - 1][0]).toFixed(1)},${height - pad}L${X(x0).toFixed(1)},${height - pad}Z`;
  svg.append(
    s('path', { d: area, class: 'area' }),
    s('path', { d, class: 'line', 'vector-effect': 'non-scaling-stroke' }),
  );
  const last = pts[pts.length - 1];
  svg.append(s('circle', { cx: X(last[0]), cy: Y(last[1]), r: 2.5, class: 'last' }));
  if (label) svg.append(s('title', null, label));
  return svg;
}
