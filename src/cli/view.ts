/**
 * The live terminal view: a block at the bottom of the terminal redrawn in place, with event lines
 * scrolling above it (the technique of vitest's WindowRenderer): each redraw moves the cursor up over the
 * old block, clears to the end of the screen and writes the new block in one write, so nothing flickers.
 */

import type { LiveEvent } from '../app/live.js';
import type { NodeVerdict } from '../core/multinode/live.js';
import type { AnalysisReport } from '../core/reading/report.js';
import type { GpuObservation } from '../core/verdict/observations.js';
import type { Verdict } from '../core/verdict/verdict.js';
import { bar, fmtDuration, whyAfterState } from './format.js';
import type { Style } from './style.js';
import { cutText, fitLine, outputWidth, wrapText } from './width.js';

const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';

export function stateBadge(v: Verdict, st: Style): string {
  switch (v.state) {
    case 'ready':
    case 'serving':
      return st.green(`● ${v.state}`);
    case 'idle':
      return st.green('○ idle');
    case 'crashed':
      return st.red('✖ crashed');
    case 'dead':
      return st.red('✖ dead');
    case 'stalled':
      return st.yellow(`⚠ stalled in ${v.stalledIn ?? 'startup'}`);
    case 'exited':
      return st.dim('■ exited');
    case 'waiting':
      return st.dim('… waiting');
    default:
      return st.cyan(`◐ ${v.state}`);
  }
}

function gpuLines(g: GpuObservation | null | undefined, st: Style, width: number): string[] {
  if (!g) return [];
  if (g.error) return [st.dim(`GPU   ${g.error}`)];
  return g.gpus.map((d) => {
    const mem = d.memTotalMiB > 0 ? d.memUsedMiB / d.memTotalMiB : 0;
    const util = (d.utilPct ?? 0) / 100;
    const w = Math.max(6, Math.min(20, Math.floor((width - 50) / 2)));
    return `GPU${d.index}  mem ${bar(mem, w)} ${(d.memUsedMiB / 1024).toFixed(1).padStart(5)}/${(d.memTotalMiB / 1024).toFixed(0)} GiB  util ${bar(util, w)} ${String(d.utilPct ?? '?').padStart(3)}%${d.powerW !== null ? `  ${Math.round(d.powerW)} W` : ''}`;
  });
}

/** The block for one verdict; also what a plain dump of the final state prints. */
export function renderBlock(
  log: string,
  v: Verdict,
  report: AnalysisReport | null,
  gpu: GpuObservation | null | undefined,
  st: Style,
  width: number,
): string[] {
  const out: string[] = [];
  const l = report?.launches[report.launches.length - 1];
  out.push(
    st.bold(
      `firedup · ${log} · ${v.engine ?? 'engine?'}${v.launch ? ` · launch ${v.launch} of ${v.launches}` : ''}`,
    ),
  );
  let head = `${stateBadge(v, st)}`;
  if (v.progress && v.progress.done < v.progress.total && !['crashed', 'dead', 'exited'].includes(v.state)) {
    const w = Math.max(10, Math.min(30, width - 60));
    head += `  ${bar(v.progress.ratio, w)} ${v.progress.done}/${v.progress.total} ${Math.round(v.progress.ratio * 100)}%`;
    if (v.progress.rate) head += `  ${v.progress.rate}/s`;
    if (v.progress.eta !== null) head += `  ETA ${fmtDuration(v.progress.eta)}`;
  }
  if (v.quietFor !== null && !['ready', 'serving', 'crashed', 'exited', 'dead'].includes(v.state)) {
    head += st.dim(`  quiet ${fmtDuration(v.quietFor)}${v.budget ? ` of ${fmtDuration(v.budget)}` : ''}`);
  }
  if (v.throughput !== null && (v.state === 'serving' || v.state === 'idle'))
    head += `  ${v.throughput} tok/s`;
  out.push(head);
  // The why is the answer: wrapped, never cut.
  for (const l of wrapText(whyAfterState(v), width - 3)) out.push(`  ${l}`);
  if (l?.phases.length) {
    const ph = l.phases.map(
      (p, i) =>
        `${p.phase} ${fmtDuration(p.duration)}${i === l.phases.length - 1 && !['crashed', 'exited'].includes(v.state) ? '…' : ''}`,
    );
    // Every phase, in order: an overlong list wraps at phase boundaries, never inside a phase's name.
    for (const row of joinFitting(ph, ' · ', width - 3)) out.push(st.dim(`  ${row}`));
  }
  // A multi-node launch: each node's own state, phase and progress, one line each.
  for (const n of (v as Verdict & { nodes?: NodeVerdict[] }).nodes ?? []) {
    const p =
      n.progress && n.progress.done < n.progress.total ? `  ${n.progress.done}/${n.progress.total}` : '';
    out.push(
      cutText(
        `  ${n.head ? '◆' : '·'} ${n.name}  ${n.state}${n.phase && n.phase !== n.state ? ` (${n.phase})` : ''}${p}`,
        width,
      ),
    );
  }
  for (const g of gpuLines(gpu, st, width)) out.push(`  ${g}`);
  for (const e of v.evidence.slice(0, 6)) {
    const t = `${e.source}${e.line ? ` ${e.line}` : ''}: ${e.text}`;
    out.push(st.dim(`  ${cutText(t, width - 4)}`));
  }
  if (v.next) out.push(`  ${st.cyan('next:')} ${v.next}`);
  return out;
}

