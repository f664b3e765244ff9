/**
 * Short excerpts of real logs (issue 22: fresh pastes are search excerpts of 2-28 lines): every labelled log of
 * the shared corpus (test/fixtures/corpus) is cut into windows around its failure line, ending at its ready line and
 * at its end (test/excerpt-windows.ts), and each window's reading is held to what the window itself shows. A
 * robustness bound on windows of known logs, not an accuracy figure; scripts/excerpt-check.mjs prints the same
 * checks for every corpus, with the misses grouped by kind.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { checkWindow, readWindow, windowsOf } from '../../excerpt-windows.js';
import { SHARED } from '../../helpers.js';
import { readLabels } from '../../labels.js';

/**
 * Windows right per check, at least (measured 2026-12 after the excerpt fixes: crash outcome 229/230, class
 * 220/230, crash engine 271/292, ready outcome 222/237, ready engine 226/237, tail engine 582/583); at most that
 * many windows name a wrong engine or a phase later than the file's (2 and 7).
 */
const FLOOR: Record<string, number> = {
  'crash outcome': 0.99,
  'crash failure_class': 0.95,
  'crash engine': 0.92,
  'ready outcome': 0.93,
  'ready engine': 0.95,
  'tail engine (not wrong)': 0.99,
};
const MOST: Record<string, number> = { 'crash engine WRONG': 2, 'crash phase not later than label': 7 };

describe('short windows of the real corpus', () => {
  const right = new Map<string, number>();
  const total = new Map<string, number>();
  const misses = new Map<string, string[]>();
  const dirs: string[] = [];
  const walk = (d: string) => {
    if (fs.existsSync(path.join(d, 'labels.jsonl'))) dirs.push(d);
    for (const e of fs.readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory()) walk(path.join(d, e.name));
  };
  walk(path.join(SHARED, 'corpus'));
  for (const dir of dirs.sort())
    for (const { label, file } of readLabels(dir)) {
      let lines = fs.readFileSync(file, 'utf8').split('\n');
      if (lines.at(-1) === '') lines = lines.slice(0, -1);
      for (const w of windowsOf(label, lines.length)) {
        const got = readWindow(`${lines.slice(w.a - 1, w.b).join('\n')}\n`);
        for (const c of checkWindow(label, w, got)) {
          total.set(c.field, (total.get(c.field) ?? 0) + 1);
          if (c.good) right.set(c.field, (right.get(c.field) ?? 0) + 1);
          else
            misses.set(c.field, [
              ...(misses.get(c.field) ?? []),
              `${label.id} [${w.a},${w.b}]: ${JSON.stringify(got)}`,
            ]);
        }
      }
    }

  for (const [field, floor] of Object.entries(FLOOR))
    it(`${field}: at least ${floor * 100} % of windows`, () => {
      const n = total.get(field) ?? 0;
      const ok = right.get(field) ?? 0;
      assert.ok(n > 0, `no window checks ${field}`);
      assert.ok(ok / n >= floor, `${ok}/${n}\n${(misses.get(field) ?? []).join('\n')}`);
    });

  for (const [field, most] of Object.entries(MOST))
    it(`${field}: at most ${most} windows miss`, () => {
      const m = misses.get(field) ?? [];
      assert.ok(m.length <= most, `${m.length}\n${m.join('\n')}`);
    });
});
