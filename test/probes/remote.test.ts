import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RemoteHttp } from '../../src/probes/remote/forward.js';
import { probeRemoteGpu, remoteHasNvidiaSmi } from '../../src/probes/remote/remote-gpu.js';
import { findRemoteServerPid, probeRemoteProcess } from '../../src/probes/remote/remote-process.js';
import { SshSession } from '../../src/sources/ssh/session.js';
import { ROOT, SCENARIOS, spawnCli, tmpDir } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';

/**
 * Remote probes against a real sshd on this machine: the "remote" host is 127.0.0.1, so a process the test
 * starts is a process on the remote host, and a server bound on 127.0.0.1 is reachable only through the forward
 * as far as firedup's code is concerned (it never fetches the --url directly).
 */
const FAKE_BIN = path.join(ROOT, 'test', 'fixtures', 'fake-bin');

let sshd: TestSshd;
let session: SshSession;
let dir: string;
let server: http.Server;
let httpPort: number;
before(async () => {
  sshd = await startSshd();
  dir = tmpDir();
  session = new SshSession({ user: null, host: 'firedup-test', port: null }, { config: sshd.config });
  server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"status":"ok"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  httpPort = (server.address() as AddressInfo).port;
});
after(async () => {
  server.close();
  await session.close();
  sshd.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('remote probes over ssh', () => {
  it('process: alive with its CPU time, then dead after kill -9; found by its listening port', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    const pid = child.pid!;
    const alive = await probeRemoteProcess(session, pid, 10_000);
    assert.equal(alive.alive, true);
    assert.match(alive.cmdline ?? '', /^sleep 30$/);
    assert.equal(typeof alive.cpuSeconds, 'number');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const dead = await probeRemoteProcess(session, pid, 10_000);
    assert.equal(dead.alive, false);
    // This test process holds the HTTP server's listening socket.
    assert.equal((await findRemoteServerPid(session, { port: httpPort }, 10_000)).pid, process.pid);
  });

  it('process: found by its command line when no port tells (one grep over every /proc/PID/cmdline)', async () => {
    // A shell whose command line reads like a server launch (its positional parameters); it only sleeps.
    const child = spawn(
      'sh',
      ['-c', 'sleep 30; :', 'python3', '-m', 'sglang.launch_server', '--model-path', 'org/M', '--port', '1'],
      { stdio: 'ignore' },
    );
    try {
      await new Promise((r) => setTimeout(r, 300));
      // Tied by the launch's own model and port on its command line, not by looking like SGLang.
      const found = await findRemoteServerPid(session, { engine: 'sglang', model: 'org/M', port: 1 }, 10_000);
      assert.equal(found.pid, child.pid);
      const other = await findRemoteServerPid(session, { engine: 'sglang', model: 'org/N', port: 1 }, 10_000);
      assert.equal(other.pid, null);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('http: probed through a forward of the master, reported under the remote URL', async () => {
    const url = `http://127.0.0.1:${httpPort}`;
    const o = await new RemoteHttp(session).probe(url, null);
    assert.equal(o.url, url);
    assert.equal(o.health.state, 'http');
    assert.equal(o.health.status, 200);
    // Port 1: nothing listens there; the forward hangs, the remote TCP table says refused.
    const closed = await new RemoteHttp(session).probe('http://127.0.0.1:1', null);
    assert.equal(closed.health.state, 'refused');
  });

  it('gpu: remote nvidia-smi (the fake, put first on the remote PATH by env)', async () => {
    const prefix = ['env', `PATH=${FAKE_BIN}:/usr/bin:/bin`];
    assert.equal(await remoteHasNvidiaSmi(session, prefix), true);
    assert.equal(await remoteHasNvidiaSmi(session, ['env', 'PATH=/nonexistent']), false);
    const o = await probeRemoteGpu(session, prefix);
    assert.equal(o.error, null);
    assert.ok(o.gpus.length > 0);
  });

  it('watch --json --pid over ssh on a serving log: dead (exit 5) after the remote process is killed', async () => {
    const lines = fs
      .readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'), 'utf8')
      .split('\n');
    const ready = lines.findIndex((l) => l.includes('fired up and ready to roll'));
    const log = path.join(dir, 'serving.log');
    fs.writeFileSync(log, `${lines.slice(0, ready + 1).join('\n')}\n`);
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    const url = `http://127.0.0.1:${httpPort}`;
    const w = spawnCli(
      [
        'watch',
        '--json',
        '--ssh-config',
        sshd.config,
        `firedup-test:${log}`,
        '--pid',
        String(child.pid),
        '--url',
        url,
        '--timeout',
        '60s',
      ],
      {},
      70_000,
    );
    // The kill comes once firedup has seen the server serving (logins are slow on a busy machine).
    let seen = '';
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 30_000);
      w.child.stdout!.on('data', (b: Buffer) => {
        seen += b.toString();
        if (/"state":"(?:serving|ready)"[^\n]*HTTP 200/.test(seen)) {
          clearTimeout(t);
          resolve();
        }
      });
    });
    child.kill('SIGKILL');
    const r = await w.done;
    assert.equal(r.code, 5, r.stderr);
    const verdicts = r.events.filter((e) => e.type === 'verdict');
    assert.equal(verdicts.at(-1)!.state, 'dead');
    // Before the kill the remote probes saw it serving, with HTTP 200 through the forward.
    assert.ok(
      verdicts.some((v) => v.state === 'serving' || v.state === 'ready'),
      JSON.stringify(verdicts),
    );
    const evidence = verdicts.flatMap((v) => v.evidence as Array<{ source: string; text: string }>);
    assert.ok(
      evidence.some((e) => e.source === 'http' && e.text.startsWith(`${url}: HTTP 200`)),
      JSON.stringify(evidence),
    );
    assert.ok(
      evidence.some((e) => e.source === 'process'),
      JSON.stringify(evidence),
    );
  });
});
