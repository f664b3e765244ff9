import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type CliRun, ROOT, spawnCli, tmpDir } from '../helpers.js';

/**
 * The Ray two-node scenarios (test/fixtures/multinode/vllm-ray-2node-*.log, README there): ONE log each, the
 * driver's, with the worker node's lines forwarded by Ray. Read by the real CLI (status, runs, the ledger, show)
 * and replayed live into a file watched by `watch`/`wait --json`.
 */
const MN = path.join(ROOT, 'test', 'fixtures', 'multinode');
const log = (s: string) => path.join(MN, `vllm-ray-2node-${s}.log`);
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => spawnCli(args, env, 60_000).done;
const verdicts = (r: CliRun) => r.events.filter((e) => e.type === 'verdict');

describe('Ray: one log, two nodes, read by status and runs', () => {
  let dir: string;
  let ledger: string;
  before(() => {
    dir = tmpDir();
    ledger = path.join(dir, 'ledger.db');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('clean start: serving, the driver (head) serves and 10.0.0.2 is ready; no culprit', async () => {
    const r = await cli(['status', '--json', '--no-ledger', log('clean')]);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.outcome, 'serving');
    assert.equal(s.nodes.layout, 'ray');
    assert.equal(s.nodes.head, 'driver');
    assert.deepEqual(
      s.nodes.nodes.map((n: any) => [n.name, n.nodeRank, n.head, n.outcome, n.skew]),
      [
        ['driver', 0, true, 'serving', 0],
        ['10.0.0.2', 1, false, 'ready', 0],
      ],
    );
    assert.equal(s.nodes.culprit, null);
    assert.deepEqual(
      s.live.nodes.map((n: any) => [n.name, n.head]),
      [
        ['driver', true],
        ['10.0.0.2', false],
      ],
    );
    const text = await cli(['status', '--no-ledger', '--no-color', log('clean')], { COLUMNS: '200' });
    assert.match(text.stdout, /nodes \(2, from Ray's ip= on each line; head: the driver's node\):/);
    assert.match(text.stdout, /across nodes: serving: the head driver serves; 10\.0\.0\.2 ready/);
  });

  it("worker node OOM: crashed, root cause 10.0.0.2; the driver's NCCL timeout is its consequence", async () => {
    const r = await cli(['status', '--no-ledger', '--no-color', log('oom')], { COLUMNS: '200' });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stdout, /failure: oom on RayWorkerWrapper pid=5306 during kv_cache/);
    assert.match(
      r.stdout,
      /across nodes: crashed: 10\.0\.0\.2 died first: oom on RayWorkerWrapper pid=5306 in kv_cache at 15:21:43: torch\.OutOfMemoryError: CUDA out of memory/,
    );
    assert.match(r.stdout, /driver's nccl 10 min 0 s later is its consequence/);
    // The first line says the state once: `now: crashed — 10.0.0.2 died first`, not `crashed — crashed:`.
    assert.match(r.stdout, /now: crashed — 10\.0\.0\.2 died first/);
    // All nodes' lines are in this one log: no note that the line numbers are another log's.
    assert.doesNotMatch(r.stdout, /line numbers above are/);
    const j = JSON.parse((await cli(['status', '--json', '--no-ledger', log('oom')])).stdout);
    assert.equal(j.failure.class, 'oom');
    assert.match(j.failure.text, /^\(RayWorkerWrapper pid=5306, ip=10\.0\.0\.2\) ERROR/);
    assert.equal(j.nodes.culprit.name, '10.0.0.2');
    assert.deepEqual(
      j.live.nodes.map((n: any) => [n.name, n.state]),
      [
        ['driver', 'crashed'],
        ['10.0.0.2', 'crashed'],
      ],
    );
  });

  it('worker node stuck: in loading_weights, 10.0.0.2 holds it back while the driver waits; stalled once old', async () => {
    const aged = path.join(dir, 'stuck.log');
    fs.copyFileSync(log('stuck'), aged);
    const t = Date.now() / 1000 - 7200;
    fs.utimesSync(aged, t, t);
    const r = await cli(['status', '--json', '--no-ledger', aged]);
    assert.equal(r.code, 4, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.outcome, 'in_progress');
    assert.equal(s.phase, 'loading_weights');
    assert.equal(s.nodes.culprit.name, '10.0.0.2');
    assert.match(
      s.nodes.culprit.why,
      // the driver's `Loading model weights took` ends its loading (V0 model_runner.py): it is further, and waits
      /logged nothing since 15:20:26 in loading_weights, while driver went on for 49 s and waits for it|the slowest node, in loading_weights; driver is further/,
    );
    assert.equal(s.live.state, 'stalled');
    assert.match(s.live.why, /^10\.0\.0\.2 holds the launch back/);
    assert.deepEqual(
      s.live.nodes.map((n: any) => [n.name, n.state]),
      [
        ['driver', 'weights_loaded'],
        ['10.0.0.2', 'stalled'],
      ],
    );
  });

  it('runs --json: one launch with its nodes; the ledger keeps it with them; show prints them', async () => {
    const r = await cli(['runs', '--json', '--ledger', ledger, log('oom')]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.launches.length, 1);
    assert.equal(j.launches[0].outcome, 'crashed');
    assert.equal(j.launches[0].nodes.culprit.name, '10.0.0.2');
    const listed = JSON.parse((await cli(['runs', '--json', '--ledger', ledger])).stdout).launches;
    assert.equal(listed.length, 1);
    assert.deepEqual(
      listed[0].nodes.map((n: any) => [n.name, n.head, n.outcome, n.culprit]),
      [
        ['driver', true, 'crashed', false],
        ['10.0.0.2', false, 'crashed', true],
      ],
    );
    // Read again: the same record.
    await cli(['runs', '--json', '--ledger', ledger, log('oom')]);
    assert.equal(JSON.parse((await cli(['runs', '--json', '--ledger', ledger])).stdout).launches.length, 1);
    const table = await cli(['runs', '--ledger', ledger, '--no-color'], { COLUMNS: '200' });
    assert.match(table.stdout, /localhost ×2 nodes/);
    const show = await cli(['show', listed[0].id, '--ledger', ledger, '--no-color']);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /nodes \(2, from Ray's ip= on each line; head: the driver's node\):/);
    assert.match(show.stdout, /across nodes: crashed: 10\.0\.0\.2 died first/);
    const text = await cli(['runs', '--no-ledger', '--no-color', log('clean')], { COLUMNS: '200' });
    assert.match(text.stdout, /across nodes: serving: the head driver serves/);
  });

  it('single-node logs with Ray prefixes from one ip are read as before: no nodes', async () => {
    for (const f of ['vllm/007.log', 'vllm/052.log']) {
      const file = path.join(ROOT, '..', 'shared', 'corpus', f);
      if (!fs.existsSync(file)) continue;
      const r = await cli(['runs', '--json', '--no-ledger', file]);
      assert.equal(r.code, 0, r.stderr);
      for (const l of JSON.parse(r.stdout).launches) assert.equal(l.nodes, undefined, f);
    }
  });
});

