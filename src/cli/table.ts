/**
 * Aligned text tables: columns padded on the visible text, colour applied after padding so it never shifts
 * them. Fitted to the output width (width.ts): named columns shrink first (their cells cut at word
 * boundaries), then columns are dropped in the order given, and only then is a line cut.
 */
import type { Style } from './style.js';
import { cutStart, cutText, fitLine, outputWidth, vlen } from './width.js';

export interface Cell {
  text: string;
  paint?: (s: string) => string;
}

export type Row = Array<Cell | string>;

const cellOf = (c: Cell | string): Cell => (typeof c === 'string' ? { text: c } : c);

export interface Shrink {
  min: number;
  soft?: number;
  keep?: 'start' | 'end';
}

export interface TableOptions {
  right?: boolean[];
  indent?: string;
  gap?: string;
  st: Style;
  /** The most characters a line may take; null: no limit; left out: the output's width (width.ts). */
  width?: number | null;
  /**
   * Columns (by header text) that may be narrowed: to `soft` characters before any column is dropped, to
   * `min` after; cut keeping their start (names) or their end (`keep: 'end'`, paths: the file name matters
   * most). Names of absent columns are ignored.
   */
  shrink?: Record<string, Shrink>;
  /** Columns (by header text) dropped, first named first, while the table is still too wide. */
  drop?: string[];
  /** Filled with the names of the columns dropped, for a note under the table. */
  dropped?: string[];
}

/**
 * Lines of a table. `right` marks right-aligned (numeric) columns; a header row, when given, is dimmed.
 * Trailing spaces are trimmed so copied output stays clean.
 */
export function renderTable(header: string[] | null, rows: Row[], opts: TableOptions): string[] {
  const indent = opts.indent ?? '  ';
  const gap = opts.gap ?? '  ';
  const limit = opts.width === undefined ? outputWidth() : opts.width;
  let all: Cell[][] = [
    ...(header ? [header.map((h): Cell => ({ text: h, paint: opts.st.dim }))] : []),
    ...rows.map((r) => r.map(cellOf)),
  ];
  let right = opts.right ?? [];
  let names = header ?? [];
  const widths = (): number[] => {
    const w: number[] = [];
    for (const r of all)
      r.forEach((c, i) => {
        w[i] = Math.max(w[i] ?? 0, vlen(c.text));
      });
    return w;
  };
  let w = widths();
  const total = () => vlen(indent) + w.reduce((s, x) => s + x, 0) + vlen(gap) * Math.max(0, w.length - 1);
  const cuts = new Map<number, { to: number; keep: 'start' | 'end' }>();
  if (limit !== null && total() > limit && header) {
    // 1. Narrow the shrinkable columns, the widest first, to their soft width; 2. drop columns by
    // priority; 3. narrow to the minimum. Cutting a name a little reads better than losing a column, and
    // losing a column better than cutting every name to a stub.
    const shrinkTo = (floor: (s: Shrink) => number) => {
      const cols = names
        .map((n, i) => ({ i, spec: opts.shrink?.[n] }))
        .filter((x): x is { i: number; spec: Shrink } => x.spec !== undefined);
      while (total() > limit) {
        const c = cols.filter((x) => w[x.i]! > floor(x.spec)).sort((a, b) => w[b.i]! - w[a.i]!)[0];
        if (!c) break;
        w[c.i]!--;
        cuts.set(c.i, { to: w[c.i]!, keep: c.spec.keep ?? 'start' });
      }
    };
    shrinkTo((x) => Math.max(x.min, x.soft ?? x.min));
    for (const name of opts.drop ?? []) {
      if (total() <= limit) break;
      const i = names.indexOf(name);
      if (i < 0) continue;
      opts.dropped?.push(name);
      const keep = (_: unknown, j: number) => j !== i;
      all = all.map((r) => r.filter(keep));
      names = names.filter(keep);
      right = right.filter(keep);
      w = w.filter(keep);
      const moved = new Map<number, { to: number; keep: 'start' | 'end' }>();
      for (const [j, v] of cuts) if (j !== i) moved.set(j > i ? j - 1 : j, v);
      cuts.clear();
      for (const [j, v] of moved) cuts.set(j, v);
    }
    shrinkTo((x) => x.min);
  }
  const cut = (c: Cell, i: number): Cell => {
    const k = cuts.get(i);
    if (!k || vlen(c.text) <= k.to) return c;
    return { ...c, text: k.keep === 'end' ? cutStart(c.text, k.to) : cutText(c.text, k.to) };
  };
  all = all.map((r) => r.map(cut));
  w = widths();
  return all.map((r) => {
    const parts = r.map((c, i) => {
      const pad = ' '.repeat(w[i]! - vlen(c.text));
      const text = right[i] ? pad + c.text : c.text + (i === r.length - 1 ? '' : pad);
      return c.paint ? c.paint(text) : text;
    });
    const line = `${indent}${parts.join(gap)}`.replace(/\s+$/, '');
    // Still too wide (nothing left to shrink or drop): the line itself is cut, at a word.
    return limit === null ? line : fitLine(line, limit);
  });
}
