/**
 * Pages #/sweeps and #/sweep/NAME : `firedup sweep` campaigns: ranked points, throughput against
 * concurrency, Pareto front.
 */
import { api } from '../api.js';
import { h, s } from '../dom.js';
import { fmtDur, fmtNum, fmtTs, fmtVal, plural, shortId } from '../format.js';
import { frontSteps, paretoFront } from '../pareto.js';
import { registerPage, routeSeq } from '../router.js';
import { badge } from '../states.js';

export async function sweepsView(seq) {
  const data = await api('api/sweeps');
  if (seq !== routeSeq) return null;
  const root = h('section', { class: 'sweeps' }, h('h1', null, 'Sweeps'));
  if (!data.sweeps.length) {
    root.append(
      h('p', { class: 'muted' }, 'No sweep recorded: ', h('code', null, 'firedup sweep FILE'), ' runs one.'),
    );
    return root;
  }
  root.append(
    h(
      'table',
      { class: 'launches' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          ['sweep', 'points', 'runs', 'started', 'ended'].map((x) => h('th', null, x)),
        ),
      ),
      h(
        'tbody',
        null,
        data.sweeps.map((w) =>
          h(
            'tr',
            null,
            h('td', null, h('a', { href: `#/sweep/${encodeURIComponent(w.name)}` }, w.name)),
            h('td', { class: 'num' }, String(w.points)),
            h('td', { class: 'num' }, String(w.runs)),
            h('td', null, fmtTs(w.startedAt)),
            h('td', null, fmtTs(w.endedAt)),
          ),
        ),
      ),
    ),
  );
  return root;
}

const SWEEP_COLORS = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
];

function pointName(p, keys) {
  return `#${p.index} ${keys.map((k) => `${k}=${fmtVal(p.values[k])}`).join(' ')}`;
}

