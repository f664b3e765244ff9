/** Aligned text tables: columns padded on the visible text, colour applied after padding so it never shifts them. */
import type { Style } from './style.js';

export interface Cell {
  text: string;
  paint?: (s: string) => string;
}

export type Row = Array<Cell | string>;

const cellOf = (c: Cell | string): Cell => (typeof c === 'string' ? { text: c } : c);

/**
 * Lines of a table. `right` marks right-aligned (numeric) columns; a header row, when given, is dimmed.
 * Trailing spaces are trimmed so copied output stays clean.
 */
export function renderTable(
  header: string[] | null,
  rows: Row[],
  opts: { right?: boolean[]; indent?: string; gap?: string; st: Style },
): string[] {
  const indent = opts.indent ?? '  ';
  const gap = opts.gap ?? '  ';
  const all: Cell[][] = [
    ...(header ? [header.map((h): Cell => ({ text: h, paint: opts.st.dim }))] : []),
    ...rows.map((r) => r.map(cellOf)),
  ];
  const widths: number[] = [];
  for (const r of all)
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 0, [...c.text].length);
    });
  return all.map((r) => {
    const parts = r.map((c, i) => {
      const pad = ' '.repeat(widths[i]! - [...c.text].length);
      const text = opts.right?.[i] ? pad + c.text : c.text + (i === r.length - 1 ? '' : pad);
      return c.paint ? c.paint(text) : text;
    });
    return `${indent}${parts.join(gap)}`.replace(/\s+$/, '');
  });
}
