/**
 * A fragment that begins at a stop (analyzer.ts segment): the start-up lines after it are the same launch's other
 * processes, still printing while they stop, not a relaunch.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const worker = (tag: string, msg: string) =>
  `(Worker_${tag} pid=1387) WARNING 04-03 16:05:24 [multiproc_executor.py:866] ${msg}`;

describe('a fragment that begins at a stop', () => {
  it('is one launch with the shard bar printed among the stopping workers, stopped while loading', () => {
    const r = analyzeText(
      [
        worker('DP0_TP0', 'WorkerProc was terminated'),
        'Loading safetensors checkpoint shards:  29% Completed | 2/7 [00:05<00:14,  2.96s/it]',
        worker('DP1_TP2', 'WorkerProc was terminated'),
      ].join('\n'),
    );
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.outcome, 'shutdown');
    assert.equal(r.launches[0]!.phase, 'loading_weights');
  });

  it('a stop after a launch that got somewhere, then loading again, is still a relaunch', () => {
    const r = analyzeText(
      [
        "INFO 04-03 16:00:00 [utils.py:253] non-default args: {'model': 'm/x'}",
        'Loading safetensors checkpoint shards: 100% Completed | 7/7 [00:15<00:00,  2.1s/it]',
        worker('DP0_TP0', 'WorkerProc was terminated'),
        'Loading safetensors checkpoint shards:  29% Completed | 2/7 [00:05<00:14,  2.96s/it]',
      ].join('\n'),
    );
    assert.equal(r.launches.length, 2);
  });
});
