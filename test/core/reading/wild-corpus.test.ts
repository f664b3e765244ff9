/**
 * The wild corpus (test/fixtures/wild/): real fragments users pasted in public threads, collected here, and the
 * released sets (test/fixtures/corpus/released/). Its sources are listed in one file (later checks on unseen logs
 * take theirs elsewhere), none is one of ../shared/corpus's, and firedup's reading of them may not fall below the
 * figures it reached (they are measures, not goals: the goal, 95 % on every field, is npm run corpus's).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeFile } from '../../../src/sources/file.js';
import { SHARED } from '../../helpers.js';
import { readLabels, scoreFields } from '../../labels.js';

const WILD = path.join(SHARED, 'wild');
const folders = fs
  .readdirSync(WILD, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

/** Cases fully right, at least: the last measured figures (raise them as the reading improves; issue 22). */
const FLOOR = {
  wild: 0.97,
  released: 0.95,
  unseen: 0.98,
  unseen3: 0.9,
  unseen3b: 0.8,
  unseen3c: 0.7,
  unseen3d: 0.9,
  unseen3e: 0.8,
  unseen3f: 0.7,
  unseen3g: 0.75,
  unseen3h: 0.55,
};

function score(dirs: string[]): { cases: number; right: number; misses: string[] } {
  let cases = 0;
  let right = 0;
  const misses: string[] = [];
  for (const dir of dirs)
    for (const { label, file } of readLabels(dir)) {
      const r = analyzeFile(file, { year: 2026 }).report;
      const wrong = scoreFields(label, r).filter((f) => !f.good);
      cases++;
      if (wrong.length === 0) right++;
      else
        misses.push(
          `${label.id}: ${wrong.map((f) => `${f.field} got ${JSON.stringify(f.got)} want ${JSON.stringify(f.want)}`).join('; ')}`,
        );
    }
  return { cases, right, misses };
}

describe('wild corpus of real pastes', () => {
  it('has every engine, 300+ fragments, and one source list naming every thread', () => {
    const all = fs.readFileSync(path.join(WILD, 'SOURCES.txt'), 'utf8').split('\n').filter(Boolean);
    const listed = new Set(all);
    let n = 0;
    for (const f of folders) {
      const labels = readLabels(path.join(WILD, f));
      n += labels.length;
      for (const { label, file } of labels) {
        assert.ok(fs.existsSync(file), `${label.id}: ${file} missing`);
        const src = (label as unknown as { source: string }).source;
        assert.ok(listed.has(src), `${label.id}: ${src} not in SOURCES.txt`);
      }
    }
    assert.ok(n >= 300, `${n} fragments`);
    for (const e of ['sglang', 'vllm', 'trtllm', 'tgi', 'llamacpp', 'other'])
      assert.ok(folders.includes(e), e);
    const shared = new Set<string>();
    for (const d of fs.readdirSync(path.join(SHARED, 'corpus'), { recursive: true }) as string[])
      if (d.endsWith('labels.jsonl'))
        for (const row of fs
          .readFileSync(path.join(SHARED, 'corpus', d), 'utf8')
          .split('\n')
          .filter(Boolean))
          shared.add(JSON.parse(row).source);
    for (const s of all) assert.ok(!shared.has(s), `${s} is already in the shared corpus`);
  });

  it(`is read fully right in at least ${FLOOR.wild * 100} % of cases`, () => {
    const r = score(folders.map((f) => path.join(WILD, f)));
    assert.ok(r.right / r.cases >= FLOOR.wild, `${r.right}/${r.cases}\n${r.misses.join('\n')}`);
  });

  it(`released sets: at least ${FLOOR.released * 100} % of cases fully right`, () => {
    const rel = path.join(SHARED, 'corpus', 'released');
    const r = score(fs.readdirSync(rel).map((d) => path.join(rel, d)));
    assert.ok(r.right / r.cases >= FLOOR.released, `${r.right}/${r.cases}\n${r.misses.join('\n')}`);
  });

  // The unseen sets, each blind at its first read (its README says the figures) and development data since.
  const UNSEEN = [
    // 68/101 at its first read
    { dir: 'unseen-2026-12-02', name: 'the unseen set of 2026-12-02', cases: 100, floor: FLOOR.unseen },
    // 42/70 at its first read; 63/70 after that round's rules
    { dir: 'unseen-2026-12-03', name: 'the unseen set of 2026-12-03', cases: 70, floor: FLOOR.unseen3 },
    // 34/63 at its first read; 51/63 after the rules its misses showed (issue 22)
    {
      dir: 'unseen-2026-12-03b',
      name: 'the second unseen set of 2026-12-03',
      cases: 63,
      floor: FLOOR.unseen3b,
    },
    // 29/65 at its first read; 48/65 after the kinds its misses showed
    {
      dir: 'unseen-2026-12-03c',
      name: 'the third unseen set of 2026-12-03',
      cases: 65,
      floor: FLOOR.unseen3c,
    },
    // 41/68 at its first read; 65/68 after the kinds its misses showed
    {
      dir: 'unseen-2026-12-03d',
      name: 'the fourth unseen set of 2026-12-03',
      cases: 68,
      floor: FLOOR.unseen3d,
    },
    // 33/68 at its first read; 57/68 after the kinds its misses showed
    {
      dir: 'unseen-2026-12-03e',
      name: 'the fifth unseen set of 2026-12-03',
      cases: 68,
      floor: FLOOR.unseen3e,
    },
    // 34/60 at its first read; 43/60 after the kinds its misses showed
    {
      dir: 'unseen-2026-12-03f',
      name: 'the sixth unseen set of 2026-12-03',
      cases: 60,
      floor: FLOOR.unseen3f,
    },
    // 42/63 at its first read; 50/63 after the kinds its misses showed
    {
      dir: 'unseen-2026-12-03g',
      name: 'the seventh unseen set of 2026-12-03',
      cases: 63,
      floor: FLOOR.unseen3g,
    },
    // 37/62 at its first read
    {
      dir: 'unseen-2026-12-03h',
      name: 'the eighth unseen set of 2026-12-03',
      cases: 62,
      floor: FLOOR.unseen3h,
    },
  ];
  for (const set of UNSEEN)
    it(`${set.name}: at least ${set.floor * 100} % of cases fully right`, () => {
      const dir = path.join(SHARED, set.dir);
      const sets = fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => path.join(dir, d.name));
      const r = score(sets);
      assert.ok(r.cases >= set.cases, `${r.cases} cases`);
      assert.ok(r.right / r.cases >= set.floor, `${r.right}/${r.cases}\n${r.misses.join('\n')}`);
    });
});
