/** Human-readable output of the ledger commands: `runs` (no file), `show`, `target list`, `bench import`. */

import { tooManyFailed } from '../core/campaign/bench/select.js';
import { VOLATILE } from '../core/campaign/diff.js';
import type { BenchRecord, LaunchRecord, TargetRecord } from '../core/campaign/records.js';
import type { TargetResult } from '../core/campaign/targets.js';
import { TARGET_METRICS } from '../core/campaign/targets.js';
import { fmtDuration, fmtValue, progressText, summaryLine } from './format.js';
import { formatNodes } from './format-nodes.js';
import type { Style } from './style.js';
import { type Row, renderTable, type TableOptions } from './table.js';
import { fitLines, outputWidth, wrapText } from './width.js';

/** One launch of the `runs` list, with what the ledger knows beside it. */
export interface ListedLaunch {
  rec: LaunchRecord;
  bench: BenchRecord | null;
  targets: TargetResult[];
}

/** Log stamps are wall time written as UTC (see LaunchReport.startTs): shown as printed, without a zone. */
export function fmtTs(ts: number | null, seconds = false): string {
  if (ts === null) return '?';
  const iso = new Date(Math.round(ts * 1000)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, seconds ? 19 : 16)}`;
}

/** Throughputs and latencies as the benchmark tools print them: two decimals; '-' for no data. */
export function fmtNum(x: number | null | undefined): string {
  return x === null || x === undefined ? '-' : x.toFixed(2);
}

export function withUnit(x: number | null | undefined, unit: string): string {
  if (x === null || x === undefined) return '-';
  return unit === 's' ? fmtDuration(x) : `${fmtNum(x)} ${unit}`;
}

export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** The outcome as `--outcome` names it, with the failure class or the phase reached where it says more. */
export function outcomeText(r: Pick<LaunchRecord, 'state' | 'failureClass' | 'phase' | 'live'>): string {
  if (r.state === 'crashed')
    return ['crashed', r.failureClass, r.phase ? `in ${r.phase}` : null].filter(Boolean).join(' ');
  if (r.state === 'in_progress') return `in_progress${r.phase ? ` at ${r.phase}` : ''}`;
  if (r.state === 'ended') return 'ended (no exit line)';
  if (r.state === 'stalled') return `stalled${r.live?.phase ? ` in ${r.live.phase}` : ''}`;
  return r.state;
}

export function outcomePaint(r: Pick<LaunchRecord, 'state'>, st: Style): (s: string) => string {
  switch (r.state) {
    case 'serving':
    case 'ready':
      return st.green;
    case 'crashed':
    case 'dead':
      return st.red;
    case 'shutdown':
    case 'ended':
    case 'exited':
      return st.dim;
    default:
      return st.yellow;
  }
}

/** Identity (shown in columns of their own) and volatile keys never count as "flags that vary". */
const NOT_FLAGS = new Set([
  ...VOLATILE,
  'model_path',
  'model',
  'model_id',
  'model_tag',
  'tokenizer_path',
  'tokenizer',
  'served_model_name',
  'host',
  'port',
]);

/** Keys an engineer tunes first; among the flags that vary they are shown before the others. */
const KEY_FLAGS = [
  'tp_size',
  'tensor_parallel_size',
  'dp_size',
  'data_parallel_size',
  'ep_size',
  'enable_expert_parallel',
  'pp_size',
  'quantization',
  'kv_cache_dtype',
  'moe_runner_backend',
  'attention_backend',
  'disable_cuda_graph',
  'enforce_eager',
  'cuda_graph_max_bs',
  'mem_fraction_static',
  'gpu_memory_utilization',
  'max_running_requests',
  'max_num_seqs',
  'chunked_prefill_size',
  'max_num_batched_tokens',
  'speculative_algorithm',
];

/**
 * Config keys whose value differs between the listed launches (present in two or more of them), key flags
 * first. A key only one launch has (another engine's) says nothing about the others and is left out.
 */
export function varyingKeys(recs: LaunchRecord[]): string[] {
  const seen = new Map<string, Set<string>>();
  const count = new Map<string, number>();
  for (const r of recs)
    for (const [k, v] of Object.entries(r.report.config ?? {})) {
      if (NOT_FLAGS.has(k)) continue;
      if (!seen.has(k)) seen.set(k, new Set());
      seen.get(k)!.add(JSON.stringify(v ?? null));
      count.set(k, (count.get(k) ?? 0) + 1);
    }
  const vary = [...seen.keys()].filter((k) => seen.get(k)!.size > 1 && count.get(k)! >= 2);
  const rank = (k: string) => {
    const i = KEY_FLAGS.indexOf(k);
    return i < 0 ? KEY_FLAGS.length : i;
  };
  return vary.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * Where the launch was read, short: the file name (its directory is in `show`), `host:` for a remote one,
 * and `+N` for the other paths (copies) it was also read at.
 */
export function shortPath(r: Pick<LaunchRecord, 'host' | 'path' | 'paths'>): string {
  const name = r.path.split('/').filter(Boolean).at(-1) ?? r.path;
  const others = (r.paths ?? []).length - 1;
  return `${r.host === 'localhost' ? '' : `${cut(r.host, 12)}:`}${cut(name, 28)}${others > 0 ? ` +${others}` : ''}`;
}

/** Where the launch was read, whole: `host:/full/path` (piped output, which is never cut), `+N` as above. */
export function fullPath(r: Pick<LaunchRecord, 'host' | 'path' | 'paths'>): string {
  const others = (r.paths ?? []).length - 1;
  return `${r.host === 'localhost' ? '' : `${r.host}:`}${r.path}${others > 0 ? ` +${others}` : ''}`;
}

const cut = (s: string, n: number) => ([...s].length > n ? `${[...s].slice(0, n - 1).join('')}…` : s);

export function targetMark(
  results: TargetResult[],
  st: Style,
): { text: string; paint?: (s: string) => string } {
  if (!results.length) return { text: '' };
  const missed = results.filter((r) => r.pass === false).length;
  const met = results.filter((r) => r.pass === true).length;
  const none = results.length - missed - met;
  if (met === results.length) return { text: `✓ ${met} met`, paint: st.green };
  const parts = [missed && `${missed} missed`, met && `${met} met`, none && `${none} no data`].filter(
    Boolean,
  );
  if (missed) return { text: `✗ ${parts.join(', ')}`, paint: st.red };
  return { text: `? ${parts.join(', ')}`, paint: met ? st.yellow : st.dim };
}

/** Shown as flag columns at most; the rest are named below the table. */
const MAX_FLAG_COLUMNS = 4;

export function formatLedgerRuns(
  list: ListedLaunch[],
  st: Style,
  info: { ledger: string; more: boolean; limit: number },
): string {
  const varying = varyingKeys(list.map((l) => l.rec));
  const flagKeys = varying.slice(0, MAX_FLAG_COLUMNS);
  const anyTargets = list.some((l) => l.targets.length > 0);
  const header = [
    'id',
    'started',
    'host',
    'model',
    'engine',
    'outcome',
    'log',
    'load',
    'peak tok/s',
    'median tok/s',
    'bench out tok/s',
    ...flagKeys,
    ...(anyTargets ? ['targets'] : []),
  ];
  // Piped without COLUMNS nothing is cut: `firedup runs | grep` sees whole paths, models and values.
  const whole = outputWidth() === null;
  const cutTo = (s: string, n: number) => (whole ? s : cut(s, n));
  const rows: Row[] = list.map(({ rec, bench, targets }) => [
    { text: shortId(rec.id), paint: st.bold },
    fmtTs(rec.startTs ?? rec.firstSeen),
    // A multi-node launch is one row: its head's host and how many nodes it spans.
    cutTo(rec.report.nodes ? `${rec.host} ×${rec.report.nodes.nodes.length} nodes` : rec.host, 20),
    cutTo(rec.model ?? '?', 32),
    rec.engine ?? '?',
    { text: outcomeText(rec), paint: outcomePaint(rec, st) },
    { text: whole ? fullPath(rec) : shortPath(rec), paint: st.dim },
    rec.loadSeconds === null ? '-' : fmtDuration(rec.loadSeconds),
    fmtNum(rec.peakTokS),
    fmtNum(rec.medianTokS),
    bench ? `${fmtNum(bench.outputTokS)} @${bench.maxConcurrency ?? '∞'}` : '-',
    ...flagKeys.map((k) => cutTo(k in (rec.report.config ?? {}) ? fmtValue(rec.report.config[k]) : '-', 24)),
    ...(anyTargets ? [targetMark(targets, st)] : []),
  ]);
  const right = header.map((_, i) => i >= 7 && i <= 10);
  const dropped: string[] = [];
  const out = renderTable(header, rows, { right, st, ...RUNS_FIT(flagKeys), dropped });
  const notes: string[] = [];
  if (info.more) notes.push(`the newest ${info.limit} shown; --limit N for more`);
  const hidden = [...flagKeys.filter((k) => dropped.includes(k)), ...varying.slice(flagKeys.length)];
  if (hidden.length) notes.push(`also varying: ${hidden.join(', ')} (firedup diff A B)`);
  const narrow = dropped.filter((c) => !flagKeys.includes(c));
  if (narrow.length)
    notes.push(`left out for the terminal's width: ${narrow.join(', ')} (wider, or piped, shows them)`);
  if (list.some((l) => l.bench))
    notes.push(`bench out tok/s: the best run's output throughput @ its max concurrency (∞ = unbounded)`);
  const width = outputWidth();
  for (const n of notes)
    for (const l of width === null ? [n] : wrapText(n, width - 4)) out.push(st.dim(`  ${l}`));
  return `${out.join('\n')}\n`;
}

