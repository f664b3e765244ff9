/**
 * The generic reader (src/core/engines/generic.ts) on made-up lines of each program's shape: a log that no engine
 * module reads is still read (listening, requests, failures, stops) and its program named; rules tested here, not
 * accuracy (test/fixtures/wild/other holds the real fragments).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { reportedEngine } from '../../../src/core/reading/report.js';
import { analyzeText } from '../../helpers.js';

const read = (lines: string[]) => {
  const r = analyzeText(lines.join('\n'));
  const l = r.launches[r.launches.length - 1];
  return { r, l, engine: reportedEngine(r) };
};

describe('generic reader: ready and serving', () => {
  it("Ollama's own lines: listening is ready, a model request answered is serving, the program is named", () => {
    const { r, l, engine } = read([
      'time=2025-03-01T10:00:00.000Z level=INFO source=routes.go:1238 msg="server config" env="map[OLLAMA_HOST:http://127.0.0.1:11434]"',
      'time=2025-03-01T10:00:00.100Z level=INFO source=routes.go:1238 msg="Listening on 127.0.0.1:11434 (version 0.5.7)"',
      '[GIN] 2025/03/01 - 10:00:05 | 200 |  1.2s |       127.0.0.1 | POST     "/api/chat"',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'ollama');
    assert.equal(r.launches.length, 1);
    assert.equal(l?.outcome, 'serving');
    assert.equal(l?.version, '0.5.7');
  });

  it('a probe answered (HEAD /, a model list) is not a request served', () => {
    const { l } = read([
      '2023/10/11 15:40:01 routes.go:572: Listening on 127.0.0.1:11434',
      '[GIN] 2023/10/11 - 15:40:01 | 200 |      33.576µs |       127.0.0.1 | HEAD     "/"',
      '[GIN] 2023/10/11 - 15:40:01 | 200 |     468.103µs |       127.0.0.1 | GET      "/api/tags"',
    ]);
    assert.equal(l?.outcome, 'ready');
  });

  it("uvicorn's line is ready for a FastAPI server of another program (LMDeploy)", () => {
    const { r, l, engine } = read([
      'root@box:~# lmdeploy serve api_server /models/internlm2-chat-7b --server-port 23333',
      'INFO:     Started server process [1016]',
      'INFO:     Waiting for application startup.',
      'INFO:     Application startup complete.',
      'INFO:     Uvicorn running on http://0.0.0.0:23333 (Press CTRL+C to quit)',
      'INFO:     127.0.0.1:51186 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'lmdeploy');
    assert.equal(l?.outcome, 'serving');
  });

  it("gin's, llama-swap's, Ray Serve's and Fiber's listening lines are ready", () => {
    for (const line of [
      '[GIN-debug] Listening and serving HTTP on :8080',
      'llama-swap listening on http://:8080',
      "INFO 2025-08-29 18:04:47,931 serve 519120 -- Application 'default' is ready at http://127.0.0.1:8000/.",
      ' │               http://127.0.0.1:8080               │ ',
    ]) {
      const { l } = read([line]);
      assert.equal(l?.outcome, 'ready', line);
    }
  });

  it('a llama-swap upstream request answered under /upstream/<model>/ is one served', () => {
    const { l } = read([
      '[INFO] Request 10.0.0.2 "POST /upstream/coder/infill HTTP/1.1" 200 15667 "axios/1.8.4" 190.3ms',
    ]);
    assert.equal(l?.outcome, 'serving');
  });
});

describe('generic reader: failures', () => {
  it("Ollama's runner dying while loading is the launch's crash; its class comes from the error", () => {
    const { l } = read([
      'time=2025-02-21T01:40:58.260Z level=INFO source=server.go:591 msg="waiting for server to become available" status="llm server loading model"',
      'ggml_backend_cuda_buffer_type_alloc_buffer: allocating 81656.95 MiB on device 0: cudaMalloc failed: out of memory',
      'llama_model_load: error loading model: unable to allocate CUDA0 buffer',
      'panic: unable to load model: /models/blobs/sha256-b74f',
    ]);
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.phase, 'loading_weights');
    assert.equal(l?.failure?.class, 'oom');
  });

  it("Ollama's runner terminated by a signal is read from the error's text", () => {
    const { l } = read([
      'time=2025-06-27T14:42:08.637Z level=ERROR source=server.go:415 msg="llama runner terminated" error="signal: killed"',
    ]);
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.failure?.class, 'killed');
  });

  it('a C++ assertion, a Go panic and an uncaught NSException crash an unknown server', () => {
    for (const line of [
      "llama-server: /src/vector:1130: reference std::vector<int>::operator[](size_type): Assertion '__n < this->size()' failed.",
      'panic: runtime error: index out of range [3] with length 3',
      "*** Terminating app due to uncaught exception 'NSRangeException', reason: 'index 0 beyond bounds'",
    ]) {
      const { l } = read(['Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)', line]);
      assert.equal(l?.outcome, 'crashed', line);
    }
  });

  it("a native crash ctypes reports as OSError (Windows: `exception: access violation …`) is a segfault's class", () => {
    const { l } = read([
      'Traceback (most recent call last):',
      '  File "runner.py", line 200, in load_model',
      '    ret = handle.load_model(inputs)',
      'OSError: exception: access violation writing 0x0000000000000010',
    ]);
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.failure?.class, 'other');
    // an OSError of the Python code keeps its own class
    const io = read([
      'Traceback (most recent call last):',
      '  File "runner.py", line 200, in load_model',
      "OSError: [Errno 5] Input/output error: '/models/m.gguf'",
    ]);
    assert.equal(io.l?.failure?.class, 'python_exception');
  });

  it("LMDeploy's TurboMind error line is classed by its message", () => {
    const { l } = read([
      'Failed to find a feasible kernel in the cache, will dispatch by heuristic.',
      '[TM][ERROR] CUDA runtime error: out of memory /lmdeploy/src/turbomind/core/allocator.cc:49',
    ]);
    assert.equal(l?.failure?.class, 'oom');
  });

  it('a llama.cpp loader error inside another program: a missing tensor or an unknown architecture is unsupported', () => {
    const { l } = read([
      'Welcome to KoboldCpp - Version 1.113',
      "llama_model_load: error loading model: missing tensor 'blk.64.ssm_conv1d.weight'",
      'llama_model_load_from_file_impl: failed to load model',
    ]);
    assert.equal(l?.failure?.class, 'unsupported');
    assert.equal(l?.phase, 'loading_weights');
  });

  it("llama-swap's upstream stopped by a signal is killed; another exit is the upstream's crash", () => {
    assert.equal(
      read(['[DEBUG] <qwen> cmd.Wait() returned error: signal: terminated']).l?.failure?.class,
      'killed',
    );
    assert.equal(
      read(['[DEBUG] <qwen> cmd.Wait() returned error: signal: aborted (core dumped)']).l?.outcome,
      'crashed',
    );
  });

  it("Open MPI's rank-died line and container init failure end the launch", () => {
    for (const line of [
      'mpirun noticed that process rank 3 with PID 0 on node gpu-7 exited on signal 9 (Killed).',
      'ERROR (catatonit:2): failed to exec pid1: No such file or directory',
    ]) {
      assert.equal(read(['serving on port 8080', line]).l?.outcome, 'crashed', line);
    }
  });

  it('a store rendezvous that never completed is nccl, relayed or not', () => {
    const { l } = read([
      '2024-10-25 12:21:14,974 xinference.api.restful_api 37502 ERROR    [address=10.0.0.1:45585, pid=43525] Timed out after 601 seconds waiting for clients. 1/2 clients joined.',
    ]);
    assert.equal(l?.failure?.class, 'nccl');
  });

  it('LocalAI trying backend after backend is still loading, not crashed', () => {
    const { l } = read([
      "6:36PM INF Loading model 'orca' with backend llama-cpp",
      '6:36PM INF [llama-cpp] Fails: could not load model: rpc error: code = Canceled desc =',
      "6:36PM INF Loading model 'orca' with backend llama-ggml",
    ]);
    assert.equal(l?.outcome, 'in_progress');
    assert.equal(l?.phase, 'loading_weights');
  });
});

describe('generic reader: launches and stops', () => {
  it("Ollama's server and the runner it starts for a model are one launch, following the runner's phase", () => {
    const { r, l } = read([
      'time=2025-02-11T21:03:44.200+01:00 level=INFO source=routes.go:1259 msg="Listening on 127.0.0.1:11434 (version 0.5.7)"',
      'time=2025-02-11T21:04:02.140+01:00 level=INFO source=server.go:376 msg="starting llama server" cmd="/usr/local/bin/ollama runner --model /m"',
      'llama_model_loader: loaded meta data with 34 key-value pairs and 579 tensors from /m (version GGUF V3 (latest))',
      'llama_new_context_with_model: n_ctx      = 32768',
      'ggml_backend_cuda_buffer_type_alloc_buffer: allocating 6144.00 MiB on device 0: cudaMalloc failed: out of memory',
    ]);
    assert.equal(r.launches.length, 1);
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.phase, 'kv_cache');
  });

  it('a systemd restart of the service is a second launch', () => {
    const { r } = read([
      'Feb 20 12:27:39 host systemd[1]: ollama.service: Main process exited, code=exited, status=2/INVALIDARGUMENT',
      'Feb 20 12:27:42 host systemd[1]: Started Ollama Service.',
      'Feb 20 12:27:43 host ollama[170277]: 2025/02/20 12:27:43 routes.go:1186: INFO server config env="map[]"',
    ]);
    assert.equal(r.launches.length, 2);
    assert.equal(r.launches[0]!.outcome, 'crashed');
  });

  it("Ray Serve removing the app's replicas is an orderly stop", () => {
    const { l } = read([
      "INFO 2025-08-29 18:04:47,931 serve 519120 -- Application 'default' is ready at http://127.0.0.1:8000/.",
      "(ServeController pid=529030) INFO 2025-08-29 18:04:48,071 controller 529030 -- Removing 1 replica from Deployment(name='m', app='default').",
    ]);
    assert.equal(l?.outcome, 'shutdown');
  });

  it('a proxy names itself only while no engine does; an engine behind it keeps its name', () => {
    const { r, engine } = read([
      'llama-swap listening on http://:9999',
      'main: HTTP server is listening, hostname: 127.0.0.1, port: 9999, http threads: 23',
      'main: loading model',
      "srv    load_model: loading model '/m/q.gguf'",
    ]);
    assert.equal(engine, 'llamacpp');
    assert.equal(r.program, null);
  });

  it('nothing read is no engine at all', () => {
    assert.equal(read(['hello', 'world']).engine, null);
  });
});

describe('generic reader: Ollama runner loads (issue 22)', () => {
  it("ggml's backends loaded from Ollama's own lib/ollama folder name Ollama, not llama.cpp (an excerpt)", () => {
    const { r, engine } = read([
      'ggml_cuda_init: found 1 CUDA devices:',
      '  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes',
      'load_backend: loaded CUDA backend from /usr/local/lib/ollama/cuda_v12/libggml-cuda.so',
      'load_backend: loaded CPU backend from /usr/local/lib/ollama/libggml-cpu-haswell.so',
    ]);
    assert.equal(r.program, 'ollama');
    assert.equal(engine, 'other');
    // llama-server's own build loads its backends from its own folder
    const own = read([
      'load_backend: loaded CUDA backend from /opt/llama.cpp/build/bin/libggml-cuda.so',
      'load_backend: loaded CPU backend from /opt/llama.cpp/build/bin/libggml-cpu-haswell.so',
    ]);
    assert.notEqual(own.r.program, 'ollama');
  });

  it("ggml's CUDA check under Ollama's own ggml tree (ml/backend/ggml, 2025) is Ollama's", () => {
    const { r, engine } = read([
      'CUDA error: an illegal memory access was encountered',
      '  current device: 0, in function ggml_cuda_op_mul_mat at C:\\a\\ollama\\ollama\\ml\\backend\\ggml\\ggml\\src\\ggml-cuda\\ggml-cuda.cu:1600',
    ]);
    assert.equal(r.program, 'ollama');
    assert.equal(engine, 'other');
  });

  it("a runner's goroutine dump through its model load, then the scheduler's OOM, crashed loading", () => {
    const { l } = read([
      'github.com/ollama/ollama/runner/ollamarunner.(*Server).reserveWorstCaseGraph(0xc000100000)',
      '\t/src/ollama/runner/ollamarunner/runner.go:800 +0xa00',
      'github.com/ollama/ollama/runner/ollamarunner.(*Server).load(0xc000100000, {0x1, 0x2}, ...)',
      '\t/src/ollama/runner/ollamarunner/runner.go:870 +0xb0',
      'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:600 msg="waiting for server to become available" status="llm server error"',
      'time=2025-06-01T10:00:00.100Z level=ERROR source=sched.go:480 msg="error loading llama server" error="llama runner process has terminated: cudaMalloc failed: out of memory"',
    ]);
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.failure?.class, 'oom');
    assert.equal(l?.phase, 'loading_weights');
  });

  it("waiting for a runner that does not answer yet stays at its start; its 'loading model' status is loading", () => {
    const start =
      'time=2025-06-01T10:00:00.000Z level=INFO source=server.go:400 msg="starting llama server" cmd="/usr/bin/ollama runner --model /m/x --port 40000"';
    const waiting = read([
      start,
      'time=2025-06-01T10:00:00.001Z level=INFO source=server.go:560 msg="waiting for llama runner to start responding"',
      'time=2025-06-01T10:00:00.002Z level=INFO source=server.go:600 msg="waiting for server to become available" status="llm server error"',
    ]);
    assert.equal(waiting.l?.outcome, 'in_progress');
    assert.equal(waiting.l?.phase, 'args');
    const loading = read([
      start,
      'time=2025-06-01T10:00:00.900Z level=INFO source=server.go:600 msg="waiting for server to become available" status="llm server loading model"',
    ]);
    assert.equal(loading.l?.phase, 'loading_weights');
  });

  it('the memory summary a load lays out (ml/device.go BackendMemory.Log: model weights per device) is loading', () => {
    const { l } = read([
      'time=2026-01-18T16:05:15.870Z level=DEBUG source=ggml.go:94 msg="ggml backend load all from path" path=/usr/lib/ollama/cuda_v12',
      'time=2026-01-18T16:05:17.986Z level=DEBUG source=ggml.go:852 msg="compute graph" nodes=1200 splits=1',
      'time=2026-01-18T16:05:17.988Z level=INFO source=device.go:245 msg="model weights" device=CPU size="12.5 GiB"',
    ]);
    assert.equal(l?.phase, 'loading_weights');
  });

  it("the scheduler's 'loading model' (0.12+) is loading", () => {
    const { l } = read([
      'time=2025-11-01T09:00:00.000+01:00 level=INFO source=server.go:400 msg="starting runner" cmd="/usr/bin/ollama runner --ollama-engine --model /m/y --port 41000"',
      'time=2025-11-01T09:00:00.001+01:00 level=INFO source=server.go:650 msg="loading model" "model layers"=29 requested=-1',
    ]);
    assert.equal(l?.phase, 'loading_weights');
  });

  it("'error loading llama server' alone is a runner that died loading, unless it could not initialise its backend", () => {
    const died = read([
      'time=2025-02-01T08:00:00.000Z level=ERROR source=sched.go:460 msg="error loading llama server" error="llama runner process has terminated: exit status 3"',
    ]);
    assert.equal(died.l?.outcome, 'crashed');
    assert.equal(died.l?.phase, 'loading_weights');
    const init = read([
      'time=2026-05-01T08:00:00.000Z level=ERROR source=sched.go:570 msg="error loading llama server" error="mlx runner failed: Error: failed to initialize MLX: libfoo.dylib not found (exit: exit status 1)"',
    ]);
    assert.equal(init.l?.outcome, 'crashed');
    assert.equal(init.l?.phase, 'args');
  });

  it('a runner that died, then the next load starting: the server lives on, the new load is at its start', () => {
    const { r, l } = read([
      'time=2025-07-01T12:00:00.000Z level=ERROR source=server.go:420 msg="llama runner terminated" error="signal: killed"',
      'time=2025-07-01T12:00:05.000Z level=WARN source=sched.go:650 msg="gpu VRAM usage didn\'t recover within timeout" seconds=5.1',
      'time=2025-07-01T12:00:06.000Z level=INFO source=server.go:150 msg="system memory" total="64.0 GiB" free="60.1 GiB" free_swap="0 B"',
    ]);
    assert.equal(r.launches.length, 1);
    assert.equal(l?.outcome, 'in_progress');
    assert.equal(l?.phase, 'args');
  });

  it("a Go stack through Ollama's own packages names it under a compose gutter of any name", () => {
    const { r, engine } = read([
      'llm  | llama_model_load: error loading model: unable to allocate CUDA0 buffer',
      'llm  | llama_load_model_from_file: failed to load model',
      'llm  | panic: unable to load model: /models/blobs/sha256-0123',
      'llm  | ',
      'llm  | goroutine 9 [running]:',
      'llm  | github.com/ollama/ollama/llama/runner.(*Server).loadModel(0xc000200000, ...)',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'ollama');
  });
});

describe("generic reader: TGI's relatives, llama-box, LMDeploy, Dynamo (issue 22)", () => {
  it("LoRAX's launcher and router name it: not TGI, read with TGI's phases", () => {
    const { r, l, engine } = read([
      '2024-05-01T10:00:00.000000Z  INFO shard-manager: lorax_launcher: Shard ready in 12.5s rank=0',
      '2024-05-01T10:00:00.100000Z  INFO lorax_launcher: Starting Webserver',
      '2024-05-01T10:00:00.200000Z  INFO lorax_router: router/src/main.rs:300: Warming up model',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'lorax');
    assert.equal(l?.outcome, 'in_progress');
  });

  it("text-embeddings-inference's router names it, and an embedding request answered is serving", () => {
    const { r, l, engine } = read([
      '2025-01-01T00:00:01.000000Z  INFO embed{total_time="20ms" tokenization_time="1ms" queue_time="1ms" inference_time="18ms"}: text_embeddings_router::http::server: router/src/http/server.rs:700: Success',
      '2025-01-01T00:00:02.000000Z  INFO rerank{total_time="30ms" tokenization_time="1ms" queue_time="1ms" inference_time="28ms"}: text_embeddings_router::http::server: router/src/http/server.rs:400: Success',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'text-embeddings-inference');
    assert.equal(l?.outcome, 'serving');
  });

  it("text-embeddings-inference's start: its download and model backend load, then `Ready` once it serves", () => {
    const start = [
      '2024-05-01T10:00:01.000000Z  INFO download_artifacts: text_embeddings_core::download: core/src/download.rs:20: Starting download',
      '2024-05-01T10:00:03.000000Z  INFO download_artifacts: text_embeddings_core::download: core/src/download.rs:37: Model artifacts downloaded in 2.1s',
      '2024-05-01T10:00:03.500000Z  INFO text_embeddings_router: router/src/lib.rs:241: Starting model backend',
      '2024-05-01T10:00:06.000000Z  INFO text_embeddings_backend_candle: backends/candle/src/lib.rs:124: Starting FlashBert model on Cuda(CudaDevice(DeviceId(1)))',
    ];
    const loading = read(start);
    assert.equal(loading.engine, 'other');
    assert.equal(loading.l?.outcome, 'in_progress');
    assert.equal(loading.l?.phase, 'loading_weights');
    const ready = read([
      ...start,
      '2024-05-01T10:00:09.000000Z  INFO text_embeddings_router: router/src/lib.rs:257: Warming up model',
      '2024-05-01T10:00:10.000000Z  INFO text_embeddings_router::http::server: router/src/http/server.rs:1555: Starting HTTP server: 0.0.0.0:80',
      '2024-05-01T10:00:10.000000Z  INFO text_embeddings_router::http::server: router/src/http/server.rs:1556: Ready',
    ]);
    assert.equal(ready.l?.outcome, 'ready');
  });

  it("llama-box's request-id lines name it, and a model request answered 200 is serving", () => {
    const { r, l, engine } = read([
      '01.02.003.004 I srv        log_server_request: rid 111 | POST /v1/completions 10.0.0.9:50000',
      '01.05.003.004 I srv  oaicompat_completions_res: rid 111 | prompt_tokens: 10, completion_tokens: 20, tps: 9.9',
      '01.05.003.100 I srv       log_server_response: rid 111 | POST /v1/completions 10.0.0.9:50000 | status 200 | cost 3.00s',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'llama-box');
    assert.equal(l?.outcome, 'serving');
  });

  it("tower-http's trace line (Dynamo's frontend) is no TGI line", () => {
    const { engine } = read([
      '2025-10-01T00:00:00.000000Z ERROR http-request: tower_http::trace::on_failure: response failed classification=Status code: 503 Service Unavailable latency=1 ms method=GET uri=/health version=HTTP/1.1',
      '2025-10-01T00:00:01.000000Z ERROR http-request: tower_http::trace::on_failure: response failed classification=Status code: 503 Service Unavailable latency=1 ms method=GET uri=/health version=HTTP/1.1',
    ]);
    assert.notEqual(engine, 'tgi');
  });

  it("TurboMind's load: its params gathered is loading, its KV blocks sized, its GEMMs tuned", () => {
    const params = read(['model_source: workspace', 'get 321 model params']);
    assert.equal(params.r.program, 'lmdeploy');
    assert.equal(params.l?.phase, 'loading_weights');
    const kv = read([
      '2025-01-01 10:00:00,000 - lmdeploy - WARNING - turbomind.py:200 - get 500 model params',
      '[TM][INFO] [BlockManager] block_size = 4.000 MB',
      '[TM][INFO] [BlockManager] max_block_count = 1000',
    ]);
    assert.equal(kv.l?.phase, 'kv_cache');
    const tune = read([
      '[TM][INFO] [BlockManager] block_size = 4.000 MB',
      '[TM][INFO] [Gemm2] Tuning sequence: 4, 8, 16',
      '[TM][INFO] [Gemm2] 4',
    ]);
    assert.equal(tune.l?.phase, 'autotune');
    assert.equal(tune.l?.outcome, 'in_progress');
  });
});

describe('generic reader: wrappers and servers of other kinds (issue 22)', () => {
  it("synthetic: Dynamo's Python lines through its Rust logger name it, its loader and watchers are its start", () => {
    const { r, l, engine } = read([
      '2025-06-01T10:00:00.000Z  INFO loader.find_and_load_service: Working directory: .',
      '2025-06-01T10:00:00.001Z  INFO loader._do_import: Attempting to import module: graphs.disagg',
      '2025-06-01T10:00:01.000Z  INFO nixl: NIXL is available',
      '2025-06-01T10:00:02.000Z  INFO watcher._start: dynamo_service_Processor started',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'dynamo');
    assert.equal(r.launches.length, 1);
    assert.equal(l?.phase, 'args');
    assert.equal(l?.outcome, 'in_progress');
  });

  it("synthetic: a Rust panic on Dynamo's etcd lease is a crash at the start", () => {
    const { r, l } = read([
      "thread '<unnamed>' panicked at /opt/dynamo/lib/runtime/src/transports/etcd.rs:120:10:",
      'called `Result::unwrap()` on an `Err` value: Unable to create lease. Check etcd server status at http://etcd:2379',
    ]);
    assert.equal(r.launches.length, 1);
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.phase, 'args');
    assert.equal(l?.failure?.class, 'other');
  });

  it("synthetic: NIM's profile selection names it (not vLLM, whose log format it shares) and is its start", () => {
    const { r, l, engine } = read([
      'INFO 01-02 03:04:05.10 ngc_profile.py:200] Running NIM without LoRA. Only looking for compatible profiles that do not support LoRA.',
      'INFO 01-02 03:04:05.11 ngc_injector.py:150] Selected profile: 0123abcd (vllm-bf16-tp2)',
      'INFO 01-02 03:04:05.12 ngc_injector.py:160] Profile metadata: tp: 2',
      'INFO 01-02 03:04:05.20 ngc_injector.py:170] Preparing model workspace. This step might download additional files to run the model.',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'nvidia-nim');
    assert.equal(l?.phase, 'args');
  });

  it("synthetic: vllm.rs's tracing targets name it (not TGI's), its rank runners loading the model", () => {
    const { r, l, engine } = read([
      '2026-01-01T00:00:00.000001Z  INFO runner: Loading model at rank 0',
      '2026-01-01T00:00:00.000002Z  INFO vllm_rs::utils::progress: Remote progress reporter initialized for rank 0',
      '2026-01-01T00:00:00.000003Z  INFO vllm_rs::models::llama: Loading language model...',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'vllm.rs');
    assert.equal(l?.phase, 'loading_weights');
  });

  it("synthetic: Aphrodite's bare start command opens its launch; its engine banner gives the version", () => {
    const { r, l } = read([
      'aphrodite run org/some-model --tensor-parallel-size 2 --max-model-len 8192',
      'WARNING:  Not found nvcc in /usr/local/cuda. Skip cuda version check!',
      'INFO:     Initializing the Aphrodite Engine (v0.6.0) with the following config:',
    ]);
    assert.equal(r.program, 'aphrodite');
    assert.equal(r.launches.length, 1);
    assert.equal(l?.phase, 'args');
    assert.equal(l?.version, '0.6.0');
  });

  it("synthetic: LMDeploy's HINT line, printed once its engine is built, is ready", () => {
    const { l } = read([
      '2025-01-01 10:00:00,000 - lmdeploy - WARNING - turbomind.py:200 - get 300 model params',
      'HINT:    Please open http://0.0.0.0:23333 in a browser for detailed api usage!!!',
    ]);
    assert.equal(l?.outcome, 'ready');
  });

  it("synthetic: llama.cpp's library timings after uvicorn's start (llama-cpp-python) are a request served", () => {
    const { l } = read([
      'INFO:     Application startup complete.',
      'INFO:     Uvicorn running on http://localhost:8000 (Press CTRL+C to quit)',
      'llama_print_timings:        load time =     500.00 ms',
      'llama_print_timings: prompt eval time =     400.00 ms /    20 tokens (   20.00 ms per token,    50.00 tokens per second)',
    ]);
    assert.equal(l?.phase, 'serving');
  });

  it('synthetic: lines that only name a serving program (no rule places them) are its launch, not nothing', () => {
    const { r } = read([
      'Using Aphrodite with the exl2 backend from /home/user/aphrodite-engine',
      'some unplaced line of the server',
    ]);
    assert.equal(r.program, 'aphrodite');
    assert.equal(r.launches.length, 1);
  });
});

describe('generic reader: programs that embed llama.cpp, GPUStack, Go crashes (issue 22, unseen-d)', () => {
  it("synthetic: ggml's file paths inside Ollama's tree name Ollama, not llama.cpp's server", () => {
    const { engine, r, l } = read([
      'CUDA error: an illegal memory access was encountered',
      '  current device: 0, in function ggml_backend_cuda_synchronize at /home/u/src/ollama/llama/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:2100',
      'GGML_ASSERT: /home/u/src/ollama/llama/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:70: !"CUDA error"',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'ollama');
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.failure?.class, 'cuda_error');
  });

  it("synthetic: Ollama's runner panic on a model it cannot load names Ollama", () => {
    const { engine, r, l } = read([
      'load_tensors: loading model tensors, this can take a while... (mmap = true)',
      'llama_model_load: error loading model: unable to allocate CUDA0 buffer',
      'llama_model_load_from_file_impl: failed to load model',
      'panic: unable to load model: /root/.ollama/models/blobs/sha256-0123abcd',
      '',
      'goroutine 12 [running]:',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'ollama');
    assert.equal(l?.outcome, 'crashed');
  });

  it('synthetic: a compose service named ollama relaying llama.cpp loader lines is Ollama', () => {
    const { engine, r } = read([
      'ollama  | llm_load_print_meta: n_layer          = 32',
      'ollama  | llm_load_print_meta: model type       = 7B',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'ollama');
  });

  it("synthetic: the runtime's own frames of a Go goroutine dump say the program is dying", () => {
    const { l } = read([
      'Mar  1 10:00:00 box ollama[4242]: runtime.goexit({})',
      'Mar  1 10:00:00 box ollama[4242]:         runtime/asm_amd64.s:1700 +0x1 fp=0xc000100fe8 sp=0xc000100fe0 pc=0x5600000001',
      'Mar  1 10:00:00 box ollama[4242]: created by runtime.gcBgMarkStartWorkers in goroutine 1',
    ]);
    assert.equal(l?.outcome, 'crashed');
  });

  it("synthetic: GPUStack's worker starting a model instance opens a launch", () => {
    const { engine, r, l } = read([
      '2026-01-01 10:00:00.000000+00:00 - gpustack.worker.serve_manager - INFO - Provisioning model instance m-abc',
      '2026-01-01 10:00:00.100000+00:00 - gpustack.worker.backends.vllm - INFO - Starting vLLM model instance: m-abc',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'gpustack');
    assert.equal(r.launches.length, 1);
    assert.equal(l?.phase, 'args');
    assert.equal(l?.outcome, 'in_progress');
  });

  it("synthetic: a conda prompt with stacked envs before `lmdeploy serve` is LMDeploy's start", () => {
    const { r, l } = read([
      '(lm) (base) root@box:/w# CUDA_VISIBLE_DEVICES=0,1  lmdeploy serve api_server /m/x --tp 2',
      '2024-07-01 10:00:00,000 - lmdeploy - INFO - input chat_template_config=None',
    ]);
    assert.equal(r.launches.length, 1);
    assert.equal(l?.phase, 'args');
  });
});

describe('generic reader: TabbyAPI, MLC LLM, LocalAI, Ollama and LMDeploy lines (issue 22, unseen-2026-12-03c)', () => {
  it("synthetic: TabbyAPI's start, its model loading and `Model successfully loaded.` under `INFO:     `", () => {
    const { r, l, engine } = read([
      'Starting TabbyAPI...',
      'INFO:     ExllamaV2 version: 0.3.1',
      'INFO:     Loading model: /models/Some-Model-exl2-4.0bpw',
      'INFO:     Model successfully loaded.',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'tabbyapi');
    assert.equal(r.launches.length, 1);
    assert.equal(l?.phase, 'weights_loaded');
  });

  it('synthetic: `mlc_llm serve` at a zsh prompt names MLC LLM, not SGLang, whose newer logger prints alike', () => {
    const { r, l, engine } = read([
      '(mlc) user@host ~ % mlc_llm serve /models/Some-Model-MLC --port 9000',
      '[2025-01-02 10:00:00] INFO auto_device.py:79: Found device: cuda:0',
      '[2025-01-02 10:00:00] INFO auto_device.py:35: Using device: cuda:0',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'mlc-llm');
    assert.equal(r.launches.length, 1);
    assert.equal(l?.phase, 'args');
  });

  it("synthetic: LocalAI's gRPC backend start names LocalAI though its backend list names vLLM's", () => {
    const { r, l, engine } = read([
      'api-1  | 9:00AM DBG Loading model in memory from file: /models/some.gguf',
      'api-1  | 9:00AM DBG Loading GRPC Model llama: {backendString:llama externalBackends:map[vllm:/build/extra/grpc/vllm/backend_vllm.py]}',
      "api-1  | 9:00AM DBG GRPC Service for some.gguf will be running at: '127.0.0.1:40000'",
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'localai');
    assert.equal(l?.phase, 'loading_weights');
  });

  it("synthetic: Ollama's `model weights` buffers are its load under way", () => {
    const { l } = read([
      'time=2025-05-01T10:00:00.000Z level=INFO source=ggml.go:289 msg="model weights" buffer=CUDA0 size="4.1 GiB"',
      'time=2025-05-01T10:00:09.000Z level=INFO source=server.go:619 msg="waiting for server to become available" status="llm server not responding"',
    ]);
    assert.equal(l?.phase, 'loading_weights');
  });

  it("synthetic: LMDeploy's `input backend=` line is its engine being built from the arguments", () => {
    const { r, l } = read([
      '2025-01-01 10:00:00,000 - lmdeploy - INFO - input backend=pytorch, backend_config=PytorchEngineConfig(tp=1, session_len=None)',
      '2025-01-01 10:00:00,000 - lmdeploy - INFO - input chat_template_config=None',
    ]);
    assert.equal(r.program, 'lmdeploy');
    assert.equal(r.launches.length, 1);
    assert.equal(l?.phase, 'args');
  });
});

describe('generic reader: KoboldCpp prompt processing (issue 22, unseen-2026-12-03c)', () => {
  it("synthetic: KoboldCpp's `Processing Prompt [BLAS] (n / m tokens)` is a request being run", () => {
    const { l } = read([
      'Welcome to KoboldCpp - Version 1.70',
      'Processing Prompt [BLAS] (1024 / 4000 tokens)',
    ]);
    assert.equal(l?.phase, 'serving');
  });
});

describe("generic reader: llama-box's load progress (issue 22, unseen-2026-12-03c)", () => {
  it("synthetic: `loaded N% model tensors into buffer` under llama.cpp's elapsed-time format is llama-box loading", () => {
    const { r, l, engine } = read([
      '0.01.100.200 I loaded  10% model tensors into buffer',
      '0.01.101.300 I loaded  11% model tensors into buffer',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'llama-box');
    assert.equal(l?.phase, 'loading_weights');
  });
});

describe('generic reader: llama.cpp inside LangChain (issue 22)', () => {
  it("synthetic: llama.cpp's context lines then LangChain's LlamaCpp traceback are llama-cpp-python's", () => {
    const { r, engine } = read([
      'llama_new_context_with_model: n_ctx      = 4096',
      'ggml_backend_cuda_buffer_type_alloc_buffer: allocating 100.00 MiB on device 1: cudaMalloc failed: out of memory',
      'Traceback (most recent call last):',
      '  File "/home/user/app.py", line 9, in <module>',
      '    llm = LlamaCpp(',
      'pydantic_core._pydantic_core.ValidationError: 1 validation error for LlamaCpp',
    ]);
    assert.equal(engine, 'other');
    assert.equal(r.program, 'llama-cpp-python');
  });
});

describe('generic reader: a failure glued to KoboldCpp’s progress (issue 22)', () => {
  it('synthetic: `CUDA error: out of memory` right after `Processing Prompt … tokens)` is the crash, oom', () => {
    const { l } = read([
      'Welcome to KoboldCpp - Version 1.80',
      'Processing Prompt [BLAS] (512 / 9000 tokens)CUDA error: out of memory',
      '  current device: 0, in function alloc at ggml/src/ggml-cuda/ggml-cuda.cu:457',
      'ggml/src/ggml-cuda/ggml-cuda.cu:88: CUDA error',
    ]);
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.failure?.class, 'oom');
    assert.equal(l?.phase, 'serving');
  });
});

describe('generic reader: KServe (issue 22, unseen-2026-12-03e)', () => {
  it("synthetic: KServe's `Failed to start model server: <exception>` is the crash, CPython's own message a python_exception", () => {
    const { r, l } = read([
      '2025-01-01 10:00:00.000 7 kserve INFO [model_server.py:start():300] Starting model server',
      '2025-01-01 10:00:01.000 7 kserve ERROR [__main__.py:<module>():250] Failed to start model server: float division by zero',
    ]);
    assert.equal(r.program, 'kserve');
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.failure?.class, 'python_exception');
  });

  it('synthetic: a message naming its cause keeps that class', () => {
    const { l } = read([
      '2025-01-01 10:00:01.000 7 kserve ERROR [__main__.py:<module>():250] Failed to start model server: CUDA out of memory. Tried to allocate 2.00 GiB',
    ]);
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.failure?.class, 'oom');
  });
});

describe("generic reader: KoboldCpp's start-up before the model loads (issue 22, unseen-2026-12-03e)", () => {
  it('synthetic: its backend choice, chat adapter and library init are its arguments phase', () => {
    const { r, l } = read([
      'Auto Selected Vulkan Backend...',
      'Loading Chat Completions Adapter: /tmp/_MEI1/kcpp_adapters/ChatML.json',
      'Chat Completions Adapter Loaded',
      'Auto Recommended GPU Layers: 33',
      'Initializing dynamic library: koboldcpp_vulkan.so',
    ]);
    assert.equal(r.program, 'koboldcpp');
    assert.equal(l?.outcome, 'in_progress');
    assert.equal(l?.phase, 'args');
  });
});

describe('generic reader: TorchServe (issue 22, unseen-2026-12-03e)', () => {
  it('synthetic: its frontend bound and a worker listening is set-up: the model is still to load', () => {
    const { r, l } = read([
      'Torchserve version: 0.12.0',
      '2025-01-01T10:00:00,100 [INFO ] main org.pytorch.serve.ModelServer - Loading initial models: llm.mar',
      '2025-01-01T10:00:00,200 [INFO ] main org.pytorch.serve.ModelServer - Initialize Inference server with: EpollServerSocketChannel.',
      '2025-01-01T10:00:00,300 [INFO ] main org.pytorch.serve.ModelServer - Inference API bind to: http://0.0.0.0:8080',
      'Model server started.',
      '2025-01-01T10:00:02,000 [INFO ] W-9001-llm_1.0-stdout MODEL_LOG - Listening on port: /tmp/.ts.sock.9001',
    ]);
    assert.equal(r.program, 'torchserve');
    assert.equal(r.launches.length, 1);
    assert.equal(l?.version, '0.12.0');
    assert.equal(l?.outcome, 'in_progress');
    assert.equal(l?.phase, 'args');
  });
});

describe("generic reader: LocalAI's lazy model load after a streamed request (issue 22, unseen-2026-12-03e)", () => {
  it('synthetic: a model loaded in memory after `Success … status=200` is a load under way, not a server serving', () => {
    const { r, l } = read([
      '10:00AM INF Success ip=127.0.0.1 latency=1.5ms method=POST status=200 url=/v1/chat/completions',
      '10:00AM DBG Sending chunk: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}',
      "10:00AM INF Loading model 'phi-3' with backend llama-cpp",
      '10:00AM DBG Loading model in memory from file: /models/phi-3.Q4_K_M.gguf',
    ]);
    assert.equal(r.program, 'localai');
    assert.equal(l?.outcome, 'in_progress');
    assert.equal(l?.phase, 'loading_weights');
  });

  it('synthetic: a model loaded before the request was answered still serves', () => {
    const { l } = read([
      "10:00AM INF Loading model 'phi-3' with backend llama-cpp",
      '10:00AM DBG Loading model in memory from file: /models/phi-3.Q4_K_M.gguf',
      '10:00AM INF Success ip=127.0.0.1 latency=9.5s method=POST status=200 url=/v1/chat/completions',
    ]);
    assert.equal(l?.outcome, 'serving');
  });
});

describe('generic reader: Xinference taking a model down (issue 22, unseen-2026-12-03f)', () => {
  for (const stop of [
    "2025-01-02 10:00:01,000 xinference.core.worker 1234 DEBUG    Start to destroy model actor: ActorRef(uid=b'm-0', address='127.0.0.1:40000')",
    '2025-01-02 10:00:01,000 xinference.model.llm.vllm.core 5678 INFO     Stopping vLLM engine',
  ]) {
    it(`synthetic: ${stop.split('    ')[1]!.slice(0, 30)} is an orderly stop`, () => {
      const { r, l, engine } = read([
        '2025-01-02 10:00:00,000 xinference.core.supervisor 1234 DEBUG    Enter terminate_model, args: qwen, kwargs: suppress_exception=True',
        stop,
      ]);
      assert.equal(r.program, 'xinference');
      assert.equal(engine, 'other');
      assert.equal(l?.outcome, 'shutdown');
    });
  }
});

describe('generic reader: llamafile and its Cosmopolitan crash report (issue 22, unseen-2026-12-03e)', () => {
  it("synthetic: llama.cpp's lines under a llamafile are llamafile's; `error: Uncaught SIGSEGV` is the crash", () => {
    const { r, l, engine } = read([
      'link_cuda_dso: note: dynamically linking /home/user/.llamafile/v/0.8.13/ggml-cuda.so',
      'llama_model_loader: loaded meta data with 24 key-value pairs and 291 tensors from model.gguf (version GGUF V3 (latest))',
      'llm_load_print_meta: n_ctx_train      = 4096',
      '',
      'error: Uncaught SIGSEGV (SEGV_MAPERR) at 0x8 on host pid 123 tid 124',
      '  ./phi-2.Q5_K_M.llamafile',
    ]);
    assert.equal(r.program, 'llamafile');
    assert.equal(engine, 'other');
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.failure?.line, 5);
  });

  it("synthetic: llamafile's browser launch (launch_browser.c) names it where llama.cpp's server lines do not", () => {
    for (const browser of [
      'failed to open http://127.0.0.1:8080/ in a browser tab using xdg-open: process exited with non-zero status',
      'opening browser tab... (pass --nobrowser to disable)',
    ]) {
      const { r, engine } = read([
        'llama server listening at http://127.0.0.1:8080',
        browser,
        '{"timestamp":1700000000,"level":"INFO","function":"main","line":3000,"message":"HTTP server listening","hostname":"127.0.0.1","port":8080}',
        'slot 0 is processing [task id: 0]',
      ]);
      assert.equal(r.program, 'llamafile');
      assert.equal(engine, 'other');
    }
  });

  it("synthetic: ggml's own llamafile sgemm (`LLAMAFILE = 1`, ggml-cpu/llamafile/) names no llamafile", () => {
    const { r, engine } = read([
      'system_info: n_threads = 8 (n_threads_batch = 8) / 16 | CPU : SSE3 = 1 | AVX2 = 1 | LLAMAFILE = 1 | OPENMP = 1 |',
      'llama_model_loader: loaded meta data with 24 key-value pairs and 291 tensors from model.gguf (version GGUF V3 (latest))',
      '#3  0x00007f in llamafile_sgemm () from /app/ggml/src/ggml-cpu/llamafile/sgemm.cpp',
    ]);
    assert.equal(r.program, null);
    assert.equal(engine, 'llamacpp');
  });
});
