/**
 * Page #/compare/ID,ID[,…] : config diff, overlaid throughput, phase durations side by side.
 */
import { api, HttpError } from '../api.js';
import { legendValue, lineChart, loadUplot } from '../charts.js';
import { h } from '../dom.js';
import { fmtDur, fmtNum, fmtTs, fmtVal, plural, shortId } from '../format.js';
import { registerPage, routeSeq } from '../router.js';
import { badge, LAUNCH_COLOR, PHASE_COLOR, PHASES, stateOf } from '../states.js';
import { section } from '../widgets.js';

export async function compareView(arg, seq) {
  const ids = arg
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (ids.length < 2 || ids.length > 4)
    throw new HttpError(400, 'compare takes 2 to 4 launch ids: #/compare/ID,ID[,ID,ID]');
  const uplotReady = loadUplot();
  const data = await api(`api/compare?ids=${ids.map(encodeURIComponent).join(',')}`);
  if (seq !== routeSeq) return null;
  const launches = data.launches ?? [];
  const root = h('section', { class: 'compare' });
  root.append(
    h(
      'header',
      { class: 'card compare-head' },
      h('a', { href: '#/', class: 'back' }, '← launches'),
      h('h1', null, `Comparing ${launches.length} launches`),
      h(
        'div',
        { class: 'legend' },
        launches.map((l, i) =>
          h(
            'a',
            { href: `#/launch/${l.id}`, class: 'chip' },
            h('span', { class: 'swatch', style: { background: LAUNCH_COLOR[i] } }),
            h('span', { class: 'mono' }, shortId(l.id)),
            ` ${fmtTs(l.startTs)} · ${l.model ?? '–'} · `,
            badge(stateOf(l)),
          ),
        ),
      ),
    ),
  );
  root.append(
    section('Configuration differences', configDiff(launches, data.changes ?? [], data.groups ?? {})),
  );
  const chart = h('div', { class: 'chart' });
  const overlay = overlaySeries(launches, data.series ?? []);
  root.append(
    section(
      'Throughput since ready',
      overlay
        ? h(
            'p',
            { class: 'muted' },
            'x: seconds since each launch’s ready line; y: generation tok/s.',
            overlay.note ?? '',
          )
        : h('p', { class: 'muted' }, 'None of these launches served.'),
      chart,
    ),
  );
  root.append(section('Phase durations', phaseCompare(launches)));
  root.afterMount = () =>
    uplotReady.then(() => {
      if (seq !== routeSeq) return;
      if (overlay) drawOverlay(chart, launches, overlay);
      performance.mark('firedup:chart-rendered');
    });
  return root;
}

function drawOverlay(chart, launches, overlay) {
  if (typeof uPlot === 'undefined') return lineChart(chart, {}, []);
  // uPlot wants one shared x: join merges the x values and fills the gaps with null.
  const data = uPlot.join(overlay.per.map((p) => (p[0].length ? p : [[0], [null]])));
  return lineChart(
    chart,
    {
      scales: { x: { time: false } },
      series: [
        { label: 's since ready', value: legendValue((v) => `${fmtNum(v)} s`) },
        ...launches.map((l, i) => ({
          label: shortId(l.id),
          stroke: LAUNCH_COLOR[i],
          width: 1.25,
          spanGaps: true,
          points: { show: false },
          value: legendValue((v) => `${fmtNum(v, 1)} tok/s`),
        })),
      ],
      axes: [{ label: 's since ready' }, { label: 'tok/s', size: 60 }],
    },
    data,
  );
}

function readyTs(l) {
  const rep = l.report ?? {};
  const ready = (rep.phases ?? []).find((p) => p.phase === 'ready');
  if (ready && ready.at !== null && rep.startTs !== null && rep.startTs !== undefined)
    return rep.startTs + ready.at;
  if (rep.ready?.time) return Date.parse(rep.ready.time) / 1000;
  return null;
}

/** `series`: the API's columns per launch (`{ ts, tokS }` or null), in the order of `launches`. */
function overlaySeries(launches, series) {
  const per = [];
  let any = false;
  let fallback = false;
  for (const [i, l] of launches.entries()) {
    const cols = series[i];
    if (!cols?.ts?.length) {
      per.push([[], []]);
      continue;
    }
    any = true;
    let t0 = readyTs(l);
    if (t0 === null) {
      t0 = cols.ts[0];
      fallback = true;
    }
    per.push([cols.ts.map((t) => t - t0), cols.tokS]);
  }
  if (!any) return null;
  return { per, note: fallback ? ' (A launch without a ready time is aligned on its first sample.)' : '' };
}