/**
 * How the runs table fits a narrow terminal: names and paths shrink (a path keeps its file name), then
 * columns go, the least telling first; id, model and outcome stay.
 */
function RUNS_FIT(flagKeys: string[]): Pick<TableOptions, 'shrink' | 'drop'> {
  return {
    shrink: {
      model: { soft: 24, min: 16 },
      outcome: { soft: 30, min: 12 },
      host: { soft: 16, min: 10 },
      log: { soft: 28, min: 12, keep: 'end' },
      ...Object.fromEntries(flagKeys.map((k) => [k, { soft: 20, min: 8 }])),
    },
    drop: [
      'median tok/s',
      'engine',
      'host',
      'log',
      'targets',
      'bench out tok/s',
      ...[...flagKeys].reverse(),
      'started',
      'load',
      'peak tok/s',
    ],
  };
}

function trim(s: string, n = 160): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

export function benchRows(benches: BenchRecord[], st: Style): string[] {
  const rows: Row[] = benches.map((b) => [
    `#${b.id}`,
    b.tool,
    b.maxConcurrency === null ? '∞' : String(b.maxConcurrency),
    fmtNum(b.outputTokS),
    fmtNum(b.totalTokS),
    `${fmtNum(b.ttft.median)} / ${fmtNum(b.ttft.p99)}`,
    `${fmtNum(b.tpot.median)} / ${fmtNum(b.tpot.p99)}`,
    `${fmtNum(b.itl.median)} / ${fmtNum(b.itl.p99)}`,
    b.completed === null ? '-' : String(b.completed),
    b.failed === undefined ? '-' : { text: String(b.failed), paint: tooManyFailed(b) ? st.red : undefined },
    b.finishedAt === null ? '?' : fmtTs(b.finishedAt, true),
    { text: b.source, paint: st.dim },
  ]);
  return renderTable(
    [
      'bench',
      'tool',
      'conc',
      'out tok/s',
      'total tok/s',
      'TTFT med/p99 ms',
      'TPOT med/p99 ms',
      'ITL med/p99 ms',
      'reqs',
      'failed',
      'finished',
      'source',
    ],
    rows,
    { right: [false, false, true, true, true, true, true, true, true, false, false], indent: '    ', st },
  );
}

