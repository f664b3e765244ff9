/** What `firedup sweep` prints: the plan (--dry-run), one line per step of each point, the ranked table. */

import type { LoadedSweep } from '../app/sweep-file.js';
import type { SweepReport } from '../app/sweep-report.js';
import type { PlannedPoint, SweepEvent } from '../app/sweep-run.js';
import { redactArgv } from '../core/campaign/intended-env.js';
import type { SweepPointStatus } from '../core/campaign/records.js';
import type { PointSummary } from '../core/campaign/sweep/rank.js';
import { fmtNum, shortId } from './format-ledger.js';
import type { Style } from './style.js';
import { type Row, renderTable } from './table.js';
import { stamp } from './view.js';

const quote = (a: string) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
export const shellLine = (argv: string[]) => argv.map(quote).join(' ');

function benchLine(l: LoadedSweep): string {
  const b = l.spec.bench;
  const n = b.requests === null ? 'max(20, 5×c)' : String(b.requests);
  return `concurrency ${b.concurrency.join(',')} · ${n} requests per level${b.warmup ? ` (+${b.warmup} warmup)` : ''} · random ${b.inputLen} in / ${b.outputLen} out · /v1/${b.endpoint === 'chat' ? 'chat/completions' : 'completions'}${b.model ? ` · model ${b.model}` : ''}${b.slo ? ` · slo ${b.slo}` : ''}`;
}

export function formatPlan(l: LoadedSweep, points: PlannedPoint[], st: Style): string {
  const s = l.spec;
  const axes = [
    ...s.grid.map((a) => `${a.key} (${a.values.length})`),
    ...(s.variants.length ? [`variant (${s.variants.length})`] : []),
  ];
  const out = [
    `${st.bold(`sweep ${s.name}`)}: ${points.length} point${points.length === 1 ? '' : 's'}${axes.length ? ` = ${axes.join(' × ')}` : ''}${s.repeat > 1 ? `, each run ${s.repeat} times` : ''}`,
    `  bench: ${benchLine(l)}`,
    `  targets: ${s.targets.length ? s.targets.join(' · ') : 'none'}`,
    `  timeouts: ready ${s.readyTimeoutS} s · bench ${s.benchTimeoutS} s · stop grace ${s.stopGraceS} s`,
    `  logs: ${s.logMode === 'append' ? `all appended to ${s.logs}` : `one per point in ${s.logs}/`} · servers run in ${l.dir}`,
    '',
  ];
  for (const p of points) {
    out.push(`  ${st.bold(`[${p.index}]`)} ${p.label}  ${st.dim(`(point ${p.hash})`)}`);
    out.push(`      ${shellLine(redactArgv(p.argv))}`);
  }
  return `${out.join('\n')}\n`;
}

const STATUS_TEXT: Record<SweepPointStatus, string> = {
  running: 'running',
  done: 'done',
  bench_failed: 'bench failed',
  crashed: 'crashed',
  stalled: 'stalled',
  dead: 'dead',
  timeout: 'not ready in time',
  mismatch: 'flags not as asked',
  not_started: 'not started',
  interrupted: 'interrupted',
};

function paintStatus(s: SweepPointStatus, st: Style): (x: string) => string {
  return s === 'done' ? st.green : s === 'interrupted' || s === 'running' ? st.yellow : st.red;
}