function configDiff(launches, changes, groups) {
  if (!changes.length)
    return h('p', { class: 'muted' }, 'Same configuration (volatile keys like random_seed aside).');
  const groupOf = new Map();
  for (const [g, keys] of Object.entries(groups)) for (const k of keys) groupOf.set(k, g);
  const byGroup = new Map();
  for (const c of changes) {
    const g = groupOf.get(c.key) ?? 'other';
    if (!byGroup.has(g)) byGroup.set(g, []);
    byGroup.get(g).push(c);
  }
  const order = [
    ...Object.keys(groups).filter((g) => byGroup.has(g)),
    ...(byGroup.has('other') && !('other' in groups) ? ['other'] : []),
  ];
  const tbody = h('tbody');
  for (const g of order) {
    tbody.append(h('tr', { class: 'group' }, h('th', { colspan: launches.length + 1 }, g)));
    for (const c of byGroup.get(g)) {
      const first = fmtVal(c.values[0]);
      tbody.append(
        h(
          'tr',
          null,
          h('td', { class: 'key mono' }, c.key),
          c.values.map((v, i) =>
            h('td', { class: `mono val ${i > 0 && fmtVal(v) !== first ? 'changed' : ''}` }, fmtVal(v)),
          ),
        ),
      );
    }
  }
  return h(
    'table',
    { class: 'data diff' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', null, `${plural(changes.length, 'key')} differ`),
        launches.map((l, i) =>
          h(
            'th',
            null,
            h('span', { class: 'swatch', style: { background: LAUNCH_COLOR[i] } }),
            shortId(l.id),
          ),
        ),
      ),
    ),
    tbody,
  );
}

const OPEN_STATES = new Set(['in_progress', 'crashed', 'ended']);

function phaseCompare(launches) {
  const dur = launches.map((l) => {
    const m = new Map();
    for (const p of l.report?.phases ?? [])
      if (p.duration !== null) m.set(p.phase, (m.get(p.phase) ?? 0) + p.duration);
    return m;
  });
  const phases = PHASES.filter((p) => p !== 'serving' && dur.some((m) => m.has(p)));
  if (!phases.length) return h('p', { class: 'muted' }, 'No timed phase in these launches.');
  // One scale for every row, the load total included, so that bar lengths compare across rows too.
  const max = Math.max(
    ...dur.flatMap((m) => phases.map((p) => m.get(p) ?? 0)),
    ...launches.map((l) => l.loadSeconds ?? 0),
    1,
  );
  // The last phase of a launch that never finished it (in progress, stalled, crashed, ended) lasted "so
  // far": a lower bound, never a delta (the same rule as `firedup diff`, src/core/campaign/launch-diff.ts).
  const openPhase = launches.map((l) => {
    const ph = l.report?.phases ?? [];
    return OPEN_STATES.has(l.outcome) ? (ph[ph.length - 1]?.phase ?? null) : null;
  });
  const rows = phases.map((p) => ({
    label: p,
    vals: dur.map((m) => m.get(p) ?? null),
    open: openPhase.map((o) => o === p),
    dot: PHASE_COLOR[p],
  }));
  rows.push({ label: 'load (to ready)', vals: launches.map((l) => l.loadSeconds), open: [], total: true });
  const cell = (v, i, first, open) => {
    const td = h('td', { class: 'num' });
    if (v === null || v === undefined) {
      td.append(
        h(
          'div',
          { class: 'cmpcell' },
          h('span', { class: 'hbar-wrap none' }),
          h('span', { class: 'v' }, '–'),
          h('span', { class: 'dcol' }),
        ),
      );
      return td;
    }
    const bar = h('span', {
      class: 'hbar',
      style: { width: `${Math.min(100, (v / max) * 100)}%`, background: LAUNCH_COLOR[i] },
    });
    let delta = null;
    if (i > 0 && first !== null && first !== undefined && !open[i] && !open[0]) {
      const d = v - first;
      if (Math.abs(d) >= 0.5)
        delta = h(
          'span',
          { class: `delta ${d > 0 ? 'slower' : 'faster'}` },
          `${d > 0 ? '+' : '−'}${fmtDur(Math.abs(d))}`,
        );
    }
    td.append(
      h(
        'div',
        { class: 'cmpcell' },
        h('span', { class: 'hbar-wrap' }, bar),
        h('span', { class: 'v' }, `${fmtDur(v)}${open[i] ? ' so far' : ''}`),
        h('span', { class: 'dcol' }, delta),
      ),
    );
    return td;
  };
  return h(
    'table',
    { class: 'data phasecmp' },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', null, 'phase'),
        launches.map((l, i) =>
          h(
            'th',
            { class: 'num' },
            h('span', { class: 'swatch', style: { background: LAUNCH_COLOR[i] } }),
            shortId(l.id),
            i > 0 ? h('span', { class: 'muted' }, ` (Δ vs ${shortId(launches[0].id)})`) : null,
          ),
        ),
      ),
    ),
    h(
      'tbody',
      null,
      rows.map((r) =>
        h(
          'tr',
          { class: r.total ? 'total' : null },
          h('td', null, r.dot ? h('span', { class: 'swatch', style: { background: r.dot } }) : null, r.label),
          r.vals.map((v, i) => cell(v, i, r.vals[0], r.open)),
        ),
      ),
    ),
  );
}

registerPage(['compare'], compareView);
