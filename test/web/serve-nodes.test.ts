import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, spawnCli, tmpDir } from '../helpers.js';
import { request, type Served, serve } from './serve-helpers.js';

/**
 * A multi-node target (`nodes = [...]` in firedup.toml) under the real `serve` and `ps`: the two-node scenarios
 * replayed live into real files (each node at its own timing), shown as one launch — one live card, one set of
 * series, one ledger record — with the joined verdict and each node's detail.
 */
const MN = path.join(ROOT, 'test', 'fixtures', 'multinode');
const src = (s: string, i: number) => path.join(MN, `sglang-2node-${s}-node${i}.log`);

function replayBoth(dir: string, s: string, speed = 20) {
  return Promise.all(
    [0, 1].map(
      (i) =>
        spawnCli(['replay', src(s, i), '--speed', String(speed), '--out', path.join(dir, `n${i}.log`)]).done,
    ),
  );
}

function config(dir: string): string {
  const toml = path.join(dir, 'firedup.toml');
  fs.writeFileSync(
    toml,
    ['ledger = "ledger.db"', '', '[[target]]', 'name = "dsv3"', 'nodes = ["n0.log", "n1.log"]', ''].join(
      '\n',
    ),
  );
  return toml;
}

/** Polls /api/live, keeping every card seen, until `done` holds for the card or the deadline passes. */
async function follow(s: Served, done: (card: any) => boolean, ms = 60_000): Promise<any[]> {
  const seen: any[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const targets = (await request(s.base, '/api/live')).json().targets;
    assert.equal(targets.length, 1, 'one card for the launch, not one per node');
    seen.push(targets[0]);
    if (done(targets[0])) return seen;
    await new Promise((r) => setTimeout(r, 150));
  }
  assert.fail(`no such card within ${ms} ms; last: ${JSON.stringify(seen.at(-1)?.verdict?.why)}`);
}

const metric = (text: string, re: RegExp) => text.split('\n').filter((l) => re.test(l) && !l.startsWith('#'));

