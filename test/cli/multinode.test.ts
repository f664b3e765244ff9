import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertOneLine, ROOT, spawnCli, tmpDir } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';

/** The two-node scenarios (test/fixtures/multinode, README there) read by the real CLI: status, runs, the ledger, ssh. */
const MN = path.join(ROOT, 'test', 'fixtures', 'multinode');
const node = (s: string, i: number) => path.join(MN, `sglang-2node-${s}-node${i}.log`);
const nodes = (s: string) => ['--node', node(s, 0), '--node', node(s, 1)];
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => spawnCli(args, env, 60_000).done;

describe('multi-node launches: status and runs --node', () => {
  let dir: string;
  let ledger: string;
  before(() => {
    dir = tmpDir();
    ledger = path.join(dir, 'ledger.db');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('clean start: serving, the head serves and node 1 is ready (its dummy health server)', async () => {
    const r = await cli(['status', '--json', '--ledger', ledger, ...nodes('clean')]);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.outcome, 'serving');
    assert.equal(s.nodes.head, node('clean', 0));
    assert.deepEqual(
      s.nodes.nodes.map((n: any) => [n.nodeRank, n.head, n.outcome, n.ranks]),
      [
        [0, true, 'serving', 'TP0–TP7'],
        [1, false, 'ready', 'TP8–TP15'],
      ],
    );
    assert.equal(s.nodes.culprit, null);
    assert.deepEqual(
      s.live.nodes.map((n: any) => n.head),
      [true, false],
    );
  });

  it("one node OOM: crashed, the root cause is node 1 (TP11), node 0's NCCL timeout 30 s later its consequence", async () => {
    const r = await cli(['status', '--ledger', ledger, ...nodes('oom')]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stdout, /failure: oom on TP11 during cuda_graph/);
    assert.match(
      r.stdout,
      /across nodes: crashed: \S+oom-node1\.log \(node_rank 1\) died first: oom on TP11 in cuda_graph at 11:31:36/,
    );
    assert.match(r.stdout, /oom-node0\.log's nccl 30 s later is its consequence/);
    assert.match(r.stdout, /the failure's line numbers above are \S+oom-node1\.log's/);
  });

  it('one node stuck in NCCL init: in dist_init, node 1 holds it (it reached dist_init 40 s after node 0)', async () => {
    // Copies written two hours ago: both nodes have been silent in dist_init far past its budget.
    const aged = [0, 1].map((i) => {
      const f = path.join(dir, `nccl-stuck-node${i}.log`);
      fs.copyFileSync(node('nccl-stuck', i), f);
      const t = Date.now() / 1000 - 7200;
      fs.utimesSync(f, t, t);
      return f;
    });
    const r = await cli(['status', '--json', '--no-ledger', '--node', aged[0]!, '--node', aged[1]!]);
    const s = JSON.parse(r.stdout);
    assert.equal(s.phase, 'dist_init');
    assert.equal(s.nodes.culprit.name, aged[1]);
    assert.match(s.nodes.culprit.why, /reached dist_init 40 s after \S+node0\.log, which waits for it there/);
    assert.equal(r.code, 4, r.stderr);
    assert.equal(s.live.state, 'stalled');
    assert.match(s.live.why, /nccl-stuck-node1\.log holds the launch back/);
  });

  it("clock skew: node 1's clock 437 s ahead is corrected and said", async () => {
    const r = await cli(['status', '--json', '--no-ledger', ...nodes('skew')]);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.outcome, 'serving');
    assert.deepEqual(
      s.nodes.nodes.map((n: any) => n.skew),
      [0, 437],
    );
    assert.match(s.nodes.skewNote, /skew-node1\.log's clock runs 7 min 17 s ahead of \S+skew-node0\.log's/);
  });

  it('runs --json --node: the launch with its nodes; the ledger keeps one launch that lists them', async () => {
    const r = await cli(['runs', '--json', '--ledger', ledger, ...nodes('oom')]);
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.launches.length, 1);
    assert.equal(j.launches[0].outcome, 'crashed');
    assert.equal(j.launches[0].nodes.culprit.nodeRank, 1);
    const listed = JSON.parse(
      (await cli(['runs', '--json', '--ledger', ledger, '--outcome', 'crashed'])).stdout,
    );
    const multi = listed.launches.filter((l: any) => l.nodes);
    assert.equal(multi.length, 1);
    assert.deepEqual(
      multi[0].nodes.map((n: any) => [n.nodeRank, n.outcome, n.culprit]),
      [
        [0, 'crashed', false],
        [1, 'crashed', true],
      ],
    );
    // Read again: the same record, not a second one.
    await cli(['runs', '--json', '--ledger', ledger, ...nodes('oom')]);
    const again = JSON.parse(
      (await cli(['runs', '--json', '--ledger', ledger, '--outcome', 'crashed'])).stdout,
    );
    assert.equal(again.launches.filter((l: any) => l.nodes).length, 1);
    // The head's log read alone knows less: the record keeps its nodes and the joined reading.
    await cli(['runs', '--json', '--ledger', ledger, nodes('oom')[1]!]);
    const alone = JSON.parse((await cli(['runs', '--json', '--ledger', ledger])).stdout).launches;
    const kept = alone.find((l: any) => l.id === multi[0].id);
    assert.ok(kept?.nodes, 'the multi-node record lost its nodes after a one-node read');
    assert.equal(kept.outcome, 'crashed');
    // runs, show and diff print it as one launch with its nodes.
    const table = await cli(['runs', '--ledger', ledger, '--no-color', '--outcome', 'crashed'], {
      COLUMNS: '200',
    });
    assert.match(table.stdout, /localhost ×2 nodes/);
    const show = await cli(['show', multi[0].id, '--ledger', ledger, '--no-color']);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /nodes \(2 of 2; head \S+oom-node0\.log\):/);
    assert.match(show.stdout, /across nodes: crashed: \S+oom-node1\.log \(node_rank 1\) died first/);
    await cli(['runs', '--json', '--ledger', ledger, ...nodes('clean')]);
    const all = JSON.parse((await cli(['runs', '--json', '--ledger', ledger])).stdout).launches;
    const clean = all.find((l: any) => l.nodes && l.outcome !== 'crashed');
    const diff = await cli(['diff', clean.id, multi[0].id, '--ledger', ledger, '--no-color']);
    assert.equal(diff.code, 0, diff.stderr);
    assert.match(diff.stdout, /nodes +2 nodes +2 nodes, node_rank 1 died first/);
  });

  it('firedup.toml: a [[target]] with nodes = [...] (relative paths), read by status --config --target', async () => {
    const toml = path.join(dir, 'firedup.toml');
    fs.copyFileSync(node('oom', 0), path.join(dir, 'n0.log'));
    fs.copyFileSync(node('oom', 1), path.join(dir, 'n1.log'));
    fs.writeFileSync(
      toml,
      '[[target]]\nname = "one"\nlog = "n0.log"\n\n[[target]]\nname = "dsv3-2node"\nnodes = ["n0.log", "n1.log"]\n',
    );
    const r = await cli(['status', '--json', '--no-ledger', '--config', toml, '--target', 'dsv3-2node']);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(JSON.parse(r.stdout).nodes.culprit.name, path.join(dir, 'n1.log'));
    const bad: Array<[string, string[], RegExp]> = [
      ['', ['--target', 'nope'], /no target named nope in \S+firedup\.toml \(there: dsv3-2node, one\)/],
      ['', ['--target', 'one'], /target one in \S+ is one log \(\S+n0\.log\): firedup status \S+n0\.log/],
      [
        '[[target]]\nname = "x"\nnodes = ["n0.log"]\n',
        ['--target', 'x'],
        /firedup\.toml:3: nodes must list every node's log, two or more/,
      ],
      [
        '[[target]]\nname = "x"\nlog = "n0.log"\nnodes = ["n0.log", "n1.log"]\n',
        ['--target', 'x'],
        /firedup\.toml:1: \[\[target\]\] takes log = .* or nodes = \[\.\.\.\]/,
      ],
    ];
    for (const [text, args, re] of bad) {
      if (text) fs.writeFileSync(toml, text);
      const b = await cli(['status', '--no-ledger', '--config', toml, ...args]);
      assert.equal(b.code, 1, b.stderr);
      assertOneLine(b.stderr);
      assert.match(b.stderr, re);
    }
  });

  it('bad input: one line naming it', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['status', '--no-ledger', '--node', node('clean', 0), '--node', path.join(dir, 'nope.log')],
        /nope\.log/,
      ],
      [['status', '--no-ledger', '--node', node('clean', 0)], /name every node of the launch/],
      [['status', '--no-ledger', '--node', node('clean', 0), '--node', node('clean', 0)], /given twice/],
      [
        ['status', '--no-ledger', '--node', node('clean', 0), node('clean', 1)],
        /name every node's log with --node/,
      ],
      [['status', '--no-ledger', '--node', node('clean', 0), '--node', node('oom', 0)], /a head node too/],
      [
        [
          'status',
          '--no-ledger',
          '--node',
          node('clean', 0),
          '--node',
          path.join(ROOT, 'examples', 'glm5-serving.log'),
        ],
        /glm5-serving\.log: its latest launch logged no multi-node flags/,
      ],
      [
        [
          'status',
          '--no-ledger',
          '--ssh-option',
          'ConnectTimeout=3',
          '--node',
          node('clean', 0),
          '--node',
          'ssh://root@127.0.0.1:1/x.log',
        ],
        /127\.0\.0\.1/,
      ],
    ];
    const other = path.join(dir, 'other-node1.log');
    fs.writeFileSync(
      other,
      fs
        .readFileSync(node('clean', 1), 'utf8')
        .replace("dist_init_addr='10.0.0.1:5000'", "dist_init_addr='10.0.0.9:5000'"),
    );
    cases.push([
      ['runs', '--no-ledger', '--node', node('clean', 0), '--node', other],
      /other-node1\.log: not the same launch as \S+clean-node0\.log \(rendezvous address 10\.0\.0\.9:5000 vs 10\.0\.0\.1:5000\)/,
    ]);
    for (const [args, re] of cases) {
      const r = await cli(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assertOneLine(r.stderr);
      assert.match(r.stderr, re);
    }
  });
});

