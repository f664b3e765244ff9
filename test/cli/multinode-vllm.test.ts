import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type CliRun, ROOT, spawnCli, tmpDir } from '../helpers.js';

/**
 * The two-node vLLM data-parallel scenarios (test/fixtures/multinode, scripts/gen-multinode-vllm-logs.mjs): node 0
 * serves the API with DP0–DP1, node 1 runs `--headless` with DP2–DP3. Read by the real CLI with `runs --json
 * --node`, and replayed live into real files for `watch`/`wait --node`.
 */
const MN = path.join(ROOT, 'test', 'fixtures', 'multinode');
const src = (s: string, i: number) => path.join(MN, `vllm-2node-dp-${s}-node${i}.log`);
const verdicts = (r: CliRun) => r.events.filter((e) => e.type === 'verdict');

describe('vLLM data parallel over two nodes', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('runs --json --node, clean start: one launch serving; the headless node is rank 1, its startup done', async () => {
    const r = await spawnCli([
      'runs',
      '--json',
      '--no-ledger',
      '--node',
      src('clean', 0),
      '--node',
      src('clean', 1),
    ]).done;
    assert.equal(r.code, 0, r.stderr);
    const launches = JSON.parse(r.stdout).launches;
    assert.equal(launches.length, 1, 'the engines of each node are one launch');
    const l = launches[0];
    assert.equal(l.engine, 'vllm');
    assert.equal(l.outcome, 'serving');
    assert.equal(l.nodes.head, src('clean', 0));
    assert.equal(l.nodes.culprit, null);
    assert.deepEqual(
      l.nodes.nodes.map((n: any) => [n.nodeRank, n.head, n.outcome, n.done]),
      [
        [0, true, 'serving', false],
        // A headless node has no ready line of its own: its engines' `init engine … took` ends its startup.
        [1, false, 'in_progress', true],
      ],
    );
    assert.match(
      l.nodes.nodes[1].via,
      /data_parallel_start_rank=2 data_parallel_address=10\.0\.0\.1 headless/,
    );
  });

  it("runs --json --node, one node OOM: crashed, node 1's DP3 the root cause, node 0's NCCL timeout its consequence", async () => {
    const r = await spawnCli([
      'runs',
      '--json',
      '--no-ledger',
      '--node',
      src('oom', 0),
      '--node',
      src('oom', 1),
    ]).done;
    assert.equal(r.code, 0, r.stderr);
    const l = JSON.parse(r.stdout).launches.at(-1);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure.class, 'oom');
    assert.equal(l.nodes.culprit.name, src('oom', 1));
    assert.equal(l.nodes.culprit.nodeRank, 1);
    assert.match(l.nodes.verdict, /died first: oom on EngineCore_DP3 in kv_cache at 11:30:47/);
    assert.match(l.nodes.verdict, /oom-node0\.log's nccl 10 min 2 s later is its consequence/);
  });

  const replayBoth = (d: string, s: string) =>
    [0, 1].map(
      (i) =>
        spawnCli(['replay', src(s, i), '--speed', '20', '--out', path.join(d, i ? 'b.log' : 'a.log')]).done,
    );
  const nodeArgs = (d: string) => ['--node', path.join(d, 'a.log'), '--node', path.join(d, 'b.log')];

  it('wait --node replayed live: 0 once the head serves, never ready while only the headless node was up', async () => {
    const d = path.join(dir, 'clean');
    fs.mkdirSync(d);
    const w = spawnCli(
      ['wait', ...nodeArgs(d), '--json', '--no-gpu', '--no-ledger', '--timeout', '60s'],
      {},
      70_000,
    );
    const [r] = await Promise.all([w.done, ...replayBoth(d, 'clean')]);
    assert.equal(r.code, 0, r.stderr);
    const all = verdicts(r);
    assert.ok(['ready', 'serving', 'idle'].includes(all.at(-1)!.state));
    const early = all.filter((v) => !['ready', 'serving', 'idle'].includes(v.nodes?.[0]?.state));
    assert.ok(early.every((v) => !['ready', 'serving', 'idle'].includes(v.state)));
  });

  it('watch --node replayed live, one node OOM: ends crashed naming node 1 (b.log) first', async () => {
    const d = path.join(dir, 'oom');
    fs.mkdirSync(d);
    const w = spawnCli(
      ['watch', ...nodeArgs(d), '--json', '--no-gpu', '--no-ledger', '--timeout', '60s'],
      {},
      70_000,
    );
    const [r] = await Promise.all([w.done, ...replayBoth(d, 'oom')]);
    assert.equal(r.code, 2, r.stderr);
    const last = verdicts(r).at(-1)!;
    assert.equal(last.state, 'crashed');
    assert.match(last.why, /b\.log \(node_rank 1\) died first: oom on EngineCore_DP3/);
    assert.equal(last.failure.class, 'oom');
  });
});