describe('serve and ps: a multi-node target is one launch', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fresh = (name: string) => {
    const d = path.join(dir, name);
    fs.mkdirSync(d);
    return d;
  };

  it('one node OOM: one card crashed naming node 1, per-node detail, /metrics with node labels, one record', async () => {
    const d = fresh('oom');
    const s = await serve(['--config', config(d)], { FIREDUP_BUDGET_SCALE: '0.05' });
    try {
      const replay = replayBoth(d, 'oom');
      // Once both logs are written whole and read: the peer's NCCL timeout comes after the OOM it follows from.
      const [seen] = await Promise.all([
        follow(s, (c) => c.nodes?.every((n: any) => n.state === 'crashed') && c.nodes[1].culprit),
        replay,
      ]);
      const card = seen.at(-1)!;
      assert.equal(card.name, 'dsv3');
      assert.match(card.verdict.why, /n1\.log \(node_rank 1\) died first: oom on TP11/);
      assert.equal(card.verdict.failure.class, 'oom');
      assert.deepEqual(
        card.nodes.map((n: any) => [n.node, n.head, n.nodeRank, n.culprit]),
        [
          ['node0', true, 0, false],
          ['node1', false, 1, true],
        ],
      );
      assert.equal(card.nodes[1].state, 'crashed');
      assert.match(card.nodes[1].target, /n1\.log$/);
      // While loading, the card was the launch's, not a node's: never ready before the crash.
      assert.ok(seen.every((c) => !['ready', 'serving', 'idle'].includes(c.verdict?.state)));

      const m = (await request(s.base, '/metrics')).body;
      assert.deepEqual(metric(m, /^firedup_crashed\{/), [
        `firedup_crashed{target="dsv3",host="localhost",model="deepseek-ai/DeepSeek-V3",engine="sglang"} 1`,
      ]);
      assert.equal(metric(m, /^firedup_up\{/).length, 1, 'one set of series for the target');
      assert.deepEqual(metric(m, /^firedup_node_culprit\{/), [
        `firedup_node_culprit{target="dsv3",host="localhost",model="deepseek-ai/DeepSeek-V3",engine="sglang",node="node0"} 0`,
        `firedup_node_culprit{target="dsv3",host="localhost",model="deepseek-ai/DeepSeek-V3",engine="sglang",node="node1"} 1`,
      ]);
      assert.equal(metric(m, /^firedup_node_state\{.*node="node1".*state="crashed"\} 1$/).length, 1);
      assert.equal(metric(m, /^firedup_node_head\{.*node="node0"\} 1$/).length, 1);

      // The ledger has the launch once, the head's, with its nodes (as `watch --node` records it).
      let launches: any[] = [];
      for (let i = 0; i < 50 && !launches.some((l) => l.outcome === 'crashed'); i++) {
        launches = (await request(s.base, '/api/launches')).json().launches;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(launches.length, 1, JSON.stringify(launches.map((l) => l.path)));
      assert.match(launches[0].path, /n0\.log$/);
      assert.equal(launches[0].nodes.length, 2);
    } finally {
      await s.stop();
    }
  });

  it('clean start: ready only once the head serves; both nodes listed', async () => {
    const d = fresh('clean');
    const s = await serve(['--config', config(d)], { FIREDUP_BUDGET_SCALE: '0.05' });
    try {
      const replay = replayBoth(d, 'clean');
      const seen = await follow(s, (c) => ['serving', 'idle'].includes(c.verdict?.state));
      await replay;
      const ready = seen.filter((c) => ['ready', 'serving', 'idle'].includes(c.verdict?.state));
      assert.ok(
        ready.every((c) => c.nodes[0].head && ['ready', 'serving', 'idle'].includes(c.nodes[0].state)),
        'never ready while only the worker was done',
      );
      assert.deepEqual(
        seen.at(-1)!.nodes.map((n: any) => n.node),
        ['node0', 'node1'],
      );
      const m = (await request(s.base, '/metrics')).body;
      assert.equal(metric(m, /^firedup_ready\{target="dsv3"/)[0]!.endsWith(' 1'), true);
    } finally {
      await s.stop();
    }
  });

  it('ps --json: one row for the launch, with its nodes and the culprit; the table names them under it', async () => {
    const d = fresh('ps');
    for (const i of [0, 1]) fs.copyFileSync(src('oom', i), path.join(d, `n${i}.log`));
    const toml = config(d);
    const r = await spawnCli(['ps', '--config', toml, '--json', '--no-gpu', '--no-ledger']).done;
    assert.equal(r.code, 2, r.stderr);
    const rows = r.events[0]!.targets;
    assert.equal(rows.length, 1);
    const row = rows[0];
    assert.equal(row.name, 'dsv3');
    assert.equal(row.state, 'crashed');
    assert.equal(row.failureClass, 'oom');
    assert.match(row.why, /n1\.log \(node_rank 1\) died first/);
    assert.deepEqual(
      row.nodes.map((n: any) => [n.node, n.head, n.culprit]),
      [
        ['node0', true, false],
        ['node1', false, true],
      ],
    );
    const t = await spawnCli(['ps', '--config', toml, '--no-gpu', '--no-ledger'], { COLUMNS: '200' }).done;
    assert.match(t.stdout, /^dsv3 +localhost ×2 +sglang/m);
    assert.match(t.stdout, /^dsv3: node0 crashed in \w+ \(head\), node1 crashed in \w+ ← culprit$/m);
  });
});

/**
 * A Ray launch is one log (the driver's) whose lines name their node by `ip=`: under `ps` and `serve` it is
 * shown as a `nodes = [...]` target is, with its nodes read from that log.
 */
describe('serve and ps: a Ray target (one log, several nodes)', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
    fs.copyFileSync(path.join(MN, 'vllm-ray-2node-oom.log'), path.join(dir, 'ray.log'));
    fs.writeFileSync(
      path.join(dir, 'firedup.toml'),
      ['ledger = "ledger.db"', '', '[[target]]', 'name = "llama70b"', 'log = "ray.log"', ''].join('\n'),
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ps: one row, its nodes by ip with the culprit; serve: the card and the per-node series', async () => {
    const toml = path.join(dir, 'firedup.toml');
    const r = await spawnCli(['ps', '--config', toml, '--json', '--no-gpu', '--no-ledger']).done;
    assert.equal(r.code, 2, r.stderr);
    const row = r.events[0]!.targets[0];
    assert.equal(row.state, 'crashed');
    assert.deepEqual(
      row.nodes.map((n: any) => [n.node, n.host, n.head, n.state, n.culprit]),
      [
        ['driver', 'localhost', true, 'crashed', false],
        ['10.0.0.2', '10.0.0.2', false, 'crashed', true],
      ],
    );
    const t = await spawnCli(['ps', '--config', toml, '--no-gpu', '--no-ledger'], { COLUMNS: '200' }).done;
    assert.match(t.stdout, /^llama70b +localhost ×2 +vllm/m);
    assert.match(
      t.stdout,
      /^llama70b: driver crashed in \w+ \(head\), 10\.0\.0\.2 crashed in kv_cache ← culprit$/m,
    );

    const s = await serve(['--config', toml, '--no-gpu']);
    try {
      const [card] = await follow(s, (c) => c.verdict?.state === 'crashed' && c.nodes?.length === 2).then(
        (seen) => seen.slice(-1),
      );
      assert.deepEqual(
        card.nodes.map((n: any) => [n.node, n.culprit]),
        [
          ['driver', false],
          ['10.0.0.2', true],
        ],
      );
      const m = (await request(s.base, '/metrics')).body;
      assert.equal(metric(m, /^firedup_node_culprit\{.*node="10\.0\.0\.2"/)[0]?.endsWith(' 1'), true, m);
      assert.equal(metric(m, /^firedup_node_head\{.*node="driver"/)[0]?.endsWith(' 1'), true, m);
    } finally {
      await s.stop();
    }
  });
});
