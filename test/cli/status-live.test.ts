import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, SCENARIOS, tmpDir } from '../helpers.js';
import { freePort } from '../llama.js';

describe('status now: the file, the process and the port', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a serving log whose process is gone is dead (exit 5); alive, it is serving (exit 0)', async () => {
    const log = path.join(dir, 'serving.log');
    fs.writeFileSync(
      log,
      fs
        .readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'), 'utf8')
        .split('\n')
        .slice(0, 382)
        .join('\n'),
    );
    const server = spawn('sleep', ['30']);
    const alive = runCli(['status', '--json', log, '--pid', String(server.pid)]);
    assert.equal(alive.code, 0, alive.stderr);
    assert.ok(['serving', 'idle'].includes(JSON.parse(alive.stdout).live.state));
    server.kill('SIGKILL');
    await new Promise((r) => server.once('exit', r));
    const dead = runCli(['status', '--json', log, '--pid', String(server.pid)]);
    assert.equal(dead.code, 5, dead.stderr);
    const j = JSON.parse(dead.stdout);
    assert.equal(j.outcome, 'serving', 'the log alone still says serving');
    assert.equal(j.live.state, 'dead');
  });

  it('--url names the port: refused is evidence, and a bad URL or pid is one line', async () => {
    const log = path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log');
    const r = runCli(['status', '--json', log, '--url', `http://127.0.0.1:${await freePort()}`]);
    assert.equal(r.code, 5);
    assert.ok(
      JSON.parse(r.stdout).live.evidence.some(
        (e: { source: string; text: string }) => e.source === 'http' && /refused/.test(e.text),
      ),
    );
    for (const args of [
      ['--url', 'nope'],
      ['--pid', '-3'],
    ]) {
      const bad = runCli(['status', log, ...args]);
      assert.equal(bad.code, 1);
      assert.equal(bad.stderr.trim().split('\n').length, 1);
    }
  });
});
