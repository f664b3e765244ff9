/** `firedup diff A B`: two launches side by side, only what differs, grouped as an engineer reads a change. */

import type { LaunchDiff, MetricDelta, NumDelta, PhaseDelta } from '../core/campaign/launch-diff.js';
import type { LaunchRecord } from '../core/campaign/records.js';
import { GROUP_TITLES } from '../core/config/groups.js';
import { fmtDuration, fmtValue } from './format.js';
import { fmtNum, fmtTs, outcomePaint, outcomeText, shortId } from './format-ledger.js';
import type { Style } from './style.js';
import { type Cell, type Row, renderTable } from './table.js';
import { fitLines } from './width.js';

const cut = (s: string, n = 40) => ([...s].length > n ? `${[...s].slice(0, n - 1).join('')}…` : s);

/** `+134.15 tok/s (+7.2%)`, green when better, red when worse. */
function deltaCell(d: NumDelta, unit: string, higherIsBetter: boolean, st: Style): Cell {
  if (d.delta === null) return { text: '' };
  if (d.delta === 0) return { text: 'same', paint: st.dim };
  const sign = d.delta > 0 ? '+' : '-';
  const mag = Math.abs(d.delta);
  const amount = unit === 's' ? fmtDuration(mag) : `${fmtNum(mag)} ${unit}`;
  const pct = d.pct === null ? '' : ` (${d.pct > 0 ? '+' : ''}${d.pct}%)`;
  const better = d.delta > 0 === higherIsBetter;
  return { text: `${sign}${amount}${pct}`, paint: better ? st.green : st.red };
}

const metricValue = (x: number | null, unit: string) =>
  x === null ? '-' : unit === 's' ? fmtDuration(x) : `${fmtNum(x)} ${unit}`;

const METRIC_NAMES: Record<string, string> = {
  output_tok_s: 'output',
  total_tok_s: 'total',
  ttft_median_ms: 'TTFT median',
  ttft_p99_ms: 'TTFT P99',
  tpot_median_ms: 'TPOT median',
  tpot_p99_ms: 'TPOT P99',
  itl_median_ms: 'ITL median',
  itl_p99_ms: 'ITL P99',
  peak_tok_s: 'peak',
  median_tok_s: 'median',
};

function metricRows(ms: MetricDelta[], st: Style): Row[] {
  return ms
    .filter((m) => m.a !== null || m.b !== null)
    .filter((m) => m.a !== m.b)
    .map((m) => [
      `  ${METRIC_NAMES[m.metric] ?? m.metric}`,
      metricValue(m.a, m.unit),
      metricValue(m.b, m.unit),
      deltaCell(m, m.unit, m.higherIsBetter, st),
    ]);
}

function phaseRows(ps: PhaseDelta[], st: Style): Row[] {
  const v = (x: number | null, open: boolean) =>
    x === null ? '-' : `${fmtDuration(x)}${open ? ' (so far)' : ''}`;
  return ps
    .filter((p) => p.a !== p.b || p.openA !== p.openB)
    .map((p) => [`  ${p.phase}`, v(p.a, p.openA), v(p.b, p.openB), deltaCell(p, 's', false, st)]);
}

function loadText(r: LaunchRecord): string {
  if (r.loadSeconds !== null) return fmtDuration(r.loadSeconds);
  if (r.report.ready && !r.report.startSeen) return 'ready (log begins mid-launch)';
  return r.outcome === 'in_progress' ? 'not ready yet' : 'never ready';
}

function sideLine(tag: string, r: LaunchRecord, st: Style): string {
  const file = r.path.split('/').pop() ?? r.path;
  return `${st.bold(tag)}  ${st.bold(shortId(r.id))}  ${fmtTs(r.startTs ?? r.firstSeen, true)}  ${r.host}  ${r.model ?? '?'}  ${st.dim(`${file}:${r.startLine}`)}  ${outcomePaint(r, st)(outcomeText(r))}`;
}

