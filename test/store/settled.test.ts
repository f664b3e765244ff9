import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ingestLocal } from '../../src/app/ingest.js';
import type { LaunchReport } from '../../src/core/reading/report.js';
import { ROOT, SCENARIOS, SHARED, tmpDir } from '../helpers.js';

/** Every log of a corpus directory, one after another in one file (a relaunch appended with `>>` each time). */
function appended(dirs: string[]): Buffer {
  const parts: Buffer[] = [];
  for (const dir of dirs)
    for (const name of fs.readdirSync(dir).sort())
      if (name.endsWith('.log')) parts.push(fs.readFileSync(path.join(dir, name)), Buffer.from('\n'));
  return Buffer.concat(parts);
}

/** The launches reported as they close, then the rest: what `runs --json` writes without a ledger. */
async function streamed(file: string, parallelMinBytes?: number) {
  const settled: LaunchReport[] = [];
  const res = await ingestLocal(null, file, { onSettled: (r) => settled.push(r), parallelMinBytes });
  return { settled, report: res.report, all: [...settled, ...res.report.launches] };
}

describe('launches reported as they close (onSettled, no ledger)', () => {
  const dir = tmpDir();
  const cases: Array<[string, Buffer]> = [
    ['the scenarios, appended', appended([SCENARIOS])],
    [
      'the corpus, appended (every engine, fragments, weak detections)',
      appended(['sglang', 'vllm', 'extra', 'recent', 'full'].map((d) => path.join(SHARED, 'corpus', d))),
    ],
    ['the examples, appended', appended([path.join(ROOT, 'examples')])],
  ];
  for (const [name, bytes] of cases) {
    it(`${name}: the same launches as the whole report`, async () => {
      const file = path.join(dir, 'x.log');
      fs.writeFileSync(file, bytes);
      const whole = (await ingestLocal(null, file)).report;
      const { settled, report, all } = await streamed(file);
      assert.ok(whole.launches.length > 2, 'several launches');
      assert.ok(settled.length > 0, 'some launches are handed off before the end');
      assert.deepEqual(all, whole.launches);
      assert.deepEqual({ ...report, launches: [] }, { ...whole, launches: [] });
      // two threads (the worker reads the second half): the same
      assert.deepEqual((await streamed(file, 1)).all, whole.launches);
    });
  }

  it('a launch cut short by a relaunch: the same launches', async () => {
    // the head of a launch, then the same launch whole
    const file = path.join(dir, 'weak.log');
    const sglang = fs.readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'));
    fs.writeFileSync(file, Buffer.concat([sglang.subarray(0, 400), Buffer.from('\n'), sglang]));
    const whole = (await ingestLocal(null, file)).report;
    const { all } = await streamed(file);
    assert.deepEqual(all, whole.launches);
  });
});
