/**
 * A disk that fills up while `status` records its read (issue 25, item 11): the report is printed all the same,
 * with one line saying it was not recorded, and the exit code is the verdict's. The ledger lives on a tiny
 * tmpfs of its own, filled to a few hundred KB short of full (mounting needs root: skipped, saying so, without).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, SCENARIOS, tmpDir } from '../helpers.js';

const dir = tmpDir();
const mnt = path.join(dir, 'mnt');
let mounted = false;
let why = '';

before(() => {
  fs.mkdirSync(mnt);
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt], { encoding: 'utf8' });
  mounted = r.status === 0;
  why = mounted ? '' : `cannot mount a tmpfs here (${(r.stderr || r.error?.message || '').trim()})`;
});
after(() => {
  if (mounted) spawnSync('umount', [mnt]);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a ledger on a full disk', () => {
  it('status prints its report and says it is not recording', (t) => {
    if (!mounted) {
      t.skip(why);
      return;
    }
    const ledger = path.join(mnt, 'ledger.db');
    // A first read makes the ledger (and its schema) while there is room.
    const first = runCli([
      'status',
      '--ledger',
      ledger,
      path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'),
    ]);
    assert.equal(first.stderr, '');
    // 300 launches, each written as it closes: far more than the room left.
    const log = path.join(dir, 'many.log');
    const one = fs.readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'));
    fs.writeFileSync(log, Buffer.concat(Array.from({ length: 300 }, () => one)));
    const free = fs.statfsSync(mnt);
    const leave = 100 << 10;
    fs.writeFileSync(path.join(mnt, 'fill'), Buffer.alloc(Math.max(0, free.bavail * free.bsize - leave)));
    const r = runCli(['status', '--ledger', ledger, log]);
    assert.match(r.stdout, /many\.log · sglang · launch 300 of 300/);
    assert.match(r.stdout, /now: exited/);
    assert.equal(r.code, 5, r.stderr);
    assert.match(
      r.stderr,
      /^firedup: not recording: cannot write ledger .*ledger\.db: database or disk is full/,
    );
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    // With room again, the ledger is still usable.
    fs.rmSync(path.join(mnt, 'fill'));
    const again = runCli([
      'status',
      '--ledger',
      ledger,
      path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'),
    ]);
    assert.equal(again.code, 2, again.stderr);
    assert.equal(again.stderr, '');
  });
});