export function formatDiff(d: LaunchDiff, st: Style): string {
  const out: string[] = [sideLine('A', d.a, st), sideLine('B', d.b, st)];
  const rows: Row[] = [];
  const section = (title: string, extra = '') =>
    rows.push([{ text: `${title}${extra}`, paint: st.bold }, '', '', '']);
  // Paths differ at their end: keep the file name.
  const tail = (v: unknown) => {
    const s = fmtValue(v);
    return [...s].length > 40 ? `…${[...s].slice(-39).join('')}` : s;
  };
  for (const x of d.identity)
    rows.push(
      x.key === 'path'
        ? [x.key, tail(x.a), tail(x.b), '']
        : [x.key, cut(fmtValue(x.a)), cut(fmtValue(x.b)), ''],
    );
  const o = d.outcome;
  const oa = outcomeText(d.a);
  const ob = outcomeText(d.b);
  if (oa !== ob)
    rows.push([
      'outcome',
      { text: oa, paint: outcomePaint(d.a, st) },
      { text: ob, paint: outcomePaint(d.b, st) },
      '',
    ]);
  // Multi-node launches: how many nodes, and which one died first or held the others back.
  const na = d.a.report.nodes;
  const nb = d.b.report.nodes;
  if (na || nb) {
    const nodesText = (m: typeof na) =>
      m
        ? `${m.nodes.length} nodes${m.culprit ? `, node_rank ${m.culprit.nodeRank ?? 0} ${m.outcome === 'crashed' ? 'died first' : 'held back'}` : ''}`
        : '1 node';
    rows.push(['nodes', cut(nodesText(na)), cut(nodesText(nb)), '']);
  }
  if (d.load.a !== d.load.b)
    rows.push(['load time', loadText(d.a), loadText(d.b), deltaCell(d.load, 's', false, st)]);
  if (d.sameConfig)
    rows.push([{ text: 'config: the same (volatile keys aside)', paint: st.dim }, '', '', '']);
  else {
    const n = d.config.reduce((s, g) => s + g.changes.length, 0);
    section('config', ` (${n} key${n === 1 ? '' : 's'} differ)`);
    for (const g of d.config) {
      rows.push([{ text: `  ${GROUP_TITLES[g.group]}`, paint: st.cyan }, '', '', '']);
      for (const c of g.changes) rows.push([`    ${c.key}`, cut(fmtValue(c.from)), cut(fmtValue(c.to)), '']);
    }
  }
  const phases = phaseRows(d.phases, st);
  if (phases.length) {
    const same = d.phases.length - phases.length;
    section('phases', same ? ` (${same} the same)` : '');
    rows.push(...phases);
  }
  const tput = metricRows(d.throughput, st);
  if (tput.length) {
    section('throughput (log)');
    rows.push(...tput);
  }
  for (const p of d.benches) {
    const conc = (c: number | null) => (c === null ? 'unbounded' : String(c));
    const title = p.like
      ? `bench at max concurrency ${conc(p.concurrency)}`
      : `bench, best runs (concurrency ${conc(p.a!.maxConcurrency)} vs ${conc(p.b!.maxConcurrency)}: not like for like)`;
    const ids = `${p.a ? ` A #${p.a.id}` : ' A none'},${p.b ? ` B #${p.b.id}` : ' B none'}`;
    section(title, st.dim(` —${ids}`));
    rows.push(...metricRows(p.metrics, st));
  }
  for (const [tag, ms] of [
    ['A', d.mismatches.a],
    ['B', d.mismatches.b],
  ] as const) {
    if (!ms.length) continue;
    section(`intended vs observed in ${tag}`);
    for (const m of ms)
      rows.push([
        `  ${m.key}`,
        `asked ${cut(fmtValue(m.intended), 30)}`,
        `got ${cut(fmtValue(m.observed), 30)}`,
        '',
      ]);
  }
  out.push('');
  out.push(
    ...renderTable(['', 'A', 'B', 'B − A'], rows, {
      right: [false, false, false, false],
      st,
      // Narrow terminal: the values are cut (at a word) before the key names.
      shrink: { A: { min: 12 }, B: { min: 12 }, '': { min: 16 } },
    }),
  );
  const fa = o.failureA;
  const fb = o.failureB;
  if (fa?.message && fb?.message && fa.class === fb.class && fa.message === fb.message)
    out.push(
      '',
      `  ${st.red(`both failed: ${fa.class}`)} at line ${fa.line} (A), ${fb.line} (B): ${cut(fa.message, 200)}`,
    );
  else
    for (const [tag, f] of [
      ['A', fa],
      ['B', fb],
    ] as const) {
      if (f?.message)
        out.push(
          '',
          `  ${st.red(`failure in ${tag}: ${f.class}`)} at line ${f.line}: ${cut(f.message, 200)}`,
        );
    }
  return `${fitLines(out).join('\n')}\n`;
}
