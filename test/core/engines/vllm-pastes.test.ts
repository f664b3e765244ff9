/**
 * vLLM rules found by reading real pastes (issue 22: the corpus's vLLM cases, test/fixtures/wild/vllm,
 * test/fixtures/unseen-2026-12-02/vllm): each is tested with made-up lines of the shape vLLM prints, and names
 * the source it rests on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const last = (text: string) => {
  const r = analyzeText(text);
  return { ...r.launches[r.launches.length - 1]!, engine: r.engine, count: r.launches.length };
};

describe("the worker's start-up memory check (Worker.init_device, v1/worker/utils.py request_memory)", () => {
  it('is out of memory before any weight loads, and says vLLM, even with its sentence wrapped', () => {
    const l = last(
      [
        'ValueError: Free memory on device cuda:1 (12.50/79.19 GiB) on startup is less than',
        'desired GPU memory utilization (0.9, 71.27 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.',
      ].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'oom');
    assert.equal(l.phase, 'dist_init');
  });

  it('the 2025-09 wording names no device', () => {
    const l = last(
      'ValueError: Free memory on device (3.1/23.5 GiB) on startup is less than desired GPU memory utilization (0.9, 21.15 GiB).',
    );
    assert.equal(l.failure?.class, 'oom');
  });
});

describe("uvicorn's stop lines (uvicorn/server.py Server._serve), which vLLM's serve_http runs once the engine is up", () => {
  it('say the server had been ready, in a paste that begins with them', () => {
    const l = last(
      [
        'INFO:     Shutting down',
        'INFO:     Waiting for application shutdown.',
        'INFO:     Application shutdown complete.',
        'INFO:     Finished server process [4242]',
        'INFO 03-01 10:00:00 async_llm_engine.py:51] Engine is gracefully shutting down.',
      ].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
    assert.equal(l.outcome, 'shutdown');
    assert.equal(l.phase, 'ready');
  });

  it('do not move a launch that served back to ready', () => {
    const l = last(
      [
        'INFO 03-01 09:59:00 metrics.py:351] Avg prompt throughput: 5.4 tokens/s, Avg generation throughput: 4.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.',
        'INFO:     Shutting down',
        'INFO:     Finished server process [4242]',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'shutdown');
    assert.equal(l.phase, 'serving');
  });
});

describe("the API server's wait for the engine cores (v1/engine/utils.py wait_for_engine_startup)", () => {
  const wait = (ts: string) =>
    `(APIServer pid=7) DEBUG 09-02 17:29:${ts} [utils.py:777] Waiting for 1 local, 0 remote core engine proc(s) to start.`;
  it('is the start under way (dist_init), one launch however often it repeats', () => {
    const l = last([wait('06'), wait('16'), wait('26')].join('\n'));
    assert.equal(l.engine, 'vllm');
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'dist_init');
    assert.equal(l.count, 1);
  });

  it('repeating among the loading lines, it moves nothing back and opens no launch', () => {
    const l = last(
      [
        '(EngineCore_DP0 pid=9) INFO 09-02 17:29:10 [gpu_model_runner.py:1953] Starting to load model m/x...',
        wait('16'),
        '(EngineCore_DP0 pid=9) INFO 09-02 17:29:20 [gpu_model_runner.py:1985] Model loading took 8.5 GiB and 9.9 seconds',
        wait('26'),
      ].join('\n'),
    );
    assert.equal(l.phase, 'weights_loaded');
    assert.equal(l.count, 1);
  });
});

describe('between the weights and the torch.compile of the profile run (vLLM V1)', () => {
  const core = (msg: string) => `(EngineCore pid=12) INFO 05-06 21:00:00 ${msg}`;
  const loaded = core('[gpu_model_runner.py:4879] Model loading took 12.66 GiB memory and 31.6 seconds');
  const compiling = core(
    "[backends.py:1069] Using cache directory: /root/.cache/vllm/torch_compile_cache/ab12/rank_0_0/backbone for vLLM's torch.compile",
  );

  it("the encoder's profile (GPUModelRunner.profile_run) comes before the compile: the compile then shows", () => {
    const budget = core(
      '[gpu_model_runner.py:5820] Encoder cache will be initialized with a budget of 8192 tokens, and profiled with 3 video items of the maximum feature size.',
    );
    assert.equal(last([loaded, budget].join('\n')).phase, 'weights_loaded');
    assert.equal(last([loaded, budget, compiling].join('\n')).phase, 'compile');
  });

  it("a hybrid model's block size (update_block_size_for_backend after load_model) hides no compile either", () => {
    const l = last(
      [
        loaded,
        core(
          '[interface.py:905] Setting attention block size to 1568 tokens to ensure that attention page size is >= mamba page size.',
        ),
        core(
          '[interface.py:929] Padding mamba page size by 0.13% to ensure that mamba page size and attention page size are exactly equal.',
        ),
        compiling,
      ].join('\n'),
    );
    assert.equal(l.phase, 'compile');
  });

  it('logged by the API server while it builds the config (before 2026), the same line is args, not KV sizing', () => {
    const l = last(
      [
        "(APIServer pid=733) INFO 11-14 21:01:38 [utils.py:253] non-default args: {'model': 'm/x'}",
        '(APIServer pid=733) INFO 11-14 21:01:39 [config.py:422] Setting attention block size to 528 tokens to ensure that attention page size is >= mamba page size.',
      ].join('\n'),
    );
    assert.equal(l.phase, 'args');
  });
});

describe("a worker's failure that names the start of a graph capture (torch's / torch_npu's capture_begin)", () => {
  it('failed in graph capture, classed by its text as the plain report is', () => {
    const l = last(
      [
        "(EngineCore pid=90) INFO 04-17 09:16:00 [core.py:93] Initializing a V1 LLM engine (v0.18.0) with config: model='m/x'",
        " RuntimeError: Worker failed with error 'NPUModelRunner failed, error is capture_begin:build/CMakeFiles/torch_npu.dir/graphs.cpp:80 NPU function error: c10_npu::acl::AclmdlRICaptureBegin(capture_stream, mode), error code is 207005', please check the stack trace above for the root cause",
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'cuda_graph');
    assert.equal(l.failure?.class, 'cuda_error');
  });

  it('a worker failure without it keeps the phase the log showed', () => {
    const l = last(
      [
        "(EngineCore pid=90) INFO 04-17 09:16:00 [core.py:93] Initializing a V1 LLM engine (v0.18.0) with config: model='m/x'",
        " RuntimeError: Worker failed with error 'CUDA error: an illegal memory access was encountered', please check the stack trace above for the root cause",
      ].join('\n'),
    );
    assert.notEqual(l.phase, 'cuda_graph');
  });
});

describe("the engine-core monitor's report (MPClient.start_engine_core_monitor, started once every core is ready)", () => {
  it('a core that died after start-up: crashed in its busy loop, serving', () => {
    const l = last(
      [
        '2025-11-02 13:17:04,315 - vllm.v1.engine.core_client - ERROR - Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.',
        '2025-11-02 13:17:04,315 - vllm.v1.executor.multiproc_executor - INFO - WorkerProc shutting down.',
      ].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
  });

  it("the newest wording, after the core's own traceback, keeps that traceback's class", () => {
    const l = last(
      [
        '(EngineCore_DP0 pid=5) ERROR 03-01 10:00:00 [core.py:900] EngineCore encountered a fatal error.',
        '(EngineCore_DP0 pid=5) ERROR 03-01 10:00:00 [core.py:900] Traceback (most recent call last):',
        '(EngineCore_DP0 pid=5) ERROR 03-01 10:00:00 [core.py:900]   File "/x/vllm/v1/engine/core.py", line 880, in run_busy_loop',
        '(EngineCore_DP0 pid=5) ERROR 03-01 10:00:00 [core.py:900]     self._process_engine_step()',
        '(EngineCore_DP0 pid=5) ERROR 03-01 10:00:00 [core.py:900] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.',
        '(APIServer pid=1) WARNING 03-01 10:00:01 [core_client.py:700] [shutdown] MPClient: engine core exited unexpectedly; starting cleanup',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
    assert.equal(l.failure?.class, 'oom');
  });
});
