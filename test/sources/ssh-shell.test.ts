import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { shCommand } from '../../src/sources/ssh/command.js';
import { RemoteShell } from '../../src/sources/ssh/shell.js';

// The framing is the same whatever carries the shell: a local `sh` stands in for `ssh host sh`.
const local =
  (banner = '') =>
  () =>
    spawn('sh', ['-c', `${banner}exec sh`], { stdio: ['pipe', 'pipe', 'pipe'] });

describe('RemoteShell: many short commands through one shell', () => {
  it('keeps each reply whole: stdout bytes exact (no newline added), stderr apart, exit status', async () => {
    const sh = new RemoteShell(local());
    try {
      const a = await sh.run(shCommand(['printf', 'no newline']), 5000);
      assert.deepEqual(a, { code: 0, stdout: Buffer.from('no newline'), stderr: '' });
      const b = await sh.run(shCommand(['sh', '-c', 'echo out; echo err >&2; exit 3']), 5000);
      assert.equal(b.code, 3);
      assert.equal(b.stdout.toString(), 'out\n');
      assert.equal(b.stderr, 'err\n');
      const c = await sh.run(shCommand(['definitely-not-a-command-firedup']), 5000);
      assert.equal(c.code, 127);
      // Bytes that are not UTF-8 and text that looks like a marker come back as they are.
      const d = await sh.run(shCommand(['printf', '\\377\\n@@firedup-00 1 0\\n']), 5000);
      assert.deepEqual([...d.stdout], [0xff, 0x0a, ...Buffer.from('@@firedup-00 1 0\n')]);
    } finally {
      sh.close();
    }
  });

  it('a command reading stdin cannot swallow the commands after it; concurrent calls queue in order', async () => {
    const sh = new RemoteShell(local());
    try {
      const replies = await Promise.all([
        sh.run(shCommand(['cat']), 5000),
        sh.run(shCommand(['echo', 'second']), 5000),
        sh.run(shCommand(['echo', 'third']), 5000),
      ]);
      assert.deepEqual(
        replies.map((r) => [r.code, r.stdout.toString()]),
        [
          [0, ''],
          [0, 'second\n'],
          [0, 'third\n'],
        ],
      );
    } finally {
      sh.close();
    }
  });

  it('ignores what the login prints before the first reply', async () => {
    const sh = new RemoteShell(local('echo motd; echo warning from bashrc >&2; '));
    try {
      const r = await sh.run(shCommand(['echo', 'hi']), 5000);
      assert.deepEqual(r, { code: 0, stdout: Buffer.from('hi\n'), stderr: '' });
    } finally {
      sh.close();
    }
  });

  it('a command past its time resolves with code null, and the next one runs in a fresh shell', async () => {
    const sh = new RemoteShell(local());
    try {
      const slow = await sh.run(shCommand(['sleep', '30']), 300);
      assert.equal(slow.code, null);
      const next = await sh.run(shCommand(['echo', 'after']), 5000);
      assert.equal(next.stdout.toString(), 'after\n');
    } finally {
      sh.close();
    }
  });

  it('a shell that dies mid-command answers with its exit status and what it printed', async () => {
    let starts = 0;
    const sh = new RemoteShell(() => {
      starts++;
      return spawn('sh', ['-c', 'echo "Connection closed by remote host" >&2; exit 255'], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    });
    const r = await sh.run(shCommand(['echo', 'x']), 5000);
    assert.equal(r.code, 255);
    assert.match(r.stderr, /Connection closed/);
    // The next command tries again (the connection may be back).
    await sh.run(shCommand(['echo', 'x']), 5000);
    assert.equal(starts, 2);
    sh.close();
  });
});
