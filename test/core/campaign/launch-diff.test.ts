import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { parseBenchOutput } from '../../../src/core/campaign/bench/index.js';
import { diffLaunches, numDelta } from '../../../src/core/campaign/launch-diff.js';
import { configGroup } from '../../../src/core/config/groups.js';
import { SHARED } from '../../helpers.js';
import { benchRecord, scenarioRecords } from '../../ledger-fixtures.js';

const [cutlass] = scenarioRecords('glm5-cutlass-bench-then-shutdown.log');
const [oom] = scenarioRecords('glm5-trtllm-oom-in-cuda-graph.log');
const [first, stuck] = scenarioRecords('glm5-relaunch-stuck-at-48pct.log');
const bench = (name: string) =>
  parseBenchOutput(fs.readFileSync(path.join(SHARED, 'bench', name), 'utf8'), name);

describe('configGroup', () => {
  it('puts keys where an engineer looks for them', () => {
    const cases: Record<string, string> = {
      tp_size: 'parallelism',
      tensor_parallel_size: 'parallelism',
      moe_a2a_backend: 'parallelism',
      mem_fraction_static: 'memory',
      kv_cache_dtype: 'memory',
      gpu_memory_utilization: 'memory',
      max_running_requests: 'scheduling',
      chunked_prefill_size: 'scheduling',
      schedule_policy: 'scheduling',
      moe_runner_backend: 'kernels',
      attention_backend: 'kernels',
      disable_cuda_graph: 'kernels',
      cuda_graph_max_bs: 'kernels',
      enforce_eager: 'kernels',
      quantization: 'model',
      model_path: 'model',
      speculative_algorithm: 'speculative',
      speculative_attention_backend: 'speculative',
      decode_log_interval: 'other',
    };
    for (const [k, g] of Object.entries(cases)) assert.equal(configGroup(k), g, k);
  });
});

describe('diffLaunches', () => {
  it('cutlass (served, shut down) vs trtllm (OOM in CUDA graph): grouped config, outcome, phases', () => {
    const d = diffLaunches(cutlass!, oom!);
    assert.equal(d.sameConfig, false);
    const groups = Object.fromEntries(d.config.map((g) => [g.group, g.changes]));
    assert.deepEqual(
      groups.kernels!.find((c) => c.key === 'moe_runner_backend'),
      { key: 'moe_runner_backend', from: 'flashinfer_cutlass', to: 'flashinfer_trtllm' },
    );
    // groups come in a fixed order, and no key shows twice
    const order = d.config.map((g) => g.group);
    assert.deepEqual(
      order,
      [...order].sort((x, y) => GROUP_ORDER.indexOf(x) - GROUP_ORDER.indexOf(y)),
    );
    const keys = d.config.flatMap((g) => g.changes.map((c) => c.key));
    assert.equal(new Set(keys).size, keys.length);
    assert.ok(!keys.includes('random_seed'), 'volatile keys are not changes');
    assert.equal(d.outcome.a, 'shutdown');
    assert.equal(d.outcome.b, 'crashed');
    assert.equal(d.outcome.failureA, null);
    assert.equal(d.outcome.failureB!.class, 'oom');
    assert.equal(d.load.b, null, 'never ready');
    assert.equal(d.load.delta, null);
    const graph = d.phases.find((p) => p.phase === 'cuda_graph');
    assert.ok(graph, JSON.stringify(d.phases.map((p) => p.phase)));
    assert.equal(graph.openB, true, 'the crash ended cuda_graph: a duration so far');
    const serving = d.phases.find((p) => p.phase === 'serving');
    assert.ok(serving && serving.a !== null && serving.b === null);
    assert.equal(d.throughput[0]!.metric, 'peak_tok_s');
    assert.ok(d.throughput[0]!.a! > 1900);
    assert.equal(d.throughput[0]!.b, null);
    assert.deepEqual(
      d.identity.map((x) => x.key),
      ['path'],
      'same model, engine, host and port; another file',
    );
  });

  it('relaunch into the same file: the two flags that changed, and the load still under way', () => {
    const d = diffLaunches(first!, stuck!);
    const flat = Object.fromEntries(
      d.config.flatMap((g) => g.changes.map((c) => [c.key, [g.group, c.from, c.to]])),
    );
    assert.deepEqual(flat.max_running_requests, ['scheduling', 64, null]);
    assert.deepEqual(flat.disable_cuda_graph, ['kernels', false, true]);
    const lw = d.phases.find((p) => p.phase === 'loading_weights')!;
    assert.equal(lw.openA, false);
    assert.equal(lw.openB, true);
    assert.ok(lw.a! > lw.b!);
    assert.deepEqual([lw.delta, lw.pct], [null, null], 'no speed-up read from a load that is still going');
    const kv = d.phases.find((p) => p.phase === 'kv_cache')!;
    assert.equal(kv.b, null);
  });

  it('benches are compared at the same concurrency; different ones are flagged not like for like', () => {
    const runs = bench('sglang-bench-serving.jsonl');
    const a = runs.map((p) => benchRecord(p, cutlass!.id));
    const b = [benchRecord({ ...runs[2]!, outputTokS: 2000, runText: 'x' }, oom!.id)];
    const d = diffLaunches(cutlass!, oom!, a, b);
    const c1024 = d.benches.find((p) => p.concurrency === 1024)!;
    assert.equal(c1024.like, true);
    const out = c1024.metrics.find((m) => m.metric === 'output_tok_s')!;
    assert.deepEqual([out.a, out.b, out.delta, out.pct], [1865.85, 2000, 134.15, 7.2]);
    const c1 = d.benches.find((p) => p.concurrency === 1)!;
    assert.equal(c1.b, null);
    // no concurrency in common: best against best, marked
    const other = [benchRecord({ ...runs[0]!, maxConcurrency: 8, runText: 'y' }, oom!.id)];
    const d2 = diffLaunches(cutlass!, oom!, a, other);
    assert.equal(d2.benches.length, 1);
    assert.equal(d2.benches[0]!.like, false);
    assert.equal(d2.benches[0]!.a!.maxConcurrency, 1024);
  });

  it('numDelta: null-safe, percent of the first', () => {
    assert.deepEqual(numDelta(100, 150), { a: 100, b: 150, delta: 50, pct: 50 });
    assert.deepEqual(numDelta(null, 150), { a: null, b: 150, delta: null, pct: null });
    assert.deepEqual(numDelta(0, 5), { a: 0, b: 5, delta: 5, pct: null });
  });
});

const GROUP_ORDER = ['model', 'parallelism', 'memory', 'scheduling', 'kernels', 'speculative', 'other'];
