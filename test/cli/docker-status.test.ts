/**
 * `status`/`runs` on containers (`docker://NAME`) against the real Docker daemon: the log through `docker logs`,
 * continued from the ledger's cursor; the container's own state (OOMKilled, exit codes, restarts, health) in the
 * verdict; one line for a container or a daemon that is not there.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readLog } from '../../src/app/read-log.js';
import { openLedger } from '../../src/store/open.js';
import { buildImage, docker, ensureDocker, inspect, RUN, removeAll, run } from '../docker.js';
import { assertOneLine, runCli, tmpDir } from '../helpers.js';
import { waitFor } from '../llama.js';

const names = new Set<string>();
let image: string | null = null;
let dir = '';
const name = (what: string) => {
  const n = `firedup-${what}-${RUN}`;
  names.add(n);
  return n;
};

describe('status on a container (docker://NAME)', { timeout: 240_000 }, () => {
  before(async () => {
    await ensureDocker();
    image = buildImage();
    dir = tmpDir();
  });
  after(() => {
    removeAll(names, image);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a second status reads only what the container wrote since the first, stdout and stderr in order', async () => {
    const c = run(name('grow'), [image!, 'engine', 'grow']);
    await waitFor(() => docker(['logs', c]).stderr.split('\n').length > 30, 20_000, 'the first 30 lines');
    const ledger = await openLedger(path.join(dir, 'grow.db'));
    try {
      const first = (await readLog(`docker://${c}`, {}, {}, ledger)) as any;
      assert.equal(first.resumedFrom, 0);
      assert.equal(first.report.lines, 30);
      assert.equal(first.container.state, 'running');
      assert.equal(first.report.launches.length, 1);
      // Peeled: no docker stamp left at the start of a line.
      assert.match(first.report.launches[0].startTime ?? '', /^2026-02-19/);
      docker(['exec', c, 'touch', '/tmp/more']);
      await waitFor(() => docker(['logs', c]).stderr.split('\n').length > 60, 20_000, 'the next 30 lines');
      const second = (await readLog(`docker://${c}`, {}, {}, ledger)) as any;
      assert.equal(second.resumedFrom, first.size);
      const expected = fs
        .readFileSync(path.join('examples', 'glm5-launch-to-shutdown.log'), 'utf8')
        .split('\n')
        .slice(30, 60)
        .join('\n');
      assert.equal(second.bytesRead, Buffer.byteLength(`${expected}\n`));
      assert.equal(second.report.lines, 60);
      const third = (await readLog(`docker://${c}`, {}, {}, ledger)) as any;
      assert.equal(third.bytesRead, 0);
    } finally {
      await ledger.close();
    }
  });

  it('an OOM-killed container is killed by the cgroup memory limit, named as such', async () => {
    const c = run(name('oom'), ['--memory', '32m', '--memory-swap', '32m', image!, 'engine', 'oom', '0']);
    await waitFor(() => inspect(c, '{{.State.Status}}') === 'exited', 30_000, 'the OOM kill');
    // dockerd records the kernel's OOM event apart from the exit: give it a moment, and say what happened if not
    await waitFor(() => inspect(c, '{{.State.OOMKilled}}') === 'true', 5_000, 'the OOM flag').catch(
      () => undefined,
    );
    assert.equal(
      inspect(c, '{{.State.OOMKilled}}'),
      'true',
      `not flagged OOMKilled: ${inspect(c, '{{.State.ExitCode}} {{.State.Error}}')}`,
    );
    const r = runCli(['status', '--no-ledger', '--json', `docker://${c}`]);
    assert.equal(r.code, 2, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.live.state, 'crashed');
    assert.equal(s.live.failure.class, 'killed');
    assert.match(s.live.why, /cgroup memory limit \(--memory 32 MiB\)/);
    assert.match(s.live.why, /OOMKilled, exit code 137/);
    assert.ok(
      s.live.evidence.some((e: any) => /exited with exit code 137 \(SIGKILL\), OOMKilled/.test(e.text)),
    );
    const text = runCli(['status', '--no-ledger', `docker://${c}`]);
    assert.match(text.stdout, /now: crashed — killed: the server hit the container's cgroup memory limit/);
  });

  it('a crash restarted by --restart on-failure is a new launch in the same log, the restarts named', async () => {
    const c = run(name('crash'), ['--restart', 'on-failure:2', image!, 'engine', 'crash']);
    await waitFor(
      () => inspect(c, '{{.State.Status}} {{.RestartCount}}') === 'exited 2',
      40_000,
      'two restarts and the last exit',
    );
    const r = runCli(['runs', '--no-ledger', '--json', `docker://${c}`]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).launches.length, 3);
    const s = JSON.parse(runCli(['status', '--no-ledger', '--json', `docker://${c}`]).stdout);
    assert.equal(s.launchCount, 3);
    assert.equal(s.live.state, 'dead');
    assert.match(s.live.why, /exit code 1\b/);
    assert.ok(
      s.live.evidence.some((e: any) => /restarted 2 times \(restart policy on-failure:2\)/.test(e.text)),
    );
  });

  it('a failing HEALTHCHECK while the log says serving is said plainly', async () => {
    const c = run(name('sick'), [
      '--health-cmd',
      'echo model endpoint timed out; exit 1',
      '--health-interval',
      '1s',
      '--health-retries',
      '1',
      image!,
      'engine',
      'serve',
    ]);
    await waitFor(() => inspect(c, '{{.State.Health.Status}}') === 'unhealthy', 30_000, 'unhealthy');
    const s = JSON.parse(runCli(['status', '--no-ledger', '--json', `docker://${c}`]).stdout);
    assert.match(
      s.live.why,
      /the log says (serving|idle), but docker's health check calls the container unhealthy/,
    );
    assert.match(s.live.why, /model endpoint timed out/);
  });

  it('docker stop (graceful) is exited; docker kill is dead, killed', async () => {
    const a = run(name('stop'), [image!, 'engine', 'serve']);
    const b = run(name('kill'), [image!, 'engine', 'serve']);
    await waitFor(() => docker(['logs', b]).stderr.split('\n').length > 150, 20_000, 'serving');
    await waitFor(() => docker(['logs', a]).stderr.split('\n').length > 150, 20_000, 'serving');
    docker(['stop', '-t', '10', a]);
    docker(['kill', b]);
    const stopped = JSON.parse(runCli(['status', '--no-ledger', '--json', `docker://${a}`]).stdout);
    assert.equal(stopped.outcome, 'shutdown');
    assert.equal(stopped.live.state, 'exited');
    const killed = runCli(['status', '--no-ledger', '--json', `docker://${b}`]);
    assert.equal(killed.code, 5);
    const k = JSON.parse(killed.stdout);
    assert.equal(k.live.state, 'dead');
    assert.match(k.live.why, /killed \(exit code 137 \(SIGKILL\), not by the OOM killer\)/);
  });

  it('a container removed and recreated under the same name is a new log', async () => {
    const n = name('again');
    run(n, [image!, 'engine', 'crash']);
    await waitFor(() => inspect(n, '{{.State.Status}}') === 'exited', 20_000, 'the first exit');
    const ledger = path.join(dir, 'again.db');
    const one = JSON.parse(runCli(['runs', '--ledger', ledger, '--json', `docker://${n}`]).stdout);
    assert.equal(one.launches.length, 1);
    docker(['rm', '-f', n]);
    run(n, [image!, 'engine', 'crash']);
    await waitFor(() => inspect(n, '{{.State.Status}}') === 'exited', 20_000, 'the second exit');
    const two = JSON.parse(runCli(['runs', '--ledger', ledger, '--json', `docker://${n}`]).stdout);
    // Read afresh from the new container's first line: one launch, not the old one continued.
    assert.equal(two.launches.length, 1);
    assert.equal(two.launches[0].startLine, 1);
  });

  it('a container that does not exist, and a daemon that is not running: one line each', () => {
    const r = runCli(['status', '--no-ledger', `docker://firedup-nothing-${RUN}`]);
    assert.equal(r.code, 1);
    assertOneLine(r.stderr);
    assert.match(
      r.stderr,
      /docker:\/\/firedup-nothing-.*: no such container on this machine \(check the name with `docker ps -a`\)/,
    );
    const env = { ...process.env, DOCKER_HOST: `unix://${path.join(dir, 'no-daemon.sock')}` };
    const d = spawnSync(
      process.execPath,
      [path.join('dist', 'src', 'cli', 'bin.js'), 'status', '--no-ledger', 'docker://x'],
      {
        env,
        encoding: 'utf8',
      },
    );
    assert.equal(d.status, 1);
    assertOneLine(d.stderr);
    assert.match(
      d.stderr,
      /docker:\/\/x: the Docker daemon is not running or not reachable \(unix:\/\/.*no-daemon\.sock\)/,
    );
  });

  it('a name with shell metacharacters is an argument, never run by a shell', () => {
    // No `/` in the name (it would name a host): the file would land in the working directory.
    const marker = `firedup-pwned-${RUN}`;
    const r = runCli(['status', '--no-ledger', `docker://x;touch ${marker}`]);
    assert.equal(r.code, 1);
    assertOneLine(r.stderr);
    assert.match(r.stderr, /no such container/);
    const r2 = runCli(['status', '--no-ledger', `docker://$(touch ${marker})`]);
    assert.equal(r2.code, 1);
    assert.ok(!fs.existsSync(marker));
  });
});