/** `items` joined with `sep` into rows of at most `width` characters, breaking only between items. */
export function joinFitting(items: string[], sep: string, width: number): string[] {
  const rows: string[] = [];
  let cur = '';
  for (const it of items) {
    if (cur && [...cur].length + sep.length + [...it].length > width) {
      rows.push(`${cur}${sep.trimEnd()}`);
      cur = it;
    } else cur = cur ? `${cur}${sep}${it}` : it;
  }
  if (cur) rows.push(cur);
  return rows;
}

export class LiveView {
  private height = 0;
  private started = false;

  constructor(private readonly out: NodeJS.WriteStream) {}

  private width(): number {
    return outputWidth(this.out) ?? 100;
  }

  /** Redraws the block. */
  draw(lines: string[]): void {
    const width = this.width();
    const clipped = lines.map((l) => clip(l, width));
    this.out.write(`${this.started ? '' : HIDE_CURSOR}${this.erase()}${clipped.join('\n')}\n`);
    this.started = true;
    this.height = clipped.length;
  }

  /** Prints a line above the block (it scrolls away; the block stays at the bottom). */
  log(line: string, block: string[]): void {
    const width = this.width();
    const clipped = block.map((l) => clip(l, width));
    this.out.write(`${this.erase()}${line}\n${clipped.join('\n')}\n`);
    this.height = clipped.length;
  }

  /** Leaves the last block on screen and gives the cursor back. */
  close(): void {
    if (this.started) this.out.write(SHOW_CURSOR);
  }

  private erase(): string {
    return this.height > 0 ? `\x1b[${this.height}F\x1b[0J` : '';
  }
}

/**
 * Cuts a line to the terminal width, at a word and without breaking an escape sequence; one column is left
 * free so a full line never makes the terminal wrap (which would break the redraw's line count).
 */
function clip(line: string, width: number): string {
  return fitLine(line, width - 1);
}

const clock = (): string => new Date().toISOString().slice(11, 19);

export function stamp(text: string, st: Style): string {
  return `${st.dim(clock())} ${text}`;
}

/** A live event as one line, or null for those the block shows instead (progress). */
export function eventLine(e: LiveEvent, st: Style): string | null {
  switch (e.type) {
    case 'launch':
      return stamp(`launch ${e.launch} starts at line ${e.line}`, st);
    case 'phase':
      return stamp(
        `${e.phase.padEnd(15)} line ${e.line}${e.time ? ` (${e.time.slice(11, 19)} in the log)` : ''}`,
        st,
      );
    case 'progress':
      return null;
    case 'verdict':
      return stamp(
        `${stateBadge(e.verdict, st)}: ${whyAfterState(e.verdict)}${e.verdict.next ? `\n${' '.repeat(9)}next: ${e.verdict.next}` : ''}`,
        st,
      );
    case 'source':
      return stamp(e.detail, st);
    case 'reading':
      return stamp(e.text, st);
  }
}
