import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, runCli, SCENARIOS, tmpDir } from '../helpers.js';
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

  /** A log the server just wrote, saying it is serving. */
  const freshServing = () => {
    const log = path.join(dir, 'fresh-serving.log');
    const src = fs.readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'), 'utf8');
    fs.writeFileSync(log, `${src.split('\n').slice(0, 382).join('\n')}\n`);
    return log;
  };

  it('a readiness probe: the log says serving but the named port refuses: not ready, exit 5, the refusal said first', async () => {
    const log = freshServing();
    const r = runCli(['status', '--no-color', log, '--url', `http://127.0.0.1:${await freePort()}`]);
    assert.equal(r.code, 5, r.stdout);
    const lines = r.stdout.split('\n');
    assert.match(
      lines[1]!,
      /^ {2}now: dead — the log says serving but http:\/\/127\.0\.0\.1:\d+ refuses connections/,
    );
    const j = JSON.parse(
      runCli(['status', '--json', log, '--url', `http://127.0.0.1:${await freePort()}`]).stdout,
    );
    assert.equal(j.live.state, 'dead');
    assert.equal(j.outcome, 'serving', 'the log alone still says serving');
  });

  it('a readiness probe: a real server answering on the port: ready, exit 0, the verdict on line 2', async () => {
    const log = freshServing();
    const srv = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as { port: number }).port;
    try {
      // spawnSync would block the event loop serving the probe: run the CLI asynchronously.
      const r = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const c = spawn(process.execPath, [
          BIN,
          'status',
          '--no-color',
          log,
          '--url',
          `http://127.0.0.1:${port}`,
        ]);
        let out = '';
        c.stdout.on('data', (d) => (out += d));
        c.on('exit', (code) => resolve({ code, stdout: out }));
      });
      assert.equal(r.code, 0, r.stdout);
      assert.match(r.stdout.split('\n')[1]!, /^ {2}now: (serving|idle) — /);
      assert.match(r.stdout, /HTTP 200|serving/);
    } finally {
      srv.close();
    }
  });

  it('a stalled launch: the verdict comes first and the bar’s stale ETA is gone', () => {
    const log = path.join(dir, 'stuck.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), log);
    const t = new Date(Date.now() - 2700_000);
    fs.utimesSync(log, t, t);
    const r = runCli(['status', '--no-color', log]);
    assert.equal(r.code, 4);
    assert.match(r.stdout.split('\n')[1]!, /^ {2}now: stalled in loading_weights — no progress for 27\d\d s/);
    assert.ok(!/ETA/.test(r.stdout), r.stdout);
    assert.match(r.stdout, /40\/83 \(48%\)/);
    // The evidence quoted is the line at its number.
    const m = /evidence (\d+): (.*)/.exec(r.stdout)!;
    const lines = fs.readFileSync(log, 'utf8').split('\n');
    assert.ok(lines[Number(m[1]) - 1]!.startsWith(m[2]!.replace(/…$/, '')));
  });
});
