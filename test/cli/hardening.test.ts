/** Damaged and hostile input through the real CLI (issue 15): one line naming the thing, never a trace. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, tmpDir } from '../helpers.js';

describe('hardening', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const oneLine = (stderr: string) => {
    assert.equal(stderr.trim().split('\n').length, 1, `not one line: ${stderr}`);
    assert.ok(!/\n\s+at /.test(stderr), `stack trace: ${stderr}`);
    assert.match(stderr, /^firedup: /);
  };

  it('a firedup.toml escape past Unicode is one file:line error', () => {
    const f = path.join(dir, 'bad.toml');
    fs.writeFileSync(f, '[[target]]\nname = "a"\nlog = "x\\UFFFFFFFF.log"\n');
    const r = runCli(['serve', '--config', f, '--port', '0']);
    assert.ok(r.code === 1 || r.code === 2, `exit ${r.code}`);
    oneLine(r.stderr);
    assert.match(r.stderr, /bad\.toml:3: .*not a Unicode scalar value/);
  });
});
