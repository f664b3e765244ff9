import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { combineNodes } from '../../../src/core/multinode/combine.js';
import { combineVerdicts } from '../../../src/core/multinode/live.js';
import { matchLatest } from '../../../src/core/multinode/match.js';
import { workerDone } from '../../../src/core/multinode/worker.js';
import { liveVerdict } from '../../../src/core/verdict/verdict.js';
import { analyzeText } from '../../helpers.js';
import { nodeLog, sglangNode } from './fixtures.js';

/** Made-up vLLM data-parallel node logs (V1 line shapes): the head serves the API, the other runs --headless. */
function vllmNode(head: boolean, upTo: 'engine' | 'api'): string {
  const args = head
    ? "{'model': 'org/M', 'data_parallel_size': 4, 'data_parallel_size_local': 2, 'data_parallel_address': '10.3.3.3'}"
    : "{'model': 'org/M', 'headless': True, 'data_parallel_size': 4, 'data_parallel_size_local': 2, 'data_parallel_start_rank': 2, 'data_parallel_address': '10.3.3.3'}";
  const dp = head ? 0 : 2;
  const lines = [
    `INFO 03-01 10:00:00 [utils.py:253] non-default args: ${args}`,
    `(EngineCore_DP${dp} pid=2${dp}) INFO 03-01 10:00:08 [parallel_state.py:1200] world_size=4 rank=${dp} local_rank=0 distributed_init_method=tcp://10.3.3.3:29500 backend=nccl`,
    `(EngineCore_DP${dp} pid=2${dp}) INFO 03-01 10:00:12 [gpu_model_runner.py:2000] Starting to load model org/M...`,
    `(EngineCore_DP${dp} pid=2${dp}) INFO 03-01 10:00:40 [core.py:210] init engine (profile, create kv cache, warmup model) took 28.00 seconds`,
  ];
  if (upTo === 'api')
    lines.push(
      // (the API server building its app: `Starting vLLM API server …`, logged next, says ready)
      "(APIServer pid=9) INFO 03-01 10:00:42 [api_server.py:1800] Supported tasks: ['generate']",
    );
  return `${lines.join('\n')}\n`;
}

describe('a worker node whose own startup is over', () => {
  it("vLLM --headless (v1/engine/core.py EngineCore._initialize_kv_caches): done at `init engine … took`; the head isn't", () => {
    const w = analyzeText(vllmNode(false, 'engine'));
    assert.equal(workerDone(w.launches[0]!, w.engine), true);
    const h = analyzeText(vllmNode(true, 'api'));
    assert.equal(h.launches[0]!.outcome, 'in_progress');
    const early = analyzeText(vllmNode(false, 'engine').split('\n').slice(0, 3).join('\n'));
    assert.equal(workerDone(early.launches[0]!, early.engine), false);
  });

  it('SGLang --node-rank 1: done at its dummy health-check server', () => {
    const r = analyzeText(sglangNode({ rank: 1 }));
    assert.equal(workerDone(r.launches[0]!, r.engine), true);
  });

  it('a done worker silent for an hour is ready, not stalled: the launch waits for its head', () => {
    const a = vllmNode(true, 'api');
    const b = vllmNode(false, 'engine');
    const m = matchLatest([nodeLog('head', a), nodeLog('worker', b)]);
    assert.ok(m.ok, m.ok ? '' : m.error);
    const across = combineNodes(m);
    assert.equal(across.culprit?.name, 'head');
    assert.deepEqual(
      across.nodes.map((n) => n.done),
      [false, true],
    );
    const judge = (text: string) => {
      const report = analyzeText(text);
      const l = report.launches[0]!;
      return liveVerdict({ report, obs: {}, now: l.endTs! + 3600, progressAt: l.endTs!, logExists: true });
    };
    const v = combineVerdicts(
      [
        { name: 'head', head: true, verdict: judge(a) },
        { name: 'worker', head: false, verdict: judge(b) },
      ],
      across,
    );
    assert.equal(v.state, 'stalled');
    assert.deepEqual(
      v.nodes.map((n) => n.state),
      ['stalled', 'ready'],
    );
    assert.match(v.why, /^head holds the launch back/);
  });
});
