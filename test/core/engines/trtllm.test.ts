/**
 * TensorRT-LLM lines (research/vllm-and-peers.md §2, the corpus's trtllm-serve logs, the C++ runtime's
 * TllmException and CUDA check shapes), on made-up lines of each shape.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const last = (lines: string[]) => {
  const r = analyzeText(lines.join('\n'));
  return { ...r.launches[r.launches.length - 1]!, engine: r.engine };
};
const py = (msg: string, level = 'I') => `[11/03/2025-09:12:40] [TRT-LLM] [RANK 0] [${level}] ${msg}`;
const VERSION = '[TensorRT-LLM] TensorRT-LLM version: 1.1.0rc3';

describe('TensorRT-LLM', () => {
  it('a TensorRT engine read into memory is still loading: its deserialization can fail', () => {
    const l = last([
      VERSION,
      '[TensorRT-LLM][INFO] Loaded engine size: 40000 MiB',
      '[TensorRT-LLM][ERROR] tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] CUDA runtime error in cudaMalloc(&ptr, n): out of memory (/src/cpp/tensorrt_llm/runtime/tllmBuffers.h:122)',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
    assert.equal(l.failure?.class, 'oom');
  });

  it('a CUDA check that fails is a CUDA error; an assertion names its own cause', () => {
    const cuda = last([
      VERSION,
      '[TensorRT-LLM][ERROR] CUDA runtime error in cudaStreamSynchronize(stream): an illegal memory access was encountered (/src/x.cpp:12)',
    ]);
    assert.equal(cuda.failure?.class, 'cuda_error');
    const check = last([
      VERSION,
      '[TensorRT-LLM][ERROR] tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] Assertion failed: mMaxNumTokens must be divisible by tokensPerBlock (/src/x.cpp:40)',
    ]);
    assert.equal(check.outcome, 'crashed');
    assert.equal(check.failure?.class, 'config_error');
  });

  it('the startup lines of 1.x place each phase', () => {
    const l = last([
      VERSION,
      py('Validating KV Cache config against kv_cache_dtype="auto"'),
      py('Prefetching 14.96GB checkpoint files.'),
      py('Start to load safetensor file /m/model-00001.safetensors'),
      'Model init total -- 49.14s',
      py('max_seq_len is not specified, using inferred value 131072'),
      py('Running autotuner warmup...'),
    ]);
    assert.equal(l.phase, 'autotune');
    assert.equal(last([VERSION, py('[Autotuner]: Autotuning process ends')]).phase, 'autotune');
    const g = last([VERSION, py('Run generation-only CUDA graph warmup for batch size=32, draft_len=0')]);
    assert.equal(g.phase, 'cuda_graph');
  });

  it("the executor loop's error stops the server; the C++ forward error only fails requests", () => {
    const loop = last([
      VERSION,
      'Model init total -- 49.14s',
      'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
      py('Error in event loop: CUDA error: an illegal memory access was encountered', 'E'),
    ]);
    assert.equal(loop.outcome, 'crashed');
    assert.equal(loop.failure?.class, 'cuda_error');
    const fwd = last([
      VERSION,
      'Model init total -- 49.14s',
      'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
      '[TensorRT-LLM][ERROR] Encountered an error in forwardAsync function: [TensorRT-LLM][ERROR] Assertion failed: input too long (/src/x.cpp:9)',
    ]);
    assert.notEqual(fwd.outcome, 'crashed');
  });

  // serve/openai_server.py runs uvicorn; before the 2026 readiness gate it starts once the executor is up (research
  // §2.2 step 9), with the gate (serve/readiness.py, §2.5) the port listens early and answers 503 until ready
  const UVICORN = [
    'INFO:     Started server process [1607]',
    'INFO:     Waiting for application startup.',
    'INFO:     Application startup complete.',
    'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
  ];

  it("uvicorn's line after the executor is up is ready", () => {
    const l = last([
      VERSION,
      py('Use 14.96 GB for model weights.'),
      'Model init total -- 49.14s',
      py('Setting PyTorch memory fraction to 0.85 (60.2 GiB)'),
      ...UVICORN,
    ]);
    assert.equal(l.outcome, 'ready');
    assert.equal(l.ready?.line, 8);
  });

  it('uvicorn listening before the model is loaded is not ready (the 2026 readiness gate)', () => {
    const early = last([VERSION, ...UVICORN]);
    assert.equal(early.outcome, 'in_progress');
    assert.equal(early.ready, null);
    assert.equal(early.phase, 'args');
    const loading = last([
      VERSION,
      ...UVICORN,
      'INFO:     127.0.0.1:40000 - "GET /health HTTP/1.1" 503 Service Unavailable',
      py('Use 14.96 GB for model weights.'),
      'Loading weights:  40%|████      | 4/10 [00:04<00:06,  1.0it/s]',
    ]);
    assert.equal(loading.outcome, 'in_progress');
    assert.equal(loading.phase, 'loading_weights');
    assert.equal(loading.ready, null);
  });

  it("with the port open early, the executor's last line or a /health 200 says ready", () => {
    const byLine = last([
      VERSION,
      ...UVICORN,
      'Model init total -- 49.14s',
      py('Setting PyTorch memory fraction to 0.85 (60.2 GiB)'),
    ]);
    assert.equal(byLine.outcome, 'ready');
    assert.equal(byLine.ready?.line, 7);
    const byProbe = last([
      VERSION,
      ...UVICORN,
      'Model init total -- 49.14s',
      'INFO:     127.0.0.1:40000 - "GET /health HTTP/1.1" 200 OK',
    ]);
    assert.ok(['ready', 'serving'].includes(byProbe.outcome), byProbe.outcome);
  });

  it('an MPI rank killed by signal 9 is killed', () => {
    const l = last([
      VERSION,
      'mpirun noticed that process rank 1 with PID 4242 on node gpu-3 exited on signal 9 (Killed).',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'killed');
  });
});

describe('Triton Inference Server with the tensorrtllm backend', () => {
  // server src/main.cc: TRITONSERVER_ServerNew loads the model repository, then StartEndpoints:
  // grpc/grpc_server.cc `Started GRPCInferenceService at`, http_server.cc `Started HTTPService at`
  const load = [
    'I0612 03:11:40.126155 1 model_lifecycle.cc:461] loading: tensorrt_llm:1',
    '[TensorRT-LLM][INFO] Initializing MPI with thread mode 3',
    '[TensorRT-LLM][INFO] Loaded engine size: 12855 MiB',
    '[TensorRT-LLM][INFO] [MemUsageChange] Allocated 58.75 GiB for max tokens in paged KV cache (481280).',
    "I0612 03:11:58.772391 1 model_lifecycle.cc:827] successfully loaded 'tensorrt_llm'",
  ];
  it('the endpoints started are ready', () => {
    const l = last([
      ...load,
      'I0612 03:11:58.801229 1 grpc_server.cc:2463] Started GRPCInferenceService at 0.0.0.0:8001',
    ]);
    assert.equal(l.engine, 'trtllm');
    assert.equal(l.phase, 'ready');
    const h = last([
      ...load,
      'I0612 03:11:58.801504 1 http_server.cc:4692] Started HTTPService at 0.0.0.0:8000',
    ]);
    assert.equal(h.phase, 'ready');
  });
  it('before them the launch is still going', () => {
    assert.equal(last(load).outcome, 'in_progress');
  });
  it("the gRPC endpoint's verbose handler registration (grpc_server.cc CommonCallData) is ready too", () => {
    for (const ready of [
      "I0612 03:11:58.790101 1 grpc_server.cc:101] Ready for RPC 'ServerReady', 0",
      'I0612 03:11:58.790101 1 grpc_server.cc:101] "Ready for RPC \'Check\', 0"',
    ]) {
      const l = last([...load, ready]);
      assert.equal(l.outcome, 'ready', ready);
      assert.equal(l.phase, 'ready', ready);
    }
    // a fragment that starts there: the server is up, no request served
    const alone = last([
      "I0612 03:12:30.000001 1 grpc_server.cc:101] Ready for RPC 'Check', 0",
      "I0612 03:12:31.000001 1 grpc_server.cc:101] Ready for RPC 'ServerLive', 3",
    ]);
    assert.equal(alone.phase, 'ready');
  });
});

describe('Triton Inference Server: its model repository, tables and exits', () => {
  // triton-inference-server/core model_lifecycle.cc, backend_model.cc, server.cc (the model table); server
  // src/main.cc; tensorrtllm_backend model_instance_state.cc; Open MPI's banners under launch_triton_server.py
  const glog = (msg: string, level = 'I', file = 'model_lifecycle.cc:473') =>
    `${level}0110 12:00:00.123456 77 ${file}] ${msg}`;
  const start = [
    glog(
      "Pinned memory pool is created at '0x7f0000000000' with size 268435456",
      'I',
      'pinned_memory_manager.cc:241',
    ),
    glog('"loading: preprocessing:1"'),
    glog('"loading: tensorrt_llm:1"'),
  ];
  const table = (rows: string[]) => [
    glog('', 'I', 'server.cc:677'),
    '+----------------+---------+--------+',
    '| Model          | Version | Status |',
    '+----------------+---------+--------+',
    ...rows,
    '+----------------+---------+--------+',
  ];

  it('Triton lines alone name the TensorRT-LLM family and place the model load', () => {
    const l = last(start);
    assert.equal(l.engine, 'trtllm');
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'loading_weights');
    // the Python models loaded say the engine still loads; the engine's model loaded says it is in
    assert.equal(last([...start, glog(`"successfully loaded 'preprocessing'"`)]).phase, 'loading_weights');
    assert.equal(last([...start, glog(`"successfully loaded 'tensorrt_llm'"`)]).phase, 'weights_loaded');
    const ready = last([
      ...start,
      ...table(['| preprocessing  | 1       | READY  |', '| tensorrt_llm   | 1       | READY  |']),
      glog('Started GRPCInferenceService at 0.0.0.0:8001', 'I', 'grpc_server.cc:2451'),
    ]);
    assert.equal(ready.phase, 'ready');
  });

  it("an UNAVAILABLE row or a failed load is the backend's error, classified by its text", () => {
    const cuda = last([
      ...start,
      ...table([
        '| preprocessing  | 1       | READY                                                                                            |',
        '| tensorrt_llm   | 1       | UNAVAILABLE: Internal: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] C |',
        '|                |         | UDA runtime error in cudaMallocAsync(ptr, n, stream): out of memory (/src/runtime/tllmBuffers.h:11 |',
      ]),
    ]);
    assert.equal(cuda.outcome, 'crashed');
    assert.equal(cuda.phase, 'loading_weights');
    const runtime = last([
      ...start,
      glog(
        'ERROR: Failed to create instance: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] CUDA runtime error in cudaDeviceGetDefaultMemPool(&pool, 0): operation not supported (/src/bufferManager.cpp:170)',
        'E',
        'backend_model.cc:691',
      ),
      glog("failed to load 'tensorrt_llm' version 1: Internal: see above", 'E', 'model_lifecycle.cc:654'),
    ]);
    assert.equal(runtime.failure?.class, 'cuda_error');
    assert.equal(runtime.phase, 'loading_weights');
    const json = last([
      ...start,
      glog(
        "\"failed to load 'tensorrt_llm' version 1: Internal: unexpected error when creating modelInstanceState: [json.exception.out_of_range.403] key 'max_draft_len' not found\"",
        'E',
        'model_lifecycle.cc:654',
      ),
    ]);
    assert.equal(json.failure?.class, 'config_error');
    const ranks = last([
      ...start,
      '| tensorrt_llm   | 1       | UNAVAILABLE: Internal: unexpected error when creating modelInstanceState: [TensorRT-LLM][E |',
      '|                |         | RROR] Assertion failed: mpiSize == tp * pp (/src/runtime/worldConfig.cpp:80)              |',
    ]);
    assert.equal(ranks.failure?.class, 'config_error');
    const param = last([
      ...start,
      glog(
        'ERROR: Failed to create instance: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] Assertion failed: Both encoder and decoder model paths are empty (/src/inflight_batcher_llm/src/model_instance_state.cc:535)',
        'E',
        'backend_model.cc:691',
      ),
    ]);
    assert.equal(param.failure?.class, 'config_error');
    const stub = last([
      ...start,
      glog(
        '"Failed to initialize Python stub: TypeError: build_engine() got an unexpected keyword argument \'x\'\\n\\nAt:\\n  /opt/tritonserver/backends/vllm/model.py(301): _run"',
        'I',
        'pb_stub.cc:388',
      ),
    ]);
    assert.equal(stub.outcome, 'crashed');
    assert.equal(stub.failure?.class, 'python_exception');
  });

  it('a server that could not be created ends in the load; a fatal signal or an MPI failure stops it', () => {
    const created = last([
      glog('"successfully unloaded \'preprocessing\' version 1"', 'I', 'model_lifecycle.cc:636'),
      'error: creating server: Internal - failed to load all models',
    ]);
    assert.equal(created.outcome, 'crashed');
    assert.equal(created.phase, 'loading_weights');
    const orte = last([
      ...start,
      '--------------------------------------------------------------------------',
      'It looks like orte_init failed for some reason; your parallel process is',
      'likely to abort.  There are many reasons that a parallel process can',
    ]);
    assert.equal(orte.outcome, 'crashed');
    const bus = last(['[node7:00030] Signal: Bus error (7)', '[node7:00030] Signal code:  (-6)']);
    assert.equal(bus.engine, 'trtllm');
    assert.equal(bus.outcome, 'crashed');
    const segv = last([...start, 'Signal (11) received.']);
    assert.equal(segv.outcome, 'crashed');
  });

  it("the C++ batch manager's KV cache, and its request loop on a native stack", () => {
    const kv = last([
      ...start,
      '[TensorRT-LLM][INFO] Allocate 4143972352 bytes for k/v cache.',
      '[TensorRT-LLM][INFO] Using 31616 total tokens in paged KV cache, and 16 blocks per sequence',
    ]);
    assert.equal(kv.phase, 'kv_cache');
    // the TrtGptModel constructor's settings come as the model that holds the engine is built
    assert.equal(
      last([
        '[TensorRT-LLM][INFO] Rank 0 is using GPU 0',
        '[TensorRT-LLM][INFO] TRTGptModel maxBatchSize: 256',
      ]).phase,
      'loading_weights',
    );
    const loop = last([
      ...start,
      'Signal (11) received.',
      ' 1 0x000000000006751c tensorrt_llm::batch_manager::GptManager::returnCompletedRequests()  :0',
    ]);
    assert.equal(loop.phase, 'serving');
  });

  it("a record that quotes the backend's C++ error is not a wrapper: the lines after it stay Triton's", () => {
    const l = last([
      glog(
        'ERROR: Failed to create instance: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] CUDA runtime error in cudaMalloc(&p, n): out of memory (/src/tllmBuffers.h:112)',
        'E',
        'backend_model.cc:691',
      ),
      glog(`"successfully loaded 'tensorrt_llm'"`),
    ]);
    assert.equal(l.failure?.class, 'oom');
    // read as a Triton record (an anchored rule): had the quoted part been learned as a wrapper, it would not be
    assert.equal(l.phase, 'weights_loaded');
  });

  it("a forward step's error is in serving, from the PyTorch executor and from the C++ batch manager's logger alike", () => {
    const l = last([
      '[TensorRT-LLM][WARNING] Step function failed, continuing.',
      '[TensorRT-LLM][ERROR] Encountered an error in forward function: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaStreamSynchronize(s): unspecified launch failure (/src/cudaStream.h:80)',
    ]);
    assert.equal(l.phase, 'serving');
    assert.equal(last([py('Encountered an error in forward function: boom', 'E')]).phase, 'serving');
  });
});

describe('TensorRT-LLM: native stacks, sticky CUDA errors, the worker request loop (issue 22)', () => {
  it('a segfault under TllmRuntime::TllmRuntime died loading the engine', () => {
    const l = last([
      '[TensorRT-LLM][INFO] [MemUsageChange] Init cuBLAS/cuBLASLt: CPU +0, GPU +8, now: CPU 100, GPU 200 (MiB)',
      '[node1:100:0:101] Caught signal 11 (Segmentation fault: address not mapped to object at address (nil))',
      '==== backtrace (tid:    101) ====',
      ' 0 0x0000000000012345 __sigaction() ???:0',
      ' 1 0x0000000000023456 createInferRuntime_INTERNAL() ???:0',
      ' 2 0x0000000000034567 tensorrt_llm::runtime::TllmRuntime::TllmRuntime() :0',
      ' 3 0x0000000000045678 tensorrt_llm::batch_manager::TrtGptModelInflightBatching::TrtGptModelInflightBatching() :0',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
  });

  it("a native stack through Triton's model-load thread (ModelLifeCycle::AsyncLoad) died loading a model", () => {
    const l = last([
      '12 0x0000000000123456 triton::core::TritonModel::Create() :0',
      '13 0x0000000000234567 std::_Function_handler<void (), triton::core::ModelLifeCycle::AsyncLoad(triton::core::ModelIdentifier const&, std::string const&)::{lambda()#1}>::_M_invoke() model_lifecycle.cc:0',
      '14 0x0000000000345678 clone() ???:0',
      '[node7:00042] *** Process received signal ***',
      '[node7:00042] Signal: Aborted (6)',
    ]);
    assert.equal(l.engine, 'trtllm');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
  });

  it("Open MPI's signal report inside a markdown quote still says TensorRT-LLM's family", () => {
    const l = last([
      '> [node7:00042] *** Process received signal ***',
      '> [node7:00042] Signal: Segmentation fault (11)',
      '> [node7:00042] Signal code: Address not mapped (1)',
    ]);
    assert.equal(l.engine, 'trtllm');
    assert.equal(l.outcome, 'crashed');
  });

  it("trtllm-build's traceback cut in build_and_save was building the engine (compile)", () => {
    const pkg = '/usr/lib/python3/dist-packages/tensorrt_llm';
    const l = last([
      'Traceback (most recent call last):',
      `  File "${pkg}/commands/build.py", line 500, in main`,
      '    parallel_build(source, build_config, args.output_dir, workers,',
      `  File "${pkg}/commands/build.py", line 400, in parallel_build`,
      '    passed = build_and_save(rank, rank % workers, ckpt_dir,',
      `  File "${pkg}/commands/build.py", line 350, in build_and_save`,
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'compile');
  });

  it('a forward error quoting an illegal memory access brings the server down', () => {
    const l = last([
      '[TensorRT-LLM][INFO] [executorEnqueue] request 1',
      '2024-01-01 10:00:00,000 <PID:7> INFO request in',
      '[TensorRT-LLM][ERROR] Encountered an error in forward function: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaEventSynchronize(get()): an illegal memory access was encountered (/src/cpp/include/tensorrt_llm/runtime/cudaEvent.h:66)',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'cuda_error');
    assert.equal(l.failure?.line, 3);
  });

  it('a forward error of another kind still fails only its requests', () => {
    const l = last([
      VERSION,
      '[TensorRT-LLM][INFO] Engine load time 1000 ms',
      '[TensorRT-LLM][ERROR] Encountered an error in forward function: [TensorRT-LLM][ERROR] Assertion failed: input too long (/src/cpp/tensorrt_llm/batch_manager/x.cpp:10)',
    ]);
    assert.notEqual(l.outcome, 'crashed');
  });

  it("the NVFP4 MoE loader's scale warning names TensorRT-LLM and says it is loading", () => {
    const l = last([
      '[2025-09-15 10:00:00] WARNING quantization.py:1700: w1_weight_scale_2 != w3_weight_scale_2 (0.0002 != 0.0001), selecting the larger value. Accuracy may be affected.',
      '[2025-09-15 10:00:00] WARNING quantization.py:1700: w1_weight_scale_2 != w3_weight_scale_2 (0.0003 != 0.0004), selecting the larger value. Accuracy may be affected.',
    ]);
    assert.equal(l.engine, 'trtllm');
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'loading_weights');
  });

  it('a traceback through the worker submitting a request was serving', () => {
    const l = last([
      ' 0: [06/27/2025-10:00:00] [TRT-LLM] [RANK 0] [E] Traceback (most recent call last):',
      ' 0:   File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/executor/worker.py", line 700, in worker_main',
      ' 0:     worker.submit(req)',
      ' 0:   File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/executor/worker.py", line 500, in submit',
      ' 0:     request_id = self._enqueue_request(request)',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
  });
});

describe('TensorRT-LLM (issue 22): the C++ runtime loading an engine, and its checks quoted by others', () => {
  const cpp = (msg: string, level = 'INFO') => `[TensorRT-LLM][${level}] ${msg}`;
  const READ = [
    cpp('TRTGptModel maxNumSequences: 256'),
    cpp('Loaded engine size: 922 MiB'),
    cpp('Loaded engine size: 922 MiB'),
  ];

  it("the all-reduce plugin's topology is the engine being deserialized; the engine inspection comes once it is in", () => {
    const plugins = last([
      ...READ,
      cpp('Detecting local TP group for rank 0'),
      cpp('TP group is intra-node for rank 0'),
    ]);
    assert.equal(plugins.outcome, 'in_progress');
    assert.equal(plugins.phase, 'loading_weights');
    const inspected = last([
      ...READ,
      cpp('Detecting local TP group for rank 0'),
      cpp('Inspecting the engine to identify potential runtime issues...'),
      cpp(
        "The profiling verbosity of the engine does not allow this analysis to proceed. Re-build the engine with 'detailed' profiling verbosity to get more diagnostics.",
      ),
    ]);
    assert.equal(inspected.phase, 'weights_loaded');
  });

  it("the C++ flow's steps: parameters read, schedulers made, the execution context and buffers, the KV pools", () => {
    const params = last([
      cpp('max_beam_width is not specified, will use default value of 1', 'WARNING'),
      cpp('lora_cache_max_adapter_size not set, defaulting to 64', 'WARNING'),
      cpp('Parameter max_draft_len cannot be read from json:', 'WARNING'),
      cpp('Capacity Scheduler Policy: GUARANTEED_NO_EVICT'),
      cpp(
        'The logger passed into createInferRuntime differs from one already provided for an existing builder, runtime, or refitter. Uses of the global logger, returned by nvinfer1::getLogger(), will return the existing value.',
      ),
    ]);
    assert.equal(params.engine, 'trtllm');
    assert.equal(params.phase, 'loading_weights');
    const buffers = last([
      cpp(
        '[MemUsageChange] TensorRT-managed allocation in IExecutionContext creation: CPU +0, GPU +0, now: CPU 0, GPU 6678 (MiB)',
      ),
      cpp('[MemUsageChange] Allocated 43.29 MB GPU memory for runtime buffers.'),
      cpp('[MemUsageChange] Allocated 180.30 MB GPU memory for decoder.'),
    ]);
    assert.equal(buffers.phase, 'weights_loaded');
    const pools = last([
      cpp('[MemUsageChange] Allocated 180.30 MB GPU memory for decoder.'),
      cpp(
        'Memory usage when calculating max tokens in paged kv cache: total: 79.10 GiB, available: 70.48 GiB',
      ),
      cpp('Number of blocks in KV cache primary pool: 4060'),
    ]);
    assert.equal(pools.phase, 'kv_cache');
  });

  it("a native stack through a plugin's initialize() died deserializing the engine; an MPI check is the ranks' communication", () => {
    const l = last([
      "terminate called after throwing an instance of 'tensorrt_llm::common::TllmException'",
      "  what():  [TensorRT-LLM][ERROR] Assertion failed: Failed: MPI error /src/cpp/tensorrt_llm/common/mpiUtils.cpp:211 '6' (/src/cpp/tensorrt_llm/common/mpiUtils.cpp:211)",
      '1       0x7f00000001 tensorrt_llm::common::throwRuntimeError(char const*, int, std::string const&) + 82',
      '2       0x7f00000002 tensorrt_llm::plugins::AllreducePlugin::initialize() + 204',
      '3       0x7f00000003 /usr/local/lib/python3.10/dist-packages/tensorrt_libs/libnvinfer.so.10(+0x108c6e5) [0x7f00000003]',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
    assert.equal(l.failure?.class, 'nccl');
  });

  it("a check's exception quoted by a host program is a failure; a forward step's request error is not", () => {
    const host = last([
      cpp('Max tokens in paged KV cache: 128. Allocating 16777216 bytes.'),
      '20240806 09:33:16.023000 UTC 10952 ERROR Unhandled exception in /inferences/server/loadmodel, what(): [TensorRT-LLM][ERROR] Assertion failed: maxTokensInPagedKvCache must be large enough',
    ]);
    assert.equal(host.outcome, 'crashed');
    assert.equal(host.phase, 'kv_cache');
    const request = last([
      VERSION,
      py('Model init total -- 55.0s'),
      'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
      cpp(
        'Encountered an error in forward function: [TensorRT-LLM][ERROR] Assertion failed: too many tokens (/src/x.cpp:1)',
        'ERROR',
      ),
    ]);
    assert.notEqual(request.outcome, 'crashed');
  });

  it("Triton's glog records with the year, and its backends table", () => {
    const ready = last([
      'WARNING: Logging before InitGoogleLogging() is written to STDERR',
      'I20240227 08:25:18.989490 35588 grpc_server.cc:2495] Started GRPCInferenceService at 0.0.0.0:8001',
    ]);
    assert.equal(ready.engine, 'trtllm');
    assert.equal(ready.outcome, 'ready');
    // src/server.cc's backends table: a backend is loaded only for a model that uses it
    const backends = last([
      '| python      | /opt/tritonserver/backends/python/libtriton_python.so           | {} |',
      '| tensorrtllm | /opt/tritonserver/backends/tensorrtllm/libtriton_tensorrtllm.so | {} |',
      '+-------------+-----------------------------------------------------------------+----+',
    ]);
    assert.equal(backends.engine, 'trtllm');
    assert.equal(backends.phase, 'loading_weights');
  });

  it("the autotuner's warm-up in its mid-2025 wording is autotune", () => {
    const l = last([
      VERSION,
      py('Run autotuning warmup for batch size=1'),
      py('Autotuner Cache size after warmup 112'),
    ]);
    assert.equal(l.phase, 'autotune');
  });
});

describe('TensorRT-LLM (issue 22): native stacks of a failed load, executor parts, option checks (synthetic lines)', () => {
  it("a TllmException's frames through the model's construction are a load that died, message or not", () => {
    // common/tllmException.cpp getTrace: `%-3d %*p %s + %zd`, the Triton backend's instance creation under it
    const triton = last([
      '4       0x7f0000000004 tensorrt_llm::batch_manager::TrtGptModelInflightBatching::TrtGptModelInflightBatching(int, std::shared_ptr<nvinfer1::ILogger>) + 1234',
      '5       0x7f0000000005 tensorrt_llm::batch_manager::GptManager::GptManager(std::filesystem::path const&, int) + 77',
      '6       0x7f0000000006 /opt/tritonserver/backends/tensorrtllm/libtriton_tensorrtllm.so(+0x1a2b3) [0x7f0000000006]',
      '7       0x7f0000000007 TRITONBACKEND_ModelInstanceInitialize + 101',
    ]);
    assert.equal(triton.outcome, 'crashed');
    assert.equal(triton.phase, 'loading_weights');
    const plugin = last([
      '3       0x7f0000000003 tensorrt_llm::plugins::LookupPlugin::init() + 41',
      '4       0x7f0000000004 tensorrt_llm::plugins::LookupPluginCreator::deserializePlugin(char const*, void const*, unsigned long) + 120',
      '5       0x7f0000000005 /usr/local/tensorrt/lib/libnvinfer.so.10(+0x10d8506) [0x7f0000000005]',
    ]);
    assert.equal(plugin.outcome, 'crashed');
    assert.equal(plugin.phase, 'loading_weights');
    // the message above the frames names the cause; the frames do not outrank it
    const named = last([
      '  what():  [TensorRT-LLM][ERROR] CUDA runtime error in cudaMalloc(&p, n): out of memory (/src/cpp/tensorrt_llm/runtime/tllmBuffers.h:99)',
      '1       0x7f0000000001 tensorrt_llm::runtime::TllmRuntime::TllmRuntime(tensorrt_llm::runtime::RawEngine const&, float, bool) + 512',
    ]);
    assert.equal(named.failure?.class, 'oom');
  });

  it("the executor loop's frames under a request's error are no load failure", () => {
    const l = last([
      VERSION,
      py('Model init total -- 20.0s'),
      'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
      '1       0x7f0000000001 tensorrt_llm::batch_manager::TrtGptModelInflightBatching::forwardAsync(std::list<int> const&) + 300',
      '2       0x7f0000000002 tensorrt_llm::executor::Executor::Impl::executionLoop() + 900',
    ]);
    assert.notEqual(l.outcome, 'crashed');
  });

  it('the part the executor could not make for want of memory places the failure', () => {
    const component = (name: string) =>
      last([
        VERSION,
        py(
          'Failed to initialize executor on rank 0: Executor creation failed due to insufficient GPU memory.',
          'E',
        ),
        '',
        `The following component could not be created: ${name}`,
        'Total GPU memory (GiB): 79.10',
      ]);
    const kv = component('KV cache');
    assert.equal(kv.outcome, 'crashed');
    assert.equal(kv.phase, 'kv_cache');
    assert.equal(kv.failure?.class, 'oom');
    assert.equal(component('Initial KV cache (temporary for KV cache size estimation)').phase, 'kv_cache');
    assert.equal(component('Model').phase, 'loading_weights');
  });

  it('a check on an option the user sets is a configuration error, quoted by Triton or not', () => {
    const quoted = last([
      "E0101 10:00:00.000000 42 model_repository_manager.cc:703] \"Invalid argument: ensemble 'ensemble' depends on 'tensorrt_llm' which has no loaded version. Model 'tensorrt_llm' loading failed with error: version 1 is at UNAVAILABLE state: Internal: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] Assertion failed: Must set crossKvCacheFraction for encoder-decoder model (/src/cpp/x.cpp:1)\"",
    ]);
    assert.equal(quoted.outcome, 'crashed');
    assert.equal(quoted.phase, 'loading_weights');
    assert.equal(quoted.failure?.class, 'config_error');
  });

  it("a disaggregated worker's KV-cache transfer agent failing its NIXL check stops the executor at the KV cache", () => {
    const l = last([
      '[executor][RANK 1] Failed to initialize executor on rank 1:',
      '  Assertion failed: status == NIXL_SUCCESS (/src/cpp/tensorrt_llm/executor/cache_transmission/nixl_utils/transferAgent.cpp:311)',
      'RuntimeError: Executor worker returned error',
    ]);
    assert.equal(l.engine, 'trtllm');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'kv_cache');
    // executor/proxy.py raises `Executor worker returned error` only to point at the worker's own failure
    assert.equal(l.failure?.class, 'other');
  });
});

describe('TensorRT-LLM (issue 22): MPI start-up, native stacks, KV cache and driver OOM (synthetic lines)', () => {
  it("a PRRTE error at the ranks' spawn is an MPI launcher failure (class other)", () => {
    const l = last([
      '[TensorRT-LLM] TensorRT-LLM version: 0.16.0',
      '[TensorRT-LLM][INFO] Engine version 0.16.0 found in the config file, assuming engine(s) built by new builder API.',
      '[node7:4242] PRTE ERROR: Not found in file base/odls_base_default_fns.c at line 100',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'other');
  });

  it("Open MPI's banner for daemons that never started (or were lost) ends a multi-node launch in distributed init", () => {
    const banner = (first: string) =>
      last([
        'bash: orted: command not found',
        '--------------------------------------------------------------------------',
        first,
        'This usually is caused by:',
        '',
        '* not finding the required libraries and/or binaries on',
        '  one or more nodes. Please check your PATH and LD_LIBRARY_PATH',
      ]);
    for (const first of [
      'ORTE was unable to reliably start one or more daemons.',
      'An ORTE daemon has unexpectedly failed after launch and before',
      'ORTE has lost communication with its daemon located on node:',
    ]) {
      const l = banner(first);
      assert.equal(l.engine, 'trtllm', first);
      assert.equal(l.outcome, 'crashed', first);
      assert.equal(l.phase, 'dist_init', first);
      assert.equal(l.failure?.class, 'other', first);
    }
  });

  it("Open MPI's signal-handler stack frames are a dying rank", () => {
    const l = last([
      '[node7:4242] [ 3] /usr/lib/libmpi.so.40(MPI_Bcast+0x121)[0x7f0000001111]',
      '[node7:4242] [ 4] /opt/tensorrt_llm/libs/libtensorrt_llm.so(_ZN12tensorrt_llm8executor8Executor4Impl9someThingEv+0x10)[0x7f0000002222]',
    ]);
    assert.equal(l.engine, 'trtllm');
    assert.equal(l.outcome, 'crashed');
  });

  it('a native stack that only a rank under MPI prints says TensorRT-LLM, whatever library the frames are in', () => {
    // Open MPI's own signal handler (opal/util/stacktrace.c), frames of TensorRT and Python only
    const opal = last([
      '[gpu3:5150] [ 6] /usr/lib/x86_64-linux-gnu/libnvinfer.so.10(+0x1a2b3c)[0x7f1234567890]',
      '[gpu3:5150] [ 7] /usr/local/lib/python3.12/dist-packages/tensorrt/tensorrt.so(+0x4567)[0x7f1234500000]',
      '[gpu3:5150] [ 8] python3(_PyObject_MakeTpCall+0x2b)[0x5600aa001122]',
    ]);
    assert.equal(opal.engine, 'trtllm');
    assert.equal(opal.outcome, 'crashed');
    // another reporter's backtrace (UCX's) through the MPI library's entry points
    const ucx = last([
      '[gpu3:7:0:7] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x10)',
      '==== backtrace (tid:      7) ====',
      ' 0 0x0000000000012345 __sigaction()  ???:0',
      ' 1 0x0000000000023456 PMPI_Allreduce()  /src/openmpi-4.1/ompi/mpi/c/profile/pallreduce.c:77',
      ' 2 0x0000000000034567 ompi_coll_base_allreduce()  /src/openmpi-4.1/ompi/mca/coll/base/coll_base_allreduce.c:99',
    ]);
    assert.equal(ucx.engine, 'trtllm');
    // the same reporter's frames with no MPI in them say nothing of the engine
    const other = analyzeText(
      [
        '[gpu3:7:0:7] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x10)',
        ' 1 0x0000000000023456 some_function()  /src/lib/some.c:77',
      ].join('\n'),
    );
    assert.notEqual(other.engine, 'trtllm');
  });

  it('a KV cache too small for one sequence, and the driver API out of memory, are OOM', () => {
    const kv = last([
      '[TensorRT-LLM][INFO] Allocate 100000000 bytes for k/v cache.',
      '[TensorRT-LLM][ERROR] Assertion failed: maxTokensInPagedKvCache (1024) must be large enough to process at least 1 sequence to completion (i.e. must be larger than beam_width (1) * tokensPerBlock (64) * maxBlocksPerSeq (32))',
    ]);
    assert.equal(kv.failure?.class, 'oom');
    // 0.5/0.6 (late 2023): the same check without the numbers, relayed by Triton's model load
    const older = last([
      '[TensorRT-LLM][INFO] Using 512 tokens in paged KV cache.',
      'E0101 00:00:01.000001 42 backend_model.cc:634] ERROR: Failed to create instance: unexpected error when creating modelInstanceState: maxTokensInPagedKvCache must be large enough to process at least 1 sequence to completion (i.e. must be larger than beam_width * tokensPerBlock * maxBlocksPerSeq)',
    ]);
    assert.equal(older.failure?.class, 'oom');
    assert.equal(older.phase, 'kv_cache');
    const drv = last([
      '[TensorRT-LLM][INFO] Engine version 0.16.0 found in the config file, assuming engine(s) built by new builder API.',
      '[TensorRT-LLM][ERROR] tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] CUDA driver error in cuMemCreate(...): CUDA_ERROR_OUT_OF_MEMORY.',
    ]);
    assert.equal(drv.failure?.class, 'oom');
  });

  it("a check's message is the raise site's: the catalog classes it, and a C++ exception is not a Python one", () => {
    // runtime/tllmStreamReaders.cpp StreamReader (0.x runtime/utils/sessionUtils.cpp loadEngine)
    const open = last([
      '[TensorRT-LLM][ERROR] Assertion failed: Error opening engine file: /e/llama_tp2_rank1.engine (/src/cpp/tensorrt_llm/runtime/utils/sessionUtils.cpp:40)',
      '1       0x55aa00000001 tensorrt_llm::common::throwRuntimeError(char const*, int, std::string const&) + 100',
    ]);
    assert.equal(open.outcome, 'crashed');
    assert.equal(open.phase, 'loading_weights');
    assert.equal(open.failure?.class, 'model_not_found');
    // batch_manager/trtGptModel.h TrtGptModel::TrtGptModel: a configured limit the model checks
    const window = last([
      '[TensorRT-LLM][ERROR] Assertion failed: Attention window size (mMaxAttentionWindow) must be > 0 (/src/cpp/tensorrt_llm/batch_manager/trtGptModel.h:80)',
    ]);
    assert.equal(window.failure?.class, 'config_error');
    const batch = last([
      '[TensorRT-LLM][ERROR] tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] Assertion failed: Runtime configured max batch size (512) must not exceed engine max batch size (256) (/src/cpp/tensorrt_llm/batch_manager/trtGptModel.h:70)',
    ]);
    assert.equal(batch.failure?.class, 'config_error');
    // an invariant the catalog does not know: the native check's own class, `other`
    const plain = last([
      '[TensorRT-LLM][ERROR] tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] Assertion failed: x == y + n (/src/cpp/tensorrt_llm/plugins/somePlugin/some.cpp:12)',
    ]);
    assert.equal(plain.outcome, 'crashed');
    assert.equal(plain.failure?.class, 'other');
  });

  it("the LLM API's model loader steps: loading the checkpoint, then building the engine (compile)", () => {
    const l = last([
      '[TensorRT-LLM] TensorRT-LLM version: 0.15.0',
      'Loading Model: [1/2]\tLoading HF model to memory',
      'Time: 1.234s',
      'Loading Model: [2/2]\tBuilding TRT-LLM engine',
      'Unhandled exception caught in c10/util/AbortHandler.h',
      '00007FF000000000 torch_python.dll!THPSomething [<unknown file> @ <unknown line number>]',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'compile');
    assert.equal(l.failure?.class, 'other');
    assert.equal(
      last(['[TensorRT-LLM] TensorRT-LLM version: 0.12.0', 'Loading Model: [1/3]\tDownloading HF model'])
        .phase,
      'loading_weights',
    );
  });
});
