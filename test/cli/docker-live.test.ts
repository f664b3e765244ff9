/**
 * `watch` and `wait` on containers against the real Docker daemon: the real llama-server in a container followed live
 * to ready and serving through its published port; an OOM kill called `killed` with the cgroup named within 2 s of
 * the container's exit; a crash restarted by docker followed into the next launch.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildImage, docker, ensureDocker, inspect, RUN, removeAll, run } from '../docker.js';
import { runCli, spawnCli } from '../helpers.js';
import { waitFor } from '../llama.js';

const names = new Set<string>();
let image: string | null = null;
const name = (what: string) => {
  const n = `firedup-live-${what}-${RUN}`;
  names.add(n);
  return n;
};

/** watch/wait with `--json`, each event stamped with when it reached us. */
function live(args: string[], timeoutMs = 60_000) {
  const stamps: Array<{ at: number; e: Record<string, any> }> = [];
  const r = spawnCli([...args, '--json', '--no-ledger', '--no-gpu'], {}, timeoutMs);
  let buf = '';
  r.child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl = buf.indexOf('\n');
    while (nl >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.startsWith('{')) stamps.push({ at: Date.now(), e: JSON.parse(line) });
      nl = buf.indexOf('\n');
    }
  });
  return { ...r, stamps };
}

describe('watch and wait on a container', { timeout: 180_000 }, () => {
  before(async () => {
    await ensureDocker();
    image = buildImage();
  });
  after(() => removeAll(names, image));

  it('the real llama-server in a container: ready through its published port, then serving, followed live', async () => {
    const c = run(name('llama'), [
      '-p',
      '127.0.0.1::8080',
      image!,
      'llama-server',
      '-m',
      '/models/tiny.gguf',
      '--host',
      '0.0.0.0',
      '--port',
      '8080',
      '-c',
      '256',
      '-np',
      '1',
      '-t',
      '1',
    ]);
    const hostPort = Number(docker(['port', c, '8080/tcp']).stdout.trim().split(':').at(-1));
    assert.ok(hostPort > 0);
    const w = live(['wait', `docker://${c}`, '--timeout', '60s']);
    const waited = await w.done;
    assert.equal(waited.code, 0, waited.stderr);
    const ready = waited.events.filter((e) => e.type === 'verdict').at(-1)!;
    assert.ok(['ready', 'serving'].includes(ready.state), JSON.stringify(ready));
    assert.equal(ready.engine, 'llamacpp');
    assert.ok(ready.evidence.some((e: any) => /published 8080\/tcp → 127\.0\.0\.1:\d+/.test(e.text)));
    const watching = live(['watch', `docker://${c}`], 60_000);
    await waitFor(
      () => watching.stamps.some((s) => s.e.type === 'verdict' && s.e.state === 'ready'),
      20_000,
      'ready',
    );
    const res = await fetch(`http://127.0.0.1:${hostPort}/completion`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hello world', n_predict: 4 }),
      signal: AbortSignal.timeout(20_000),
    });
    assert.equal(res.status, 200);
    await waitFor(
      () => watching.stamps.some((s) => s.e.type === 'verdict' && ['serving', 'idle'].includes(s.e.state)),
      15_000,
      'serving',
    );
    // The HTTP probe goes to the host side of the published port (the log names the container's 8080).
    const st = runCli(['status', '--no-ledger', '--json', `docker://${c}`]);
    assert.equal(st.code, 0, st.stderr);
    const evidence = JSON.parse(st.stdout).live.evidence;
    assert.ok(
      evidence.some((e: any) => e.text.startsWith(`http://127.0.0.1:${hostPort}: HTTP 200`)),
      JSON.stringify(evidence),
    );
    docker(['stop', c]);
    const end = await watching.done;
    assert.equal(end.events.at(-1)!.type, 'exit');
    assert.equal(end.events.at(-1)!.state, 'exited', JSON.stringify(end.events.at(-1)));
  });

  it('an OOM-killed container is `killed`, the cgroup memory limit named, within 2 s of its exit', async () => {
    const c = run(name('oom'), ['--memory', '32m', '--memory-swap', '32m', image!, 'engine', 'oom', '4']);
    const w = live(['watch', `docker://${c}`]);
    const end = await w.done;
    assert.equal(end.code, 2, end.stderr);
    const finished = Date.parse(inspect(c, '{{.State.FinishedAt}}'));
    assert.equal(inspect(c, '{{.State.OOMKilled}}'), 'true');
    const killed = w.stamps.find((s) => s.e.type === 'verdict' && s.e.state === 'crashed')!;
    assert.ok(killed, JSON.stringify(end.events));
    assert.equal(killed.e.failure.class, 'killed');
    assert.match(killed.e.why, /cgroup memory limit \(--memory 32 MiB\)/);
    assert.ok(killed.at - finished <= 2000, `said ${killed.at - finished} ms after the exit`);
  });

  it('a crash restarted by --restart on-failure: each restart is a new launch, named', async () => {
    const c = run(name('restart'), ['--restart', 'on-failure:1', image!, 'engine', 'crash', '3']);
    const w = live(['watch', `docker://${c}`], 60_000);
    await waitFor(
      () => inspect(c, '{{.State.Status}} {{.RestartCount}}') === 'exited 1',
      40_000,
      'the restart and exit',
    );
    const end = await w.done;
    assert.equal(end.code, 5, end.stderr);
    const launches = end.events.filter((e) => e.type === 'launch');
    assert.equal(launches.length, 2, JSON.stringify(launches));
    const restarted = end.events.find(
      (e) => e.type === 'verdict' && /restart 1 \(policy on-failure:1\)/.test(e.why),
    );
    assert.ok(restarted, JSON.stringify(end.events.filter((e) => e.type === 'verdict')));
    const last = end.events.at(-1)!;
    assert.equal(last.state, 'dead');
    assert.match(last.why, /exit code 1/);
  });
});
