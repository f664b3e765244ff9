import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { combineNodes, headLaunch } from '../../../src/core/multinode/combine.js';
import { matchLatest } from '../../../src/core/multinode/match.js';
import { nodeLog, sglangNode } from './fixtures.js';

function across(a: string, b: string) {
  const m = matchLatest([nodeLog('node0', a), nodeLog('node1', b)]);
  assert.ok(m.ok, m.ok ? '' : m.error);
  return { m, r: combineNodes(m) };
}

describe('one verdict across nodes', () => {
  it("ready only when the head serves: a worker done first leaves the launch at the head's phase", () => {
    const { r } = across(sglangNode({ rank: 0, until: 'loading' }), sglangNode({ rank: 1 }));
    assert.equal(r.outcome, 'in_progress');
    assert.equal(r.phase, 'loading_weights');
    assert.equal(r.culprit?.name, 'node0');
    const ready = across(sglangNode({ rank: 0 }), sglangNode({ rank: 1 })).r;
    assert.equal(ready.outcome, 'ready');
    assert.match(ready.verdict, /^ready: the head node0 is ready; node1 ready$/);
    assert.deepEqual(
      ready.nodes.map((n) => [n.name, n.nodeRank, n.head, n.outcome, n.ranks]),
      [
        ['node0', 0, true, 'ready', 'TP0–TP1'],
        ['node1', 1, false, 'ready', 'TP2–TP3'],
      ],
    );
  });

  it("the overall phase is the slowest node's", () => {
    const { r } = across(sglangNode({ rank: 0 }), sglangNode({ rank: 1, until: 'loading' }));
    // The head cannot be ready without its peers; its log here says so anyway: the head's word stands.
    assert.equal(r.outcome, 'ready');
    const slow = across(
      sglangNode({ rank: 0, until: 'loading' }),
      sglangNode({ rank: 1, until: 'dist_init' }),
    ).r;
    assert.equal(slow.phase, 'dist_init');
    assert.equal(slow.culprit?.name, 'node1');
    assert.match(
      slow.verdict,
      /node1 \(node_rank 1\) holds the launch back: the slowest node, in dist_init; node0 is further/,
    );
  });

  it('in the same phase, the node that reached it last holds the others', () => {
    const { r } = across(
      sglangNode({ rank: 0, until: 'dist_init' }),
      sglangNode({ rank: 1, until: 'dist_init', delay: 45 }),
    );
    assert.equal(r.culprit?.name, 'node1');
    assert.match(r.culprit!.why, /reached dist_init 45 s after node0, which waits for it there/);
  });

  it("the node that died first is the root cause; a peer's NCCL timeout 30 s later is its consequence", () => {
    const { m, r } = across(
      sglangNode({ rank: 0, until: 'nccl_timeout', crashAt: 100 }),
      sglangNode({ rank: 1, until: 'oom', crashAt: 70 }),
    );
    assert.equal(r.outcome, 'crashed');
    assert.equal(r.culprit?.name, 'node1');
    assert.match(r.verdict, /node1 \(node_rank 1\) died first: oom on TP3 in cuda_graph at 10:01:11/);
    assert.match(r.verdict, /node0's nccl 30 s later is its consequence/);
    const l = headLaunch(m, r);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'oom');
    assert.equal(l.nodes.culprit?.name, 'node1');
  });

  it("a watchdog's own c10 stamp dates its failure, not the node's last stamped line before it", () => {
    // node0's last stamped line is at 63 s, its watchdog fires at 100 s (c10's `[E301 hh:mm:ss…]` stamp) and
    // the sigquit line after it is not written yet: node1's OOM at 70 s is still the cause.
    const nccl = sglangNode({ rank: 0, until: 'nccl_timeout', crashAt: 100 }).split('\n');
    const cut = `${nccl.filter((l) => !l.includes('Received sigquit')).join('\n')}\n`;
    const { r } = across(cut, sglangNode({ rank: 1, until: 'oom', crashAt: 70 }));
    assert.equal(r.culprit?.name, 'node1', r.verdict);
    assert.match(r.verdict, /node0's nccl 29 s later is its consequence/);
  });

  it('with skewed clocks, who died first is decided on the corrected clock and the verdict says so', () => {
    // node1's clock runs 60 s behind: its raw stamps say it crashed 60 s before it did, node0 still later.
    const { r } = across(
      sglangNode({ rank: 0, until: 'oom', crashAt: 70 }),
      sglangNode({ rank: 1, until: 'nccl_timeout', crashAt: 100, skew: -60 }),
    );
    assert.equal(r.culprit?.name, 'node0');
    assert.match(r.verdict, /clock skew corrected: node1's clock runs 60 s behind node0's/);
    const ahead = across(
      sglangNode({ rank: 0, until: 'nccl_timeout', crashAt: 100 }),
      sglangNode({ rank: 1, until: 'oom', crashAt: 70, skew: 45 }),
    ).r;
    // Raw stamps: node1 at 10:01:56, after node0's 10:01:41; corrected: 10:01:11, first.
    assert.equal(ahead.culprit?.name, 'node1');
    assert.deepEqual(
      ahead.nodes.map((n) => n.skew),
      [0, 45],
    );
  });
});