/** A small SVG chart: axes with min/max ticks, one series per entry (`line` joins its points). */
function svgChart({ series, xLabel, yLabel, logX = false, line = true, frontier = null }) {
  const W = 560;
  const H = 300;
  const M = { l: 64, r: 16, t: 12, b: 40 };
  const pts = series.flatMap((x) => x.points);
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart sweep-chart', role: 'img' });
  if (!pts.length) return h('p', { class: 'muted' }, 'no benchmarked point yet');
  const fx = (v) => (logX ? Math.log2(Math.max(v, 1e-9)) : v);
  const xs = pts.map((p) => fx(p[0]));
  const ys = pts.map((p) => p[1]);
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [y0, y1] = [0, Math.max(...ys) * 1.08 || 1];
  const X = (v) => M.l + ((fx(v) - x0) / (x1 - x0 || 1)) * (W - M.l - M.r);
  const Y = (v) => H - M.b - ((v - y0) / (y1 - y0 || 1)) * (H - M.t - M.b);
  svg.append(
    s('line', { x1: M.l, y1: H - M.b, x2: W - M.r, y2: H - M.b, class: 'axis' }),
    s('line', { x1: M.l, y1: M.t, x2: M.l, y2: H - M.b, class: 'axis' }),
    s('text', { x: (W + M.l) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-label' }, xLabel),
    s(
      'text',
      {
        x: 12,
        y: (H - M.b + M.t) / 2,
        'text-anchor': 'middle',
        transform: `rotate(-90 12 ${(H - M.b + M.t) / 2})`,
        class: 'axis-label',
      },
      yLabel,
    ),
    s('text', { x: M.l - 6, y: Y(y1) + 4, 'text-anchor': 'end', class: 'tick' }, fmtNum(y1)),
    s('text', { x: M.l - 6, y: Y(0) + 4, 'text-anchor': 'end', class: 'tick' }, '0'),
  );
  const xticks = [...new Set(pts.map((p) => p[0]))].sort((a, b) => a - b);
  for (const t of xticks.length <= 8 ? xticks : [xticks[0], xticks[xticks.length - 1]])
    svg.append(
      s(
        'text',
        { x: X(t), y: H - M.b + 16, 'text-anchor': 'middle', class: 'tick' },
        fmtNum(t, t % 1 ? 2 : 0),
      ),
    );
  // The front is drawn whatever its size: a dashed staircase through its levels, each circled.
  if (frontier && frontier.length) {
    svg.append(
      s('polyline', {
        points: frontSteps(frontier)
          .map((p) => `${X(p[0])},${Y(p[1])}`)
          .join(' '),
        class: 'frontier',
        fill: 'none',
      }),
    );
    for (const p of frontier)
      svg.append(s('circle', { cx: X(p[0]), cy: Y(p[1]), r: 7, class: 'front-point', fill: 'none' }));
  }
  series.forEach((x, i) => {
    const color = SWEEP_COLORS[i % SWEEP_COLORS.length];
    if (line && x.points.length > 1)
      svg.append(
        s('polyline', {
          points: x.points.map((p) => `${X(p[0])},${Y(p[1])}`).join(' '),
          fill: 'none',
          stroke: color,
          'stroke-width': 2,
        }),
      );
    for (const p of x.points)
      svg.append(
        s(
          'circle',
          { cx: X(p[0]), cy: Y(p[1]), r: 4, fill: color },
          s('title', null, `${x.name}: ${fmtNum(p[0], 2)}, ${fmtNum(p[1], 1)}`),
        ),
      );
  });
  const legend = h(
    'div',
    { class: 'legend' },
    series.map((x, i) =>
      h(
        'span',
        null,
        h('span', { class: 'swatch', style: { background: SWEEP_COLORS[i % SWEEP_COLORS.length] } }),
        x.name,
      ),
    ),
  );
  return h('figure', { class: 'sweep-figure' }, svg, legend);
}

const range = (lo, hi) =>
  lo === null || hi === null || lo === hi ? null : `${fmtNum(lo, 1)}–${fmtNum(hi, 1)}`;

export async function sweepView(name, seq) {
  const r = await api(`api/sweeps/${encodeURIComponent(name)}`);
  if (seq !== routeSeq) return null;
  const keys = r.keys;
  const done = r.ranked.filter((p) => p.status === 'done');
  const root = h('section', { class: 'sweep' });
  root.append(
    h('h1', null, `Sweep ${r.name}`),
    h(
      'p',
      { class: 'muted' },
      `${plural(r.ranked.length, 'point')}, ${plural(r.runs.length, 'run')}`,
      r.targets.length ? ` · targets ${r.targets.join(' · ')}` : '',
    ),
  );
  const figure = (p) =>
    ` — ${fmtNum(p.outputTokS, 1)} output tok/s at concurrency ${p.atConcurrency ?? '?'}${p.sampleRuns > 1 ? ` (median of ${p.sampleRuns} runs, ${p.spread ? range(p.spread[0], p.spread[1]) : 'no spread'})` : ' (one run)'}, TPOT ${p.tpotMs === null ? 'n/a' : `${fmtNum(p.tpotMs, 2)} ms`}`;
  if (r.best)
    root.append(
      h('p', { class: 'best' }, 'best: ', h('strong', null, pointName(r.best, keys)), figure(r.best)),
    );
  else if (r.leader)
    root.append(
      h(
        'p',
        { class: 'best no-winner' },
        `no winner: ${r.tied.map((i) => `#${i}`).join(', ')} are within noise (their output tok/s ranges overlap); leading: `,
        h('strong', null, pointName(r.leader, keys)),
        figure(r.leader),
      ),
    );
  if (r.leader && !r.noiseMeasured)
    root.append(
      h(
        'p',
        { class: 'muted' },
        'One run per point: the spread between runs is not measured, so a small difference may be noise (repeat = 3 in the sweep file measures it).',
      ),
    );
  const header = [
    'rank',
    'point',
    ...keys,
    'status',
    'runs',
    'load',
    'out tok/s',
    'range',
    '@c',
    'c=1 tok/s',
    'TPOT ms',
    'targets',
    'launch',
  ];
  root.append(
    h(
      'table',
      { class: 'launches sweep-table' },
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          header.map((x) => h('th', null, x)),
        ),
      ),
      h(
        'tbody',
        null,
        r.ranked.map((p, i) =>
          h(
            'tr',
            { 'data-status': p.status, title: p.cause ?? '' },
            h(
              'td',
              { class: 'num', title: p.withinNoise ? "within noise: its range overlaps the leader's" : null },
              p.status === 'done' ? `${i + 1}${p.withinNoise ? ' ≈' : ''}` : '–',
            ),
            h('td', null, `#${p.index}`),
            keys.map((k) => h('td', null, fmtVal(p.values[k]))),
            h(
              'td',
              null,
              badge(
                p.status === 'done' ? 'ready' : p.status === 'interrupted' ? 'stalled' : 'crashed',
                p.status,
              ),
            ),
            h('td', { class: 'num' }, p.runs > 1 ? `${p.doneRuns}/${p.runs}` : String(p.runs)),
            h('td', { class: 'num' }, fmtDur(p.loadS)),
            h('td', { class: 'num' }, fmtNum(p.outputTokS, 1)),
            h(
              'td',
              { class: 'num' },
              p.spread ? range(p.spread[0], p.spread[1]) : p.outputTokS !== null ? 'one run' : '–',
            ),
            h('td', { class: 'num' }, p.atConcurrency ?? '–'),
            h('td', { class: 'num' }, fmtNum(p.singleStreamTokS, 1)),
            h(
              'td',
              { class: 'num' },
              p.outputTokS === null ? '–' : p.tpotMs === null ? 'n/a' : fmtNum(p.tpotMs, 2),
            ),
            h('td', null, p.pass === null ? '–' : p.pass ? 'pass' : 'fail'),
            h('td', null, p.launchId ? h('a', { href: `#/launch/${p.launchId}` }, shortId(p.launchId)) : '–'),
          ),
        ),
      ),
    ),
  );
  const curves = done.map((p) => ({
    name: pointName(p, keys),
    points: p.levels
      .filter((l) => l.concurrency !== null && l.outputTokS !== null)
      .map((l) => [l.concurrency, l.outputTokS]),
  }));
  const pareto = done.map((p) => ({
    name: pointName(p, keys),
    points: p.levels
      .filter((l) => l.tpotMs !== null && l.outputTokS !== null)
      .map((l) => [l.tpotMs, l.outputTokS]),
  }));
  const front = paretoFront(pareto.flatMap((x) => x.points));
  root.append(
    h('h2', null, 'Output tok/s against concurrency'),
    svgChart({ series: curves, xLabel: 'concurrency', yLabel: 'output tok/s', logX: true }),
    h('h2', null, 'Pareto: output tok/s against median TPOT'),
    h(
      'p',
      { class: 'muted' },
      front.length > 1
        ? `Every level of every point (medians over the runs); the dashed line joins the ${front.length} circled levels no other beats on both.`
        : front.length === 1
          ? 'Every level of every point (medians over the runs); the circled level beats every other on both.'
          : 'No level measured a TPOT (one-token or unstreamed replies): no front to draw.',
    ),
    svgChart({
      series: pareto,
      xLabel: 'median TPOT (ms)',
      yLabel: 'output tok/s',
      line: false,
      frontier: front,
    }),
  );
  return root;
}

registerPage(['sweeps'], (_arg, seq) => sweepsView(seq));
registerPage(['sweep'], sweepView);
