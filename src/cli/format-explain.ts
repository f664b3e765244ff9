/** `firedup status --explain` as text: each conclusion with the lines behind it, then what no rule knew. */
import type { Explanation } from '../core/reading/explain-report.js';
import type { Style } from './style.js';

const SHAPES_SHOWN = 40;

function trim(s: string, n = 160): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

const at = (line: number): string => String(line).padStart(6);

export function formatExplain(file: string, x: Explanation, st: Style): string {
  const out: string[] = [];
  const ev = (line: number, text: string, rule?: string | null): string =>
    `    ${at(line)}: ${trim(text)}${rule ? st.dim(`  [${rule}]`) : ''}`;
  out.push(
    `${st.bold(file)} · launch ${x.launch.number} of ${x.launch.of} (lines ${x.launch.startLine}–${x.launch.endLine}) · ${x.outcome} · phase ${x.phase ?? 'unknown'}`,
  );
  out.push(
    `  confidence: ${x.confidence}${x.confidenceReasons.length ? ` (${x.confidenceReasons.join(', ')})` : ''}`,
  );

  const e = x.engine;
  out.push('');
  if (e.forced) out.push(`  engine ${e.id}: named by --engine`);
  else if (e.votes.length === 0) out.push(`  engine ${e.id ?? 'unknown'}: no line voted for any engine`);
  else {
    out.push(
      `  engine ${e.id ?? 'unknown'}${e.version ? ` ${e.version}` : ''}: ${e.votes.map((v) => `${v.engine} ${v.score} (${v.lines} line${v.lines === 1 ? '' : 's'})`).join(', ')}`,
    );
    for (const v of e.votes.slice(0, 2))
      for (const t of v.top) out.push(`${ev(t.line, t.text)}${st.dim(`  [${v.engine} +${t.weight}]`)}`);
  }

  if (x.wrapper !== null) out.push(`  peeled from each line before reading it: ${x.wrapper}`);

  out.push('');
  if (x.start.seen)
    out.push(`  launch start${x.start.anchors.length ? ` (${x.start.anchors.join(', ')})` : ''}:`);
  else out.push('  launch start: not in the log (it begins mid-launch); first line of the launch:');
  out.push(ev(x.start.line, x.start.text));

  out.push('');
  if (x.phases.length === 0) out.push('  phases: none recognised');
  else {
    out.push('  phases:');
    for (const p of x.phases) out.push(`    ${p.phase}`, `  ${ev(p.line, p.text, p.rule)}`);
  }
  for (const p of x.progress) out.push(`  progress: ${p.what} ${p.done}/${p.total} at line ${p.line}`);
  if (x.ready) out.push('  ready:', ev(x.ready.line, x.ready.text));
  if (x.serving) {
    const s = x.serving;
    out.push(`  serving: ${s.samples} throughput samples, ${s.requests} requests`);
    if (s.peakLine !== null && s.peakText) out.push(ev(s.peakLine, s.peakText, 'peak'));
  }
  if (x.shutdown) out.push('  shutdown:', ev(x.shutdown.line, x.shutdown.text));

  if (x.failure) {
    const f = x.failure;
    out.push('');
    out.push(
      `  failure ${f.class}, read from ${f.source.replace('_', ' ')}${f.exceptionType ? ` (${f.exceptionType})` : ''}: ${trim(f.message, 200)}`,
    );
    for (const v of f.evidence.slice(0, 10)) out.push(ev(v.line, v.text));
  }

  if (x.config.length) {
    out.push('');
    out.push(`  config from: ${x.config.map((c) => `${c.source} (line ${c.line})`).join(', ')}`);
  }

  const u = x.unrecognised;
  out.push('');
  if (u.lines === 0) out.push('  unrecognised engine-looking lines: none');
  else {
    out.push(
      `  unrecognised engine-looking lines (whole file): ${u.lines} line${u.lines === 1 ? '' : 's'}, ${u.distinct} shape${u.distinct === 1 ? '' : 's'}${u.dropped ? ` (+${u.dropped} lines of shapes past the first ${u.distinct})` : ''}`,
    );
    for (const s of u.shapes.slice(0, SHAPES_SHOWN)) {
      out.push(`    ${String(s.count).padStart(5)}×  ${trim(s.shape, 200)}`);
      out.push(st.dim(`           first line ${s.firstLine} (${s.level}): ${trim(s.example)}`));
    }
    if (u.shapes.length > SHAPES_SHOWN)
      out.push(
        st.dim(`    … ${u.shapes.length - SHAPES_SHOWN} more shapes (--explain --json lists them all)`),
      );
  }
  return `${out.join('\n')}\n`;
}
