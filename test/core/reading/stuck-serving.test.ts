/**
 * A serving launch whose last lines say it stopped making progress (launch.ts LaunchBuilder.stuck): still going,
 * not serving (the label scheme's hung), until a line shows work again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const last = (text: string) => {
  const r = analyzeText(text);
  return r.launches[r.launches.length - 1]!;
};
const stats = (t: string, gen: string, running: number) =>
  `INFO 09-10 09:55:${t} metrics.py:351] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: ${gen} tokens/s, Running: ${running} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.`;
const shm = (m: string) =>
  `(EngineCore_DP0 pid=3) INFO 12-09 11:${m}:53 [shm_broadcast.py:466] No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are hanging or doing some time-consuming work (e.g. compilation).`;
const added = 'INFO 09-10 09:54:45 async_llm_engine.py:206] Added request cmpl-1-0.';

describe('a serving launch that stopped making progress', () => {
  it('three stats lines in a row with requests running and no token made: in progress, at serving', () => {
    const l = last(
      [
        added,
        stats('01', '4.0', 2),
        stats('11', '0.0', 2),
        stats('21', '0.0', 2),
        stats('31', '0.0', 2),
      ].join('\n'),
    );
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'serving');
  });

  it('idle stats with nothing running, or tokens made again, are serving', () => {
    assert.equal(
      last([added, stats('01', '0.0', 0), stats('11', '0.0', 0), stats('21', '0.0', 0)].join('\n')).outcome,
      'serving',
    );
    assert.equal(
      last(
        [
          added,
          stats('01', '0.0', 2),
          stats('11', '0.0', 2),
          stats('21', '0.0', 2),
          stats('31', '3.5', 2),
        ].join('\n'),
      ).outcome,
      'serving',
    );
  });

  it("two stall hints after the last work (vLLM's shm broadcast wait, a minute each): in progress", () => {
    const bar =
      'Processed prompts:   0%|          | 0/4 [00:00<?, ?it/s, est. speed input: 0.00 toks/s, output: 0.00 toks/s]';
    assert.equal(last([bar, shm('25'), shm('26')].join('\n')).outcome, 'in_progress');
    assert.equal(last([bar, shm('25')].join('\n')).outcome, 'serving');
    assert.equal(last([shm('25'), shm('26'), bar].join('\n')).outcome, 'serving');
  });
});
