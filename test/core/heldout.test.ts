/**
 * Made-up held-out fragments (test/fixtures/heldout/README.md), read by the corpus scorer's rules
 * (../shared/tools/score.py): each case fully right, except those labelled `open` (firedup still disagrees with a
 * label believed right), which run as todo.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeFile } from '../../src/sources/file.js';
import { SHARED } from '../helpers.js';

const EQ: Record<string, string> = { dist_init: 'args', autotune: 'compile' };
const ph = (p: string | null | undefined) => (p ? (EQ[p] ?? p) : p);

interface Label {
  id: string;
  engine: string;
  launches: number | null;
  outcome: string;
  last_phase: string;
  failure_class: string | null;
  evidence_line?: number | null;
  open?: boolean;
}

function expectedOutcomes(l: Label): string[] {
  if (l.outcome === 'ready') return ['ready', 'serving'];
  if (l.outcome === 'crashed') return l.evidence_line ? ['crashed'] : ['crashed', 'in_progress'];
  if (l.outcome === 'hung' || l.outcome === 'incomplete') return ['in_progress'];
  return [l.outcome];
}

describe('held-out fragments (made up, not tuned on)', () => {
  const root = path.join(SHARED, 'heldout');
  for (const engine of ['sglang', 'tgi', 'llamacpp', 'trtllm', 'mixed']) {
    const d = path.join(root, engine);
    for (const row of fs.readFileSync(path.join(d, 'labels.jsonl'), 'utf8').split('\n').filter(Boolean)) {
      const lab = JSON.parse(row) as Label;
      it(lab.id, { todo: lab.open === true }, () => {
        const r = analyzeFile(path.join(d, `${lab.id.split('-').pop()}.log`), { year: 2026 }).report;
        const last = r.launches.at(-1);
        assert.equal(r.engine, lab.engine);
        assert.ok(expectedOutcomes(lab).includes(last?.outcome ?? ''), `outcome ${last?.outcome}`);
        assert.equal(ph(last?.phase), ph(lab.last_phase));
        if (lab.failure_class && ['crashed', 'shutdown'].includes(lab.outcome) && lab.evidence_line)
          assert.equal(last?.failure?.class, lab.failure_class);
        if (lab.launches) assert.equal(r.launches.length, lab.launches);
      });
    }
  }
});
