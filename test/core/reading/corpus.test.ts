import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeFile } from '../../../src/sources/file.js';
import { SHARED } from '../../helpers.js';
import { readLabels, scoreFields } from '../../labels.js';

/** The same rules as ../shared/tools/score.py, so a regression on the labeled corpus fails the suite. */
describe('labeled corpus of real log fragments', () => {
  it('meets the accuracy goals (≥95% per field, ≥95% of cases fully right)', () => {
    const tot: Record<string, number> = {};
    const ok: Record<string, number> = {};
    const misses: string[] = [];
    for (const dir of ['sglang', 'vllm', 'extra', 'recent', 'full']) {
      for (const { label, file } of readLabels(path.join(SHARED, 'corpus', dir))) {
        const r = analyzeFile(file, { year: 2026 }).report;
        const before = misses.length;
        for (const f of scoreFields(label, r)) {
          tot[f.field] = (tot[f.field] ?? 0) + 1;
          if (f.good) ok[f.field] = (ok[f.field] ?? 0) + 1;
          else
            misses.push(
              `${label.id}: ${f.field} got ${JSON.stringify(f.got)} want ${JSON.stringify(f.want)}`,
            );
        }
        tot.case = (tot.case ?? 0) + 1;
        if (misses.length === before) ok.case = (ok.case ?? 0) + 1;
      }
    }
    const pct = (k: string) => (100 * (ok[k] ?? 0)) / tot[k]!;
    const summary = Object.keys(tot)
      .map((k) => `${k} ${pct(k).toFixed(1)}%`)
      .join(', ');
    for (const k of ['engine', 'outcome', 'phase', 'failure_class', 'launches'])
      assert.ok(pct(k) >= 95, `${k} below 95%: ${summary}\n${misses.join('\n')}`);
    assert.ok(pct('case') >= 95, `cases below 95%: ${summary}\n${misses.join('\n')}`);
  });
});
