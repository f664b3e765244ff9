/**
 * Sweeps on hostile input (issue 25, items 3 and 8): a grid is counted before it is made and refused past
 * 10,000 points unless --max-points allows it; secrets in the command, the variants and the grid never reach
 * the output of --dry-run (text or JSON).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { countPoints, expandPoints, iteratePoints } from '../../src/core/campaign/sweep/plan.js';
import { BIN, tmpDir } from '../helpers.js';

const sweep = (args: string[]) =>
  spawnSync(process.execPath, [BIN, 'sweep', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 60_000,
  });

describe('sweep: bounded grids', () => {
  it('a 6 × 10 grid (a million points) is refused at once, in one line, with what to do', () => {
    const dir = tmpDir();
    const f = path.join(dir, 'big.toml');
    const axes = Array.from(
      { length: 6 },
      (_, i) => `a${i} = [${Array.from({ length: 10 }, (_, j) => j).join(', ')}]`,
    );
    fs.writeFileSync(f, ['name = "big"', 'command = "sh -c true"', '[grid]', ...axes, ''].join('\n'));
    const t0 = Date.now();
    const r = sweep(['--dry-run', f]);
    assert.equal(r.status, 1, r.stderr);
    assert.ok(Date.now() - t0 < 20_000);
    assert.match(
      r.stderr.trim(),
      /big\.toml: the grid makes 1,000,000 points \(10 × 10 × 10 × 10 × 10 × 10\), over the 10,000 allowed: narrow it, or allow it with --max-points 1000000/,
    );
    assert.equal(r.stderr.trim().split('\n').length, 1);
    const bad = sweep(['--dry-run', '--max-points', 'many', f]);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--max-points many: a whole number/);
  });

  it('points are made one at a time, in plan order, as many as counted', () => {
    const spec = {
      command: ['srv'],
      grid: [
        { key: 'a', flag: '--a', values: [1, 2, 3] },
        { key: 'b', flag: '--b', values: ['x', 'y'] },
      ],
      variants: [
        { name: 'v1', args: ['--v', '1'] },
        { name: 'v2', args: [] },
      ],
    };
    assert.equal(countPoints(spec), 12);
    const it = iteratePoints(spec);
    const first = it.next().value!;
    assert.deepEqual(first.argv, ['srv', '--a', '1', '--b', 'x', '--v', '1']);
    assert.equal(first.label, 'a=1 b=x v1');
    const all = expandPoints(spec);
    assert.equal(all.length, 12);
    assert.equal(all.at(-1)!.label, 'a=3 b=y v2');
    assert.throws(() => expandPoints(spec, 10), /12 points/);
  });
});

describe('sweep: secrets', () => {
  it('--dry-run shows no secret of the command, a variant or a grid axis, in text or JSON', () => {
    const dir = tmpDir();
    const f = path.join(dir, 's.toml');
    fs.writeFileSync(
      f,
      [
        'name = "keys"',
        'command = "sh -c true --hf-token hf_CommandSecret123 --password PwSecret99"',
        '[grid]',
        'api_key = ["GridSecretA1", "GridSecretB2"]',
        'parallel = [1, 2]',
        '[[variant]]',
        'name = "admin"',
        'args = ["--admin-api-key", "VariantSecret77"]',
        '',
      ].join('\n'),
    );
    for (const json of [false, true]) {
      const r = sweep(['--dry-run', ...(json ? ['--json'] : []), f]);
      assert.equal(r.status, 0, r.stderr);
      for (const secret of [
        'hf_CommandSecret123',
        'PwSecret99',
        'GridSecretA1',
        'GridSecretB2',
        'VariantSecret77',
      ])
        assert.ok(!r.stdout.includes(secret), `${secret} printed (${json ? 'json' : 'text'})`);
      assert.match(r.stdout, /api_key=<redacted>/);
    }
  });
});
