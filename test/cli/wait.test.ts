import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, SCENARIOS, spawnCli, tmpDir } from '../helpers.js';

/** `wait` as scripts need it: the latest launch judged at once, --for, --next, -q, a missing log said. */
const scenario = (name: string) => fs.readFileSync(path.join(SCENARIOS, name), 'utf8');
const verdicts = (events: Array<Record<string, any>>) => events.filter((e) => e.type === 'verdict');

describe('wait', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** A log written `ago` seconds before now. */
  const write = (name: string, text: string, ago = 0): string => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text);
    if (ago) {
      const t = new Date(Date.now() - ago * 1000);
      fs.utimesSync(p, t, t);
    }
    return p;
  };

  it('a launch that crashed before wait started: exit 2 at once, no hang (nohup server >> log & wait log)', async () => {
    const log = write('crashed.log', scenario('glm5-trtllm-oom-in-cuda-graph.log'), 60);
    const r = await spawnCli(['wait', log, '--no-gpu', '--json'], {}, 20_000).done;
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.seconds < 15, `took ${r.seconds} s: it waited for something that cannot come`);
    assert.equal(verdicts(r.events).at(-1)!.state, 'crashed');
  });

  it('a launch already serving: exit 0 at once; -q prints one line', async () => {
    const serving = scenario('glm5-cutlass-bench-then-shutdown.log').split('\n').slice(0, 382).join('\n');
    const log = write('serving.log', `${serving}\n`);
    const r = await spawnCli(['wait', log, '--no-gpu', '-q'], {}, 20_000).done;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.seconds < 15, `took ${r.seconds} s: it waited for something that cannot come`);
    assert.equal(r.stdout.trim().split('\n').length, 1, r.stdout);
    assert.match(r.stdout, /^(serving|idle)/);
    assert.equal(r.stderr, '', 'nothing else');
  });

  it('--for loaded returns once the weights are in; --for ready keeps waiting', async () => {
    const log = write('loaded.log', scenario('glm5-silent-after-load-weight-end.log'));
    const loaded = await spawnCli(['wait', log, '--no-gpu', '--for', 'loaded', '-q'], {}, 20_000).done;
    assert.equal(loaded.code, 0, loaded.stdout + loaded.stderr);
    assert.match(loaded.stdout, /weights_loaded/);
    const ready = await spawnCli(['wait', log, '--no-gpu', '--timeout', '2s', '-q'], {}, 20_000).done;
    assert.equal(ready.code, 6, ready.stdout);
    const bad = runCli(['wait', log, '--for', 'up']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--for up: one of ready, serving, loaded/);
  });

  it('--next skips the crashed launch and waits for the relaunch appended to the file', async () => {
    const log = write('relaunch.log', scenario('glm5-trtllm-oom-in-cuda-graph.log'), 60);
    const w = spawnCli(['wait', log, '--next', '--no-gpu', '--json', '--timeout', '30s'], {}, 40_000);
    await new Promise((r) => setTimeout(r, 2500));
    const serving = scenario('glm5-cutlass-bench-then-shutdown.log').split('\n').slice(0, 382).join('\n');
    fs.appendFileSync(log, `${serving}\n`);
    const r = await w.done;
    assert.equal(r.code, 0, r.stderr);
    const v = verdicts(r.events);
    assert.ok(!v.some((x) => x.state === 'crashed'), v.map((x) => x.state).join(' '));
    assert.equal(v.at(-1)!.launch, 2);
  });

  it('a timeout says the state once: no "loading after 5s of watching: still loading after the 5s timeout"', async () => {
    const log = write('silent.log', scenario('glm5-silent-after-load-weight-end.log'));
    const r = await spawnCli(['wait', log, '--no-gpu', '--timeout', '2s'], {}, 20_000).done;
    assert.equal(r.code, 6, r.stderr);
    const last = r.stderr.trim().split('\n').at(-1)!;
    assert.match(last, /^◐ weights_loaded: timed out after 2s: last progress \d+ s ago$/);
    const q = await spawnCli(['wait', log, '--no-gpu', '--timeout', '2s', '-q'], {}, 20_000).done;
    assert.match(q.stdout.trim(), /^weights_loaded: timed out after 2s: last progress \d+ s ago$/);
    for (const line of [...r.stderr.split('\n'), q.stdout])
      assert.doesNotMatch(line, /weights_loaded\b.*weights_loaded\b/, `said twice: ${line}`);
  });

  it('a log in a directory that does not exist: said at once on one line, exit 1, no waiting (wait and watch)', async () => {
    const log = path.join(dir, 'no-such-dir', 'deeper', 'server.log');
    for (const cmd of ['wait', 'watch']) {
      const r = await spawnCli([cmd, log, '--no-gpu'], {}, 20_000).done;
      assert.equal(r.code, 1, r.stderr);
      assert.ok(r.seconds < 10, `took ${r.seconds} s`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.equal(
        r.stderr.trim(),
        `firedup: ${log}: the directory ${path.join(dir, 'no-such-dir')} does not exist, so the log cannot appear there (check the path)`,
      );
      assert.equal(r.stdout, '');
    }
  });

  it('a log that does not exist yet: says it is waiting for it, for how long, and the timeout', async () => {
    const log = path.join(dir, 'not-yet.log');
    const r = await spawnCli(['wait', log, '--no-gpu', '--timeout', '2s'], {}, 20_000).done;
    assert.equal(r.code, 6);
    assert.ok(r.stderr.includes(`waiting for ${log} to appear (0s so far, timeout 2s)`), r.stderr);
  });

  it('a long log is read to its end before any verdict: wait, ps and status agree the relaunch crashed', async () => {
    // An old launch serving for tens of MB, then a relaunch that crashed: a verdict on the first part would
    // say "serving" and send `wait log && bench` at a dead server.
    const serving = scenario('glm5-cutlass-bench-then-shutdown.log').split('\n').slice(0, 382);
    const decode = serving.slice(300).join('\n');
    const p = path.join(dir, 'long.log');
    const fd = fs.openSync(p, 'w');
    fs.writeSync(fd, `${serving.join('\n')}\n`);
    const block = `${decode}\n`.repeat(Math.ceil(1_000_000 / decode.length));
    for (let i = 0; i < 48; i++) fs.writeSync(fd, block);
    fs.writeSync(fd, scenario('glm5-trtllm-oom-in-cuda-graph.log'));
    fs.closeSync(fd);
    const t = new Date(Date.now() - 60_000);
    fs.utimesSync(p, t, t);
    const status = runCli(['status', p, '--no-probe']);
    assert.equal(status.code, 2, status.stdout + status.stderr);
    const w = await spawnCli(['wait', p, '--no-gpu', '-q'], {}, 60_000).done;
    assert.equal(w.code, 2, w.stdout + w.stderr);
    assert.match(w.stdout, /^crashed/);
    const json = await spawnCli(['wait', p, '--no-gpu', '--json'], {}, 60_000).done;
    assert.deepEqual(
      verdicts(json.events).map((v) => v.state),
      ['crashed'],
      'no verdict before the end of the file, and only the one it holds',
    );
    const fleet = path.join(dir, 'long.toml');
    fs.writeFileSync(fleet, `[[target]]\nname = "long"\nlog = ${JSON.stringify(p)}\n`);
    const ps = await spawnCli(['ps', '--config', fleet, '--no-gpu', '--json'], {}, 60_000).done;
    assert.equal(JSON.parse(ps.stdout).targets[0].state, 'crashed', ps.stdout + ps.stderr);
  });

  it('the default timeout is documented: an hour, exit 6', () => {
    const r = runCli(['wait', '--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /default: 60m/);
    assert.match(r.stdout, /timeout passed \(6\)/);
  });
});
