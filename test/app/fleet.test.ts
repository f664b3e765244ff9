import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Fleet, type FleetRow, fleetExitCode } from '../../src/app/fleet.js';
import { ROOT, SCENARIOS, tmpDir } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';

/** The fleet under `ps` and `serve`: one ssh connection per host, an unreachable host said at once. */

/**
 * How long ssh may take to log in to the test sshd: the 5 s default is for a real fleet, and a login here runs
 * root's shell startup files on a machine that other test files (and other users) keep busy. The refused
 * host, which these tests are about, is refused at once whatever the timeout.
 */
const LOGIN_S = 30;

let sshd: TestSshd;
let dir: string;

before(async () => {
  sshd = await startSshd();
  dir = tmpDir();
  for (const i of [0, 1])
    fs.copyFileSync(
      path.join(ROOT, 'test', 'fixtures', 'multinode', `sglang-2node-oom-node${i}.log`),
      path.join(dir, `n${i}.log`),
    );
  // Port 1 on loopback: nothing listens there, the connection is refused.
  fs.appendFileSync(sshd.config, 'Host firedup-refused\n  HostName 127.0.0.1\n  Port 1\n');
});
after(() => {
  sshd.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('Fleet', () => {
  it('a multi-node target over ssh: one target, its nodes on one shared session; a node unreachable says which', async () => {
    const fleet = new Fleet(
      [
        {
          name: 'two',
          log: `firedup-test:${dir}/n0.log`,
          nodes: [`firedup-test:${dir}/n0.log`, `firedup-test:${dir}/n1.log`],
        },
        {
          name: 'half',
          log: `firedup-test:${dir}/n0.log`,
          nodes: [`firedup-test:${dir}/n0.log`, 'firedup-refused:/var/log/n1.log'],
        },
      ],
      { ledger: null, ssh: { config: sshd.config }, gpu: false, connectTimeoutSec: LOGIN_S },
    );
    try {
      fleet.start((t, e) => assert.fail(`${t.spec.name}: ${e.message}`));
      await fleet.settled(2 * LOGIN_S * 1000);
      const hosts = fleet.hosts;
      assert.equal(hosts.session(`firedup-test:${dir}/n0.log`), hosts.session(`firedup-test:${dir}/n1.log`));
      const [two, half] = fleet.rows();
      assert.equal(two!.state, 'crashed', two!.why);
      assert.equal(two!.host, 'firedup-test');
      assert.match(two!.why, /n1\.log \(node_rank 1\) died first: oom/);
      assert.deepEqual(
        two!.nodes!.map((n) => [n.node, n.host, n.head, n.culprit]),
        [
          ['node0', 'firedup-test', true, false],
          ['node1', 'firedup-test', false, true],
        ],
      );
      assert.equal(half!.state, 'unreachable');
      assert.match(half!.why, /^firedup-refused:\/var\/log\/n1\.log: .*refused/);
      assert.equal(half!.nodes![1]!.state, 'unreachable');
    } finally {
      await fleet.stop();
    }
  });

  it('gives the targets of one host one session and one master connection', async () => {
    // A copy's mtime is its last line's time, and a loading launch whose log has been quiet for longer than
    // its phase gets (20 s) is stalled. The state under test is a fresh log's, so the copies are dated as far
    // ahead as the logins may take: however slow the machine, the launches are still loading when judged.
    const fresh = Date.now() / 1000 + 2 * LOGIN_S;
    for (const f of ['a.log', 'b.log']) {
      fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), path.join(dir, f));
      fs.utimesSync(path.join(dir, f), fresh, fresh);
    }
    const fleet = new Fleet(
      [
        { name: 'a', log: `firedup-test:${dir}/a.log` },
        { name: 'b', log: `firedup-test:${dir}/b.log` },
        { name: 'gone', log: 'firedup-refused:/var/log/x.log' },
      ],
      { ledger: null, ssh: { config: sshd.config }, gpu: false, connectTimeoutSec: LOGIN_S },
    );
    try {
      fleet.start((t, e) => assert.fail(`${t.spec.name}: ${e.message}`));
      await fleet.settled(2 * LOGIN_S * 1000);
      const hosts = fleet.hosts;
      assert.equal(hosts.session(`firedup-test:${dir}/a.log`), hosts.session(`firedup-test:${dir}/b.log`));
      assert.ok((await hosts.session(`firedup-test:${dir}/a.log`).masterPid()) !== null, 'a master is up');
      const rows = new Map(fleet.rows().map((r) => [r.name, r]));
      for (const n of ['a', 'b']) {
        assert.equal(rows.get(n)!.state, 'loading', rows.get(n)!.why);
        assert.equal(rows.get(n)!.host, 'firedup-test');
      }
      const gone = fleet.targets[2]!;
      assert.equal(rows.get('gone')!.state, 'unreachable');
      assert.match(
        gone.snapshot().unreachable ?? '',
        /firedup-refused: connection to firedup-refused refused/,
      );
      // /metrics says the target is down.
      assert.equal(gone.metrics().up, false);
      assert.equal(fleet.targets[0]!.metrics().up, true);
    } finally {
      await fleet.stop();
    }
  });
});

describe('fleetExitCode', () => {
  const row = (state: FleetRow['state']) => ({ state }) as FleetRow;
  it('is decided by the worst target', () => {
    assert.equal(fleetExitCode([row('serving'), row('idle'), row('ready')]), 0);
    assert.equal(fleetExitCode([row('serving'), row('loading')]), 3);
    assert.equal(fleetExitCode([row('serving'), row('waiting')]), 3);
    assert.equal(fleetExitCode([row('loading'), row('unreachable')]), 7);
    assert.equal(fleetExitCode([row('unreachable'), row('stalled')]), 4);
    assert.equal(fleetExitCode([row('stalled'), row('dead')]), 5);
    assert.equal(fleetExitCode([row('exited'), row('crashed')]), 2);
  });
});
