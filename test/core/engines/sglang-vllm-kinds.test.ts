/**
 * SGLang and vLLM rules from the second blind set of 2026-12-03 (issue 22), each stated as a fact of the engine's
 * source and tested here with synthetic lines (made up, of the shape the engine prints), never a corpus file.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const last = (text: string) => {
  const r = analyzeText(text);
  return { ...r.launches[r.launches.length - 1]!, engine: r.engine, count: r.launches.length };
};

describe('SGLang: a decode retraction (scheduler.py Scheduler.update_running_batch) is a served batch', () => {
  it('synthetic: the v0.4 wording alone reads as serving, not a crash', () => {
    const l = last(
      [
        '[2025-01-02 03:04:05 TP3] Decode out of memory happened. #retracted_reqs: 2, #new_token_ratio: 0.2000 -> 0.3000',
        '[2025-01-02 03:04:06 TP1] Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.2000 -> 0.3000',
      ].join('\n'),
    );
    assert.equal(l.engine, 'sglang');
    assert.equal(l.phase, 'serving');
    assert.equal(l.outcome, 'serving');
    assert.equal(l.failure, null);
  });

  it('synthetic: the newer wording (`KV cache pool is full. Retract requests.`) too', () => {
    const l = last(
      '[2026-01-02 03:04:05 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 3, #new_token_ratio: 0.5000 -> 0.7000',
    );
    assert.equal(l.phase, 'serving');
    assert.equal(l.failure, null);
  });
});

describe("SGLang's gRPC router connecting to its workers' schedulers (grpc_client/sglang_scheduler.rs, core/worker.rs)", () => {
  it('synthetic: the connect attempts and their retries mean the launch has begun (args), no crash', () => {
    const l = last(
      [
        '2026-01-02 03:04:05 DEBUG sglang_router_rs::grpc_client::sglang_scheduler: src/grpc_client/sglang_scheduler.rs:30: Connecting to SGLang scheduler at grpc://127.0.0.1:30001',
        '2026-01-02 03:04:05 ERROR sglang_router_rs::core::worker: src/core/worker.rs:500: Failed to connect gRPC client for worker grpc://127.0.0.1:30001: transport error',
      ].join('\n'),
    );
    assert.equal(l.engine, 'sglang');
    assert.equal(l.phase, 'args');
    assert.notEqual(l.outcome, 'crashed');
  });
});

describe('vLLM V0: `Starting profile run for multi-modal models.` (model_runner.py / enc_dec_model_runner.py profile_run)', () => {
  it('synthetic: the profile run sizes the KV cache, so a crash after it is in kv_cache', () => {
    const l = last(
      [
        'INFO 01-02 03:04:05 model_runner.py:1000] Loading model weights took 12.0000 GB',
        'INFO 01-02 03:04:06 enc_dec_model_runner.py:300] Starting profile run for multi-modal models.',
        'Traceback (most recent call last):',
        '  File "/usr/lib/python3/dist-packages/vllm/engine/multiprocessing/engine.py", line 390, in run_mp_engine',
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.',
      ].join('\n'),
    );
    assert.equal(l.phase, 'kv_cache');
    assert.equal(l.outcome, 'crashed');
  });
});

describe("vLLM's Ascend plugin (vllm-ascend) frames are read as vLLM's worker steps", () => {
  const pkg = '/usr/local/lib/python3.11/site-packages';
  it('synthetic: a traceback through NPUModelRunner.capture_model is in cuda_graph, not the KV cache', () => {
    const l = last(
      [
        'Traceback (most recent call last):',
        `  File "${pkg}/vllm/v1/engine/core.py", line 90, in _initialize_kv_caches`,
        '    self.model_executor.initialize_from_config(kv_cache_configs)',
        `  File "${pkg}/vllm/v1/executor/abstract.py", line 60, in initialize_from_config`,
        '    self.collective_rpc("compile_or_warm_up_model")',
        `  File "${pkg}/vllm_ascend/worker/worker_v1.py", line 250, in compile_or_warm_up_model`,
        '    self.model_runner.capture_model()',
        `  File "${pkg}/vllm_ascend/worker/model_runner_v1.py", line 2400, in capture_model`,
        '    self._dummy_run(num_tokens)',
        `  File "${pkg}/vllm_ascend/worker/model_runner_v1.py", line 2000, in _dummy_run`,
        '    hidden_states = self.model(input_ids)',
        'RuntimeError: synthetic failure',
      ].join('\n'),
    );
    assert.equal(l.phase, 'cuda_graph');
    assert.equal(l.outcome, 'crashed');
  });

  it('synthetic: the same _dummy_run under profile_run stays in the KV-cache sizing', () => {
    const l = last(
      [
        'Traceback (most recent call last):',
        `  File "${pkg}/vllm/v1/engine/core.py", line 80, in _initialize_kv_caches`,
        '    available_gpu_memory = self.model_executor.determine_available_memory()',
        `  File "${pkg}/vllm_ascend/worker/model_runner_v1.py", line 3400, in profile_run`,
        '    self._dummy_run(self.max_num_tokens)',
        `  File "${pkg}/vllm_ascend/worker/model_runner_v1.py", line 2000, in _dummy_run`,
        '    hidden_states = self.model(input_ids)',
        'RuntimeError: synthetic failure',
      ].join('\n'),
    );
    assert.equal(l.phase, 'kv_cache');
  });
});

describe("Python's traceback header cut by the paste (`Traceback (most recent call las`)", () => {
  it('synthetic: still opens a traceback, as the whole header does', () => {
    const l = last(
      [
        'INFO 01-02 03:04:05 model_runner.py:900] Loading model weights took 14.0000 GB',
        '[rank0]: Traceback (most recent call la',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'weights_loaded');
  });
});
