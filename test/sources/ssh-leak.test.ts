/**
 * No ssh process outlives firedup (issue 25, item 15): `watch --json host:log | head -3` exits, and neither the
 * remote `tail -f` nor the local master connection stays behind. The remote tail writes nothing while the log
 * is quiet, so nothing but its session's end can tell it to go.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, SCENARIOS, tmpDir } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';

let sshd: TestSshd;
let dir: string;
before(async () => {
  sshd = await startSshd();
  dir = tmpDir();
});
after(() => {
  sshd.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pids of processes whose command line matches `re` (pgrep -f), never this test's own. */
function pids(re: string): number[] {
  const r = spawnSync('pgrep', ['-f', re], { encoding: 'utf8' });
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .filter((p) => p !== process.pid);
}

/** Waits up to `ms` for no process to match `re`; returns those still there. */
async function gone(re: string, ms: number): Promise<number[]> {
  const end = Date.now() + ms;
  for (;;) {
    const left = pids(re);
    if (left.length === 0 || Date.now() > end) return left;
    await sleep(100);
  }
}

function shell(
  cmd: string,
  timeoutMs: number,
): Promise<{ code: number | null; out: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', cmd], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, out, seconds: (Date.now() - started) / 1000 });
    });
  });
}

describe('no ssh process outlives firedup', () => {
  for (const [name, tail] of [
    ['watch --json host:log | head -3', '| head -3'],
    ['watch --timeout host:log', ''],
  ] as const) {
    it(`${name}: no remote tail, no master left`, async () => {
      const log = path.join(dir, `quiet-${tail ? 'head' : 'timeout'}.log`);
      fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), log);
      const cmd = `"${process.execPath}" "${BIN}" watch --json --no-ledger --no-gpu --timeout 8s --ssh-config "${sshd.config}" "firedup-test:${log}" ${tail}`;
      const r = await shell(cmd, 30_000);
      assert.equal(r.code, tail ? 0 : 6, r.out);
      if (tail) assert.equal(r.out.trim().split('\n').length, 3, r.out);
      assert.ok(r.seconds < 15, `took ${r.seconds} s`);
      const tails = await gone(`tail -c \\+[0-9]+ -f -- ${log}`, 3000);
      assert.deepEqual(tails, [], `remote tail of ${log} left running`);
      // The clients carry the client config's path on their command line; the master, its socket's name
      // (ssh's %C: the SHA-1 of local host name, host, port and user), which no other sshd's port gives.
      const ssh = await gone(`^ssh .*${sshd.config}`, 3000);
      assert.deepEqual(ssh, [], 'ssh clients left running');
      const c = createHash('sha1').update(`${os.hostname()}127.0.0.1${sshd.port}root`).digest('hex');
      const masters = await gone(`^ssh: .*/${c} \\[mux\\]`, 3000);
      assert.deepEqual(masters, [], 'ssh master left running');
    });
  }
});
