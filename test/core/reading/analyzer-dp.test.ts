import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

/**
 * vLLM data parallel: each engine core (`EngineCore_DP{rank}`, v1/engine/utils.py CoreEngineProcManager) logs
 * its own `Initializing a V1 LLM engine` (v1/engine/core.py EngineCore.__init__). Made-up lines, vLLM 0.11 shapes.
 */
const engine = (dp: number, t: string) =>
  `(EngineCore_DP${dp} pid=${100 + dp}) INFO 03-01 ${t} [core.py:93] Initializing a V1 LLM engine (v0.11.0) with config: model='org/M', tensor_parallel_size=1, data_parallel_size=2`;
const args = (t: string) =>
  `(APIServer pid=9) INFO 03-01 ${t} [utils.py:253] non-default args: {'model': 'org/M', 'data_parallel_size': 2}`;
const load = (dp: number, t: string) =>
  `(EngineCore_DP${dp} pid=${100 + dp}) INFO 03-01 ${t} [gpu_model_runner.py:3259] Starting to load model org/M...`;

describe('launch boundaries with data-parallel engine cores', () => {
  it('the engines of one launch each logging their config are one launch', () => {
    const r = analyzeText(
      [
        args('10:00:00'),
        engine(0, '10:00:05'),
        engine(1, '10:00:05'),
        load(0, '10:00:09'),
        load(1, '10:00:09'),
        '',
      ].join('\n'),
    );
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.phase, 'loading_weights');
  });

  it('an engine config logged again by the same DP rank is a relaunch', () => {
    const r = analyzeText(
      [engine(0, '10:00:05'), engine(1, '10:00:05'), engine(0, '10:05:05'), engine(1, '10:05:05'), ''].join(
        '\n',
      ),
    );
    assert.equal(r.launches.length, 2);
    assert.equal(r.launches[1]!.startLine, 3);
  });
});
