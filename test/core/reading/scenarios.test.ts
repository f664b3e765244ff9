import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { diffConfig } from '../../../src/core/campaign/diff.js';
import { analyzeFile } from '../../../src/sources/file.js';
import { SCENARIOS } from '../../helpers.js';

const read = (name: string) => analyzeFile(path.join(SCENARIOS, name)).report;

describe('the four seed scenarios', () => {
  it('relaunch stuck at 48%: two launches, nothing of launch 1 leaks into launch 2', () => {
    const r = read('glm5-relaunch-stuck-at-48pct.log');
    assert.equal(r.engine, 'sglang');
    assert.equal(r.launches.length, 2);
    const [l1, l2] = r.launches;
    assert.equal(l2!.outcome, 'in_progress');
    assert.equal(l2!.phase, 'loading_weights');
    assert.deepEqual({ done: l2!.progress!.done, total: l2!.progress!.total }, { done: 40, total: 83 });
    // launch 1's milestones stay in launch 1
    assert.ok(l2!.phases.every((p) => p.line >= l2!.startLine));
    assert.ok(!l2!.phases.some((p) => ['weights_loaded', 'kv_cache', 'ready', 'serving'].includes(p.phase)));
    assert.ok(l1!.phases.some((p) => p.phase === 'weights_loaded'));
    assert.ok(l1!.ready && l1!.ready.line < l2!.startLine);
    assert.ok(l1!.endLine < l2!.startLine);
    // launch 1 served at about 880 tok/s and ended without a word
    assert.equal(l1!.outcome, 'ended');
    assert.equal(l1!.phase, 'serving');
    assert.ok(
      l1!.throughput!.median! > 800 && l1!.throughput!.median! < 960,
      `median ${l1!.throughput!.median}`,
    );
    assert.equal(l1!.failure, null);
    assert.equal(l1!.shutdown, null);
    const changes = Object.fromEntries(
      diffConfig(l1!.config, l2!.config).map((c) => [c.key, [c.from, c.to]]),
    );
    assert.deepEqual(changes.max_running_requests, [64, null]);
    assert.deepEqual(changes.disable_cuda_graph, [false, true]);
  });

  it('cutlass bench then shutdown: a clean exit, flashinfer_cutlass, ~2000 peak / ~1866 typical tok/s', () => {
    const r = read('glm5-cutlass-bench-then-shutdown.log');
    assert.equal(r.launches.length, 1);
    const l = r.launches[0]!;
    assert.equal(l.outcome, 'shutdown');
    assert.equal(l.phase, 'serving');
    assert.equal(l.failure, null);
    assert.equal(l.config.moe_runner_backend, 'flashinfer_cutlass');
    assert.ok(Math.abs(l.throughput!.peak! - 2000) < 60, `peak ${l.throughput!.peak}`);
    assert.ok(Math.abs(l.throughput!.median! - 1866) < 40, `median ${l.throughput!.median}`);
  });

  it('silent after Load weight end: in progress at weights_loaded, all 8 ranks reported', () => {
    const r = read('glm5-silent-after-load-weight-end.log');
    assert.equal(r.launches.length, 1);
    const l = r.launches[0]!;
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'weights_loaded');
    assert.equal(l.ranks.length, 8);
  });

  it('trtllm OOM in CUDA graph: crashed in cuda_graph, oom on TP3, the exception line is the evidence', () => {
    const r = read('glm5-trtllm-oom-in-cuda-graph.log');
    const l = r.launches[0]!;
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'cuda_graph');
    assert.equal(l.failure!.class, 'oom');
    assert.equal(l.failure!.rank, 'TP3');
    assert.match(l.failure!.text, /Exception: Capture cuda graph failed: CUDA out of memory/);
    assert.ok(l.failure!.remedies.some((x) => x.includes('--mem-fraction-static')));
    assert.ok(l.failure!.remedies.some((x) => x.includes('--cuda-graph-max-bs')));
    // sigquit and Killed are consequences, listed after the cause
    assert.ok(!/sigquit|Killed/.test(l.failure!.text));
    assert.ok(l.failure!.evidence.some((e) => /Received sigquit/.test(e.text)));
    assert.equal(l.config.api_key, null);
  });
});
