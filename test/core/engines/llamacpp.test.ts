/**
 * llama-server lines read from the sources (tools|examples/server, src/llama*.cpp, ggml-cuda, ggml.c
 * ggml_abort), on made-up lines of each shape: the 2025-26 tagged format and the older `INFO [func] msg | k=v`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const last = (lines: string[]) => {
  const r = analyzeText(lines.join('\n'));
  return { ...r.launches[r.launches.length - 1]!, engine: r.engine };
};
const BUILD = 'build: 5500 (abcdef12) with cc (GCC) 13.2.0 for x86_64-linux-gnu';
const LISTENING = 'main: server is listening on http://0.0.0.0:8080 - starting the main loop';

describe('llama.cpp', () => {
  it('a GPU error while serving aborts the server', () => {
    const l = last([
      LISTENING,
      'slot launch_slot_: id  0 | task 0 | processing task',
      'CUDA error: an illegal memory access was encountered',
      '  current device: 0, in function ggml_backend_cuda_synchronize at /src/ggml/src/ggml-cuda/ggml-cuda.cu:2456',
      '/src/ggml/src/ggml-cuda/ggml-cuda.cu:75: CUDA error',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'cuda_error');
  });

  it('a failed GGML_ASSERT aborts the server', () => {
    const l = last([LISTENING, '/src/ggml/src/ggml.c:2703: GGML_ASSERT(ggml_can_mul_mat(a, b)) failed']);
    assert.equal(l.outcome, 'crashed');
  });

  it("a GGML_ASSERT is the code's own check (other) unless it reads what the user set", () => {
    // src/llama.cpp's output check, hit when an embedding model's graph is built for generation
    const own = last([
      'llama_kv_cache_init:        CPU KV buffer size =   288.00 MiB',
      'src/llama.cpp:16813: GGML_ASSERT(strcmp(res->name, "result_output") == 0 && "missing result_output tensor") failed',
    ]);
    assert.equal(own.failure?.class, 'other');
    const internal = last([
      LISTENING,
      'ggml/src/ggml-backend.cpp:1400: GGML_ASSERT(src->data && "graph must be allocated") failed',
    ]);
    assert.equal(internal.failure?.class, 'other');
    // server.cpp's self-extend arguments, checked by assertion
    const arg = last([
      BUILD,
      '/home/u/llama.cpp/examples/server/server.cpp:1570: GGML_ASSERT(ga_n > 0 && "ga_n must be positive") failed',
    ]);
    assert.equal(arg.failure?.class, 'config_error');
  });

  it('an architecture the build does not know is unsupported, not a missing model', () => {
    const l = last([
      BUILD,
      "srv    load_model: loading model '/m/x.gguf'",
      "llama_model_load: error loading model: error loading model architecture: unknown model architecture: 'newarch'",
      'llama_model_load_from_file_impl: failed to load model',
      "common_init_from_params: failed to load model '/m/x.gguf'",
      "srv    load_model: failed to load model, '/m/x.gguf'",
      'main: exiting due to model loading error',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'unsupported');
    assert.equal(l.failure?.line, 3);
  });

  it('the KV cache that does not fit is an OOM at kv_cache', () => {
    const l = last([
      BUILD,
      'llama_context: n_ctx         = 131072',
      'ggml_backend_cuda_buffer_type_alloc_buffer: allocating 16384.00 MiB on device 0: cudaMalloc failed: out of memory',
      'llama_kv_cache_init: failed to allocate buffer for kv cache',
      "common_init_from_params: failed to create context with model '/m/x.gguf'",
    ]);
    assert.equal(l.failure?.class, 'oom');
    assert.equal(l.phase, 'kv_cache');
  });

  it('the older text format: slots, model loaded, listening', () => {
    const l = last([
      'INFO [                    init] initializing slots | tid="1" timestamp=1 n_slots=1',
      'INFO [                    init] new slot | tid="1" timestamp=1 id_slot=0 n_ctx_slot=4096',
      'INFO [                    main] model loaded | tid="1" timestamp=1',
      'INFO [                    main] HTTP server listening | tid="1" timestamp=1 n_threads_http="7" port="8080" hostname="0.0.0.0"',
      'INFO [            update_slots] all slots are idle | tid="1" timestamp=1',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'ready');
  });

  it('the older text format: the timings give the generation rate', () => {
    const l = last([
      'INFO [                    main] HTTP server listening | tid="1" timestamp=1 port="8080" hostname="0.0.0.0"',
      'INFO [           print_timings] prompt eval time     =      47.81 ms /     7 tokens (    6.83 ms per token,   146.41 tokens per second) | tid="1" timestamp=1 id_slot=0 id_task=0',
      'INFO [           print_timings] generation eval time =    1350.11 ms /    93 runs   (   14.52 ms per token,    68.88 tokens per second) | tid="1" timestamp=1 id_slot=0 id_task=0',
    ]);
    assert.equal(l.outcome, 'serving');
    assert.equal(l.throughput?.last, 68.88);
  });

  it("a fragment of context creation names llama.cpp by its tools' common library and ggml-metal's init", () => {
    const l = last([
      'ggml_metal_device_init: error: failed to allocate context',
      'llama_new_context_with_model: failed to initialize Metal backend',
      "common_init_from_params: failed to create context with model '/m/x.gguf'",
      '[model server] exited unexpectedly (code 1), restarting in 1000ms',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'kv_cache');
    // libllama's context lines alone are any embedding program's (llama-cpp-python's too): they name no engine
    assert.equal(last(['llama_new_context_with_model: n_ctx      = 8192']).engine, null);
  });

  it('the older JSON format (its default then): slots, listening, timings', () => {
    const j = (fn: string, msg: string, extra = '') =>
      `{"tid":"1","timestamp":1,"level":"INFO","function":"${fn}","line":9,"msg":"${msg}"${extra}}`;
    const l = last([
      j('init', 'initializing slots', ',"n_slots":1'),
      j('main', 'model loaded'),
      j('main', 'HTTP server listening', ',"port":"8080"'),
      j('launch_slot_with_task', 'slot is processing task', ',"id_slot":0'),
      j(
        'print_timings',
        'generation eval time =    1350.11 ms /    93 runs   (   14.52 ms per token,    68.88 tokens per second)',
      ),
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'serving');
    assert.equal(l.throughput?.last, 68.88);
  });

  it('health checks answered 503 while the model loads are not serving', () => {
    const r = analyzeText(
      [
        BUILD,
        'main: HTTP server is listening, hostname: 0.0.0.0, port: 8080, http threads: 15',
        "srv    load_model: loading model '/m/x.gguf'",
        'srv  log_server_r: request: GET /health 127.0.0.1 503',
        'llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /m/x.gguf',
        'srv  log_server_r: request: GET /health 127.0.0.1 503',
      ].join('\n'),
    );
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.outcome, 'in_progress');
    assert.equal(r.launches[0]!.phase, 'loading_weights');
    const served = last([LISTENING, 'srv  log_server_r: request: POST /v1/chat/completions 127.0.0.1 200']);
    assert.equal(served.outcome, 'serving');
  });

  it('a refused request is a request served', () => {
    const l = last([
      LISTENING,
      'srv    send_error: task id = 5, error: the request exceeds the available context size, try increasing it',
    ]);
    assert.equal(l.outcome, 'serving');
  });
});

describe('llama.cpp server of 2023-10 to 2024-02 (LOG_TEE lines, before #5700)', () => {
  // examples/server/server.cpp then: `llama server listening at http://…`, LOG_TEE("slot %i is processing
  // [task id: %i]"), print_timings's LOG_TEE("%s: prompt eval time = …", __func__), `slot %d released (…)`
  const start = [
    'llm_load_tensors: offloaded 33/33 layers to GPU',
    'llama_new_context_with_model: n_ctx      = 4096',
    'llama server listening at http://0.0.0.0:8080',
  ];
  it('a request processed is serving', () => {
    for (const line of [
      'slot 0 is processing [task id: 0]',
      'print_timings: prompt eval time =     112.22 ms /    18 tokens (    6.23 ms per token,   160.40 tokens per second)',
      'print_timings:        eval time =    2301.34 ms /   128 runs   (   17.98 ms per token,    55.62 tokens per second)',
      'slot 0 released (147 tokens in cache)',
    ]) {
      const l = last([...start, line]);
      assert.equal(l.phase, 'serving', line);
    }
  });
  it('listening alone is ready', () => {
    assert.equal(last(start).phase, 'ready');
  });
});

describe('llama.cpp: wild shapes (issue 22)', () => {
  it('2024-01 builds listen before loading: the port listens, the launch is one and still loading', () => {
    const r = analyzeText(
      [
        '{"timestamp":1706720633,"level":"INFO","function":"main","line":2427,"message":"build info","build":2036,"commit":"d3bac7d5"}',
        'llama server listening at http://127.0.0.1:8080',
        '{"timestamp":1706720633,"level":"INFO","function":"main","line":2534,"message":"HTTP server listening","port":"8080","hostname":"127.0.0.1"}',
        'llama_model_loader: loaded meta data with 19 key-value pairs and 363 tensors from /m/x.gguf (version GGUF V2)',
      ].join('\n'),
    );
    assert.equal(r.engine, 'llamacpp');
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.outcome, 'in_progress');
    assert.equal(r.launches[0]!.phase, 'loading_weights');
  });

  it('in the 2023 order (listening printed once the model is in) the same line is ready', () => {
    const l = last([
      'llama_new_context_with_model: n_ctx      = 2048',
      'llama_new_context_with_model: kv self size  = 1024.00 MB',
      'llama server listening at http://127.0.0.1:8080',
    ]);
    assert.equal(l.outcome, 'ready');
  });

  it('the 2024 text format: `loading model` is loading, `kv cache rm` is a slot at work', () => {
    assert.equal(
      last([
        'INFO [                    main] loading model | tid="1" timestamp=1 n_threads_http="7" port="8080"',
      ]).phase,
      'loading_weights',
    );
    assert.equal(
      last([
        'INFO [            update_slots] kv cache rm [p0, end) | tid="1" timestamp=1 id_slot=0 id_task=90 p0=0',
      ]).phase,
      'serving',
    );
  });

  it('a GGML_ASSERT cut by the paste still aborts; ggml-cuda.cu aborts are GPU runtime failures', () => {
    const a = last(['ik_llama.cpp/ggml/src/./iqk/fa/iqk_fa_templates.h:1175: GGML_ASSERT(S']);
    assert.equal(a.engine, 'llamacpp');
    assert.equal(a.outcome, 'crashed');
    const b = last([
      'ggml_cuda.cu:648: HipVMM Failure: invalid argument',
      'ggml_print_backtrace()  libggml-base.so',
    ]);
    assert.equal(b.failure?.class, 'cuda_error');
  });

  it("ggml_abort's own frame in a backtrace says the server aborted, where the message was lost", () => {
    const l = last([
      'slot launch_slot_: id  2 | task 1950 | processing task',
      'libggml-base.so(ggml_print_backtrace+0x21f)[0x72edb99cd82f]',
      'libggml-base.so(ggml_abort+0x152)[0x72edb99cda02]',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
  });

  it("a gdb backtrace through the server's main loop places the abort in serving", () => {
    const l = last([
      '#9  0x0000000000492993 in server_context::update_slots() ()',
      '#10 0x000000000046083f in server_queue::start_loop() ()',
      'Aborted (core dumped)',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
  });

  it('the shell prompt coming back mid-load: the process is gone', () => {
    const l = last([
      'main: HTTP server is listening, hostname: 127.0.0.1, port: 8080, http threads: 11',
      'main: loading model',
      'llama_model_loader: - type q4_K:  289 tensors',
      '$',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
  });

  it('router mode: a child reporting its load to the router is loading', () => {
    const l = last([
      '[38957] cmd_child_to_router:state:{"state":"loading","payload":{"stages":["text_model"],"current":"text_model","value":0.4}}',
      '[38957] cmd_child_to_router:state:{"state":"loading","payload":{"stages":["text_model"],"current":"text_model","value":0.5}}',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.phase, 'loading_weights');
  });

  it("load_all_data's async-upload line is the weights being read; a read error there fails the load", () => {
    const l = last([
      'load_tensors:      Vulkan0 model buffer size = 12000.00 MiB',
      'load_all_data: using async uploads for device Vulkan0, buffer type Vulkan0, backend Vulkan0',
      'llama_model_load: error loading model: read error: Input/output error',
      'main: exiting due to model loading error',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
    assert.equal(
      last(['load_all_data: using async uploads for device CUDA0, buffer type CUDA0, backend CUDA0']).phase,
      'loading_weights',
    );
  });

  it("a paste that starts with ggml's backend registry and Vulkan device lines is llama.cpp's", () => {
    const r = analyzeText(
      `${[
        'load_backend: loaded RPC backend from C:\\llama\\ggml-rpc.dll',
        'ggml_vulkan: Found 1 Vulkan devices:',
        'ggml_vulkan: 0 = Intel(R) Arc(TM) A770 Graphics (Intel Corporation) | uma: 0 | fp16: 1 | warp size: 32',
      ].join('\n')}\n`,
    );
    assert.equal(r.engine, 'llamacpp');
  });
});

describe('llama.cpp: native stacks and router lines (issue 22)', () => {
  it('a decode on the stack under common_init_from_params is the warm-up run, not the KV cache', () => {
    // ggml_print_backtrace's `function()  library` frames; llama_context::… frames are not the context's log lines
    const l = last([
      'ggml_cuda.cu:700: HipVMM Failure: invalid argument',
      'ggml_print_backtrace()                    libggml-base.so',
      'ggml_abort()                              libggml-base.so',
      'llama_context::graph_compute()            libllama.so',
      'llama_context::decode()                   libllama.so',
      'llama_decode()                            libllama.so',
      'common_init_from_params()                 libllama-common.so',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'cuda_error');
    assert.equal(l.phase, 'warmup');
  });

  it('the context log lines still mark the KV cache', () => {
    const l = last([BUILD, 'llama_context: n_ctx         = 4096', 'llama_kv_cache: size =  512.00 MiB']);
    assert.equal(l.phase, 'kv_cache');
  });

  it('a CUDA error placing a tensor is a failure while loading the weights', () => {
    const l = last([
      '[4242] 0.12.000.001 E CUDA error: an illegal memory access was encountered',
      '[4242] 0.12.000.002 E   current device: 1, in function ggml_backend_cuda_buffer_set_tensor at /src/ggml/src/ggml-cuda/ggml-cuda.cu:700',
      '[4242] 0.12.000.002 E   cudaMemcpyAsync((char *)tensor->data + offset, data, size, cudaMemcpyHostToDevice, stream)',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'cuda_error');
    assert.equal(l.phase, 'loading_weights');
  });

  it("the callers' `failed to load model` alone names no cause: class other, not a missing model", () => {
    const l = last([
      'llama_load_model_from_file: failed to load model',
      "llama_init_from_gpt_params: error: failed to load model 'models/x.gguf'",
      '{"timestamp":1700000000,"level":"ERROR","function":"load_model","line":500,"message":"unable to load model","model":"models/x.gguf"}',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'other');
  });

  it("a failed load under stacked prefixes (docker stamp, compose service, an app's stamp) was loading", () => {
    const l = last([
      '2026-03-01T10:00:30.700305461Z [app-server-1] 2026-03-01 10:00:30.700 [Info] (Process) 0.04.413.360 E llama_model_load_from_file_impl: failed to load model',
      "2026-03-01T10:00:30.700371072Z [app-server-1] 2026-03-01 10:00:30.700 [Info] (Process) 0.04.413.371 E cmn  common_init_: failed to load model '/m/x.gguf'",
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
    assert.equal(l.failure?.line, 1);
  });

  it("each start's backend lines (ggml-backend-reg.cpp load_backend) open a launch once the last one ended", () => {
    const start = [
      'srv-1  | load_backend: loaded RPC backend from /app/libggml-rpc.so',
      'srv-1  | load_backend: loaded CUDA backend from /app/libggml-cuda.so',
      'srv-1  | load_backend: loaded CPU backend from /app/libggml-cpu-haswell.so',
    ];
    // one start loads several backends: one launch
    const one = analyzeText(
      [...start, 'srv-1  | build: 5500 (abcdef12) with cc (GCC) 13.2.0 for x86_64-linux-gnu'].join('\n'),
    );
    assert.equal(one.launches.length, 1);
    // a restart loop under compose: each start dies on its arguments, compose restarts it
    const crash = ['srv-1  | error: invalid argument: 0.0.0.0', 'srv-1 exited with code 1 (restarting)'];
    const loop = analyzeText([...start, ...crash, ...start, ...crash, ...start, crash[0]].join('\n'));
    assert.equal(loop.launches.length, 3);
    for (const l of loop.launches) {
      assert.equal(l.outcome, 'crashed');
      assert.equal(l.failure?.class, 'config_error');
    }
  });

  it('the router spawning a model instance is that instance reading its arguments', () => {
    const l = last([
      '0.10.100.001 I srv          load: spawning server instance with name=some-model-Q4 on port 40001',
      '0.10.100.002 I srv          load: spawning server instance with args:',
      '0.10.100.002 I srv          load:   /usr/local/bin/llama-server',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'args');
  });

  it('a router that has served spawning another model stays one launch, serving', () => {
    const r = analyzeText(
      [
        '[4100] 1.00.000.001 I slot      release: id  0 | task 0 | stop processing: n_tokens = 200, truncated = 0',
        '[4100] 1.00.000.002 I srv  update_slots: all slots are idle',
        '1.05.000.001 I srv  ensure_model: model name=other-model is not loaded, loading...',
        '1.05.000.002 I srv          load: spawning server instance with name=other-model on port 40002',
        '1.05.000.003 I srv          load: spawning server instance with args:',
      ].join('\n'),
    );
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.outcome, 'serving');
  });
});

describe('llama.cpp: loader lines of every era (issue 22)', () => {
  it("the loader's own error names the engine and the phase; a rethrown step's what() names the class", () => {
    const l = last([
      'init_tokenizer: initializing tokenizer for type 1',
      'llama_model_load: error loading model: error loading model hyperparameters: std::bad_variant_access',
      'llama_model_load_from_file_impl: failed to load model',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
    assert.equal(l.failure?.class, 'other');
  });

  it("2023's GGML-v3 loader (llama.cpp: loading model from …, llama_model_load_internal) is loading", () => {
    const l = last([
      '{"timestamp":1690000000,"level":"INFO","function":"main","line":1000,"message":"build info","build":800,"commit":"abc1234"}',
      'llama.cpp: loading model from /models/x.ggmlv3.q4_0.bin',
      'llama_model_load_internal: format     = ggjt v3 (latest)',
    ]);
    assert.equal(l.phase, 'loading_weights');
  });

  it('a fragment that starts at a listening line, then loads: the port opened first, one launch', () => {
    const r = analyzeText(
      [
        'llama server listening at http://127.0.0.1:8081',
        'loading weights...',
        '{"timestamp":1700000000,"level":"INFO","function":"main","line":3000,"message":"HTTP server listening","hostname":"127.0.0.1","port":8081}',
        'all slots are idle and system prompt is empty, clear the KV cache',
        'slot 0 is processing [task id: 0]',
      ].join('\n'),
    );
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.outcome, 'serving');
  });

  it('synthetic: a compute-buffer reservation that fails, then is retried without pipeline parallelism, is recovered', () => {
    const l = last([
      BUILD,
      'llama_context: n_ctx = 32768',
      'ggml_backend_cuda_buffer_type_alloc_buffer: allocating 40000.00 MiB on device 1: cudaMalloc failed: out of memory',
      'ggml_gallocr_reserve_n_impl: failed to allocate CUDA1 buffer of size 41943040000',
      'graph_reserve: failed to allocate compute buffers',
      'sched_reserve: compute buffer allocation failed, retrying without pipeline parallelism',
      'srv    load_model: initializing, n_slots = 1, n_ctx_slot = 32768',
    ]);
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'kv_cache');
  });

  it("synthetic: a slot's decode progress (print_timing: n_decoded, tg) is a request being served", () => {
    const l = last([
      '1.02.000.000 I slot print_timing: id  0 | task 4 | n_decoded =    200, tg =  30.10 t/s, tg_3s =  29.80 t/s',
      '1.05.000.000 I slot print_timing: id  0 | task 4 | n_decoded =    290, tg =  30.00 t/s, tg_3s =  29.90 t/s',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.phase, 'serving');
  });

  it('synthetic: the newer decode progress (print_timing: n_gen, tg, tg_3s) is a request being served', () => {
    const l = last([
      '2.10.000.000 I slot print_timing: id  1 | task 7 | n_gen =    150, tg =  41.20 t/s, tg_3s =  44.00 t/s',
      '2.13.000.000 I slot print_timing: id  1 | task 7 | n_gen =    280, tg =  42.00 t/s, tg_3s =  43.30 t/s',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.phase, 'serving');
  });

  it("synthetic: the 2024 text format indented by a paste, with a macOS hex tid, is llama.cpp's", () => {
    const l = last([
      '    INFO [                    main] HTTP server listening | tid="0x1f00aa000" timestamp=1720000000 port="8080" hostname="127.0.0.1"',
      '    INFO [            update_slots] all slots are idle | tid="0x1f00aa000" timestamp=1720000000',
      '    INFO [   launch_slot_with_task] slot is processing task | tid="0x1f00aa000" timestamp=1720000001 id_slot=0 id_task=1',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'serving');
  });
});

describe('llama.cpp: SYCL and HIP failures, sorted JSON keys (issue 22, unseen-d)', () => {
  it('synthetic: the JSON log whose sorted keys start with "function" is the server\'s', () => {
    const l = last([
      '{"function":"launch_slot_with_data","level":"INFO","line":800,"msg":"slot is processing task","slot_id":0,"task_id":1,"tid":"0x1","timestamp":1700000000}',
      '{"function":"print_timings","level":"INFO","line":280,"msg":"generation eval time =     100.00 ms /     4 runs   (   25.00 ms per token,    40.00 tokens per second)","slot_id":0,"task_id":1,"tid":"0x1","timestamp":1700000001}',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.phase, 'serving');
  });

  it('synthetic: a SYCL exception caught in ggml-sycl is a GPU runtime crash', () => {
    const l = last([
      'slot launch_slot_: id  0 | task 5 | processing task',
      'Native API failed. Native API returns: -5 (PI_ERROR_OUT_OF_RESOURCES)',
      'Exception caught at file:/src/ggml/src/ggml-sycl/ggml-sycl.cpp, line:3000, func:operator()',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'cuda_error');
    const m = last([
      LISTENING,
      'SYCL error: CHECK_TRY_ERROR(stream->memcpy(a, b, n).wait()): Exception caught in this line of code.',
      '  in function ggml_sycl_op_x at /src/ggml/src/ggml-sycl/ggml-sycl.cpp:2000',
      '/src/ggml/src/ggml-sycl/common.hpp:150: SYCL error',
    ]);
    assert.equal(m.failure?.class, 'cuda_error');
  });

  it('synthetic: HIP without code objects for the GPU, then the shell reports the server died', () => {
    const l = last([
      ':1:hip_fatbin.cpp           :600 : 1000 us:  No compatible code objects found for: gfx1103, value of HIP_FORCE_SPIRV_CODEOBJECT: 0',
      'zsh: segmentation fault  llama-server -m /m/x.gguf -ngl 99',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'unsupported');
  });
});

describe('llama.cpp: a load that fails part-way through its progress dots (issue 22)', () => {
  it("the GPU runtime's error written right after the dots is the crash", () => {
    const r = analyzeText(
      [
        'load_tensors:        ROCm0 model buffer size =  1024.00 MiB',
        '..............ROCm error: out of memory',
        '  current device: 0, in function ggml_backend_cuda_buffer_set_tensor at /src/ggml/src/ggml-cuda/ggml-cuda.cu:600',
        '  hipMemcpyAsync(...)',
      ].join('\n'),
    );
    const l = r.launches.at(-1)!;
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'oom');
    assert.equal(l.failure?.line, 2);
  });
});

describe('llama-server: an excerpt of its prompt cache at work (issue 22)', () => {
  it('is a server serving (server-context.cpp get_available_slot, server-task.cpp server_prompt_cache)', () => {
    const l = last([
      '0.12.345.678 I srv  get_availabl: updating prompt cache',
      '0.12.345.690 W srv   prompt_save:  - saving prompt with length 120, total state size = 30.000 MiB (draft: 0.000 MiB)',
      '0.12.345.700 I srv          load:  - looking for better prompt, base f_keep = 0.010, sim = 0.050',
    ]);
    assert.equal(l.outcome, 'serving');
    assert.equal(l.engine, 'llamacpp');
  });
});

describe('llama.cpp: a kernel that fails while a graph is computed (issue 22)', () => {
  it('ggml_cuda_compute_forward failing is a CUDA error at warm-up at least (ggml-cuda.cu)', () => {
    const l = last([
      '/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:90: CUDA error',
      'ggml_cuda_compute_forward: MUL_MAT failed',
      'CUDA error: no kernel image is available for execution on the device',
      '  current device: 0, in function ggml_cuda_compute_forward at /src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:2500',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'warmup');
    assert.equal(l.failure?.class, 'cuda_error');
  });

  it('after the server has answered requests it stays serving', () => {
    const l = last([
      'srv  update_slots: all slots are idle',
      'slot launch_slot_: id  0 | task 0 | processing task',
      'prompt eval time =      10.00 ms /    10 tokens (    1.00 ms per token,  1000.00 tokens per second)',
      'ggml_cuda_compute_forward: SOFT_MAX failed',
      '  current device: 0, in function ggml_cuda_compute_forward at /src/ggml/src/ggml-cuda/ggml-cuda.cu:2500',
    ]);
    assert.equal(l.phase, 'serving');
  });

  it("the old text format's build line, and the server's binary before its rename, start a llama.cpp launch", () => {
    const l = last([
      'INFO [                    main] build info | tid="140000000000001" timestamp=1723000000 build=3500 commit="abc1234"',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.phase, 'args');
    // `./server -m x.gguf` (renamed llama-server in 2024-06), then libllama's context lines and the shell's SIGILL
    const old = last([
      './server -m model-q4_0.gguf --port 8081',
      'llama_new_context_with_model: n_ctx      = 4096',
      'llama_new_context_with_model: kv self size  = 512.00 MB',
      'Illegal instruction',
    ]);
    assert.equal(old.engine, 'llamacpp');
    assert.equal(old.outcome, 'crashed');
    assert.equal(old.phase, 'kv_cache');
    assert.equal(old.failure?.class, 'other');
  });

  it('a SYCL error in an op names llama.cpp and says warmup at least; a backtrace through load_model says loading', () => {
    const sycl = last([
      'Exception caught at file:/src/llama.cpp/ggml/src/ggml-sycl/ggml-sycl.cpp, line:3000, func:operator()',
      'SYCL error: CHECK_TRY_ERROR(dpct::gemm_batch(*stream, a, b)): Exception caught in this line of code.',
      '  in function ggml_sycl_mul_mat_batched_sycl at /src/llama.cpp/ggml/src/ggml-sycl/ggml-sycl.cpp:3000',
      '/src/llama.cpp/ggml/src/ggml-sycl/common.hpp:110: SYCL error',
    ]);
    assert.equal(sycl.engine, 'llamacpp');
    assert.equal(sycl.phase, 'warmup');
    assert.equal(sycl.failure?.class, 'cuda_error');
    const gdb = last([
      '#9  0x00005600000001 in server_context::load_model(common_params const&) ()',
      '#10 0x00005600000002 in main ()',
      'Aborted (core dumped)',
    ]);
    assert.equal(gdb.engine, 'llamacpp');
    assert.equal(gdb.outcome, 'crashed');
    assert.equal(gdb.phase, 'loading_weights');
  });

  it('the threadpool is attached once the context is made: kv_cache at least, never back from warmup', () => {
    assert.equal(last([BUILD, 'cmn          init: llama threadpool init, n_threads = 4']).phase, 'kv_cache');
    const cli = last([
      BUILD,
      'common_init_from_params: warming up the model with an empty run - please wait ... (--no-warmup to disable)',
      'main: llama threadpool init, n_threads = 4',
    ]);
    assert.equal(cli.phase, 'warmup');
  });
});

describe("llama.cpp: ggml-metal's backend init is the context's, before the KV cache (issue 22, unseen-2026-12-03e)", () => {
  const METAL = [
    'ggml_metal_init: allocating',
    'ggml_metal_init: found device: Apple M2 Pro',
    'ggml_metal_init: picking default device: Apple M2 Pro',
    'ggml_metal_init: recommendedMaxWorkingSetSize  = 11453.25 MB',
  ];
  it('synthetic: a fragment that starts at its lines is making the context', () => {
    assert.equal(last(METAL).phase, 'kv_cache');
  });

  it('synthetic: after the weights too; before them (a host that inits its backends first) they tell nothing', () => {
    const loaded = last([
      'llama_model_loader: loaded meta data with 24 key-value pairs and 291 tensors from /m.gguf (version GGUF V3 (latest))',
      ...METAL,
    ]);
    assert.equal(loaded.phase, 'kv_cache');
    const early = last([
      'time=2025-05-01T10:00:00.000Z level=INFO source=server.go:400 msg="starting llama server" cmd="/usr/bin/ollama runner --ollama-engine --model /m"',
      ...METAL,
    ]);
    assert.equal(early.phase, 'args');
  });
});

describe('llama.cpp (issue 22): a stop under a service manager', () => {
  it('a second interrupt is a stop of a server that was up, read through journal lines without a host', () => {
    const l = last([
      '2026-01-05T08:00:01+01:00 llm.server[1234]: srv    operator(): operator(): cleaning up before exit...',
      '2026-01-05T08:00:01+01:00 llm.server[1234]: Received second interrupt, terminating immediately.',
      '2026-01-05T08:00:31+01:00 systemd[1]: llm.server.service: Failed with result timeout.',
    ]);
    assert.equal(l.engine, 'llamacpp');
    assert.equal(l.outcome, 'shutdown');
    assert.equal(l.phase, 'ready');
  });

  it('the clean-up line alone says nothing of how far the launch got (also printed when the load failed)', () => {
    const l = last([
      'llama_model_load: error loading model: tensor data is not within the file bounds',
      'srv    operator(): operator(): cleaning up before exit...',
      'main: exiting due to model loading error',
    ]);
    assert.notEqual(l.phase, 'ready');
  });
});
