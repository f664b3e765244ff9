/**
 * Made-up synthetic fragments (test/fixtures/synthetic/README.md): they test rules, they do not measure accuracy. Read by the corpus scorer's rules
 * (../shared/tools/score.py): each case fully right, except those labelled `open` (firedup still disagrees with a
 * label believed right), which run as todo.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeFile } from '../../../src/sources/file.js';
import { SHARED } from '../../helpers.js';
import { readLabels, scoreFields } from '../../labels.js';

describe('synthetic fragments (made up here: they test rules, they measure nothing)', () => {
  for (const engine of ['sglang', 'vllm', 'tgi', 'llamacpp', 'trtllm', 'mixed', 'other']) {
    for (const { label, file } of readLabels(path.join(SHARED, 'synthetic', engine))) {
      it(label.id, { todo: label.open === true }, () => {
        const r = analyzeFile(file, { year: 2026 }).report;
        const wrong = scoreFields(label, r).filter((f) => !f.good);
        assert.deepEqual(
          wrong.map((f) => `${f.field} got ${JSON.stringify(f.got)} want ${JSON.stringify(f.want)}`),
          [],
        );
      });
    }
  }
});
