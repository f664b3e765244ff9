import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findHead, matchLatest, rendezvousTs } from '../../../src/core/multinode/match.js';
import { analyzeText } from '../../helpers.js';
import { nodeLog, sglangNode, T0 } from './fixtures.js';

describe('matching the nodes of one launch', () => {
  it('takes the head from node_rank 0, whatever order the logs are named in', () => {
    const m = matchLatest([nodeLog('b', sglangNode({ rank: 1 })), nodeLog('a', sglangNode({ rank: 0 }))]);
    assert.ok(m.ok);
    assert.equal(m.head, 1);
    assert.deepEqual(
      m.nodes.map((n) => [n.name, n.skew]),
      [
        ['b', 0],
        ['a', 0],
      ],
    );
  });

  it('the rendezvous end (the first phase after dist_init) is the same instant on every node: its stamps give the skew', () => {
    const a = analyzeText(sglangNode({ rank: 0 })).launches[0]!;
    assert.equal(rendezvousTs(a), T0 + 21);
    const m = matchLatest([
      nodeLog('a', sglangNode({ rank: 0 })),
      nodeLog('b', sglangNode({ rank: 1, skew: 437 })),
    ]);
    assert.ok(m.ok);
    assert.equal(m.nodes[1]!.skew, 437);
    assert.equal(m.nodes[1]!.aligned, true);
    const behind = matchLatest([
      nodeLog('a', sglangNode({ rank: 0 })),
      nodeLog('b', sglangNode({ rank: 1, skew: -90 })),
    ]);
    assert.ok(behind.ok);
    assert.equal(behind.nodes[1]!.skew, -90);
  });

  it('picks, from a log with relaunches, the launch that started with the head', () => {
    const b = sglangNode({ rank: 1, skew: -3600 }) + sglangNode({ rank: 1 });
    const m = matchLatest([nodeLog('a', sglangNode({ rank: 0 })), nodeLog('b', b)]);
    assert.ok(m.ok);
    assert.equal(m.nodes[1]!.index, 1);
    assert.equal(m.nodes[1]!.launches, 2);
  });

  it('refuses logs of different launches with one line naming the log and why', () => {
    const other = (spec: Parameters<typeof sglangNode>[0]) =>
      matchLatest([nodeLog('a.log', sglangNode({ rank: 0 })), nodeLog('b.log', sglangNode(spec))]);
    const addr = other({ rank: 1, addr: '10.9.9.9:5000' });
    assert.ok(!addr.ok);
    assert.equal(
      addr.error,
      'b.log: not the same launch as a.log (rendezvous address 10.9.9.9:5000 vs 10.1.1.1:5000)',
    );
    const nn = other({ rank: 1, nnodes: 4 });
    assert.ok(!nn.ok && /nnodes 4 vs 2/.test(nn.error));
    const model = other({ rank: 1, model: 'org/Other' });
    assert.ok(!model.ok && /model org\/Other vs org\/Model-X/.test(model.error));
    // Stuck before the rendezvous, no marker aligns the clocks: a day apart is another launch.
    const far = other({ rank: 1, until: 'dist_init', delay: 86400 });
    assert.ok(!far.ok && /started 24 h apart \(no common marker/.test(far.error), far.ok ? '' : far.error);
  });

  it('two head nodes, no head node, a single-node log, a node named twice: one line each', () => {
    const two = findHead([nodeLog('a', sglangNode({ rank: 0 })), nodeLog('c', sglangNode({ rank: 0 }))]);
    assert.ok('error' in two && /c: a head node too \(like a\)/.test(two.error));
    const none = findHead([nodeLog('b', sglangNode({ rank: 1 })), nodeLog('c', sglangNode({ rank: 1 }))]);
    assert.ok('error' in none && /no head node among b, c/.test(none.error));
    const single = findHead([
      nodeLog('a', sglangNode({ rank: 0 })),
      nodeLog('s', "[2026-03-01 10:00:00] server_args=ServerArgs(model_path='m', tp_size=8)\n"),
    ]);
    assert.ok('error' in single && /^s: its latest launch logged no multi-node flags/.test(single.error));
    const again = matchLatest([
      nodeLog('a', sglangNode({ rank: 0 })),
      nodeLog('b', sglangNode({ rank: 1 })),
      nodeLog('b2', sglangNode({ rank: 1 })),
    ]);
    assert.ok(!again.ok && /b2: node_rank 1 again \(b is node_rank 1 too\)/.test(again.error));
  });

  it('notes when fewer logs than nodes are given', () => {
    const m = matchLatest([
      nodeLog('a', sglangNode({ rank: 0, nnodes: 3 })),
      nodeLog('b', sglangNode({ rank: 1, nnodes: 3 })),
    ]);
    assert.ok(m.ok);
    assert.deepEqual(m.notes, ["2 of the launch's 3 nodes given"]);
  });
});
