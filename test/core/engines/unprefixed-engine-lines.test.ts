/**
 * Issue 22 (reading the logs users paste): synthetic tests, made-up lines of the shapes SGLang and vLLM print,
 * for the rules that read a fragment with no banner, no logger prefix, or no phase line before its failure.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyFailureText } from '../../../src/core/base/failure-class.js';
import { analyzeText } from '../../helpers.js';

const last = (text: string) => {
  const r = analyzeText(text);
  return { ...r.launches[r.launches.length - 1]!, engine: r.engine, count: r.launches.length };
};

describe("an engine's own log calls, pasted without their logger prefix (catalog-match.ts catalogOwner)", () => {
  it("name vLLM by V0's worker and executor lines (worker/model_runner.py, executor/gpu_executor.py)", () => {
    const l = last(
      [
        'Loading model weights took 7.1234 GB',
        '# GPU blocks: 2210, # CPU blocks: 4096',
        'Maximum concurrency for 8192 tokens per request: 4.32x',
      ].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
  });

  it('name the engine by an exception message only its source raises, with its type or without, its tail cut', () => {
    // SGLang mem_cache/allocation.py alloc_paged_token_slots_decode: raised while the scheduler forms a batch
    const sg = last(
      [
        'RuntimeError: Decode out of memory. Try to lower your batch size.',
        'Try to allocate 64 tokens.',
        'Available tokens: 1000 (available_size=1000 + evictable_size=0)',
      ].join('\n'),
    );
    assert.equal(sg.engine, 'sglang');
    assert.equal(sg.phase, 'serving');
    assert.equal(sg.failure?.class, 'oom');
    // vLLM v1/core/kv_cache_utils.py check_enough_kv_cache_memory, pasted without its closing URL sentence
    const vl = last(
      "To serve at least one request with the model's max seq len (65536), (8.0 GiB KV cache is needed, which is larger than the available KV cache memory (6.5 GiB). Based on the available memory, the estimated maximum model length is 53248. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    );
    assert.equal(vl.engine, 'vllm');
    assert.equal(vl.phase, 'kv_cache');
  });

  it('leave a line two engines print alike unnamed (the safetensors bar SGLang copied from vLLM)', () => {
    const r = analyzeText(
      'Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:03<00:09,  3.10s/it]',
    );
    assert.equal(r.engine, null);
  });

  it("do not name llama.cpp from its library's lines, which programs that embed it print too", () => {
    const r = analyzeText(
      'llama_new_context_with_model: KV self size  = 1024.00 MiB, K (f16): 512.00 MiB, V (f16): 512.00 MiB',
    );
    assert.equal(r.engine, null);
  });
});

describe("a crash in vLLM's model code with no caller frame (traceback.ts VLLM_MODEL_CODE)", () => {
  const forward = [
    '  File "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1751, in _call_impl',
    '    return forward_call(*args, **kwargs)',
    '  File "/opt/venv/lib/python3.12/site-packages/vllm/model_executor/layers/layernorm.py", line 140, in forward_cuda',
    '    return rms_norm(x, self.weight.data, self.variance_epsilon)',
    'RuntimeError: CUDA error: no kernel image is available for execution on the device',
  ];

  it('is in the memory-profiling forward pass that sizes the KV cache', () => {
    const l = last(forward.join('\n'));
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'kv_cache');
    assert.equal(l.failure?.class, 'cuda_error');
  });

  it('keeps the phase a launch had already reached (a forward while serving)', () => {
    const l = last(
      [
        'INFO 05-01 10:00:00 [api_server.py:1000] Starting vLLM API server 0 on http://0.0.0.0:8000',
        'INFO:     Application startup complete.',
        'INFO:     127.0.0.1:50000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
        ...forward,
      ].join('\n'),
    );
    assert.equal(l.phase, 'serving');
  });

  it('is not read in a layer taking its weights in, nor in an import of the layers', () => {
    const load = last(
      [
        '  File "/opt/venv/lib/python3.12/site-packages/vllm/model_executor/layers/linear.py", line 500, in weight_loader',
        '    assert param_data.shape == loaded_weight.shape',
        'AssertionError',
      ].join('\n'),
    );
    assert.notEqual(load.phase, 'kv_cache');
    const imp = last(
      [
        '  File "/opt/venv/lib/python3.12/site-packages/vllm/model_executor/layers/quantization/awq.py", line 9, in <module>',
        '    from vllm import _custom_ops as ops',
        'ImportError: libcudart.so.12: cannot open shared object file: No such file or directory',
      ].join('\n'),
    );
    assert.notEqual(imp.phase, 'kv_cache');
  });
});

describe('failure wording', () => {
  it('a kernel not implemented for the device is unsupported (vLLM csrc/quantization/cutlass_w8a8/c3x/scaled_mm_sm120.cu)', () => {
    assert.equal(
      classifyFailureText('RuntimeError: Currently, block scaled fp8 gemm is not implemented for Blackwell'),
      'unsupported',
    );
  });

  it('a child ended by SIGKILL or SIGTERM is killed (multiprocessing exitcode -N)', () => {
    // vLLM V0 executor/multiproc_worker_utils.py WorkerMonitor.run
    assert.equal(classifyFailureText('Worker VllmWorkerProcess pid 4242 died, exit code: -15'), 'killed');
    assert.equal(classifyFailureText('Worker VllmWorkerProcess pid 4242 died, exit code: -9'), 'killed');
    // SGLang entrypoints/engine.py
    assert.equal(classifyFailureText('Scheduler or DataParallelController 777 terminated with -9'), 'killed');
    assert.equal(
      classifyFailureText('Rank 0 scheduler died during initialization (exit code: -9).'),
      'killed',
    );
    assert.equal(classifyFailureText('Worker VllmWorkerProcess pid 4242 died, exit code: 1'), null);
  });

  it('a vLLM V0 worker killed during start-up reads as a killed crash', () => {
    const l = last(
      [
        'ERROR 08-01 12:00:00 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 4242 died, exit code: -15',
        'INFO 08-01 12:00:00 multiproc_worker_utils.py:123] Killing local vLLM worker processes',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'killed');
  });
});

describe('py-spy stack dumps (reading/pyspy.ts; py-spy src/dump.rs prints frames innermost first)', () => {
  it("place a hung launch by its frames, and SGLang's watchdog dump says it is stuck (utils pyspy_dump_schedulers)", () => {
    const l = last(
      [
        '[2026-01-10 08:00:00 TP0] Pyspy dump for PID 4242:',
        'Process 4242: sglang::scheduler_TP0',
        'Python v3.12.3 (/usr/bin/python3.12)',
        '',
        'Thread 4242 (active): "MainThread"',
        '    sample (sampler.py:90)',
        '    run_batch (scheduler.py:1800)',
        '    event_loop_overlap (scheduler.py:900)',
        '    run_scheduler_process (scheduler.py:2700)',
        '    run (multiprocessing/process.py:108)',
      ].join('\n'),
    );
    assert.equal(l.engine, 'sglang');
    assert.equal(l.phase, 'serving');
    assert.equal(l.outcome, 'in_progress');
  });

  it("read a user's dump of a launch hung capturing graphs at that step", () => {
    const l = last(
      [
        '[2026-01-10 08:00:00 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=30.00 GB',
        'Thread 4242 (active): "MainThread"',
        '    all_reduce (parallel_state.py:400)',
        '    capture (cuda_graph_runner.py:380)',
        '    __init__ (cuda_graph_runner.py:300)',
        '    init_cuda_graphs (model_runner.py:1500)',
      ].join('\n'),
    );
    assert.equal(l.phase, 'cuda_graph');
  });
});
