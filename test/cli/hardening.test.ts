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

describe('a log rewritten past its head', () => {
  it('is read afresh: the same report as a read without the ledger', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'server.log');
    const ledger = path.join(dir, 'ledger.db');
    const head: string[] = ['[2026-03-01 10:00:00] server_args=ServerArgs(model_path=\'m\', tp_size=1)'];
    for (let i = 0; head.join('\n').length < 70_000; i++)
      head.push(`[2026-03-01 10:00:01] Using default HuggingFace chat template with detected content format: string ${i}`);
    const first = `${head.join('\n')}\n[2026-03-01 10:00:05 TP0] RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n[2026-03-01 10:00:06] padding line one\n`;
    fs.writeFileSync(file, first);
    const a = JSON.parse(runCli(['status', '--json', '--ledger', ledger, file]).stdout);
    assert.equal(a.failure.class, 'oom');
    // Truncated in place and written again: the same head, then a launch that gets ready, and longer.
    fs.truncateSync(file, 0);
    fs.writeFileSync(
      file,
      `${head.join('\n')}\n[2026-03-01 10:00:05] The server is fired up and ready to roll!\n[2026-03-01 10:00:06] ${'x'.repeat(200)}\n`,
    );
    const b = JSON.parse(runCli(['runs', '--json', '--ledger', ledger, file]).stdout);
    const fresh = JSON.parse(runCli(['runs', '--json', '--no-ledger', file]).stdout);
    assert.equal(b.launches.at(-1).outcome, 'ready');
    assert.equal(b.launches.at(-1).failure, null);
    assert.deepEqual(
      b.launches.map((l: { outcome: string }) => l.outcome),
      fresh.launches.map((l: { outcome: string }) => l.outcome),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
