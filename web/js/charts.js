/**
 * Widgets: uPlot line charts (uPlot loaded on first use), the throughput chart and the load curve.
 */
import { h } from './dom.js';
import { fmtClock, fmtNum, fmtTs } from './format.js';
import { onCleanup } from './router.js';

let uplotLoading = null;

/** Loads assets/uplot.js (and its CSS) once; resolves when the global uPlot is there (or the load failed: charts say so). */
export function loadUplot() {
  if (typeof uPlot !== 'undefined') return Promise.resolve();
  uplotLoading ??= new Promise((resolve) => {
    const css = document.createElement('link');
    css.rel = 'stylesheet';
    css.href = 'assets/uplot.css';
    document.head.append(css);
    const el = document.createElement('script');
    el.src = 'assets/uplot.js';
    el.addEventListener('load', () => resolve());
    el.addEventListener('error', () => resolve());
    document.head.append(el);
  });
  return uplotLoading;
}

/** A uPlot chart that follows its container's width. Null (with a note) when uPlot did not load. */
export function lineChart(container, opts, data) {
  if (typeof uPlot === 'undefined') {
    container.append(h('p', { class: 'muted' }, 'chart library (assets/uplot.js) did not load'));
    return null;
  }
  const width = () => Math.max(300, container.clientWidth || 800);
  const chart = new uPlot({ width: width(), height: opts.height ?? 240, ...opts }, data, container);
  let pending = false;
  const onResize = () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      chart.setSize({ width: width(), height: opts.height ?? 240 });
    });
  };
  window.addEventListener('resize', onResize);
  onCleanup(() => {
    window.removeEventListener('resize', onResize);
    chart.destroy();
  });
  return chart;
}

/** The log's clock is UTC (or local time written as UTC): axes show it as written. */
const utcDate = (ts) =>
  typeof uPlot !== 'undefined' ? uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') : new Date(ts * 1000);

/**
 * A legend value: the point under the cursor or, the cursor elsewhere (uPlot then passes null), the series'
 * latest point, so that the legend reads the current figure rather than an empty '–'.
 */
export function legendValue(fmt) {
  return (u, v, si) => {
    let x = v;
    if (x === null || x === undefined) {
      const d = u.data[si] ?? [];
      for (let i = d.length - 1; i >= 0; i--)
        if (d[i] !== null && d[i] !== undefined) {
          x = d[i];
          break;
        }
    }
    return x === null || x === undefined ? '' : fmt(x);
  };
}

/** Whole-second steps for a time axis: uPlot's sub-second splits printed as HH:MM:SS read as one label repeated. */
const TIME_INCRS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
];

/** The x axis of a chart over the log's clock: HH:MM:SS, HH:MM from minute steps, no label twice in a row. */
export function timeAxis() {
  return {
    incrs: TIME_INCRS,
    space: 70,
    values: (_u, splits, _ax, _space, incr) => {
      let prev = null;
      return splits.map((t) => {
        const full = fmtClock(t);
        const label = incr >= 60 && full.endsWith(':00') ? full.slice(0, 5) : full;
        const out = label === prev ? '' : label;
        prev = label;
        return out;
      });
    },
  };
}

/** `cols`: the API's series columns, `{ ts: [...], tokS: [...] }`, plotted as they come (no copy). */
export function throughputChart(container, cols) {
  const n = cols.ts.length;
  return lineChart(
    container,
    {
      tzDate: utcDate,
      scales: { x: { time: true } },
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      series: [
        { label: 'time (log clock, UTC as written)', value: legendValue(fmtTs) },
        {
          label: 'generation tok/s',
          stroke: '#2563eb',
          fill: 'rgba(37,99,235,0.08)',
          width: 1,
          points: { show: n < 200 },
          value: legendValue((v) => `${fmtNum(v, 1)} tok/s`),
        },
      ],
      axes: [timeAxis(), { label: 'tok/s', size: 60 }],
    },
    [cols.ts, cols.tokS],
  );
}

/** The weight-loading curve: items done over the log's time, from the report's `progress.series`. */
export function loadCurveChart(container, p) {
  const ts = p.series.map((x) => x[0]);
  const done = p.series.map((x) => x[1]);
  return lineChart(
    container,
    {
      height: 200,
      tzDate: utcDate,
      scales: { x: { time: true }, y: { range: [0, p.total] } },
      legend: { live: true },
      series: [
        { label: 'time (log clock, UTC as written)', value: legendValue(fmtTs) },
        {
          label: `${p.what} done (of ${p.total})`,
          stroke: '#0d9488',
          fill: 'rgba(13,148,136,0.08)',
          width: 1.5,
          points: { show: ts.length < 200 },
          value: legendValue((v) => `${v}/${p.total}`),
        },
      ],
      axes: [timeAxis(), { label: 'done', size: 50 }],
    },
    [ts, done],
  );
}
