import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeFile } from '../../src/sources/file.js';
import { SHARED } from '../helpers.js';

/** The same rules as ../shared/tools/score.py, so a regression on the labeled corpus fails the suite. */
const EQ: Record<string, string> = { dist_init: 'args', autotune: 'compile' };
const ph = (p: string | null | undefined) => (p ? (EQ[p] ?? p) : p);

interface Label {
  id: string;
  engine: string;
  launches: number | null;
  outcome: string;
  last_phase: string;
  failure_class: string | null;
  evidence_line: number | null;
}

function expectedOutcomes(l: Label): string[] {
  if (l.outcome === 'ready') return ['ready', 'serving'];
  if (l.outcome === 'crashed') return l.evidence_line ? ['crashed'] : ['crashed', 'in_progress'];
  if (l.outcome === 'hung' || l.outcome === 'incomplete') return ['in_progress'];
  return [l.outcome];
}

describe('labeled corpus of real log fragments', () => {
  it('meets the accuracy goals (≥95% per field, ≥95% of cases fully right)', () => {
    const tot: Record<string, number> = {};
    const ok: Record<string, number> = {};
    const misses: string[] = [];
    const check = (id: string, field: string, good: boolean, got: unknown, want: unknown) => {
      tot[field] = (tot[field] ?? 0) + 1;
      if (good) ok[field] = (ok[field] ?? 0) + 1;
      else misses.push(`${id}: ${field} got ${JSON.stringify(got)} want ${JSON.stringify(want)}`);
    };
    for (const dir of ['sglang', 'vllm', 'extra', 'recent', 'full']) {
      const d = path.join(SHARED, 'corpus', dir);
      for (const row of fs.readFileSync(path.join(d, 'labels.jsonl'), 'utf8').split('\n').filter(Boolean)) {
        const lab = JSON.parse(row) as Label;
        const file = path.join(d, `${lab.id.split('-').pop()}.log`);
        const r = analyzeFile(file, { year: 2026 }).report;
        const last = r.launches[r.launches.length - 1];
        const before = misses.length;
        check(lab.id, 'engine', r.engine === lab.engine, r.engine, lab.engine);
        const exp = expectedOutcomes(lab);
        check(lab.id, 'outcome', exp.includes(last?.outcome ?? ''), last?.outcome, exp);
        check(lab.id, 'phase', ph(last?.phase) === ph(lab.last_phase), last?.phase, lab.last_phase);
        if (lab.failure_class && ['crashed', 'shutdown'].includes(lab.outcome) && lab.evidence_line)
          check(
            lab.id,
            'failure_class',
            last?.failure?.class === lab.failure_class,
            last?.failure?.class,
            lab.failure_class,
          );
        if (lab.launches)
          check(lab.id, 'launches', r.launches.length === lab.launches, r.launches.length, lab.launches);
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
