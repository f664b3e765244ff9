import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertOneLine, type CliRun, ROOT, spawnCli, tmpDir } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';

/**
 * The two-node scenarios replayed live (firedup replay writes each node's log at its own timing into a real
 * file) and watched by the real CLI with one --node per log, locally and through two ssh "hosts".
 */
const MN = path.join(ROOT, 'test', 'fixtures', 'multinode');
const src = (s: string, i: number) => path.join(MN, `sglang-2node-${s}-node${i}.log`);
const verdicts = (r: CliRun) => r.events.filter((e) => e.type === 'verdict');

/** Replays both nodes of a scenario into a.log and b.log under `dir`, at `speed`. */
function replayBoth(dir: string, s: string, speed = 20) {
  return [0, 1].map(
    (i) =>
      spawnCli([
        'replay',
        src(s, i),
        '--speed',
        String(speed),
        '--out',
        path.join(dir, i ? 'b.log' : 'a.log'),
      ]).done,
  );
}

describe('multi-node launches watched live (replayed)', () => {
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
  const nodeArgs = (d: string) => ['--node', path.join(d, 'a.log'), '--node', path.join(d, 'b.log')];

  it('clean start: wait returns 0 once the head serves, with both nodes in the verdict', async () => {
    const d = fresh('clean');
    const w = spawnCli(
      ['wait', ...nodeArgs(d), '--json', '--no-gpu', '--no-ledger', '--timeout', '60s'],
      {},
      70_000,
    );
    const [r] = await Promise.all([w.done, ...replayBoth(d, 'clean')]);
    assert.equal(r.code, 0, r.stderr);
    const last = verdicts(r).at(-1)!;
    assert.ok(['ready', 'serving', 'idle'].includes(last.state), last.state);
    assert.deepEqual(
      last.nodes.map((n: any) => n.head),
      [true, false],
    );
    // Never called ready while only the worker was done.
    const early = verdicts(r).filter(
      (v) => v.nodes?.[0]?.state !== 'ready' && v.nodes?.[0]?.state !== 'serving',
    );
    assert.ok(early.every((v) => !['ready', 'serving', 'idle'].includes(v.state)));
  });

  it('one node OOM: watch ends crashed, naming node 1 as the root cause', async () => {
    const d = fresh('oom');
    const w = spawnCli(
      ['watch', ...nodeArgs(d), '--json', '--no-gpu', '--no-ledger', '--timeout', '60s'],
      {},
      70_000,
    );
    const [r] = await Promise.all([w.done, ...replayBoth(d, 'oom')]);
    assert.equal(r.code, 2, r.stderr);
    const last = verdicts(r).at(-1)!;
    assert.equal(last.state, 'crashed');
    assert.match(last.why, /b\.log \(node_rank 1\) died first: oom on TP11/);
    assert.equal(last.failure.class, 'oom');
    // Each node's own phase events come tagged with the node.
    assert.ok(r.events.some((e) => e.type === 'phase' && e.node === path.join(d, 'b.log')));
  });

  it('one node stuck in NCCL init: stalled, node 1 holds the launch back, node 0 waits for it', async () => {
    const d = fresh('nccl');
    const w = spawnCli(
      ['wait', ...nodeArgs(d), '--json', '--no-gpu', '--no-ledger', '--timeout', '60s'],
      { FIREDUP_BUDGET_SCALE: '0.01' },
      70_000,
    );
    const [r] = await Promise.all([w.done, ...replayBoth(d, 'nccl-stuck')]);
    assert.equal(r.code, 4, r.stderr);
    const last = verdicts(r).at(-1)!;
    assert.equal(last.state, 'stalled');
    assert.equal(last.stalledIn, 'dist_init');
    assert.match(last.why, /b\.log holds the launch back \(it reached dist_init 40 s after \S+a\.log/);
  });

  it('clock skew: ready, the skew said in the verdict; the ledger keeps one launch with its nodes', async () => {
    const d = fresh('skew');
    const ledger = path.join(d, 'ledger.db');
    const w = spawnCli(
      ['wait', ...nodeArgs(d), '--json', '--no-gpu', '--ledger', ledger, '--timeout', '60s'],
      {},
      70_000,
    );
    const [r] = await Promise.all([w.done, ...replayBoth(d, 'skew')]);
    assert.equal(r.code, 0, r.stderr);
    const last = verdicts(r).at(-1)!;
    assert.match(last.why, /clock skew corrected: \S+b\.log's clock runs 7 min 17 s ahead/);
    const runs = await spawnCli(['runs', '--json', '--ledger', ledger]).done;
    const launches = JSON.parse(runs.stdout).launches;
    assert.equal(launches.length, 1);
    assert.equal(launches[0].nodes.length, 2);
  });

  it('logs of different launches: one line naming them, exit 1', async () => {
    const d = fresh('mismatch');
    fs.copyFileSync(src('clean', 0), path.join(d, 'a.log'));
    fs.writeFileSync(
      path.join(d, 'b.log'),
      fs.readFileSync(src('clean', 1), 'utf8').replace('nnodes=2, node_rank=1', 'nnodes=4, node_rank=1'),
    );
    const r = await spawnCli(
      ['watch', ...nodeArgs(d), '--json', '--no-gpu', '--no-ledger', '--timeout', '20s'],
      {},
      30_000,
    ).done;
    assert.equal(r.code, 1, r.stdout);
    assertOneLine(r.stderr);
    assert.match(r.stderr, /b\.log: not the same launch as \S+a\.log \(nnodes 4 vs 2\)/);
  });
});

describe('multi-node launches watched over ssh: two hosts on the test sshd', () => {
  let sshd: TestSshd;
  let dir: string;
  let config: string;
  before(async () => {
    sshd = await startSshd();
    dir = tmpDir();
    config = path.join(dir, 'ssh_config');
    const base = fs.readFileSync(sshd.config, 'utf8');
    fs.writeFileSync(
      config,
      `${base.replace('Host firedup-test', 'Host node-a')}\n${base.replace('Host firedup-test', 'Host node-b')}`,
    );
  });
  after(() => {
    sshd?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('one node OOM, both logs followed over ssh: crashed, node-b named', async () => {
    const w = spawnCli(
      [
        'watch',
        '--ssh-config',
        config,
        '--node',
        `node-a:${path.join(dir, 'a.log')}`,
        '--node',
        `node-b:${path.join(dir, 'b.log')}`,
        '--json',
        '--no-gpu',
        '--no-ledger',
        '--timeout',
        '60s',
      ],
      {},
      70_000,
    );
    await new Promise((r) => setTimeout(r, 1500));
    const [r] = await Promise.all([w.done, ...replayBoth(dir, 'oom')]);
    assert.equal(r.code, 2, r.stderr);
    const last = verdicts(r).at(-1)!;
    assert.equal(last.state, 'crashed');
    assert.match(last.why, /node-b:\S+b\.log \(node_rank 1\) died first: oom/);
  });

  it('an unreachable host: one line naming the node', async () => {
    const r = await spawnCli(
      [
        'wait',
        '--ssh-option',
        'ConnectTimeout=3',
        '--node',
        path.join(dir, 'a.log'),
        '--node',
        'ssh://root@127.0.0.1:1/x.log',
        '--no-ledger',
      ],
      {},
      40_000,
    ).done;
    assert.equal(r.code, 1, r.stderr);
    assertOneLine(r.stderr);
    assert.match(r.stderr, /127\.0\.0\.1/);
  });
});