/** One line per step of a point, as the sweep goes. */
export function eventText(e: SweepEvent, total: number, st: Style): string {
  const tag = st.bold(`[${e.point.index}/${total}]`);
  switch (e.type) {
    case 'skip':
      return stamp(
        `${tag} ${e.point.label}: skipped (--resume: run ${e.run.run} ended ${STATUS_TEXT[e.run.status]})`,
        st,
      );
    case 'start':
      return stamp(
        `${tag} ${e.point.label}: server pid ${e.pid}${e.run > 1 ? ` (run ${e.run})` : ''} · log ${e.log}`,
        st,
      );
    case 'ready':
      return stamp(`${tag} ready in ${e.seconds.toFixed(1)} s: ${e.verdict.why}`, st);
    case 'checked':
      return stamp(
        `${tag} flags: ${e.mismatches ? st.red(`${e.mismatches} not as asked`) : 'none logged otherwise than asked'}${e.unobservable.length ? st.dim(` · ${e.unobservable.join(', ')} not observable in the log`) : ''}`,
        st,
      );
    case 'bench':
      return stamp(
        `${tag} bench: ${e.result.levels
          .map(
            (l) =>
              `c=${l.metrics.level.concurrency} ${fmtNum(l.metrics.outputTokS)} tok/s${l.metrics.failed ? st.red(` (${l.metrics.failed} failed)`) : ''}`,
          )
          .join(' · ')}`,
        st,
      );
    case 'stopping':
      return stamp(`${tag} stopping the server (${e.signal} to its process group)`, st);
    case 'end': {
      const t = e.detail.timings ?? {};
      const took = [
        t.ready !== undefined ? `ready ${t.ready} s` : null,
        t.bench !== undefined ? `bench ${t.bench} s` : null,
        t.stop !== undefined ? `stop ${t.stop} s` : null,
      ]
        .filter(Boolean)
        .join(', ');
      const why = e.status === 'done' ? '' : `: ${e.detail.cause ?? ''}`;
      return stamp(
        `${tag} ${paintStatus(e.status, st)(STATUS_TEXT[e.status])}${why}${took ? st.dim(` (${took})`) : ''}`,
        st,
      );
    }
  }
}

const secs = (x: number | null) => (x === null ? '-' : `${x.toFixed(1)}s`);
const tok = (x: number) => x.toFixed(1);
/** A range of output tok/s over the runs, `2248.0–2775.0`. */
export const rangeText = (r: [number, number]) => `${tok(r[0])}–${tok(r[1])}`;
/** A TPOT that was not measured is said so: a 0.00 would read as a measurement. */
export const tpotText = (x: number | null) => (x === null ? 'n/a' : fmtNum(x));

function valuesText(p: PointSummary, keys: string[]): string {
  return keys.map((k) => `${k}=${p.values[k] === undefined ? '-' : String(p.values[k])}`).join(' ');
}

/** `2412.30 output tok/s at concurrency 8 (median of 3 runs, 2248.0–2775.0), TPOT 12.10 ms` */
function figureText(p: PointSummary): string {
  const of =
    p.sampleRuns > 1
      ? ` (median of ${p.sampleRuns} runs, ${p.spread ? rangeText(p.spread) : 'no spread'})`
      : ' (one run)';
  return `${fmtNum(p.outputTokS)} output tok/s at concurrency ${p.atConcurrency ?? '?'}${of}, TPOT ${p.tpotMs === null ? 'n/a' : `${fmtNum(p.tpotMs)} ms`}`;
}

