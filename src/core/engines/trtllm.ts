/** TensorRT-LLM (`trtllm-serve`, PyTorch backend): research/vllm-and-peers.md §2. */

import { parseTrtllmPyTorchConfig } from '../config/engine-config.js';
import type { LogLine } from '../types.js';
import { clickSignatures } from './cli-errors.js';
import type { EngineModule, Signature } from './types.js';

const signatures: Signature[] = [
  {
    id: 'version',
    kind: 'launch',
    strong: true,
    phase: 'args',
    // tensorrt_llm/__init__.py prints `[TensorRT-LLM] TensorRT-LLM version: …`; from 1.1 the product name has no
    // hyphen there: `[TensorRT-LLM] TensorRT LLM version: 1.2.1`. Every process that imports tensorrt_llm prints it:
    // trtllm-serve, then each MPI worker its MpiPoolSession spawns, while the launch is still reading its arguments.
    perProcess: true,
    lit: 'LLM version',
    re: /^\[TensorRT-LLM\] TensorRT[- ]LLM version: (\S+)|^TensorRT[- ]LLM version: (\S+)/,
    version: (m) => m[1] ?? m[2] ?? null,
  },
  {
    id: 'backend',
    kind: 'phase',
    phase: 'args',

    // llmapi: the proxy's IPC queues (`Generating a new HMAC key for server …`), the MPI session of the
    // workers (`[TensorRT-LLM][INFO] Refreshed the MPI local session`), the attention features the model
    // engine is built with: all before any weight is read
    // llmapi argument checks (`Validating KV Cache config against kv_cache_dtype=…`, `KV cache quantization set
    // to …`, `Set [PluginConfig.]nccl_plugin to …`, `neither checkpoint_format nor checkpoint_loader were
    // provided…`) and the executor's creation (`Orchestrator is creating IPC executor`)
    re: /^Using LLM with \w+ backend|rank 0 using MpiPoolSession|^Generating a new HMAC key for server|^Refreshed the MPI local session|^ATTENTION RUNTIME FEATURES|^Validating KV Cache config against|^KV cache quantization set to|^Set (?:PluginConfig\.)?nccl_plugin to|^neither checkpoint_format nor checkpoint_loader were provided|^Orchestrator is creating \w+ executor|^Initializing MPI with thread mode \d+|^MPI size: \d+, (?:MPI local size: \d+, )?rank: \d+|^Rank \d+ is using GPU \d+|^TRTGptModel \w+: /,
  },
  {
    id: 'pytorch_config',
    kind: 'phase',
    phase: 'args',
    lit: 'PyTorchConfig(',
    re: /^PyTorchConfig\(/,
    config: parseTrtllmPyTorchConfig,
  },
  {
    // runtime/tllmRuntime.cpp `Engine load time %d ms`, and TensorRT's own allocation lines once the engine
    // is deserialized and its context made (`[MemUsageChange] TensorRT-managed allocation in engine
    // deserialization: CPU +…, GPU +… (MiB)`); before `weights`, whose `deserializ` would take it for loading
    id: 'engine_loaded',
    kind: 'phase',
    phase: 'weights_loaded',
    re: /^Engine load time \d+ ms|\[MemUsageChange\] (?:TensorRT-managed allocation in engine deserialization|Allocated [\d.]+ \w+ for execution context memory)/,
  },
  {
    id: 'weights',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'e',
    // 0.20 (PyTorch backend) says `Rank 0 uses 8.46 GB for model weights.` / `Rank 0 prefetching … to memory...`.
    // TensorRT engines (the C++ runtime): `Engine version %s found in the config file, …`, `Loading engine …`
    // _torch/models/checkpoints: `Prefetching %.2fGB checkpoint files.`, `Finished prefetching …`,
    // `Start to load safetensor file …`
    re: /^(?:Rank \d+ )?Uses? [\d.]+ GB for model weights\.|^(?:Rank \d+ )?Prefetching \S+ to memory|^Prefetching [\d.]+GB checkpoint files|^Finished prefetching \S|^Start to load safetensor file|^Loading (?:weights|safetensors|engine)|deserializ|^Engine version \S+ found in the config file/i,
  },
  {
    // C++ runtime (runtime/tllmRuntime.cpp): `Loaded engine size: %d MiB` is the file read into host memory,
    // before the engine is deserialized onto the GPU (where an OOM strikes); `Engine load time %d ms` after it
    id: 'engine_read',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'Loaded engine size',
    re: /^Loaded engine size: \d+ MiB/,
  },
  {
    id: 'model_init',
    kind: 'phase',
    phase: 'weights_loaded',
    lit: 'Model init total',
    re: /^Model init total -- [\d.]+s/,
  },
  {
    id: 'kv',
    kind: 'phase',
    phase: 'kv_cache',
    lit: 'e',
    // _torch/pyexecutor/_util.py KvCacheCreator: the estimation pass (`max_seq_len is not specified, using
    // inferred value`, `Using Sampler:`) and the memory profile (`Memory used after loading model weights
    // (inside|outside torch) …`, `Memory dynamically allocated during inference …`, `Memory used outside torch …`)
    re: /\[MemUsageChange\] Allocated [\d.]+ GiB for max tokens in paged KV cache|^Peak memory during memory usage profiling|^max_seq_len=\d+, max_num_requests=\d+|^Estimated max memory in KV cache|^max_seq_len is not specified, using inferred value|^Using Sampler: \w+|^Max KV cache (?:blocks|pages) per sequence: \d+|^Max tokens in paged KV cache: \d+|^Number of tokens per block: \d+|^cache_transceiver is (?:disabled|enabled)|^Memory (?:used after loading model weights|dynamically allocated during inference|used outside torch)/,
  },
  {
    id: 'autotune',
    kind: 'phase',
    phase: 'autotune',
    lit: 'Autotun',
    // _torch/autotuner.py logs `[Autotuner] Autotuning process starts …`; the frame reader takes the bracketed
    // tag for a module tag, so the message may start at `Autotuning`.
    re: /(?:\[Autotuner\] |^)Autotuning process (?:starts|ends)/,
  },
  {
    // _torch/pyexecutor/model_engine.py warmup: `Running autotuner warmup...` before the tuner's own lines,
    // `[Autotuner] Cache size after warmup is N` after them (the tag may be read as a module tag)
    id: 'autotune_warmup',
    kind: 'phase',
    phase: 'autotune',
    re: /^Running autotuner warmup|^(?:\[Autotuner\] )?Cache size after warmup is \d+/,
  },
  {
    id: 'cuda_graph',
    kind: 'phase',
    phase: 'cuda_graph',
    lit: 'CUDA graph',
    // `generation only` became `generation-only` in late 2025
    re: /^Creating CUDA graph instances|^Run generation[- ]only CUDA graph warmup/,
  },
  {
    // _torch/pyexecutor/py_executor_creator.py: the executor's last step (research §2.2 step 8, engine_ready).
    // Before the readiness gate, uvicorn starts after it; with the gate (serve/readiness.py, 2026) the port may
    // already listen, and then this line is the one that says the model is ready.
    id: 'mem_fraction',
    kind: 'phase',
    phase: 'warmup',
    lit: 'memory fraction',
    re: /^Setting PyTorch memory fraction/,
    readyOnceListening: true,
  },
  // uvicorn's lifecycle lines (serve/openai_server.py runs uvicorn; research §2.2 step 9). Builds before the
  // 2026 readiness gate start uvicorn once the executor is up, so `Uvicorn running on` meant ready; with the gate
  // (serve/readiness.py, research §2.5) the socket listens early and every request gets 503 `starting` until the
  // model is loaded. So these lines say warm-up and ready only after the engine's own evidence that the weights are
  // in (`Model init total`, or any later phase); before that they only show the port listening. A 2xx access line
  // (the gate answers 503 before ready) or the executor's last line (`mem_fraction`) then says ready.
  {
    id: 'uvicorn_start',
    kind: 'phase',
    phase: 'warmup',
    lit: 'INFO:',
    re: /^INFO: +(?:Started server process|Waiting for application startup|Application startup complete)/,
    after: 'weights_loaded',
  },
  {
    // commands/serve.py launch_grpc_server (`trtllm-serve --grpc`): the gRPC server starts once the LLM is built
    id: 'grpc_ready',
    kind: 'ready',
    phase: 'ready',
    re: /^TensorRT-LLM gRPC server started on \S+|^Server is ready to accept requests$/,
  },
  {
    id: 'ready',
    kind: 'ready',
    phase: 'ready',
    lit: 'Uvicorn running on',
    re: /Uvicorn running on \S+/,
    after: 'weights_loaded',
  },
  { id: 'iter', kind: 'serving', phase: 'serving', lit: 'iter = ', re: /^iter = \d+, global_rank = \d+/ },
  {
    id: 'access',
    kind: 'serving',
    phase: 'serving',
    lit: 'HTTP/',
    re: /^INFO: +\S+ - "(?:GET|POST) \S+ HTTP\/[\d.]+" \d{3}/,
  },
  {
    id: 'insufficient',
    kind: 'failure',
    failure: 'oom',
    lit: 'insufficient GPU memory',
    re: /Executor creation failed due to insufficient GPU memory/,
  },
  {
    id: 'oom',
    kind: 'failure',
    failure: 'oom',
    lit: 'ut of memory',
    re: /Cuda Runtime \(out of memory\)|OutOfMemory \(Requested size|CUDA out of memory/,
  },
  { id: 'deserialize', kind: 'failure', lit: 'deserialize', re: /Failed to deserialize cuda engine/ },
  {
    // C++ executor (executorImpl forwardAsync): the exception fails the active requests and the loop goes
    // on, like the PyTorch backend's forward error below; must come before the C++ error rules it may quote
    id: 'cpp_forward_error',
    kind: 'degraded',
    recovers: true,
    lit: 'Encountered an error in forwardAsync function',
    re: /^Encountered an error in forwardAsync function: /,
  },
  {
    // cpp/include/tensorrt_llm/common/cudaUtils.h check(): TLLM_CUDA_CHECK throws
    // `[TensorRT-LLM][ERROR] CUDA runtime error in cudaMalloc(...): out of memory (file:line)`
    id: 'cpp_cuda_oom',
    kind: 'failure',
    failure: 'oom',
    lit: 'CUDA runtime error in',
    re: /CUDA runtime error in .+?: out of memory/,
  },
  {
    id: 'cpp_cuda_error',
    kind: 'failure',
    failure: 'cuda_error',
    lit: 'CUDA runtime error in',
    re: /CUDA runtime error in (.+)$/,
  },
  {
    // tllmException.h: TLLM_CHECK / TLLM_THROW raise `tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] …`
    // (`Assertion failed: …` for a check); printed when it reaches the top of a thread or the Python binding
    id: 'tllm_exception',
    kind: 'failure',
    lit: 'TllmException',
    re: /tensorrt_llm::common::TllmException: (?:\[TensorRT-LLM\]\[ERROR\] )?(.+)$/,
  },
  {
    // _torch/pyexecutor/py_executor.py _event_loop_wrapper: `logger.error(f"Error in event loop: {e}")`, then
    // the traceback and a re-raise: the executor loop is gone
    id: 'event_loop_error',
    kind: 'failure',
    lit: 'Error in event loop',
    re: /^Error in event loop: (.+)$/,
  },
  {
    // Open MPI's launcher reporting a rank that died (trtllm-serve runs its workers under MPI)
    id: 'mpi_rank_died',
    kind: 'failure',
    lit: 'noticed that process rank',
    re: /^(?:mpirun|prterun|mpiexec) noticed that process rank \d+ with PID \d+ on node \S+ exited on signal (\d+.*)$/,
  },
  {
    id: 'worker_init',
    kind: 'consequence',
    lit: 'Executor worker',
    re: /Executor worker initialization error|Executor worker returned error|Executor worker died during initialization/,
  },
  {
    // tensorrt_llm/executor/worker.py worker_main: logger.error(f"Failed to initialize executor on rank {rank}: {e}")
    id: 'executor_init_failed',
    kind: 'failure',
    lit: 'Failed to initialize executor',
    re: /Failed to initialize executor on rank \d+: (.*)$/,
  },
  {
    // _torch/pyexecutor/py_executor.py: an exception in the forward step fails the batch's requests
    // (_handle_errors) and the executor loop goes on, so the traceback before it is not what stopped the server
    id: 'forward_error',
    kind: 'degraded',
    recovers: true,
    lit: 'Encountered an error in forward function',
    re: /^Encountered an error in forward function: /,
  },
  { id: 'mpi_abort', kind: 'consequence', lit: 'MPI_ABORT', re: /MPI_ABORT was invoked on rank \d+/ },
  {
    // Open MPI's launcher after a rank failed: the job is gone, the cause is a rank's own lines above
    id: 'mpi_job_aborted',
    kind: 'consequence',
    re: /^Primary job +terminated normally, but \d+ process(?:es)? returned|^(?:mpirun|prterun) detected that one or more processes exited with non-zero status/,
  },
  {
    id: 'shutdown',
    kind: 'shutdown',
    lit: 'INFO:',
    re: /^INFO: +(?:Shutting down|Waiting for application shutdown|Application shutdown complete|Finished server process)/,
  },
  ...clickSignatures('trtllm-serve(?: serve)?'),
];

export const trtllm: EngineModule = {
  id: 'trtllm',
  detect(line: LogLine): number {
    if (
      /\[TRT-LLM\]|\[TensorRT-LLM\]|TensorRT[- ]LLM version|tensorrt_llm|trtllm-serve|MpiPoolSession|tlc_init|\[Autotuner\]/.test(
        line.text,
      )
    )
      return 8;
    if (line.frame === 'trtllm' || /^\[\d{2}\/\d{2}\/\d{4}-\d{2}:\d{2}:\d{2}\] /.test(line.text)) return 3;
    return 0;
  },
  signatures,
  hints: {
    oom: 'lower kv_cache_config.free_gpu_memory_fraction or max_batch_size/max_num_tokens, or use more GPUs',
    cuda_error: 'check the engine was built for this GPU architecture and TensorRT-LLM version',
    python_exception:
      'read the traceback above the evidence line; the real cause is usually above "Executor worker returned error"',
    'stalled:autotune':
      'the autotuner can run for minutes with no output: watch nvidia-smi utilisation before calling it hung',
  },
  silentBudget: {
    args: 300,
    loading_weights: 600,
    kv_cache: 600,
    autotune: 1200,
    cuda_graph: 900,
    warmup: 300,
  },
};