describe('multi-node launches over ssh: two hosts on the test sshd', () => {
  let sshd: TestSshd;
  let config: string;
  let dir: string;
  before(async () => {
    sshd = await startSshd();
    dir = tmpDir();
    // Two "hosts": two names for the one loopback sshd, as two nodes would be two machines.
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

  it('status --node node-a:… --node node-b:…: the same verdict as read locally', async () => {
    const r = await cli([
      'status',
      '--json',
      '--no-ledger',
      '--ssh-config',
      config,
      '--node',
      `node-a:${node('oom', 0)}`,
      '--node',
      `node-b:${node('oom', 1)}`,
    ]);
    assert.equal(r.code, 2, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.nodes.culprit.name, `node-b:${node('oom', 1)}`);
    assert.equal(s.failure.class, 'oom');
  });

  it('local and ssh mixed, and a missing file on a host: one line naming it', async () => {
    const mixed = await cli([
      'status',
      '--json',
      '--no-ledger',
      '--ssh-config',
      config,
      '--node',
      node('skew', 0),
      '--node',
      `node-b:${node('skew', 1)}`,
    ]);
    assert.equal(mixed.code, 0, mixed.stderr);
    assert.equal(JSON.parse(mixed.stdout).nodes.nodes[1].skew, 437);
    const missing = await cli([
      'status',
      '--no-ledger',
      '--ssh-config',
      config,
      '--node',
      node('skew', 0),
      '--node',
      'node-b:/nope/server.log',
    ]);
    assert.equal(missing.code, 1);
    assertOneLine(missing.stderr);
    assert.match(missing.stderr, /node-b:\/nope\/server\.log: no such file on node-b/);
  });
});
