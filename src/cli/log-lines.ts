/**
 * `show ID --lines [N]` and `status --lines [N]`: the raw log around each piece of evidence, with line
 * numbers and the command that opens the file there. The lines are read again from the file, never from the
 * ledger: what is shown is what the file holds now, and a file that changed since is said to have changed.
 */
import fs from 'node:fs';
import { redactText } from '../core/config/redact.js';
import { decodeLine } from '../core/lines/clean.js';
import type { LaunchReport } from '../core/reading/report.js';
import type { VerdictEvidence } from '../core/verdict/verdict.js';
import { UsageError } from './errors.js';
import type { Style } from './style.js';

export const DEFAULT_CONTEXT = 3;
/** More context than this is a file to open, not a screen to read. */
const MAX_CONTEXT = 50;
const MAX_WIDTH = 300;

/**
 * Takes `--lines`, `--lines N` or `--lines=N` out of argv (N is optional, so a generic parser would take the
 * log's name for it). Returns the context asked for, or null without the flag.
 */
export function takeLinesFlag(argv: string[], cmd: string): { argv: string[]; lines: number | null } {
  const rest: string[] = [];
  let lines: number | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    const eq = /^--lines=(.*)$/.exec(a);
    if (a !== '--lines' && !eq) {
      rest.push(a);
      continue;
    }
    let v: string | undefined = eq?.[1];
    if (!eq && /^\d+$/.test(argv[i + 1] ?? '')) v = argv[++i];
    if (v === undefined) lines = DEFAULT_CONTEXT;
    else if (/^\d+$/.test(v) && Number(v) <= MAX_CONTEXT) lines = Number(v);
    else
      throw new UsageError(
        `${cmd}: --lines ${v}: expected a number of context lines from 0 to ${MAX_CONTEXT} (default ${DEFAULT_CONTEXT})`,
      );
  }
  return { argv: rest, lines };
}

export interface EvidenceRef {
  line: number;
  what: string;
}

/** Each piece of evidence the report (and the live verdict kept, if any) points at, once, in file order. */
export function evidenceRefs(
  l: LaunchReport,
  live: Array<Pick<VerdictEvidence, 'line' | 'source'>> = [],
): EvidenceRef[] {
  const refs: EvidenceRef[] = [{ line: l.startLine, what: 'launch start' }];
  if (l.failure) {
    refs.push({ line: l.failure.line, what: `failure (${l.failure.class})` });
    for (const e of l.failure.evidence) refs.push({ line: e.line, what: 'failure evidence' });
  }
  const p = l.phase === 'cuda_graph' && l.graphProgress ? l.graphProgress : l.progress;
  if (p) refs.push({ line: p.line, what: `progress (${p.done}/${p.total})` });
  if (l.ready) refs.push({ line: l.ready.line, what: 'ready' });
  if (l.shutdown) refs.push({ line: l.shutdown.line, what: 'shutdown' });
  for (const e of live)
    if (typeof e.line === 'number') refs.push({ line: e.line, what: `live verdict (${e.source})` });
  if (refs.length === 1) refs.push({ line: l.lastProgressLine, what: 'last sign of progress' });
  const byLine = new Map<number, string>();
  for (const r of refs)
    if (r.line >= 1) byLine.set(r.line, byLine.has(r.line) ? `${byLine.get(r.line)}, ${r.what}` : r.what);
  return [...byLine].sort((a, b) => a[0] - b[0]).map(([line, what]) => ({ line, what }));
}

/**
 * The lines `wanted` of the file, reading from `offset` (where line `firstLine` starts) up to the last one
 * wanted: a launch deep in a 1 GB log costs what lies between its start and its evidence.
 */
