/**
 * vLLM rules found by reading made-up synthetic logs (made-up lines of the shapes vLLM prints), each with the
 * vLLM source it rests on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const last = (text: string) => {
  const r = analyzeText(text);
  return { ...r.launches[r.launches.length - 1]!, engine: r.engine };
};

const api = (msg: string) => `(APIServer pid=40) ${msg}`;
const core = (msg: string) => `(EngineCore_DP0 pid=51) ${msg}`;

describe('vLLM: pydantic-wrapped config errors', () => {
  // vllm/config/utils.py `config` is pydantic.dataclasses.dataclass: a ValueError raised in a config's
  // __post_init__ reaches the log as `ValidationError` with the message on the next line.
  const wrapped = (inner: string) =>
    [
      api('INFO 05-02 09:00:01 [api_server.py:1800] vLLM API server version 0.11.1'),
      api("INFO 05-02 09:00:01 [utils.py:230] non-default args: {'model': '/m/x'}"),
      api('Traceback (most recent call last):'),
      api(
        '  File "/venv/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line 1100, in create_model_config',
      ),
      api('    return ModelConfig('),
      api('pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig'),
      api(
        `  Value error, ${inner} [type=value_error, input_value=ArgsKwargs((), {'model': '/m/x'}), input_type=ArgsKwargs]`,
      ),
      api('    For further information visit https://errors.pydantic.dev/2.11/v/value_error'),
    ].join('\n');

  it('an unsupported architecture is unsupported, as the same ValueError unwrapped is', () => {
    const l = last(
      wrapped(
        "Model architectures ['FooBarForCausalLM'] are not supported for now. Supported architectures: dict_keys(['A'])",
      ),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'args');
    assert.equal(l.failure?.class, 'unsupported');
    assert.equal(l.failure?.line, 6);
  });

  it('a plain argument error stays a configuration error', () => {
    const l = last(wrapped('max_model_len (99999) must not exceed the derived limit of 4096 tokens.'));
    assert.equal(l.failure?.class, 'config_error');
  });

  it('a validation error that wraps no ValueError is a configuration error', () => {
    const l = last(
      [
        api('INFO 05-02 09:00:01 [api_server.py:1800] vLLM API server version 0.11.1'),
        api('Traceback (most recent call last):'),
        api(
          '  File "/venv/lib/python3.12/site-packages/vllm/engine/arg_utils.py", line 1100, in create_model_config',
        ),
        api('pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig'),
        api('max_num_seqs'),
        api(
          "  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='x', input_type=str]",
        ),
      ].join('\n'),
    );
    assert.equal(l.failure?.class, 'config_error');
  });
});

describe('vLLM: a dead worker and the executor shutdown it causes', () => {
  // v1/executor/multiproc_executor.py start_worker_monitor logs `Worker proc %s died unexpectedly` and shuts the
  // executor down; the engine's pending read then fails in distributed/device_communicators/shm_broadcast.py
  // MessageQueue.acquire_read with `raise RuntimeError("cancelled")`: a consequence, not the cause.
  it('the dead worker is the cause, not RuntimeError: cancelled', () => {
    const l = last(
      [
        api('INFO 07-01 12:00:00 [api_server.py:1805] vLLM API server version 0.10.1'),
        core('INFO 07-01 12:00:09 [gpu_model_runner.py:1953] Starting to load model org/m...'),
        core(
          'ERROR 07-01 12:01:10 [multiproc_executor.py:146] Worker proc VllmWorker-1 died unexpectedly, shutting down executor.',
        ),
        core('Process EngineCore_DP0:'),
        core('Traceback (most recent call last):'),
        core(
          '  File "/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 691, in run_engine_core',
        ),
        core('    raise e'),
        core('RuntimeError: cancelled'),
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
    assert.equal(l.failure?.class, 'killed');
    assert.equal(l.failure?.line, 3);
  });

  it('alone, RuntimeError: cancelled still says the launch crashed', () => {
    const l = last(
      [
        core('INFO 07-01 12:00:09 [gpu_model_runner.py:1953] Starting to load model org/m...'),
        core('Traceback (most recent call last):'),
        core(
          '  File "/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 691, in run_engine_core',
        ),
        core('RuntimeError: cancelled'),
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
  });
});

describe('vLLM V0: the engine loop logs the exception repr before its traceback', () => {
  // engine/multiprocessing/engine.py MQLLMEngine.start (v0.6.x): `logger.exception(repr(e))`.
  it('a repr line names the class even when the paste cuts the traceback', () => {
    const l = last(
      [
        'INFO 02-01 10:00:00 api_server.py:585] vLLM API server version 0.6.4',
        'INFO:     Application startup complete.',
        'INFO 02-01 10:01:00 metrics.py:449] Avg prompt throughput: 10.0 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.',
        "ERROR 02-01 10:01:05 engine.py:135] RuntimeError('CUDA error: an illegal memory access was encountered\\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\\n')",
        'ERROR 02-01 10:01:05 engine.py:135] Traceback (most recent call last):',
        'ERROR 02-01 10:01:05 engine.py:135]   File "/venv/lib/python3.10/site-packages/vllm/engine/multiprocessing/engine.py", line 133, in start',
        'ERROR 02-01 10:01:05 engine.py:135]     self.run_engine_loop()',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
    assert.equal(l.failure?.class, 'cuda_error');
    assert.equal(l.failure?.line, 4);
  });
});

describe('docker compose: a service that exits with a non-zero code', () => {
  it('137 (SIGKILL) while loading is a kill', () => {
    const l = last(
      [
        'srv-1  | (EngineCore_DP0 pid=9) INFO 10-28 16:40:03 [gpu_model_runner.py:2602] Starting to load model /m/x...',
        'srv-1  | (EngineCore_DP0 pid=9) Loading safetensors checkpoint shards:  40% Completed | 4/10 [00:30<00:45,  7.50s/it]',
        'srv-1 exited with code 137',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
    assert.equal(l.failure?.class, 'killed');
    assert.equal(l.failure?.line, 3);
  });

  it('a code of 0 says nothing of a crash', () => {
    const l = last(
      ['srv-1  | (APIServer pid=1) INFO:     Application startup complete.', 'srv-1 exited with code 0'].join(
        '\n',
      ),
    );
    assert.notEqual(l.outcome, 'crashed');
  });
});

describe('vLLM V1: kernel warmups come after the KV cache', () => {
  // v1/worker/gpu_worker.py compile_or_warm_up_model: kernel_warmup (model_executor/warmup/kernel_warmup.py,
  // whose DeepGEMM warmup prints only a tqdm bar `DeepGEMM warmup`) runs after the KV cache is sized and
  // before capture_model; torch.compile runs before the KV cache (profile_run).
  const worker = (msg: string) => `(Worker_TP0 pid=77) ${msg}`;
  const head = [
    api('INFO 07-30 11:02:14 [api_utils.py:212] vLLM server version 0.21.1, serving model m/x'),
    core("INFO 07-30 11:02:30 [core.py:102] Initializing a V1 LLM engine (v0.21.1) with config: model='m/x'"),
    worker('INFO 07-30 11:03:02 [gpu_model_runner.py:4120] Starting to load model m/x...'),
    worker(
      'INFO 07-30 11:09:44 [gpu_model_runner.py:4219] Model loading took 82.13 GiB memory and 401.775213 seconds',
    ),
    worker('INFO 07-30 11:13:50 [monitor.py:34] torch.compile took 228.61 s in total'),
    worker('INFO 07-30 11:14:02 [gpu_worker.py:356] Available KV cache memory: 33.71 GiB'),
    core('INFO 07-30 11:14:03 [kv_cache_utils.py:1307] GPU KV cache size: 524,288 tokens'),
  ];

  it('a log that stops in the DeepGEMM warmup bar is past the KV cache, with the bar as its progress', () => {
    const l = last(
      [...head, worker('DeepGEMM warmup:  38%|███▊      | 3/8 [01:12<02:01, 24.2s/it]')].join('\n'),
    );
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'autotune');
  });

  it('the FlashInfer autotune line is the same step', () => {
    const l = last(
      [
        ...head,
        worker('INFO 07-30 11:14:05 [kernel_warmup.py:260] Using FlashInfer autotune cache file: /c/a.json'),
      ].join('\n'),
    );
    assert.equal(l.phase, 'autotune');
  });

  it('torch.compile still ranks before the KV cache', () => {
    const l = last(head.join('\n'));
    assert.equal(l.phase, 'kv_cache');
  });
});

describe('a refused request while serving', () => {
  const e = (msg: string) => `ERROR 02-11 10:02:05 serving_chat.py:158] ${msg}`;
  const serving = [
    'INFO 02-11 10:00:49 api_server.py:530] Starting vLLM API server on http://0.0.0.0:8000',
    'INFO:     Application startup complete.',
    'INFO 02-11 10:01:34 metrics.py:349] Avg prompt throughput: 102.3 tokens/s, Avg generation throughput: 61.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.4%, CPU KV cache usage: 0.0%.',
  ];
  const refused = [
    e('Error in preprocessing prompt inputs'),
    e('Traceback (most recent call last):'),
    e(
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/serving_engine.py", line 236, in _validate_input',
    ),
    e('    raise ValueError('),
    e(
      "ValueError: This model's maximum context length is 8192 tokens. However, you requested 9310 tokens (8798 in the messages, 512 in the completion). Please reduce the length of the messages or completion.",
    ),
  ];

  it("`Error in preprocessing prompt inputs`: the traceback under the record's prefix is one request's 400", () => {
    const l = last([...serving, ...refused].join('\n'));
    assert.equal(l.outcome, 'serving');
    assert.equal(l.failure, null);
  });

  it('a failure logged after it, under another prefix, is still the launch’s', () => {
    const l = last(
      [
        ...serving,
        ...refused,
        'ERROR 02-11 10:02:09 engine.py:135] RuntimeError: CUDA error: an illegal memory access was encountered',
        'ERROR 02-11 10:02:09 engine.py:135] Traceback (most recent call last):',
        'ERROR 02-11 10:02:09 engine.py:135]   File "/usr/local/lib/python3.12/dist-packages/vllm/engine/multiprocessing/engine.py", line 133, in start',
        'ERROR 02-11 10:02:09 engine.py:135]     self.run_engine_loop()',
        'ERROR 02-11 10:02:09 engine.py:135] RuntimeError: CUDA error: an illegal memory access was encountered',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'cuda_error');
  });
});

describe('vLLM: Gaudi and glued records (issue 22)', () => {
  it("the Habana bridge's fatal error is the device runtime's failure, not the traceback after it", () => {
    const l = last(
      [
        'INFO 02-04 10:00:01 hpu_model_runner.py:794] Loading model weights took in total 10.00 GiB of device memory (10.00 GiB/90.00 GiB used) and 1.000 GiB of host memory (50.00 GiB/500 GiB used)',
        'ERROR 02-04 10:00:02 engine.py:387] [Rank:0] FATAL ERROR :: MODULE:PT_BRIDGE Error, some device check failed.',
        'ERROR 02-04 10:00:02 engine.py:387] Traceback (most recent call last):',
        'ERROR 02-04 10:00:02 engine.py:387]   File "/opt/vllm/vllm/engine/multiprocessing/engine.py", line 378, in run_mp_engine',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'cuda_error');
    assert.equal(l.failure?.line, 2);
    assert.equal(l.phase, 'weights_loaded');
  });

  it("a traceback through the HPU runner's warmup_model was warming up", () => {
    const w = (m: string) => `(Worker_TP1 pid=9) ERROR 09-17 10:00:00 [multiproc_executor.py:671] ${m}`;
    const l = last(
      [
        w(
          '  File "/opt/vllm-gaudi/vllm_gaudi/v1/worker/hpu_worker.py", line 249, in compile_or_warm_up_model',
        ),
        w('    self.model_runner.warmup_model()'),
        w('  File "/opt/vllm-gaudi/vllm_gaudi/v1/worker/hpu_model_runner.py", line 3500, in warmup_model'),
        w('    self.warmup_graphs('),
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'warmup');
  });

  it('an engine iteration timeout run together with the stats line before it is still a timeout', () => {
    const l = last(
      [
        'INFO 06-19 10:00:00 metrics.py:341] Avg prompt throughput: 100.0 tokens/s, Avg generation throughput: 10.0 tokens/s, Running: 2 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 1.0%, CPU KV cache usage: 0.0%. ERROR 06-19 10:01:00 async_llm_engine.py:535] Engine iteration timed out. This should never happen! ERROR 06-19 10:01:00 async_llm_engine.py:52] Engine background task failed',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'timeout');
    assert.equal(l.phase, 'serving');
  });
});

describe('vLLM: an excerpt that ends where the API server starts (issue 22)', () => {
  // entrypoints/openai/api_server.py: run_server_worker logs `Starting vLLM API server %d on %s` (build_and_serve:
  // `Starting vLLM server on %s`) with the engine up and the socket bound, then calls serve_http
  for (const line of [
    'Starting vLLM API server 0 on http://0.0.0.0:8000',
    'Starting vLLM server on http://0.0.0.0:8000',
    'Starting vLLM API server on http://0.0.0.0:8000',
  ])
    it(`\`${line}\` says ready`, () => {
      const l = last(
        [
          api("INFO 05-02 09:03:01 [api_server.py:1700] Supported tasks: ['generate']"),
          api(`INFO 05-02 09:03:02 [api_server.py:1800] ${line}`),
        ].join('\n'),
      );
      assert.equal(l.outcome, 'ready');
      assert.equal(l.engine, 'vllm');
    });

  it('`Supported tasks` before it is not ready yet', () => {
    const l = last(api("INFO 05-02 09:03:01 [api_server.py:1700] Supported tasks: ['generate']"));
    assert.equal(l.outcome, 'in_progress');
  });
});

describe('vLLM: the Ray executor waiting for its placement group', () => {
  // executor/ray_utils.py initialize_ray_cluster (the GPUs warning) and _wait_until_pg_ready (10, 30, 70 s…)
  it('is distributed init, still going', () => {
    const l = last(
      [
        'WARNING 04-01 02:45:50 ray_utils.py:320] The number of required GPUs exceeds the total number of available GPUs in the placement group.',
        "INFO 04-01 02:46:00 ray_utils.py:214] Waiting for creating a placement group of specs for 10 seconds. specs=[{'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` to see if you have enough resources.",
        "INFO 04-01 02:46:20 ray_utils.py:214] Waiting for creating a placement group of specs for 30 seconds. specs=[{'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` to see if you have enough resources.",
      ].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'dist_init');
  });
});

describe("vLLM: the chat template's content format line", () => {
  // entrypoints/chat_utils.py logs it once, at the first chat request; newer versions also at start-up's warm-up
  it('after ready is a chat request being run (serving); before ready, start-up', () => {
    const request = last(
      [
        'INFO:     Application startup complete.',
        "INFO 03-18 09:03:16 [chat_utils.py:346] Detected the chat template content format to be 'string'. You can set `--chat-template-content-format` to override this.",
      ].join('\n'),
    );
    assert.equal(request.phase, 'serving');
    const warmup = last(
      [
        api("INFO 02-16 14:53:30 [api_server.py:1700] Supported tasks: ['generate']"),
        api('INFO 02-16 14:53:32 [serving.py:177] Warming up chat template processing...'),
        api(
          "INFO 02-16 14:53:32 [hf.py:310] Detected the chat template content format to be 'string'. You can set `--chat-template-content-format` to override this.",
        ),
      ].join('\n'),
    );
    assert.notEqual(warmup.phase, 'serving');
    assert.equal(warmup.outcome, 'in_progress');
  });
});

describe('vLLM: the stats line as a log console pads it', () => {
  // v1/metrics/loggers.py LoggingStatLogger.log: one space between words; a console's wrapping pads some to runs
  it('is still a batch line: serving, with its throughput', () => {
    const l = last(
      [
        'INFO 04-06 16:10:52 [loggers.py:80] Avg   prompt throughput: 0.0 tokens/s, Avg generation throughput: 167.9 tokens/s,   Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 19.9%, Prefix cache hit   rate: 21.7%',
        'INFO:       10.0.0.2:52794 - "GET /health HTTP/1.1" 200 OK',
      ].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
    assert.equal(l.outcome, 'serving');
    assert.equal(l.throughput?.last, 167.9);
  });
});

describe('vLLM V1: a worker traceback cut right under its RPC loop (issue 22)', () => {
  const w = (msg: string) => `(Worker_TP1 pid=77) ERROR 05-02 09:10:00 [multiproc_executor.py:900] ${msg}`;
  const head = [
    w('WorkerProc hit an exception.'),
    w('Traceback (most recent call last):'),
    w(
      '  File "/venv/lib/python3.12/site-packages/vllm/v1/executor/multiproc_executor.py", line 890, in worker_busy_loop',
    ),
    w('    output = func(*args, **kwargs)'),
  ];
  // v1/executor/multiproc_executor.py WorkerProc.worker_busy_loop runs every RPC of the engine core: the KV cache
  // sizing, compile_or_warm_up_model (graph capture) at start-up as well as execute_model while serving
  it('claims no serving phase from the loop alone', () => {
    const l = last(head.join('\n'));
    assert.equal(l.outcome, 'crashed');
    assert.notEqual(l.phase, 'serving');
  });

  it('the step under it decides', () => {
    const l = last(
      [
        ...head,
        w(
          '  File "/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py", line 500, in compile_or_warm_up_model',
        ),
        w('    self.model_runner.capture_model()'),
        w(
          '  File "/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_model_runner.py", line 3000, in capture_model',
        ),
        w('    self._capture_cudagraphs(x)'),
        w('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.'),
      ].join('\n'),
    );
    assert.equal(l.phase, 'cuda_graph');
    assert.equal(l.failure?.class, 'oom');
  });
});

describe('vLLM: lines of a moment the fragment shows alone (issue 22)', () => {
  it("the platform probes at DEBUG (platforms/__init__.py) are the start's own moment: args", () => {
    const l = last(
      [
        'DEBUG 03-01 10:00:00 [__init__.py:35] Checking if TPU platform is available.',
        "DEBUG 03-01 10:00:00 [__init__.py:45] TPU platform is not available because: No module named 'libtpu'",
        'DEBUG 03-01 10:00:00 [__init__.py:52] Checking if CUDA platform is available.',
        'DEBUG 03-01 10:00:00 [__init__.py:72] Confirmed CUDA platform is available.',
      ].join('\n'),
    );
    assert.equal(l.engine, 'vllm');
    assert.equal(l.phase, 'args');
  });

  it('the default-MoE-config warning after the load is the profile run: kv_cache', () => {
    const w = (m: string) => `(VllmWorkerProcess pid=7) ${m}`;
    const l = last(
      [
        w('INFO 03-01 10:00:00 [loader.py:447] Loading weights took 30.00 seconds'),
        w('INFO 03-01 10:00:01 [model_runner.py:1146] Model loading took 20.0000 GiB and 31.000000 seconds'),
        w(
          'WARNING 03-01 10:00:05 [fused_moe.py:659] Using default MoE config. Performance might be sub-optimal! Config file not found at /x/vllm/model_executor/layers/fused_moe/configs/E=8,N=64,device_name=NVIDIA_A100.json',
        ),
      ].join('\n'),
    );
    assert.equal(l.phase, 'kv_cache');
    assert.equal(l.outcome, 'in_progress');
  });

  it("a disaggregated decode's failed KV pull for a request is a server up: ready, not crashed", () => {
    const w = (m: string) => `(Worker_DP0_TP1 pid=9) ${m}`;
    const l = last(
      [
        w('ERROR 03-01 10:00:00 [mooncake_connector.py:410] Mooncake transfer failed for request cmpl-abc-0'),
        w(
          'ERROR 03-01 10:00:00 [mooncake_connector.py:329] Failed to transfer KV cache for request cmpl-abc-0: Mooncake transfer failed, ret: -1',
        ),
      ].join('\n'),
    );
    assert.equal(l.phase, 'ready');
    assert.notEqual(l.outcome, 'crashed');
    const newer = last(
      w(
        'ERROR 03-01 10:00:00 [mooncake_connector.py:774] Mooncake transfer failed for request. remote_request_id=chatcmpl-abc, ret=-1.',
      ),
    );
    assert.equal(newer.phase, 'ready');
  });
});

describe('vLLM: a fragment that starts at clients’ requests refused (issue 22)', () => {
  // entrypoints/openai/api_server.py serves the OpenAI API only once the engine client is built: a POST to it
  // answered 4xx/5xx says the HTTP server is up, and no request was answered (the label rules: ready)
  it('is ready, not serving; one answered 200 makes it serving', () => {
    const refused = [
      'INFO:     10.1.2.3:50100 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error',
      'INFO:     10.1.2.3:50102 - "POST /v1/completions HTTP/1.1" 400 Bad Request',
    ];
    const l = last(refused.join('\n'));
    assert.equal(l.outcome, 'ready');
    assert.equal(l.phase, 'ready');
    const s = last(
      [...refused, 'INFO:     10.1.2.3:50104 - "POST /v1/completions HTTP/1.1" 200 OK'].join('\n'),
    );
    assert.equal(s.phase, 'serving');
  });

  it('a GET refused (a path the server lacks) says nothing of it', () => {
    const l = last('INFO:     10.1.2.3:50100 - "GET /api/tags HTTP/1.1" 404 Not Found');
    assert.notEqual(l.phase, 'ready');
  });
});