export function targetRows(results: TargetResult[], st: Style): string[] {
  const rows: Row[] = results.map((r) => {
    const unit = TARGET_METRICS[r.target.metric]?.unit ?? '';
    const mark =
      r.pass === true
        ? { text: '✓', paint: st.green }
        : r.pass === false
          ? { text: '✗', paint: st.red }
          : { text: '?', paint: st.yellow };
    return [
      mark,
      r.target.expr,
      r.actual === null ? 'no data' : withUnit(r.actual, unit),
      { text: r.from ?? '', paint: st.dim },
      { text: r.target.model ? `(${r.target.model})` : '', paint: st.dim },
    ];
  });
  return renderTable(null, rows, { right: [false, false, true, false, false], indent: '    ', st });
}

export interface ShowData {
  rec: LaunchRecord;
  benches: BenchRecord[];
  targets: TargetResult[];
}

export function formatShow({ rec, benches, targets }: ShowData, st: Style): string {
  const l = rec.report;
  const out: string[] = [];
  // The machine it ran on (a launch recorded before machines were kept: the log's host, `localhost` = here).
  const where = `${rec.machine ?? rec.host}${rec.port ? `:${rec.port}` : ''}`;
  out.push(
    `${st.bold(rec.id)} · ${rec.engine ?? 'unknown engine'}${rec.version ? ` ${rec.version}` : ''} · ${rec.model ?? 'unknown model'} on ${where}`,
  );
  out.push(
    st.dim(
      `  ${rec.host === 'localhost' ? '' : `${rec.host}:`}${rec.path} (lines ${l.startLine}–${l.endLine})`,
    ),
  );
  for (const p of (rec.paths ?? []).slice(1))
    out.push(
      st.dim(`  also read at ${p.host === 'localhost' ? '' : `${p.host}:`}${p.path} (line ${p.startLine})`),
    );
  if (rec.user) out.push(st.dim(`  recorded by ${rec.user}`));
  if (rec.tags?.length) out.push(`  tags: ${rec.tags.join(', ')}`);
  for (const n of rec.notes ?? [])
    out.push(`  note (${fmtTs(n.at, true)}${n.user ? `, ${n.user}` : ''}): ${trim(n.text, 400)}`);
  const state = rec.state === 'ended' ? 'ended (no exit line)' : rec.state;
  const head = [`${outcomePaint(rec, st)(state)}`, `phase ${st.bold(rec.phase ?? 'unknown')}`];
  const prog = progressText(l);
  // A stale ETA is no progress: once a live look called the launch stalled or dead, the bar is history.
  if (prog && (rec.state === 'in_progress' || rec.state === 'crashed')) head.push(prog);
  out.push(`  ${head.join(' · ')}`);
  if (rec.live && rec.state === rec.live.state)
    out.push(
      `  ${outcomePaint(rec, st)(`${rec.live.state} when last looked at`)} (${fmtTs(rec.live.at, true)}): ${trim(rec.live.why, 200)}`,
    );
  const times = [`started ${fmtTs(rec.startTs, true)}`];
  if (rec.loadSeconds !== null) times.push(`ready after ${fmtDuration(rec.loadSeconds)}`);
  if (l.duration !== null) times.push(`${fmtDuration(l.duration)} of log`);
  if (!l.startSeen) times.push(st.yellow('the log begins mid-launch'));
  if (rec.pid !== null) times.push(`pid ${rec.pid}`);
  out.push(`  ${st.dim(times.join(' · '))}`);
  const sum = summaryLine(l);
  if (sum) out.push(`  ${sum}`);
  if (l.nodes) out.push(formatNodes(l.nodes, st).trimEnd());
  const nKeys = Object.keys(l.config ?? {}).length;
  if (nKeys)
    out.push(
      st.dim(
        `  config: ${nKeys} keys, hash ${rec.configHash ?? '-'} (all of them: firedup show ${shortId(rec.id)} --json)`,
      ),
    );
  if (l.failure) {
    const f = l.failure;
    out.push('');
    out.push(
      `  ${st.red(st.bold(`failure: ${f.class}`))}${f.rank ? ` on ${f.rank}` : ''}${f.phase ? ` during ${f.phase}` : ''}`,
    );
    const w = outputWidth();
    for (const m of w === null ? [trim(f.message, 300)] : wrapText(trim(f.message, 300), w - 4))
      out.push(`    ${m}`);
    for (const e of f.evidence.slice(0, 6))
      out.push(st.dim(`    ${String(e.line).padStart(6)}: ${trim(e.text)}`));
    if (f.hint) out.push(`  ${st.cyan('next:')} ${f.hint}`);
  }
  if (l.phases.length) {
    out.push('');
    out.push('  phases:');
    const open = rec.state === 'in_progress' || rec.state === 'crashed';
    out.push(
      ...renderTable(
        null,
        l.phases.map((p, i) => [
          p.phase,
          p.start ? p.start.slice(11, 19) : '--:--:--',
          fmtDuration(p.duration) + (open && i === l.phases.length - 1 ? ' (so far)' : ''),
          { text: `line ${p.line}`, paint: st.dim },
        ]),
        { right: [false, false, true, false], indent: '    ', st },
      ),
    );
  }
  if (l.ready) out.push(`  ${st.green('ready')} at line ${l.ready.line}: ${st.dim(trim(l.ready.text))}`);
  if (l.shutdown) out.push(`  ${st.dim(`shutdown at line ${l.shutdown.line}: ${trim(l.shutdown.text)}`)}`);
  if (l.throughput) {
    const t = l.throughput;
    out.push('');
    out.push(
      `  throughput (log): peak ${fmtNum(t.peak)} tok/s (line ${t.peakLine}) · median ${fmtNum(t.median)} tok/s · last ${fmtNum(t.last)} tok/s · ${t.samples} samples`,
    );
  }
  out.push('');
  if (benches.length) {
    out.push(`  benchmarks (${benches.length}):`);
    out.push(...benchRows(benches, st));
  } else out.push(st.dim(`  no benchmark attached (firedup bench import FILE --launch ${shortId(rec.id)})`));
  if (targets.length) {
    out.push('');
    out.push('  targets:');
    out.push(...targetRows(targets, st));
  }
  const it = rec.intended;
  if (it) {
    out.push('');
    out.push(`  launched by firedup: ${trim(it.argv.join(' '), 300)}`);
    const bits = [`cwd ${it.cwd}`];
    if (it.engineVersion) bits.push(`engine ${it.engineVersion}`);
    if (it.git)
      bits.push(`git ${it.git.head?.slice(0, 12) ?? '?'} with ${it.git.modified.length} modified file(s)`);
    out.push(st.dim(`    ${bits.join(' · ')}`));
    if (it.mismatches.length) {
      out.push(`  ${st.yellow('intended vs observed:')}`);
      out.push(
        ...renderTable(
          ['flag', 'intended', 'observed'],
          it.mismatches.map((m) => [m.key, fmtValue(m.intended), fmtValue(m.observed)]),
          { indent: '    ', st },
        ),
      );
    } else out.push(st.dim('    every intended flag shows in the logged config as asked'));
  }
  return `${fitLines(out).join('\n')}\n`;
}

export function formatTargets(targets: TargetRecord[], st: Style): string {
  if (!targets.length) return 'no targets (add one: firedup target add "output_tok_s >= 1000" [--model M])\n';
  const rows: Row[] = targets.map((t) => [
    `#${t.id}`,
    t.expr,
    t.model ?? 'all models',
    { text: TARGET_METRICS[t.metric]?.what ?? '', paint: st.dim },
  ]);
  return `${renderTable(['id', 'target', 'model', 'measured as'], rows, { st }).join('\n')}\n`;
}