function readLines(
  file: string,
  offset: number,
  firstLine: number,
  wanted: Set<number>,
): Map<number, string> {
  const out = new Map<number, string>();
  const last = Math.max(...wanted);
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    let carry: Buffer = Buffer.alloc(0);
    let no = firstLine;
    let pos = offset;
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n === 0) break;
      pos += n;
      let chunk = Buffer.concat([carry, buf.subarray(0, n)]);
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
        if (wanted.has(no)) out.set(no, decodeLine(chunk, start, nl));
        start = nl + 1;
        if (++no > last) return out;
      }
      chunk = chunk.subarray(start);
      // A line longer than what is shown is kept only as far as it is shown.
      carry = chunk.length > 64 * 1024 ? chunk.subarray(0, 64 * 1024) : Buffer.from(chunk);
    }
    if (carry.length && wanted.has(no)) out.set(no, decodeLine(carry, 0, carry.length));
    return out;
  } finally {
    fs.closeSync(fd);
  }
}

/** A place the launch can be read at: the path, and where its first line is there. */
export interface LinesSource {
  host: string;
  path: string;
  startLine: number;
  /** Byte offset of the launch's first line, when known (else the file is read from its start). */
  startOffset: number | null;
}

/**
 * The evidence of launch `l` with `context` lines around each, read at the first place that still holds
 * the launch (its first line where it was). Throws a UsageError that says, in one line, why none does.
 */
export function formatLines(
  l: LaunchReport,
  places: LinesSource[],
  context: number,
  st: Style,
  live: VerdictEvidence[] = [],
): string {
  const problems: string[] = [];
  for (const place of places) {
    if (place.host !== 'localhost') {
      problems.push(`${place.host}:${place.path} is on another host (copy it here to see its lines)`);
      continue;
    }
    let st0: fs.Stats;
    try {
      st0 = fs.statSync(place.path);
    } catch {
      problems.push(`${place.path} is gone`);
      continue;
    }
    if (!st0.isFile()) {
      problems.push(`${place.path} is not a file any more`);
      continue;
    }
    // Line numbers in the report are the file's where it was read; at a copy the launch may start elsewhere.
    const shift = place.startLine - l.startLine;
    const refs = evidenceRefs(l, live);
    const wanted = new Set<number>();
    for (const r of refs)
      for (let n = Math.max(l.startLine, r.line - context); n <= r.line + context; n++) wanted.add(n + shift);
    wanted.add(place.startLine);
    const known = place.startOffset !== null && place.startOffset <= st0.size;
    const lines = readLines(place.path, known ? place.startOffset! : 0, known ? place.startLine : 1, wanted);
    const first = lines.get(place.startLine);
    if (first === undefined || !(first.includes(l.startText) || redactText(first).includes(l.startText))) {
      problems.push(
        `${place.path} has changed since the launch was read (line ${place.startLine} is not its first line)`,
      );
      continue;
    }
    return render(place.path, l, refs, lines, context, shift, st);
  }
  throw new UsageError(`cannot show the lines of this launch: ${problems.join('; ')}`);
}

function render(
  file: string,
  l: LaunchReport,
  refs: EvidenceRef[],
  lines: Map<number, string>,
  context: number,
  shift: number,
  st: Style,
): string {
  const quoted = /^[\w./@:+-]+$/.test(file) ? file : `'${file.replace(/'/g, "'\\''")}'`;
  const out = [st.bold(`${file} · launch at lines ${l.startLine + shift}–${l.endLine + shift}`)];
  const width = String(Math.max(...lines.keys())).length;
  for (const r of refs) {
    const at = r.line + shift;
    out.push('');
    out.push(`  ${st.cyan(r.what)} · line ${at} · ${st.dim(`less +${at} ${quoted}`)}`);
    for (let n = Math.max(l.startLine + shift, at - context); n <= at + context; n++) {
      const raw = lines.get(n);
      if (raw === undefined) continue;
      // The ledger never holds a secret; the lines it points at get the same care.
      const text = redactText(raw);
      const cut = text.length > MAX_WIDTH ? `${text.slice(0, MAX_WIDTH - 1)}…` : text;
      const mark = n === at ? st.bold('>') : ' ';
      out.push(`  ${mark} ${String(n).padStart(width)}  ${n === at ? cut : st.dim(cut)}`);
    }
  }
  return `${out.join('\n')}\n`;
}