describe('Ray: one log, two nodes, watched live (replayed)', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const replay = (s: string, out: string, speed = 20) =>
    spawnCli(['replay', log(s), '--speed', String(speed), '--max-gap', '5', '--out', out]).done;

  it('clean start: wait returns 0 once the driver serves, both nodes in the verdict', async () => {
    const out = path.join(dir, 'clean.log');
    const w = spawnCli(['wait', out, '--json', '--no-gpu', '--no-ledger', '--timeout', '60s'], {}, 70_000);
    const [r] = await Promise.all([w.done, replay('clean', out)]);
    assert.equal(r.code, 0, r.stderr);
    const last = verdicts(r).at(-1)!;
    assert.ok(['ready', 'serving', 'idle'].includes(last.state), last.state);
    assert.deepEqual(
      last.nodes.map((n: any) => [n.name, n.head]),
      [
        ['driver', true],
        ['10.0.0.2', false],
      ],
    );
    assert.match(last.why, /\(head driver; 10\.0\.0\.2 ready\)/);
  });

  it('worker node OOM: watch ends crashed, naming 10.0.0.2 as the root cause', async () => {
    const out = path.join(dir, 'oom.log');
    const w = spawnCli(['watch', out, '--json', '--no-gpu', '--no-ledger', '--timeout', '60s'], {}, 70_000);
    const [r] = await Promise.all([w.done, replay('oom', out)]);
    assert.equal(r.code, 2, r.stderr);
    const last = verdicts(r).at(-1)!;
    assert.equal(last.state, 'crashed');
    assert.equal(last.failure.class, 'oom');
    assert.match(last.why, /^crashed: 10\.0\.0\.2 died first: oom/);
    const exit = r.events.at(-1)!;
    assert.equal(exit.type, 'exit');
    assert.equal(exit.nodes.find((n: any) => n.name === '10.0.0.2').state, 'crashed');
  });

  it('worker node stuck: stalled, 10.0.0.2 holds the launch back', async () => {
    const out = path.join(dir, 'stuck.log');
    const w = spawnCli(
      ['wait', out, '--json', '--no-gpu', '--no-ledger', '--timeout', '60s'],
      { FIREDUP_BUDGET_SCALE: '0.05' },
      70_000,
    );
    const [r] = await Promise.all([w.done, replay('stuck', out)]);
    assert.equal(r.code, 4, r.stderr);
    const last = verdicts(r).at(-1)!;
    assert.equal(last.state, 'stalled');
    assert.equal(last.stalledIn, 'loading_weights');
    // the driver printed `Loading model weights took` (the end of its loading, V0 model_runner.py): it is further
    assert.match(
      last.why,
      /^10\.0\.0\.2 holds the launch back \((?:it has logged nothing since 15:20:26|the slowest node, in loading_weights; driver is further)/,
    );
  });
});