/** The ranked table, the winner (or why there is none), and what differs between the leader and the rest. */
export function formatReport(r: SweepReport, st: Style): string {
  const header = [
    'rank',
    'point',
    ...r.keys,
    'status',
    'runs',
    'load',
    'graph',
    'out tok/s',
    'range',
    '@c',
    'c=1 tok/s',
    'TPOT ms',
    'targets',
    'launch',
  ];
  const rows: Row[] = r.ranked.map((p, i) => {
    const paint = paintStatus(p.status, st);
    const targets =
      p.pass === null
        ? p.status === 'done' && r.targets.length
          ? 'no data'
          : '-'
        : p.pass
          ? 'pass'
          : `fail ${[...new Set(p.targets.filter((t) => t.pass !== true).map((t) => t.target.metric))].join(',') || 'limits'}`;
    const done = p.status === 'done';
    return [
      done ? `${i + 1}${p.withinNoise ? ' ≈' : ''}` : '-',
      `#${p.index}`,
      ...r.keys.map((k) => (p.values[k] === undefined ? '-' : String(p.values[k]))),
      { text: STATUS_TEXT[p.status], paint },
      p.runs > 1 ? `${p.doneRuns}/${p.runs}` : String(p.runs),
      secs(p.loadS),
      secs(p.graphS),
      fmtNum(p.outputTokS),
      p.spread ? rangeText(p.spread) : done && p.outputTokS !== null ? 'one run' : '-',
      p.atConcurrency === null ? '-' : String(p.atConcurrency),
      fmtNum(p.singleStreamTokS),
      done && p.outputTokS !== null ? tpotText(p.tpotMs) : '-',
      { text: targets, paint: p.pass === true ? st.green : p.pass === false ? st.red : undefined },
      p.launchId ? shortId(p.launchId) : '-',
    ];
  });
  const right = header.map((h) =>
    ['load', 'graph', 'out tok/s', 'range', '@c', 'c=1 tok/s', 'TPOT ms'].includes(h),
  );
  const out = [
    `${st.bold(`sweep ${r.name}`)}: ${r.ranked.length} point${r.ranked.length === 1 ? '' : 's'}, ${r.runs.length} run${r.runs.length === 1 ? '' : 's'}${r.targets.length ? ` · targets ${r.targets.join(' · ')}` : ''}`,
    ...renderTable(header, rows, { st, right, drop: ['launch', 'graph', 'c=1 tok/s', 'TPOT ms'] }),
    st.dim(
      '  out tok/s: the median over the runs of the best level within the latency limits; ≈ within noise',
    ),
  ];
  const lead = r.leader;
  if (lead) {
    out.push('');
    if (r.best)
      out.push(
        `  best: ${st.bold(`#${r.best.index} ${valuesText(r.best, r.keys)}`)} — ${figureText(r.best)}`,
      );
    else {
      const tied = r.ranked.filter((p) => r.tied.includes(p.index));
      out.push(
        `  ${st.yellow(`no winner: ${tied.map((p) => `#${p.index}`).join(', ')} are within noise`)} (their output tok/s ranges overlap: ${tied.map((p) => `#${p.index} ${p.spread ? rangeText(p.spread) : tok(p.outputTokS!)}`).join(' vs ')}); more runs (repeat = N) or a longer bench may separate them`,
        `  leading: #${lead.index} ${valuesText(lead, r.keys)} — ${figureText(lead)}`,
      );
    }
    if (!r.noiseMeasured)
      out.push(
        st.dim(
          '  one run per point: the spread between runs is not measured, so a small difference may be noise (repeat = 3 in the sweep file measures it)',
        ),
      );
    for (const d of r.differences) {
      const changed =
        d.keys
          .map(
            (k) =>
              `${k.key}=${String(k.here ?? '-')} (${r.best ? 'best' : 'leader'} ${String(k.best ?? '-')})`,
          )
          .join(', ') || 'the same flags';
      const what =
        d.status === 'done'
          ? d.delta === null
            ? (r.ranked.find((p) => p.index === d.index)?.cause ?? 'no figure')
            : `${d.delta >= 0 ? '+' : ''}${(d.delta * 100).toFixed(1)} % median output tok/s${d.withinNoise ? ' (within noise)' : ''}${r.ranked.find((p) => p.index === d.index)?.pass === false ? ' (fails its targets)' : ''}`
          : `${STATUS_TEXT[d.status]}${d.cause ? `: ${d.cause}` : ''}`;
      out.push(`    #${d.index} ${changed}: ${what}`);
    }
  } else {
    const done = r.ranked.filter((p) => p.status === 'done');
    out.push(
      '',
      `  ${st.yellow(
        done.length
          ? `no best point: none of the ${done.length} benchmarked point${done.length === 1 ? '' : 's'} met every target${done.some((p) => p.cause) ? ` (#${done.find((p) => p.cause)!.index}: ${done.find((p) => p.cause)!.cause})` : ''}`
          : `no best point: none finished its benchmark${r.ranked.some((p) => p.status === 'mismatch') ? ' with the flags it asked for' : ''}`,
      )}`,
    );
  }
  return `${out.join('\n')}\n`;
}
