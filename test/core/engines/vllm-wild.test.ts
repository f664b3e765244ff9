/**
 * vLLM rules found by reading real fragments from issue threads (test/fixtures/wild/vllm): each is tested with
 * made-up lines of the shape vLLM (or its platform plugin) prints, and names the source it rests on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyFailureText } from '../../../src/core/base/failure-class.js';
import { frameEngine } from '../../../src/core/engines/frames/index.js';
import { analyzeText } from '../../helpers.js';

const last = (text: string) => {
  const r = analyzeText(text);
  return { ...r.launches[r.launches.length - 1]!, engine: r.engine, count: r.launches.length };
};
const v0 = (msg: string) => `INFO 05-02 10:11:12 ${msg}`;
const w = (msg: string) => `(VllmWorkerProcess pid=310) ${msg}`;
const core = (msg: string) => `(EngineCore_DP0 pid=51) ${msg}`;
const cfg = v0(
  "llm_engine.py:232] Initializing an LLM engine (v0.6.4) with config: model='m/x', tensor_parallel_size=2",
);

describe('vLLM V0: loading milestones', () => {
  it('`Loading model weights took … GB` ends the loading (worker/model_runner.py GPUModelRunnerBase.load_model)', () => {
    const l = last(
      [
        cfg,
        v0('model_runner.py:1072] Starting to load model m/x...'),
        v0('model_runner.py:1077] Loading model weights took 7.5122 GB'),
      ].join('\n'),
    );
    assert.equal(l.phase, 'weights_loaded');
  });

  it('early V1 printed `Model loading took … GB and … seconds` (GB, not GiB)', () => {
    const l = last(
      [
        cfg,
        'INFO 03-10 08:07:20 [gpu_model_runner.py:1067] Model loading took 0.2389 GB and 0.977005 seconds',
      ].join('\n'),
    );
    assert.equal(l.phase, 'weights_loaded');
  });

  it('`Using … backend on V1 engine.` before `Starting to load model` is not loading yet (0.8-era runner init)', () => {
    const worker = (m: string) => `(VllmWorker rank=0 pid=6305) ${m}`;
    const head = [
      worker(
        'INFO 04-01 09:06:25 [parallel_state.py:954] rank 0 in world size 8 is assigned as DP rank 0, PP rank 0, TP rank 0',
      ),
      worker('INFO 04-01 09:06:25 [cuda.py:220] Using Flash Attention backend on V1 engine.'),
    ];
    assert.notEqual(last(head.join('\n')).phase, 'loading_weights');
    const l = last(
      [...head, worker('INFO 04-01 09:06:26 [gpu_model_runner.py:1278] Starting to load model m/x...')].join(
        '\n',
      ),
    );
    assert.equal(l.phase, 'loading_weights');
  });

  it('V0: `Using XFormers backend.` at worker construction, before loading (GPUModelRunnerBase.__init__)', () => {
    const l = last([cfg, v0('selector.py:115] Using XFormers backend.')].join('\n'));
    assert.equal(l.phase, 'dist_init');
  });

  it('`Using V2 Model Runner` is device init (v1/worker/gpu_worker.py Worker.init_device), not loading', () => {
    const l = last(
      [
        core(
          "INFO 06-16 20:55:14 [core.py:101] Initializing a V1 LLM engine (v0.20.0) with config: model='m/x'",
        ),
        core('INFO 06-16 20:55:14 [gpu_worker.py:303] Using V2 Model Runner'),
      ].join('\n'),
    );
    assert.notEqual(l.phase, 'loading_weights');
  });
});

describe('a hub download bar before the engine starts', () => {
  it("huggingface_hub's `Fetching N files` is no weight loading (vLLM's own download is silenced): one launch", () => {
    const r = analyzeText(
      [
        'Fetching 10 files:   0%|          | 0/10 [00:00<?, ?it/s]',
        'Fetching 10 files: 100%|██████████| 10/10 [00:00<00:00, 3725.29it/s]',
        "INFO 03-27 15:53:05 [llm_engine.py:241] Initializing a V0 LLM engine (v0.8.2) with config: model='m/x'",
      ].join('\n'),
    );
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.phase, 'args');
  });
});

describe('vLLM on other platforms: their milestones', () => {
  it('V0 TPU precompilation after `# TPU blocks` is past the KV cache (worker/tpu_model_runner.py warmup_model)', () => {
    const l = last(
      [
        cfg,
        v0('ray_tpu_executor.py:270] # TPU blocks: 9000, # CPU blocks: 4000'),
        v0('tpu_model_runner.py:274] Compiling the model with different input shapes...'),
        v0('tpu_model_runner.py:284] batch_size: 1, seq_len: 32'),
      ].join('\n'),
    );
    assert.equal(l.phase, 'autotune');
  });

  it('V1 TPU `-- num_tokens` lines after the KV cache size (v1/worker/tpu_model_runner.py capture_model)', () => {
    const l = last(
      [
        cfg,
        'INFO 03-31 07:47:51 [kv_cache_utils.py:577] GPU KV cache size: 500,000 tokens',
        'INFO 03-31 07:47:51 [tpu_model_runner.py:769] Compiling the model with different input shapes.',
        'INFO 03-31 07:47:51 [tpu_model_runner.py:773]   -- num_tokens: 64',
      ].join('\n'),
    );
    assert.equal(l.phase, 'autotune');
  });

  it("tpu-inference's `Init model | hbm=…` ends loading (runner/tpu_runner.py TPUModelRunner.load_model)", () => {
    const l = last(
      [
        core('INFO 10-20 00:02:30 [weight_utils.py:122] Loading weights from /models/m/model.safetensors'),
        core('INFO 10-20 00:02:33 [tpu_jax_runner.py:309] Init model | hbm=[(1.11, 30.75)]GiB'),
      ].join('\n'),
    );
    assert.equal(l.phase, 'weights_loaded');
  });

  it("tpu-inference's `Precompile … -->` lines (runner/compilation_manager.py)", () => {
    const l = last(
      [
        core(
          "INFO 02-14 02:30:01 [core.py:93] Initializing a V1 LLM engine (v0.13.0) with config: model='m/x'",
        ),
        core("INFO 02-14 02:31:11 [compilation_manager.py:75] Precompile worker0 sample --> {'num_reqs': 8}"),
        core('INFO 02-14 02:31:11 [compilation_manager.py:81] Compilation finished in 0.12 [secs].'),
      ].join('\n'),
    );
    assert.equal(l.phase, 'autotune');
  });

  it("Neuron's compile lines (neuronx_distributed ModelBuilder.trace, libneuronxla, neuronx-cc) are compile", () => {
    for (const line of [
      core('INFO:Neuron:Done compilation for the priority HLO in 12.5 seconds'),
      core('INFO:Neuron:Neuron compiler flags: --auto-cast=none --model-type=transformer -O1'),
      '2024-03-19 22:27:23.000452:  1486537  INFO ||NEURON_CC_WRAPPER||: Call compiler with cmd: neuronx-cc compile',
      core(
        '2025-12-22 19:08:35.000109:  272  [INFO]: Compilation Successfully Completed for model.MODULE_1+2.hlo_module.pb',
      ),
    ]) {
      const l = last(
        [
          core(
            "INFO 12-22 19:06:00 [core.py:93] Initializing a V1 LLM engine (v0.11.0) with config: model='m/x'",
          ),
          line,
        ].join('\n'),
      );
      assert.equal(l.phase, 'compile', line);
    }
  });

  it('a traceback cut in neuronx_distributed trace/ or libneuronxla is the Neuron compile', () => {
    const l = last(
      [
        core(
          'ERROR 01-28 15:04:44 [core.py:866]   File "/opt/venv/lib/python3.12/site-packages/neuronx_distributed/trace/model_builder.py", line 651, in trace',
        ),
        core(
          'ERROR 01-28 15:04:44 [core.py:866]     neff_bytes = neuron_xla_wlo_compile(module_bytes, compiler_args,',
        ),
      ].join('\n'),
    );
    assert.equal(l.phase, 'compile');
  });

  it('HPU: `# HPU blocks` sizes the cache, `[Warmup][Prompt][i/n]` is the warmup (vllm-fork log_warmup)', () => {
    const kv = [cfg, v0('habana_executor.py:87] # HPU blocks: 3184, # CPU blocks: 256')];
    assert.equal(last(kv.join('\n')).phase, 'kv_cache');
    const l = last(
      [
        ...kv,
        v0(
          'habana_model_runner.py:1192] [Warmup][Prompt][3/56] batch_size:64 seq_len:768 free_mem:13.86 GiB',
        ),
      ].join('\n'),
    );
    assert.equal(l.phase, 'warmup');
  });

  it('offline `Processed prompts` bar (entrypoints/llm.py LLM._run_engine) is the engine serving', () => {
    const l = last(
      [
        cfg,
        'Processed prompts:  25%|██▌       | 1/4 [00:02<00:06, 2.10s/it, est. speed input: 12.00 toks/s, output: 30.00 toks/s]',
      ].join('\n'),
    );
    assert.equal(l.phase, 'serving');
  });

  it('`(RayWorkerVllm pid=…)` (vLLM 0.2–0.3 engine/ray_utils.py) says vLLM by itself', () => {
    const r = analyzeText(
      [
        "(RayWorkerVllm pid=3411) WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions.",
        '(RayWorkerVllm pid=3411)     Please reinstall xformers',
        '(RayWorkerVllm pid=3412)     Please reinstall xformers',
      ].join('\n'),
    );
    assert.equal(r.engine, 'vllm');
  });
});

describe('vLLM: failures that name their step or their class', () => {
  it("V0 `Error executing method 'determine_num_available_blocks'` is a crash in the KV-cache profile run", () => {
    const l = last(
      [
        cfg,
        "(RayWorkerWrapper pid=21) ERROR 05-30 09:16:50 worker_base.py:581] Error executing method 'determine_num_available_blocks'. This might cause deadlock in distributed execution.",
        '(RayWorkerWrapper pid=21) ERROR 05-30 09:16:50 worker_base.py:581] Traceback (most recent call last):',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'kv_cache');
  });

  it('`Exception in worker … while processing method load_model: <message>` classes the message', () => {
    const l = last(
      [
        cfg,
        w(
          'ERROR 09-20 08:05:48 multiproc_worker_utils.py:226] Exception in worker VllmWorkerProcess while processing method load_model: Torch SPDA does not support logits soft cap., Traceback (most recent call last):',
        ),
      ].join('\n'),
    );
    assert.equal(l.phase, 'loading_weights');
    assert.equal(l.failure?.class, 'unsupported');
  });

  it('`… while processing method init_device` is distributed init', () => {
    const l = last(
      [
        cfg,
        w(
          'ERROR 07-24 08:26:01 multiproc_worker_utils.py:226] Exception in worker VllmWorkerProcess while processing method init_device: NCCL error: unhandled cuda error, Traceback (most recent call last):',
        ),
      ].join('\n'),
    );
    assert.equal(l.phase, 'dist_init');
    assert.equal(l.failure?.class, 'nccl');
  });

  it('the max-seq-len vs KV-cache error is an OOM once the KV cache is sized (worker.py raise_if_cache_size_invalid)', () => {
    const l = last(
      [
        "ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (7344). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
      ].join('\n'),
    );
    assert.equal(l.phase, 'kv_cache');
    assert.equal(l.failure?.class, 'oom');
  });

  it('a negative `Available KV cache memory` decides an OOM before the cut traceback (gpu_worker.py)', () => {
    const l = last(
      [
        core('INFO 12-23 23:34:23 [gpu_worker.py:298] Available KV cache memory: -1.25 GiB'),
        core('ERROR 12-23 23:34:23 [core.py:708] EngineCore failed to start.'),
        core('ERROR 12-23 23:34:23 [core.py:708] Traceback (most recent call last):'),
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'oom');
  });

  it('V0 `Engine iteration timed out` (async_llm_engine.py run_engine_loop) names the timeout of a cut traceback', () => {
    const l = last(
      [
        v0(
          'metrics.py:341] Avg prompt throughput: 10.0 tokens/s, Avg generation throughput: 5.0 tokens/s, Running: 2 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.9%, CPU KV cache usage: 0.0%.',
        ),
        'ERROR 05-02 10:12:20 async_llm_engine.py:658] Engine iteration timed out. This should never happen!',
        'ERROR 05-02 10:12:20 async_llm_engine.py:56] Engine background task failed',
        'ERROR 05-02 10:12:20 async_llm_engine.py:56] Traceback (most recent call last):',
        'ERROR 05-02 10:12:20 async_llm_engine.py:56]   File "/usr/lib/python3/dist-packages/vllm/engine/async_llm_engine.py", line 506, in engine_step',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'timeout');
  });

  it("a `Worker failed with error '…` whose error runs over several lines is read from its first", () => {
    const l = last(
      [
        core(
          "INFO 04-17 09:16:00 [core.py:93] Initializing a V1 LLM engine (v0.18.0) with config: model='m/x'",
        ),
        " RuntimeError: Worker failed with error 'NPUModelRunner init failed, error is capture_begin: NPU function error: AclmdlRICaptureBegin, error code is 207005",
        core(
          '[ERROR] 2026-04-17-09:16:39 (PID:1802934, Device:0, RankID:-1) ERR00100 PTA call acl api failed',
        ),
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'cuda_error');
  });
});

describe('vLLM: stops and requests', () => {
  it('`Shutting down FastAPI HTTP server.` (launcher.py serve_http) says the server had been up', () => {
    const l = last(
      [
        v0('launcher.py:62] Shutting down FastAPI HTTP server.'),
        'INFO:     Shutting down',
        'DEBUG 05-02 10:11:16 client.py:257] Shutting down MQLLMEngineClient output handler.',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'shutdown');
    assert.equal(l.phase, 'ready');
  });

  it('`WorkerProc was terminated` (multiproc_executor.py worker_main) is a stop', () => {
    const l = last(
      [
        core(
          "INFO 04-03 16:04:00 [core.py:93] Initializing a V1 LLM engine (v0.15.0) with config: model='m/x'",
        ),
        '(Worker_TP0 pid=1387) WARNING 04-03 16:05:24 [multiproc_executor.py:866] WorkerProc was terminated',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'shutdown');
  });

  it('after the ready line, a GET answered 404 (a client probing paths the server lacks) is not serving', () => {
    const api = (m: string) => `(APIServer pid=1) ${m}`;
    const up = [
      api('INFO 05-07 20:28:31 [launcher.py:46] Route: /v1/completions, Methods: POST'),
      api('INFO:     Application startup complete.'),
      api('INFO:     10.0.0.1:36390 - "GET /v1/models HTTP/1.1" 200 OK'),
      api('INFO:     10.0.0.1:36392 - "GET /api/tags HTTP/1.1" 404 Not Found'),
    ];
    assert.equal(last(up.join('\n')).phase, 'ready');
    const l = last(
      [...up, api('INFO:     10.0.0.1:36394 - "POST /v1/completions HTTP/1.1" 200 OK')].join('\n'),
    );
    assert.equal(l.phase, 'serving');
  });

  it('`Received request` shows a live server; serving needs a request answered', () => {
    const received = v0(
      "logger.py:36] Received request cmpl-1-0: prompt: 'How to make pizza', params: SamplingParams(n=1)",
    );
    assert.equal(last(received).phase, 'ready');
    const l = last([received, v0('async_llm_engine.py:140] Finished request cmpl-1-0.')].join('\n'));
    assert.equal(l.phase, 'serving');
  });
});

describe('vLLM stats lines hard-wrapped by a terminal', () => {
  it('a stats line cut inside its request counts still says serving (engine/metrics.py LoggingStatLogger.log)', () => {
    const l = last(
      [
        v0(
          'metrics.py:536] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 616.1 tokens/s, Running: 32 r',
        ),
        'eqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 17.6%, CPU KV cache usage: 0.0%.',
      ].join('\n'),
    );
    assert.equal(l.phase, 'serving');
  });
});

describe('vLLM tracebacks cut at either end', () => {
  it('a paste starting on a code line of a frame still opens the traceback (and so a crash)', () => {
    const l = last(
      [
        w('ERROR 11-25 08:17:34 multiproc_worker_utils.py:229]     return GroupCoordinator('),
        w(
          'ERROR 11-25 08:17:34 multiproc_worker_utils.py:229]   File "/usr/lib/python3/dist-packages/vllm/distributed/parallel_state.py", line 228, in __init__',
        ),
        w('ERROR 11-25 08:17:34 multiproc_worker_utils.py:229]     self.device_communicator = Comm('),
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
  });

  it('cut while building the NCCL communicator: the NCCL error NCCL_CHECK raises (pynccl_wrapper.py)', () => {
    const l = last(
      [
        w(
          'ERROR 11-25 08:17:34 multiproc_worker_utils.py:229]   File "/usr/lib/python3/dist-packages/vllm/distributed/parallel_state.py", line 228, in __init__',
        ),
        w('ERROR 11-25 08:17:34 multiproc_worker_utils.py:229]     self.pynccl_comm = PyNcclCommunicator('),
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'nccl');
  });

  it('cut after a frame whose code line calls a step: that step (gpu_worker.py → capture_model)', () => {
    const l = last(
      [
        '(Worker_TP2 pid=99) ERROR 04-09 20:31:10 [multiproc_executor.py:949] WorkerProc hit an exception.',
        '(Worker_TP2 pid=99) ERROR 04-09 20:31:10 [multiproc_executor.py:949] Traceback (most recent call last):',
        '(Worker_TP2 pid=99) ERROR 04-09 20:31:10 [multiproc_executor.py:949]   File "/usr/lib/python3/dist-packages/vllm/v1/worker/gpu_worker.py", line 588, in compile_or_warm_up_model',
        '(Worker_TP2 pid=99) ERROR 04-09 20:31:10 [multiproc_executor.py:949]     cuda_graph_memory_bytes = self.model_runner.capture_model()',
      ].join('\n'),
    );
    assert.equal(l.phase, 'cuda_graph');
  });

  it('a call the catalog does not know leaves the frame’s own phase', () => {
    const l = last(
      [
        'Traceback (most recent call last):',
        '  File "/usr/lib/python3/dist-packages/vllm/v1/worker/gpu_worker.py", line 588, in compile_or_warm_up_model',
        '    self.helper_nobody_knows()',
      ].join('\n'),
    );
    assert.equal(l.phase, 'compile');
  });

  it('frames of an egg install are vLLM frames (site-packages/vllm-X.egg/vllm/…)', () => {
    assert.equal(
      frameEngine(
        '/usr/lib/python3/site-packages/vllm-0.5.3+cpu-py3.10-linux-x86_64.egg/vllm/engine/llm_engine.py',
      ),
      'vllm',
    );
  });

  it('V0 `LLMEngine._initialize_kv_caches` is the KV-cache step (engine/llm_engine.py)', () => {
    const l = last(
      [
        'Traceback (most recent call last):',
        '  File "/usr/lib/python3/dist-packages/vllm/engine/llm_engine.py", line 339, in __init__',
        '    self._initialize_kv_caches()',
        '  File "/usr/lib/python3/dist-packages/vllm/engine/llm_engine.py", line 474, in _initialize_kv_caches',
        '    self.model_executor.setup()',
      ].join('\n'),
    );
    assert.equal(l.phase, 'kv_cache');
  });

  it('a path cut down to `vllm/engine/…` still says vLLM', () => {
    const r = analyzeText(
      [
        'vllm/engine/arg_utils.py", line 963, in create_model_config',
        '    return ModelConfig(',
        'pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig',
      ].join('\n'),
    );
    assert.equal(r.engine, 'vllm');
  });
});

describe('vLLM: platform forks and executors (wild batch 2)', () => {
  it('HabanaAI vllm-fork `Loading model weights took in total … of device memory` ends the loading (HPUModelRunner.load_model)', () => {
    const l = last(
      [
        v0(
          'hpu_model_runner.py:700] Pre-loading model weights on hpu:0 took 9.10 GiB of device memory (9.1 GiB/94.62 GiB used) and 1.0 GiB of host memory (20 GiB/500 GiB used)',
        ),
        v0(
          'hpu_model_runner.py:794] Loading model weights took in total 9.10 GiB of device memory (9.1 GiB/94.62 GiB used) and 1.0 GiB of host memory (20 GiB/500 GiB used)',
        ),
      ].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
    assert.equal(l.phase, 'weights_loaded');
  });

  it('vllm-gaudi sampler warm-up lines (HPUModelRunner.warmup_sampler) are the warm-up step', () => {
    const hw = (msg: string) => `(Worker_TP0 pid=91) INFO 04-09 11:25:43 [hpu_model_runner.py:4674] ${msg}`;
    const l = last(
      [
        hw('Warming up sampler with batch sizes: [0, 1, 2] and following configs:'),
        hw('temp=0.7, top_p=0.9, top_k=50, batch_changed=False'),
        hw('Starting sampler warmup...'),
      ].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
    assert.equal(l.phase, 'warmup');
    assert.equal(l.outcome, 'in_progress');
  });

  it("the Ray executor's `use_ray_spmd_worker: False` is distributed set-up (RayDistributedExecutor._init_workers_ray)", () => {
    const l = last(
      [
        '[2025-01-02 03:04:05,361 D 11 11] (python-core-driver-01000000ffffff) accessor.cc:1082: Getting placement group info',
        v0('ray_distributed_executor.py:153] use_ray_spmd_worker: False'),
      ].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
    assert.equal(l.phase, 'dist_init');
  });

  it("V1 TPU `Preparing request paddings:` comes from the runner's constructor, before the weights (tpu_model_runner.py)", () => {
    const tpu = (msg: string) =>
      `(VllmWorker TP0 pid=71) INFO 09-05 08:26:33 [tpu_model_runner.py:1827] ${msg}`;
    const l = last(
      [tpu('    4096'), tpu('Preparing request paddings:'), tpu('    8'), tpu('    16')].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
    assert.equal(l.phase, 'dist_init');
    assert.equal(l.outcome, 'in_progress');
  });
});

describe('failure classes from the words around vLLM failures', () => {
  it('ENOMEM, a refused Hugging Face download, a backend refusing a feature', () => {
    assert.equal(
      classifyFailureText(
        'RuntimeError: unable to mmap 16933256392 bytes from file <x>: Cannot allocate memory (12)',
      ),
      'oom',
    );
    assert.equal(
      classifyFailureText(
        'requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/org/m/resolve/main/config.json',
      ),
      'model_not_found',
    );
    assert.equal(classifyFailureText('Torch SPDA does not support logits soft cap.'), 'unsupported');
  });
});
