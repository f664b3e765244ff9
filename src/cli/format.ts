/** Human-readable output: readable at a glance, the evidence one line away. */
import { diffConfig } from '../core/campaign/diff.js';
import type { AnalysisReport, LaunchReport } from '../core/reading/report.js';
import { LIVE_STATES, logEvidence, type Verdict } from '../core/verdict/verdict.js';
import type { Style } from './style.js';
import { fitReport, outputWidth } from './width.js';

export function fmtDuration(s: number | null): string {
  if (s === null || !Number.isFinite(s)) return '?';
  if (s < 10) return `${Math.round(s * 10) / 10}s`;
  if (s < 60) return `${Math.round(s)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.round(s - m * 60)).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return `${h}h${String(m - h * 60).padStart(2, '0')}m`;
}

const clockOf = (iso: string | null): string => (iso ? iso.slice(11, 19) : '--:--:--');

export function fmtValue(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  const s = JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

function outcomeBadge(l: LaunchReport, st: Style): string {
  switch (l.outcome) {
    case 'serving':
      return st.green('● serving');
    case 'ready':
      return st.green('● ready');
    case 'crashed':
      return st.red('✖ crashed');
    case 'shutdown':
      return st.dim('■ shut down');
    case 'ended':
      return st.dim('■ ended (no exit line)');
    default:
      return st.yellow('◐ in progress');
  }
}

/** `eta: false` leaves the bar's ETA out: it is stale once the launch is stalled, dead or over. */
export function progressText(l: LaunchReport, eta = true): string | null {
  const p = l.phase === 'cuda_graph' && l.graphProgress ? l.graphProgress : l.progress;
  // A bar the launch has moved past without it reaching its end says nothing about now.
  if (!p || (p.phase !== undefined && p.phase !== l.phase && p.done < p.total)) return null;
  const pct = Math.round(p.ratio * 100);
  const parts = [`${p.done}/${p.total} (${pct}%)`];
  if (p.rate !== null) parts.push(`${p.rate}/s`);
  if (eta && p.done < p.total && p.eta !== null) parts.push(`ETA ${fmtDuration(p.eta)} from line ${p.line}`);
  return `${p.what}: ${parts.join(', ')}`;
}

export function bar(ratio: number, width: number): string {
  const n = Math.max(0, Math.min(width, Math.round(ratio * width)));
  return `${'█'.repeat(n)}${'░'.repeat(width - n)}`;
}

export function summaryLine(l: LaunchReport): string {
  const c = l.configSummary;
  const bits: string[] = [];
  if (l.model) bits.push(l.model);
  for (const k of ['tp', 'dp', 'pp', 'ep'])
    if (c[k] !== undefined && c[k] !== null && c[k] !== 1 && c[k] !== false)
      bits.push(`${k}=${fmtValue(c[k])}`);
  for (const k of [
    'quantization',
    'kv_cache_dtype',
    'mem_fraction_static',
    'gpu_memory_utilization',
    'max_running_requests',
    'max_model_len',
    'moe_runner_backend',
    'attention_backend',
    'speculative_algorithm',
  ]) {
    if (c[k] !== undefined && c[k] !== null && c[k] !== 'auto') bits.push(`${k}=${fmtValue(c[k])}`);
  }
  if (c.disable_cuda_graph === true)
    bits.push(l.config.enforce_eager === true ? 'enforce_eager' : 'disable_cuda_graph');
  return bits.join(' · ');
}

/** States in which the log's progress is still moving, so its ETA means something: starting … warmup. */
const MOVING = new Set<string>(
  LIVE_STATES.slice(LIVE_STATES.indexOf('starting'), LIVE_STATES.indexOf('ready')),
);

/**
 * The why to print after a badge or a state that already names the state (`◐ dist_init: …`): without the
 * words that repeat it (`dist_init, last progress 0 s ago` → `last progress 0 s ago`), so no line says a
 * state twice. A why that is nothing but the state is kept whole.
 */
export function whyAfterState(v: Pick<Verdict, 'state' | 'why'> & { stalledIn?: string | null }): string {
  // `⚠ stalled in loading_weights` is said before: `no progress in loading_weights for 27 s` → `no progress for 27 s`.
  const where = `no progress in ${v.stalledIn ?? 'startup'} `;
  if (v.state === 'stalled' && v.why.startsWith(where)) return `no progress ${v.why.slice(where.length)}`;
  for (const sep of [': ', ', ', '; ']) {
    const head = `${v.state}${sep}`;
    if (v.why.startsWith(head) && v.why.length > head.length) return v.why.slice(head.length);
  }
  return v.why;
}

/** The live verdict as status's first line: the state now (not what the log said last), and why. */
export function verdictLine(v: Verdict, st: Style, failure: { message: string } | null = null): string {
  const word = `now: ${v.state}${v.state === 'stalled' ? ` in ${v.stalledIn ?? 'startup'}` : ''}`;
  const color =
    v.state === 'crashed' || v.state === 'dead'
      ? st.red
      : v.state === 'stalled'
        ? st.yellow
        : v.state === 'ready' || v.state === 'serving' || v.state === 'idle'
          ? st.green
          : v.state === 'exited'
            ? st.dim
            : st.cyan;
  // A why that starts with the state said just before (`dist_init, last progress …`, a multi-node verdict's
  // across-nodes sentence) is printed without it.
  return `  ${st.bold(color(word))} — ${withoutFailure(whyAfterState(v), failure)}`;
}

/**
 * A why that quotes the failure message printed in full below it (`oom: RuntimeError: CUDA out of memory …`,
 * often hundreds of characters) says only its class and points there: the message is printed once.
 */
export function withoutFailure(
  why: string,
  failure: { message: string } | null | undefined,
  where: 'below' | 'above' = 'below',
): string {
  const m = failure?.message.trim();
  if (!m || m.length < 24) return why;
  const at = why.indexOf(m);
  if (at < 0) return why;
  const before = why.slice(0, at).replace(/[\s:;,—-]+$/, '');
  const after = why.slice(at + m.length).replace(/^[\s;.,]+/, '');
  return `${before || 'failed'} (failure ${where})${after ? `; ${after}` : ''}`;
}

/**
 * `live`: the verdict now (null for standard input, which has no age). It comes first; the log's own
 * reading follows, with the bar's ETA only while the verdict says progress is live.
 */
export function formatStatus(
  file: string,
  report: AnalysisReport,
  st: Style,
  live: Verdict | null = null,
  /** How many launches the file holds: more than the report's when it holds the last ones only (a ledger's). */
  count = report.launches.length,
  /** The output's width (null: no limit, lines whole). */
  width: number | null = outputWidth(),
): string {
  const l = report.launches[report.launches.length - 1]!;
  const prev = report.launches.length > 1 ? report.launches[report.launches.length - 2]! : null;
  const out: string[] = [];
  // another program's log (engines/generic.ts): its name, and the engine that reads its runner's lines if any
  const eng =
    report.engine === null && report.program
      ? `${report.program}${l.engine ? ` (${l.engine} inside)` : ' (no engine module)'}`
      : (l.engine ?? report.engine ?? 'unknown engine');
  out.push(
    `${st.bold(file)} · ${eng}${l.version ? ` ${l.version}` : ''} · launch ${count} of ${count} (lines ${l.startLine}–${l.endLine})`,
  );
  if (live) {
    out.push(verdictLine(live, st, l.failure));
    if (live.next && !l.failure) out.push(`  ${st.cyan('next:')} ${live.next}`);
  }
  const phase = l.phase ?? 'unknown';
  let head = `  ${live ? 'log: ' : ''}${outcomeBadge(l, st)} · phase ${st.bold(phase)}`;
  const prog = progressText(l, live === null || MOVING.has(live.state));
  if (prog && (l.outcome === 'in_progress' || l.outcome === 'crashed')) head += ` · ${prog}`;
  out.push(head);
  const doubt = confidenceLine(l);
  if (doubt) out.push(`  ${st.yellow(doubt)}`);
  const times: string[] = [];
  if (l.startTime) times.push(`started ${l.startTime.replace('T', ' ')}`);
  if (l.duration !== null) times.push(`${fmtDuration(l.duration)} of log`);
  if (l.outcome === 'in_progress')
    times.push(
      `last progress line ${l.lastProgressLine}${l.lastProgressTime ? ` at ${clockOf(l.lastProgressTime)}` : ''}`,
    );
  if (!l.startSeen) times.push(st.yellow('the log begins mid-launch'));
  if (times.length) out.push(`  ${st.dim(times.join(' · '))}`);
  const sum = summaryLine(l);
  if (sum) out.push(`  ${sum}`);
  if (l.failure) {
    const f = l.failure;
    out.push('');
    out.push(
      `  ${st.red(st.bold(`failure: ${f.class}`))}${f.rank ? ` on ${f.rank}` : ''}${f.phase ? ` during ${f.phase}` : ''}`,
    );
    out.push(`    ${f.message.length > 300 ? `${f.message.slice(0, 297)}...` : f.message}`);
    for (const e of f.evidence.slice(0, 6))
      out.push(st.dim(`    ${String(e.line).padStart(6)}: ${trim(e.text)}`));
    if (f.hint) out.push(`  ${st.cyan('next:')} ${f.hint}`);
  }
  if (l.throughput) {
    const t = l.throughput;
    out.push('');
    out.push(
      `  throughput: last ${t.last} tok/s · peak ${t.peak} tok/s (line ${t.peakLine}) · median ${t.median} tok/s · ${t.samples} samples`,
    );
    const s = l.serving;
    if (s) {
      const kv =
        s.kvUsage.last !== null
          ? ` · KV ${Math.round(s.kvUsage.last * 100)}% (peak ${Math.round((s.kvUsage.peak ?? 0) * 100)}%)`
          : '';
      out.push(
        `  requests: running ${s.running.last ?? '?'} (peak ${s.running.peak ?? '?'}) · queued ${s.queued.last ?? '?'} (peak ${s.queued.peak ?? '?'})${kv}`,
      );
    }
  }
  if (l.phases.length) {
    out.push('');
    out.push('  phases:');
    for (const p of l.phases) {
      const cur = p.phase === l.phase && l.outcome === 'in_progress';
      out.push(
        `    ${p.phase.padEnd(16)}${clockOf(p.start)}  ${fmtDuration(p.duration).padStart(7)}${cur ? ' (so far)' : ''}  ${st.dim(`line ${p.line}`)}`,
      );
    }
  }
  if (l.ready)
    out.push(
      `  ${st.green('ready')} at line ${l.ready.line}${l.ready.time ? ` (${clockOf(l.ready.time)})` : ''}: ${st.dim(trim(l.ready.text))}`,
    );
  if (l.shutdown) out.push(`  ${st.dim(`shutdown at line ${l.shutdown.line}: ${trim(l.shutdown.text)}`)}`);
  if (l.degraded.length) {
    out.push(`  ${st.yellow('warnings:')}`);
    for (const d of l.degraded.slice(0, 3))
      out.push(st.dim(`    ${String(d.line).padStart(6)}: ${trim(d.text)}`));
  }
  if (prev) {
    const changes = diffConfig(prev.config, l.config);
    out.push('');
    if (changes.length === 0)
      out.push(`  no config change since launch ${count - 1} (line ${prev.startLine}, ${prev.outcome})`);
    else {
      out.push(
        `  changed since launch ${count - 1} (line ${prev.startLine}, ${prev.outcome}${prev.throughput ? `, peak ${prev.throughput.peak} tok/s` : ''}):`,
      );
      for (const c of changes.slice(0, 20)) out.push(`    ${c.key}: ${fmtValue(c.from)} → ${fmtValue(c.to)}`);
      if (changes.length > 20)
        out.push(st.dim(`    … and ${changes.length - 20} more (firedup runs --json)`));
    }
  }
  const ev = evidenceLine(l);
  if (ev && !l.failure) out.push(st.dim(`  evidence ${ev}`));
  return `${fitReport(out, width, isQuoted).join('\n')}\n`;
}

/** One plain sentence when the reading is not to be fully trusted (see src/core/reading/confidence.ts). */
export function confidenceLine(l: LaunchReport): string | null {
  if (l.confidence === 'high') return null;
  const why = l.confidenceReasons.join(', ');
  return l.confidence === 'low' ? `reading rests on little: ${why}` : `reading is not complete: ${why}`;
}

function evidenceLine(l: LaunchReport): string | null {
  // The line the live verdict cites too (logEvidence), so status and watch never name different lines.
  const e = logEvidence(l);
  return e ? `${e.line}: ${trim(e.text)}` : null;
}

function trim(s: string, n = 160): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

export function formatRuns(
  file: string,
  report: AnalysisReport,
  st: Style,
  width: number | null = outputWidth(),
): string {
  const out = [runsHeader(file, report, report.launches.length, st)];
  report.launches.forEach((l, i) => {
    out.push(...runLines(l, i, report.launches[i - 1] ?? null, st));
  });
  return `${fitReport(out, width, isQuoted).join('\n')}\n`;
}

/** A line quoting the log (`      12: text`, `ready at line 9: text`): cut to the width, never wrapped. */
const isQuoted = (plain: string): boolean =>
  /^\s+(\d+: |ready at line |shutdown at line |evidence \d+: )/.test(plain);

/** `runs`' first line: the file, its engine, how many launches (`count`: also those not in the report). */
export function runsHeader(file: string, report: AnalysisReport, count: number, st: Style): string {
  const eng = report.engine ?? (report.program ? `${report.program} (no engine module)` : 'unknown engine');
  return `${st.bold(file)} · ${eng} · ${count} launch${count === 1 ? '' : 'es'} · ${report.lines} lines`;
}

/** `runs`' lines for the launch at `i` (from 0) of the file, `prev` the one before it. */
export function runLines(l: LaunchReport, i: number, prev: LaunchReport | null, st: Style): string[] {
  const out: string[] = [];
  // No ETA here: `runs` has no live verdict to tell a moving bar from a stalled one (`status` has).
  const what = l.failure ? `${l.failure.class} at line ${l.failure.line}` : (progressText(l, false) ?? '');
  const tp = l.throughput ? `peak ${l.throughput.peak} tok/s` : '';
  out.push(
    `  ${String(i + 1).padStart(2)}. lines ${`${l.startLine}–${l.endLine}`.padEnd(13)} ${outcomeBadge(l, st).padEnd(st.on ? 24 : 14)} ${(l.phase ?? '-').padEnd(16)} ${[clockOf(l.startTime) === '--:--:--' ? '' : l.startTime!.replace('T', ' '), fmtDuration(l.duration), what, tp].filter(Boolean).join(' · ')}`,
  );
  const sum = summaryLine(l);
  if (sum) out.push(st.dim(`      ${sum}`));
  if (prev) {
    const changes = diffConfig(prev.config, l.config);
    if (changes.length)
      out.push(
        st.dim(
          `      changed: ${changes
            .slice(0, 6)
            .map((c) => `${c.key} ${fmtValue(c.from)}→${fmtValue(c.to)}`)
            .join(', ')}${changes.length > 6 ? ', …' : ''}`,
        ),
      );
  }
  return out;
}
