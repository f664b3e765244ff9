import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, spawnCli, tmpDir } from '../helpers.js';
import { request, serve } from './serve-helpers.js';

/** The dashboard's API on a multi-node launch: one row with its nodes, and the nodes in the launch's detail. */
const MN = path.join(ROOT, 'test', 'fixtures', 'multinode');

describe('dashboard API: a multi-node launch', () => {
  let dir: string;
  let ledger: string;
  before(async () => {
    dir = tmpDir();
    ledger = path.join(dir, 'ledger.db');
    const r = await spawnCli([
      'runs',
      '--json',
      '--ledger',
      ledger,
      '--node',
      path.join(MN, 'sglang-2node-oom-node0.log'),
      '--node',
      path.join(MN, 'sglang-2node-oom-node1.log'),
    ]).done;
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('/api/launches lists it once with its nodes; /api/launches/ID carries the reading across nodes', async () => {
    const s = await serve(['--ledger', ledger]);
    try {
      const list = (await request(s.base, '/api/launches')).json().launches;
      assert.equal(list.length, 1);
      assert.deepEqual(
        list[0].nodes.map((n: any) => [n.nodeRank, n.head, n.culprit]),
        [
          [0, true, false],
          [1, false, true],
        ],
      );
      const detail = (await request(s.base, `/api/launches/${list[0].id}`)).json();
      assert.match(detail.launch.report.nodes.verdict, /node1\.log \(node_rank 1\) died first: oom on TP11/);
    } finally {
      assert.equal(await s.stop(), 0);
    }
  });
});
