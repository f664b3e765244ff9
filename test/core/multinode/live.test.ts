import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { combineNodes } from '../../../src/core/multinode/combine.js';
import { combineVerdicts } from '../../../src/core/multinode/live.js';
import { matchLatest } from '../../../src/core/multinode/match.js';
import { liveVerdict, type Verdict } from '../../../src/core/verdict/verdict.js';
import { analyzeText } from '../../helpers.js';
import { nodeLog, sglangNode } from './fixtures.js';

/** Each node's own live verdict, as a session would give it: `quiet` seconds after its last line. */
function verdictOf(text: string, quiet: number, obs = {}): Verdict {
  const report = analyzeText(text);
  const l = report.launches.at(-1)!;
  const now = (l.endTs ?? 0) + quiet;
  return liveVerdict({ report, obs, now, progressAt: l.lastProgressTs ?? l.endTs ?? 0, logExists: true });
}

function joined(a: string, b: string, quietA: number, quietB: number) {
  const m = matchLatest([nodeLog('node0', a), nodeLog('node1', b)]);
  assert.ok(m.ok);
  return combineVerdicts(
    [
      { name: 'node0', head: true, verdict: verdictOf(a, quietA) },
      { name: 'node1', head: false, verdict: verdictOf(b, quietB) },
    ],
    combineNodes(m),
  );
}

describe('the live verdict across nodes', () => {
  it('both nodes silent in dist_init past its budget: stalled, named after the node the other waits for', () => {
    const v = joined(
      sglangNode({ rank: 0, until: 'dist_init' }),
      sglangNode({ rank: 1, until: 'dist_init', delay: 40 }),
      2000,
      2000,
    );
    assert.equal(v.state, 'stalled');
    assert.equal(v.stalledIn, 'dist_init');
    assert.match(v.why, /^node1 holds the launch back \(it reached dist_init 40 s after node0/);
    assert.match(v.why, /node0 waits for it/);
    assert.deepEqual(
      v.nodes.map((n) => [n.name, n.state]),
      [
        ['node0', 'stalled'],
        ['node1', 'stalled'],
      ],
    );
    assert.ok(v.evidence.every((e) => /^\[node[01]\] /.test(e.text)));
  });

  it("a crash on any node is the launch's, with the root cause from the logs", () => {
    const v = joined(
      sglangNode({ rank: 0, until: 'nccl_timeout', crashAt: 100 }),
      sglangNode({ rank: 1, until: 'oom', crashAt: 70 }),
      5,
      5,
    );
    assert.equal(v.state, 'crashed');
    assert.equal(v.final, true);
    assert.match(v.why, /node1 \(node_rank 1\) died first: oom/);
  });

  it("ready is the head's word: a worker done while the head loads is not ready", () => {
    const v = joined(sglangNode({ rank: 0, until: 'loading' }), sglangNode({ rank: 1 }), 1, 1);
    assert.equal(v.state, 'loading');
    assert.match(v.why, /node0 \(node_rank 0, head\) holds the launch back/);
    const up = joined(sglangNode({ rank: 0 }), sglangNode({ rank: 1 }), 1, 1);
    assert.equal(up.state, 'ready');
    assert.match(up.why, /head node0; node1 ready/);
  });

  it('waits for the head while it has no verdict yet', () => {
    const b = sglangNode({ rank: 1 });
    const v = combineVerdicts(
      [
        { name: 'node0', head: true, verdict: null },
        { name: 'node1', head: false, verdict: verdictOf(b, 1) },
      ],
      null,
    );
    assert.equal(v.state, 'waiting');
    assert.match(v.why, /^waiting for node0/);
  });
});
