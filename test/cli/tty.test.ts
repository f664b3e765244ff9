import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, SCENARIOS, tmpDir } from '../helpers.js';

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

/** `watch` on a real pseudo-terminal (util-linux `script`): the block is redrawn in place, not reprinted. */
describe('watch on a terminal', {
  skip: hasScript ? false : 'no util-linux script(1) to provide a terminal',
}, () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('redraws its block in place, hides then restores the cursor, and ends with the verdict', () => {
    const log = path.join(dir, 'loading.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), log);
    const cmd = `COLUMNS=120 ${process.execPath} ${BIN} watch ${log} --no-gpu --timeout 2s`;
    const r = spawnSync('script', ['-q', '-e', '-c', cmd, '/dev/null'], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    const out = r.stdout;
    assert.ok(out.includes('\x1b[?25l'), 'cursor hidden');
    assert.ok(out.trimEnd().endsWith('\x1b[?25h') || out.includes('\x1b[?25h'), 'cursor restored');
    const redraws = out.match(/\x1b\[\d+F\x1b\[0J/g) ?? [];
    assert.ok(redraws.length >= 5, `only ${redraws.length} redraws`);
    assert.match(out, /loading/);
    assert.match(out, /40\/83/);
    assert.equal(r.status, 6, out.slice(-500));
  });
});
