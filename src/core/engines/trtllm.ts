/** TensorRT-LLM (`trtllm-serve`, PyTorch backend): research/vllm-and-peers.md §2. */

import { GatedPattern } from '../base/gated-pattern.js';
import type { LogLine } from '../base/types.js';
import { parseTrtllmPyTorchConfig } from '../config/engine-config.js';
import { clickSignatures } from './cli-errors.js';
import type { EngineModule, Signature } from './types.js';

/** The NVFP4 MoE loader's warning (rule moe_scale_mismatch), in words no other engine prints: it also names the engine. */
const MOE_SCALE_MISMATCH = /^w1_weight_scale_2 != w3_weight_scale_2 \(.*\), selecting the larger value/;

const signatures: Signature[] = [
  {
    // A check on an option the user sets: batch_manager/trtGptModelInflightBatching.cpp, as it sizes the KV cache
    // managers, TLLM_CHECK_WITH_INFO(kvCacheConfig.crossKvCacheFraction…, "Must set crossKvCacheFraction for
    // encoder-decoder model") and "Do not set crossKvCacheFraction for decoder-only model": the configuration is
    // wrong whoever quotes the check (Triton's load-failure lines, a what()). Before Triton's rules, which would
    // take the quote with the class of its words; where nothing placed the launch, it was loading the model.
    id: 'tllm_option_check',
    kind: 'failure',
    failure: 'config_error',
    phaseIfUnplaced: 'loading_weights',
    lit: 'Assertion failed: ',
    re: /Assertion failed: (?:Do not|Must) set \w+ for\b/,
  },
  {
    // common/tllmException.cpp: a TllmException carries the stack it was thrown from in its what(), one frame a
    // line as `fmtstr("%-3d %*p %s + %zd", i, VOID_PTR_SZ, addr, symbol, offset)` (or backtrace_symbols' text
    // where dladdr names no symbol): `5       0x7fb1fe11ce00 tensorrt_llm::batch_manager::GptManager::GptManager(…)`.
    // A frame of that shape through what builds the model (the Triton backend's TRITONBACKEND_ModelInstanceInitialize
    // and TRITONBACKEND_ModelInitialize, the constructors of GptManager, the Executor and its Impl,
    // TrtGptModelInflightBatching and TllmRuntime, a plugin creator's deserializePlugin or a plugin's initialize(),
    // which TensorRT calls while it deserializes the engine) is an exception that escaped the model's construction:
    // the load failed, whatever message above the paste cut. A request's error (the executor loop's frames) is
    // not one of these. The message, where the paste has it, names the cause; this line only says the load died.
    // (Before `weights`, which takes any line that says `deserializ`.)
    id: 'tllm_exception_load_frame',
    kind: 'consequence',
    phase: 'loading_weights',
    lit: '0x',
    re: /^\d{1,3} +0x[0-9a-f]+ .*?(?:\bTRITONBACKEND_Model(?:Instance)?Initialize\b|tensorrt_llm::batch_manager::GptManager::GptManager\(|tensorrt_llm::executor::Executor::(?:Impl::Impl|Executor)\(|tensorrt_llm::batch_manager::TrtGptModelInflightBatching::TrtGptModelInflightBatching\(|tensorrt_llm::runtime::TllmRuntime::TllmRuntime\(|tensorrt_llm::plugins::\w+::(?:deserializePlugin\(|initialize\(\)))/,
  },
  // Triton's rules first: its load-failure lines quote the backend's C++ errors, which the rules below would take
  // without the phase the failure happened in
  {
    // batch_manager/trtGptModelInflightBatching.cpp (TrtGptModelInflightBatching ctor): TLLM_CHECK_WITH_INFO (before Triton's rules, which
    // relay it as `Failed to create instance: …`)
    // `maxTokensInPagedKvCache (%d) must be large enough to process at least 1 sequence to completion (i.e. must be
    // larger than beam_width (%d) * tokensPerBlock (%d) * maxBlocksPerSeq (%d))`: the KV cache was sized from the
    // GPU memory left after the engine (kv_cache_free_gpu_mem_fraction of it) and holds less than one sequence.
    // The 0.5/0.6 releases (late 2023, batch_manager shipped prebuilt) print the same check without the numbers:
    // `maxTokensInPagedKvCache must be large enough … (i.e. must be larger than beam_width * tokensPerBlock *
    // maxBlocksPerSeq)`.
    id: 'kv_cache_too_small',
    kind: 'failure',
    failure: 'oom',
    phase: 'kv_cache',
    lit: 'maxTokensInPagedKvCache',
    re: /maxTokensInPagedKvCache(?: \(\d+\))? must be large enough to process at least 1 sequence/,
  },
  ...tritonSignatures(),
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
    re: /^Using LLM with \w+ backend|rank 0 using MpiPoolSession|^Generating a new HMAC key for server|^Refreshed the MPI local session|^ATTENTION RUNTIME FEATURES|^Validating KV Cache config against|^KV cache quantization set to|^Set (?:PluginConfig\.)?nccl_plugin to|^neither checkpoint_format nor checkpoint_loader were provided|^Orchestrator is creating \w+ executor|^Initializing MPI with thread mode \d+|^MPI size: \d+, (?:MPI local size: \d+, )?rank: \d+|^Rank \d+ is using GPU \d+/,
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
    // (tllmRuntime.cpp assessLikelihoodOfRuntimeAllocation, called by the TllmRuntime constructor once
    // deserializeCudaEngine has returned the engine: `Inspecting the engine to identify potential runtime issues...`,
    // then `The profiling verbosity of the engine does not allow this analysis…` or `Model has %i layers.` and its
    // warnings about `allocate` layers)
    id: 'engine_loaded',
    kind: 'phase',
    phase: 'weights_loaded',
    // (then batch_manager/trtGptModelInflightBatching.cpp, once the engine's runtime is made: TensorRT's
    // `[MemUsageChange] TensorRT-managed allocation in IExecutionContext creation: …`, `[MemUsageChange] Allocated
    // %s GPU memory for runtime buffers.`, `… for decoder.`, before the KV cache is sized)
    re: /^Engine load time \d+ ms|^\[MemUsageChange\] (?:TensorRT-managed allocation in IExecutionContext creation|Allocated \S+ \w+ GPU memory for (?:runtime buffers|decoder)\.)|^Inspecting the engine to identify potential runtime issues|^The profiling verbosity of the engine does not allow this analysis|^Model has \d+ layers\.$|^Engine layer infos could not be parsed|^There were a total of \d+ layers with type 'allocate'|\[MemUsageChange\] (?:TensorRT-managed allocation in engine deserialization|Allocated [\d.]+ \w+ for execution context memory)/,
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
    // (TensorRT's own words as it deserializes the engine, not its errors there: `[safeDeserialize.cpp::load::264]
    // Error Code 2: OutOfMemory (…)`, TLLM_CHECK's `Assertion failed: Failed to deserialize cuda engine.`
    // (runtime/tllmRuntime.cpp TllmRuntime::TllmRuntime) are the load failing, read by the failure rules)
    re: /^(?:Rank \d+ )?Uses? [\d.]+ GB for model weights\.|^(?:Rank \d+ )?Prefetching \S+ to memory|^Prefetching [\d.]+GB checkpoint files|^Finished prefetching \S|^Start to load safetensor file|^Loading (?:weights|safetensors|engine)|^(?!.*(?:Error Code \d+:|Assertion failed|failed to deserializ)).*deserializ|^Engine version \S+ found in the config file/i,
  },
  {
    // _torch/modules/fused_moe/quantization.py, the NVFP4 MoE methods' load_expert_weights_to_dst / load_quant_scales
    // (from load_weights, while the checkpoint is read into the model): `w1_weight_scale_2 != w3_weight_scale_2 (%s
    // != %s), selecting the larger value. Accuracy may be affected.` (tensorrt_llm.logger), once per expert
    id: 'moe_scale_mismatch',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'w1_weight_scale_2 != w3_weight_scale_2',
    re: MOE_SCALE_MISMATCH,
  },
  {
    // batch_manager trtGptModel.h, the TrtGptModel constructor: `TRTGptModel maxNumSequences: %d`, `… maxBatchSize`,
    // … printed as the model that holds the engine is built, its TllmRuntime (the engine read and deserialized)
    // next
    id: 'engine_model',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'TRTGptModel',
    re: /^TRTGptModel \w+: /,
  },
  {
    // (and the schedulers it makes there: `Capacity Scheduler Policy: %s`, `Context Chunking Scheduler Policy: %s`)
    id: 'engine_schedulers',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'Scheduler Policy: ',
    re: /^(?:Capacity|Context Chunking) Scheduler Policy: \w+/,
  },
  {
    // The model's parameters read as its instance is created, before its engine is: Triton's tensorrtllm backend
    // (inflight_batcher_llm model_instance_state.cc getExecutorConfigFromParams and friends: `max_beam_width is
    // not specified, will use default value of 1`, `lora_cache_max_adapter_size not set, defaulting to 64`,
    // model_state.cc `Cannot find parameter with name: …`) and the engine's config.json (runtime/gptJsonConfig.cpp
    // parseJsonFieldOr: `Parameter %s cannot be read from json:`, `Optional value for parameter %s will not be set.`)
    id: 'model_parameters',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'not ',
    re: /^\w+ is not specified, will (?:use default|be set to|be automatically set)|^\w+ not set, defaulting to |^batch_scheduler_policy parameter was not found or is invalid|^Cannot find parameter with name: |^Parameter \w+ cannot be read from json:|^Optional value for parameter \w+ will not be set\./,
  },
  {
    // `Loaded engine size: %d MiB`: TensorRT's own line (through the C++ runtime's logger) as
    // IRuntime::deserializeCudaEngine starts on the engine read into host memory (trtexec and Triton's tensorrt
    // backend print it the same way, before `TensorRT-managed allocation in engine deserialization`), i.e. before
    // the engine is on the GPU (where an OOM strikes); `Engine load time %d ms` after it
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
    // The C++ batch manager before the PyTorch backend (the tensorrtllm backend's 0.x logs): `Allocate %zu bytes for
    // k/v cache.`, `Using %d [total ]tokens in paged KV cache[, and %d blocks per sequence]`
    // (batch_manager/kvCacheManager.cpp, the C++ flow sizing its pools: `Memory usage when calculating max tokens in
    // paged kv cache: total: …, available: …`, `Number of blocks in KV cache primary pool: %d`, `… secondary pool: …`)
    re: /\[MemUsageChange\] Allocated [\d.]+ GiB for max tokens in paged KV cache|^Memory usage when calculating max tokens in paged kv cache|^Number of blocks in KV cache (?:primary|secondary) pool: \d+|^Allocate \d+ bytes for k\/v cache|^Using \d+ (?:total )?tokens in paged KV cache|^Peak memory during memory usage profiling|^max_seq_len=\d+, max_num_requests=\d+|^Estimated max memory in KV cache|^max_seq_len is not specified, using inferred value|^Using Sampler: \w+|^Max KV cache (?:blocks|pages) per sequence: \d+|^Max tokens in paged KV cache: \d+|^Number of tokens per block: \d+|^cache_transceiver is (?:disabled|enabled)|^Memory (?:used after loading model weights|dynamically allocated during inference|used outside torch)/,
  },
  {
    id: 'autotune',
    kind: 'phase',
    phase: 'autotune',
    lit: 'Autotun',
    // _torch/autotuner.py logs `[Autotuner] Autotuning process starts …` (`[Autotuner]: …` in mid-2025 releases); the
    // frame reader takes the bracketed
    // tag for a module tag, so the message may start at `Autotuning` (or at the colon after the tag).
    re: /(?:\[Autotuner\]:? |^:? ?)Autotuning process (?:starts|ends)/,
  },
  {
    // _torch/pyexecutor/model_engine.py warmup: `Running autotuner warmup...` before the tuner's own lines,
    // `[Autotuner] Cache size after warmup is N` after them (the tag may be read as a module tag)
    id: 'autotune_warmup',
    kind: 'phase',
    phase: 'autotune',
    // (mid-2025 wording: `Run autotuning warmup for batch size=%d`, `Autotuner Cache size after warmup %d`)
    re: /^Running autotuner warmup|^Run autotuning warmup for batch size=\d+|^(?:\[Autotuner\] |Autotuner )?Cache size after warmup (?:is )?\d+/,
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
    // cpp/tensorrt_llm/common/cudaDriverWrapper.h / cudaUtils.h TLLM_CU_CHECK: a driver API call (cuMemCreate,
    // cuMemAlloc… of the KV cache pools, the NCCL/UB buffers) failed with `CUDA_ERROR_OUT_OF_MEMORY`; TensorRT's
    // allocator (runtime/tllmRuntime.cpp, the engine's execution context) reports `Requested amount of GPU memory
    // (%d bytes) could not be allocated`
    id: 'cpp_driver_oom',
    kind: 'failure',
    failure: 'oom',
    lit: 'MEMORY',
    re: /CUDA_ERROR_OUT_OF_MEMORY/,
  },
  {
    id: 'trt_alloc_oom',
    kind: 'failure',
    failure: 'oom',
    lit: 'Requested amount of GPU memory',
    re: /Requested amount of GPU memory \(\d+ bytes\) could not be allocated/,
  },
  {
    // TensorRT's runtime out of memory while it deserializes the engine (its error recorder: `[deserialize.cpp::
    // load::572] Error Code 2: OutOfMemory (Requested size was N bytes.)`, `[safeDeserialize.cpp::load::264] …`):
    // the engine, the model's weights, was being loaded
    id: 'deserialize_oom',
    kind: 'failure',
    failure: 'oom',
    phase: 'loading_weights',
    lit: 'eserialize.cpp::',
    re: /\[(?:safeD|d)eserialize\.cpp::\w+::\d+\] Error Code \d+: OutOfMemory\b/,
  },
  {
    id: 'oom',
    kind: 'failure',
    failure: 'oom',
    // (`emory`: `out of memory` and `OutOfMemory` both hold it)
    lit: 'emory',
    re: /Cuda Runtime \(out of memory\)|OutOfMemory \(Requested size|CUDA out of memory/,
  },
  // runtime/tllmRuntime.cpp TllmRuntime::TllmRuntime: TLLM_CHECK_WITH_INFO(engine != nullptr, "Failed to deserialize
  // cuda engine."): the engine, the model's weights, could not be loaded (its cause, an OOM, printed before it)
  {
    id: 'deserialize',
    kind: 'failure',
    phase: 'loading_weights',
    lit: 'deserialize',
    re: /Failed to deserialize cuda engine/,
  },
  {
    // The same forward error (below) quoting one of CUDA's sticky errors: an illegal address, an illegal or
    // misaligned instruction, a launch failure leave the CUDA context unusable, so every later call of the
    // process fails the same way (CUDA Runtime API, cudaError_t: "the process must be terminated and relaunched"):
    // the loop the executor goes on with cannot serve again, so the launch is down
    id: 'cpp_forward_sticky_error',
    kind: 'failure',
    failure: 'cuda_error',
    phase: 'serving',
    lit: 'Encountered an error in forward',
    re: /Encountered an error in forward(?:Async)? function: .*(?:an illegal memory access was encountered|an illegal instruction was encountered|misaligned address|unspecified launch failure|hardware stack error)/,
  },
  {
    // C++ executor (executorImpl forwardAsync): the exception fails the active requests and the loop goes
    // on, like the PyTorch backend's forward error below; must come before the C++ error rules it may quote
    // (the forward step runs scheduled requests: serving). Before the Executor API the batch manager printed
    // `Encountered an error in forward function: …` from the C++ logger, its `[TensorRT-LLM][ERROR] ` prefix kept
    id: 'cpp_forward_error',
    kind: 'degraded',
    recovers: true,
    phase: 'serving',
    lit: 'Encountered an error in forward',
    re: /^(?:\[TensorRT-LLM\]\[ERROR\] )?Encountered an error in forward(?:Async)? function: \[TensorRT-LLM\]|^Encountered an error in forwardAsync function: /,
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
    // The checks that open the engine's files: runtime/tllmStreamReaders.cpp StreamReader::StreamReader (0.x:
    // runtime/utils/sessionUtils.cpp loadEngine), `Error opening engine file: <path>`, and
    // runtime/gptJsonConfig.cpp GptJsonConfig::parse, `File does not exist: <config.json>`: the engine was being
    // loaded, and the catalog's raise sites class them (model_not_found)
    id: 'tllm_engine_file_check',
    kind: 'failure',
    phase: 'loading_weights',
    raised: true,
    lit: 'Assertion failed: ',
    re: /Assertion failed: ((?:Error opening engine file|File does not exist): .*)$/,
  },
  {
    // tllmException.h: TLLM_CHECK / TLLM_THROW raise `tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] …`
    // (`Assertion failed: …` for a check); printed when it reaches the top of a thread or the Python binding
    // (the message, a check's without its `Assertion failed: `, is the raise site's words: the engine-source
    // catalog's TllmException raises class it, `Error opening engine file: …`, `File does not exist: …`)
    id: 'tllm_exception',
    kind: 'failure',
    raised: true,
    lit: 'TllmException',
    re: /tensorrt_llm::common::TllmException: (?:\[TensorRT-LLM\]\[ERROR\] )?(?:Assertion failed: )?(.+)$/,
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
    // llmapi/llm_utils.py ModelLoader (0.x, the LLM API's TensorRT flow): each step of its build pipeline is
    // announced `Loading Model: [i/n]\t<label>` (BuildPipeline), the labels set in ModelLoader.__init__:
    // `Downloading HF model`, `Loading HF model to memory`, `Loading TRT checkpoints to memory`, then `Building
    // TRT-LLM engine` (`Build TRT-LLM engine` from a checkpoint, `Build TensorRT-LLM engine` from an in-memory
    // model): the engine build is compile (engine-source catalog: the TensorRT engine build is compile)
    id: 'model_loader_step_load',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'Loading Model: [',
    re: /^Loading Model: \[\d+\/\d+\]\s+(?:Downloading HF model|Loading HF model to memory|Loading TRT checkpoints? to memory)/,
  },
  {
    id: 'model_loader_step_build',
    kind: 'phase',
    phase: 'compile',
    lit: 'Loading Model: [',
    re: /^Loading Model: \[\d+\/\d+\]\s+Build(?:ing)? (?:TRT-LLM|TensorRT[- ]LLM) engine/,
  },
  {
    // _torch/pyexecutor/py_executor_creator.py _ExecutorMemoryMonitor._maybe_explain_if_oom: an OOM while the
    // executor makes one of its parts (observe_creation_stage) is raised again as `Executor creation failed due to
    // insufficient GPU memory.` with the part named on a line of its own, `The following component could not be
    // created: {stage}` (_ExecutorCreationStage's values, later memory_type_friendly_names of ExecutorMemoryType, which
    // adds the guided decoder and the speculative-decoding resources): the model (and the draft model)
    // while its weights are read; the sampler, the drafter, the KV cache and the resources sized with it after, as
    // the KV cache is estimated and made
    id: 'executor_component_model',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'could not be created: ',
    re: /^The following component could not be created: (?:Model|Draft model for speculative decoding)$/,
  },
  {
    id: 'executor_component_kv',
    kind: 'phase',
    phase: 'kv_cache',
    weak: true,
    lit: 'could not be created: ',
    re: /^The following component could not be created: (?:Sampler|Drafter|Guided Decoder|Speculative decoding resources|Initial KV [Cc]ache|Additional executor resources|KV cache|Model resources created during usage)/,
  },
  {
    // executor/cache_transmission/nixl_utils/transferAgent.cpp NixlTransferAgent: the KV-cache transfer agent of a
    // disaggregated server checks each NIXL call (`TLLM_CHECK(status == NIXL_SUCCESS)` as it creates its backend
    // and registers the KV cache's memory, registerMemory): the cache transceiver is made with the KV cache manager,
    // so a failed check stops the executor's creation there
    id: 'kv_transfer_agent_check',
    kind: 'failure',
    phase: 'kv_cache',
    lit: 'transferAgent.cpp',
    re: /Assertion failed: (.*?) \(\S*nixl_utils\/transferAgent\.cpp:\d+\)/,
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
    phase: 'serving',
    lit: 'Encountered an error in forward function',
    re: /^Encountered an error in forward function: /,
  },
  {
    // TensorRT's warning from createInferRuntime, which TllmRuntime's constructor calls right before it deserializes
    // the engine, when another runtime or builder of the process set the global logger first (`The logger passed
    // into createInferRuntime differs from one already provided for an existing builder, runtime, or refitter. …`)
    id: 'runtime_create',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'createInferRuntime',
    re: /^The logger passed into createInferRuntime differs/,
  },
  {
    // plugins/ncclPlugin/allreducePlugin.cpp AllreducePlugin::initialize → initGroupTopology → setGroupTopology:
    // `Detecting local TP group for rank %d`, then `TP group is intra-node for rank %d` or `Found inter-node TP
    // group for rank %d`. TensorRT initialises an engine's plugins while deserializeCudaEngine builds it, so in the
    // TensorRT flow these come between `Loaded engine size` and `Inspecting the engine`: loading. (The PyTorch
    // flow's all-reduce op, thop/allreduceOp.cpp, prints them at its first use, later: a phase only moves forward.)
    id: 'plugin_tp_group',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'TP group',
    re: /^Detecting local TP group for rank \d+|^TP group is intra-node for rank \d+|^Found inter-node TP group for rank \d+/,
  },
  {
    // A native stack through a plugin's initialize() (IPluginV2::initialize, which TensorRT calls as it builds the
    // engine from its serialized form: `tensorrt_llm::plugins::AllreducePlugin::initialize() + 204` under
    // libnvinfer's frames): it died while the engine was being deserialized
    id: 'frame_plugin_initialize',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'tensorrt_llm::plugins::',
    re: /tensorrt_llm::plugins::\w+::initialize\(\)/,
  },
  {
    // common/tllmException.cpp: TLLM_CHECK / TLLM_CHECK_WITH_INFO throw a TllmException whose what() is
    // `[TensorRT-LLM][ERROR] Assertion failed: <check or info> (<file>:<line>)`; whoever catches it and prints
    // it quotes that text (a host program's `Unhandled exception in …, what(): [TensorRT-LLM][ERROR] Assertion
    // failed: …`, the backend's model table). The rules above take the forward step's and Triton's own quotes
    // first; any other is the check that stopped the step it was in.
    id: 'tllm_assertion',
    kind: 'failure',
    raised: true,
    lit: 'Assertion failed',
    // (not a request's error that a caller quotes with the forward step's words: that step goes on)
    // (the quoted `[TensorRT-LLM][ERROR] ` is read as the line's frame where it starts the message: `what():  […`)
    re: /^(?!.*Encountered an error in forward)(?:.*?\[TensorRT-LLM\]\[ERROR\] )?Assertion failed: (.*)$/,
  },
  {
    // runtime/tllmRuntime.cpp TllmRuntime::TllmRuntime: makes the TensorRT runtime (createInferRuntime) and
    // deserializes the engine into it (the model's weights are in the engine); a native stack through it (a
    // segfault's backtrace) died while the engine was being loaded
    id: 'frame_runtime_load',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'TllmRuntime::TllmRuntime',
    re: /tensorrt_llm::runtime::TllmRuntime::TllmRuntime\(\)/,
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

/**
 * Triton Inference Server, which serves TensorRT-LLM engines through the tensorrtllm backend (and other models
 * through its python and vllm backends): its glog records (`I0110 12:00:00.123456 1 file.cc:123] msg`, the message
 * in double quotes in newer releases) and the tables it prints. Sources: triton-inference-server/core
 * src/model_repository_manager/{model_lifecycle,model_repository_manager}.cc, src/backend_model.cc, src/server.cc;
 * triton-inference-server/server src/main.cc, src/triton_signal.cc; the python backend's stub_launcher.cc and
 * pb_stub.cc; tensorrtllm_backend inflight_batcher_llm/src/model_instance_state.cc.
 */
function tritonSignatures(): Signature[] {
  return [
    {
      // The container's banner (nvidia_entrypoint.sh) and the commands that start the server: tritonserver
      // itself and tensorrtllm_backend's scripts/launch_triton_server.py (mpirun of one tritonserver per rank)
      id: 'triton_start',
      kind: 'launch',
      strong: true,
      phase: 'args',
      lit: 'riton',
      re: /^=* ?== Triton Inference Server ==|(?:^|[$#] +)(?:\S*\/)?tritonserver +--|\blaunch_triton_server\.py\b/,
    },
    {
      // src/server.cc InferenceServer::Init and the memory managers it creates before any model is read
      id: 'triton_init',
      kind: 'phase',
      phase: 'args',
      lit: 'e',
      re: /^"?(?:Initializing Triton Inference Server|Pinned memory pool is created at|CUDA memory pool is created on device)/,
    },
    {
      // model_lifecycle.cc AsyncLoad (`loading: {model}:{version}`, verbose `AsyncLoad() '{model}'`), the instance
      // it creates (backend_model_instance.cc, the python backend's `TRITONBACKEND_ModelInstanceInitialize` and its
      // stub), `successfully loaded '{model}'` and the model table's READY rows (src/server.cc, once every load has
      // ended), for the models of tensorrtllm_backend's repository (all_models/inflight_batcher_llm): `tensorrt_llm`
      // holds the engine (below); preprocessing, postprocessing, tensorrt_llm_bls and the ensemble are Python or
      // ensembles that load in seconds while it still loads. Another backend's model (vLLM's in the python backend)
      // has its own engine's lines to place it; its Triton lines say only that the repository is being set up.
      id: 'triton_model_loading',
      kind: 'phase',
      phase: 'loading_weights',
      re: /^"?(?:loading: (?:tensorrt_llm\w*|preprocessing|postprocessing|ensemble|multimodal_encoders):\d+"?$|AsyncLoad\(\) '(?:tensorrt_llm|preprocessing|postprocessing)|TRITONBACKEND_ModelInstanceInitialize: (?:instance initialization successful )?(?:tensorrt_llm|preprocessing|postprocessing|multimodal_encoders)\w*|Starting Python backend stub: .*\/(?:preprocessing|postprocessing|tensorrt_llm_bls|multimodal_encoders)\/|successfully loaded '(?:tensorrt_llm_bls|preprocessing|postprocessing|ensemble|multimodal_encoders)'"?$)|^\|? *(?:tensorrt_llm_bls|preprocessing|postprocessing|ensemble|multimodal_encoders) +\| \d+ +\| READY +\|$/,
    },
    {
      // core src/model_lifecycle.cc ModelLifeCycle::AsyncLoad hands each version's load to its thread pool
      // (`load_pool_->Enqueue([…] { … CreateModel(…) … })`), which creates the model and its instances through the
      // backend: a native stack through that lambda or CreateModel (a segfault's or abort's backtrace) died while
      // a model was being loaded
      id: 'triton_load_frame',
      kind: 'phase',
      phase: 'loading_weights',
      weak: true,
      lit: 'ModelLifeCycle::',
      re: /triton::core::ModelLifeCycle::(?:AsyncLoad|CreateModel)\(/,
    },
    {
      // (and the headers of the tables src/server.cc prints once the loads have ended, common/table_printer.cc:
      // `| Model | Version | Status |`, `| Backend | Path | Config |`: they say the repository was read, not that
      // a model loaded, which only its own row says; the catalog would read the header as the start of warmup)
      id: 'triton_repository',
      kind: 'phase',
      phase: 'args',
      re: /^"?(?:loading: [\w.-]+:\d+"?$|AsyncLoad\(\) '|TRITONBACKEND_ModelInstanceInitialize: |Starting Python backend stub: |Creating instance [\w.-]+ on )|^\| *(?:Model|Backend|Repository Agent) +\| +(?:Version|Path) +\| +(?:Status|Config|Args) +\|$/,
    },
    {
      // The backends table src/server.cc prints once the repository's loads have ended (`| Backend | Path | Config
      // |`): Triton loads a backend's library only for a model that uses it (backend_model.cc TritonModel::Create
      // → TritonBackendManager::CreateBackend), so a `tensorrtllm` row says the engine's model was being loaded;
      // whether it loaded only the models table below says
      id: 'triton_backend_row',
      kind: 'phase',
      phase: 'loading_weights',
      lit: 'libtriton_tensorrtllm',
      re: /^\|? *tensorrtllm +\| +\S*libtriton_tensorrtllm\.so +\|/,
    },
    {
      id: 'triton_engine_loaded',
      kind: 'phase',
      phase: 'weights_loaded',
      lit: 'tensorrt_llm',
      re: /^"?successfully loaded 'tensorrt_llm'"?$|^\|? *tensorrt_llm +\| \d+ +\| READY +\|$/,
    },
    {
      // The engine's config.json or a model parameter read with nlohmann::json while the backend builds its
      // ModelInstanceState: `[json.exception.out_of_range.403] key 'x' not found` (an engine built by another
      // TensorRT-LLM version), `[json.exception.parse_error.101] … unexpected end of input` (no config.json at
      // the configured engine path; Triton's model table may cut the code)
      id: 'triton_config_json',
      kind: 'failure',
      failure: 'config_error',
      phase: 'loading_weights',
      lit: 'json.exception',
      re: /(?:Failed to create instance|failed to load '[^']+' version \d+|loading failed with error|UNAVAILABLE): .*\[json\.exception\./,
    },
    {
      // runtime/worldConfig.cpp: the engine was built for TP×PP ranks and the server runs another number of MPI
      // ranks (launch_triton_server.py --world_size); Triton's model table may cut the message before the check
      id: 'triton_world_size',
      kind: 'failure',
      failure: 'config_error',
      phase: 'loading_weights',
      lit: 'mpiSize == tp',
      re: /mpiSize == tp \* pp/,
    },
    {
      // model_instance_state.cc checks the model's config.pbtxt parameters (engine and encoder paths, tokenizer
      // info, participant ids) with TLLM_CHECK_WITH_INFO while the instance is created
      id: 'triton_backend_parameter',
      kind: 'failure',
      failure: 'config_error',
      phase: 'loading_weights',
      lit: 'model_instance_state.cc',
      re: /Assertion failed: (.*?) \(\S*model_instance_state\.cc:\d+\)/,
    },
    {
      // model_lifecycle.cc `failed to load '{model}' version {v}: {status}`, backend_model.cc `ERROR: Failed to
      // create instance: {msg}`, model_repository_manager.cc `… Model '{m}' loading failed with error: {msg}`, and
      // the model table's `UNAVAILABLE: {reason}` row; the message is the backend's exception, classified by its text
      id: 'triton_load_failed',
      kind: 'failure',
      phase: 'loading_weights',
      re: /(?:^|"|\] )(?:failed to load '[^']+' version \d+: |ERROR: Failed to create instance: )(.*)|loading failed with error: (.*)|^\|? *[\w.-]+ +\| \d+ +\| UNAVAILABLE: (.*?)\s*\|?$/,
    },
    {
      // python backend pb_stub.cc: the model.py of a python-based backend (vllm, preprocessing) raised while it
      // was initialised; stub_launcher.cc when the stub process died
      id: 'triton_python_stub',
      kind: 'failure',
      phase: 'loading_weights',
      lit: 'tub',
      re: /Failed to initialize Python stub: (.*)|Stub process '[^']+' is not healthy/,
    },
    {
      // src/main.cc: TRITONSERVER_ServerNew failed (a model did not load and --exit-on-error is the default), the
      // server exits after unloading the models it had loaded: the repository was still loading
      id: 'triton_create_server',
      kind: 'failure',
      phase: 'loading_weights',
      lit: 'creating server',
      re: /^error: creating server: /,
    },
    {
      // src/triton_signal.cc ErrorSignalHandler (SIGSEGV, SIGABRT… then a stack trace and a core dump);
      // SignalHandler prints the same line for SIGINT/SIGTERM, a requested stop
      id: 'triton_fatal_signal',
      kind: 'failure',
      lit: 'received.',
      re: /^Signal \((?:4|6|7|8|11)\) received\.$/,
    },
    { id: 'triton_stop_signal', kind: 'shutdown', lit: 'received.', re: /^Signal \((?:2|15)\) received\.$/ },
    {
      // Open MPI (orte/util/error_strings, opal/util/stacktrace.c), under which launch_triton_server.py and
      // trtllm-serve run their ranks: the runtime could not start, or a rank died of a signal
      id: 'mpi_orte_init',
      kind: 'failure',
      lit: 'orte_init failed',
      re: /It looks like orte_init failed for some reason/,
    },
    {
      // Open MPI 4's launcher (orte/mca/errmgr/base/help-errmgr-base.txt: [failed-daemon-launch], [failed-daemon],
      // [node-died]): mpirun could not start, or lost, the daemon of another node, so the job's ranks never met or
      // the job is ended: a multi-node launch (launch_triton_server.py --world_size N over mpirun) that failed
      // before or during distributed init
      id: 'mpi_daemon_failed',
      kind: 'failure',
      failure: 'other',
      phase: 'dist_init',
      lit: 'ORTE',
      re: /^ORTE was unable to reliably start one or more daemons\.|^An ORTE daemon has unexpectedly failed after launch|^ORTE has lost communication with its daemon located on node/,
    },
    {
      id: 'opal_signal',
      kind: 'failure',
      lit: 'Signal: ',
      re: /^\[[\w.-]+:\d+\] Signal: ([\w ]+) \((\d+)\)$/,
    },
    {
      // Open MPI's signal handler (opal/util/stacktrace.c show_stackframe) prints the native stack of a rank that
      // received SIGSEGV/SIGBUS/SIGABRT…, one `[host:pid] [ n] lib(sym+0x…)[0x…]` line a frame, between `***
      // Process received signal ***` and `*** End of error message ***`: only a dying rank prints them
      id: 'opal_stack_frame',
      kind: 'failure',
      lit: '[0x',
      re: /^\[[\w.-]+:\d+\] \[ *\d+\] \S+\[0x[0-9a-f]+\]$/,
    },
    {
      // Open MPI 5's runtime (PRRTE, src/util/error_strings.c, PRTE_ERROR_LOG: `[host:pid] PRTE ERROR: %s in file %s
      // at line %d`; Open MPI 4's ORTE: `ORTE_ERROR_LOG: … in file … at line …`): the runtime failed to start or
      // spawn the ranks (odls launches the local processes), i.e. before the ranks met: distributed init
      id: 'mpi_runtime_error',
      kind: 'failure',
      failure: 'other',
      phase: 'dist_init',
      lit: 'ERROR',
      re: /^\[[\w.-]+:\d+\] (?:PRTE ERROR|ORTE_ERROR_LOG): .+ in file \S+ at line \d+/,
    },
    {
      // batch_manager GptManager (the C++ runtime before the Executor API): its request loop, on a native stack
      // printed when the process dies; the loop returns responses, so requests were being served
      id: 'gpt_manager_frame',
      kind: 'phase',
      phase: 'serving',
      weak: true,
      lit: 'GptManager::',
      re: /tensorrt_llm::batch_manager::GptManager::(?:returnCompletedRequests|decoupled_execution_loop)\(\)/,
    },
  ];
}

// Triton's own source files in a glog record (core and server repositories, the python backend; the record's stamp
// with the year where glog 0.6+ prints it, `I20240227 08:25:18.989490 …`), its container
// banner, command and model table: Triton serves any backend, so these say little by themselves (a log of Triton
// alone is read as the TensorRT-LLM family's; a vLLM backend's own lines outweigh them). Its tensorrtllm backend
// (its library, tensorrtllm_backend's launch script) says TensorRT-LLM; a line about its vllm backend says nothing.
const TRITON_FILE =
  /(?:^|[\s|>"])[IWEF](?:\d{4})?\d{4} [\d:.]+ +\d+ (?:model_lifecycle|model_repository_manager|server|grpc_server|http_server|pinned_memory_manager|cuda_memory_manager|backend_model|backend_model_instance|backend_manager|backend_factory|python_be|pb_stub|stub_launcher|tritonserver|metrics|model_config_utils|ensemble_scheduler|shared_library|model_instance_state|\w+_backend_factory)\.(?:cc|h):\d+\] /;
// (and Triton core's C++ namespace in a native stack's frames: `triton::core::ModelLifeCycle::…`)
const TRITON_OTHER = new GatedPattern(
  /\btriton::core::|== Triton Inference Server ==|(?:^|[$#] +)(?:\S*\/)?tritonserver +--|^\|? *[\w.-]+ +\| \d+ +\| (?:READY|UNAVAILABLE)|\/opt\/tritonserver\/|libtriton_\w+\.so/,
);
const TRITON_TRTLLM = new GatedPattern(
  /libtriton_tensorrtllm|backends\/tensorrtllm\/|\blaunch_triton_server\.py\b/,
);
const TRITON_VLLM = new GatedPattern(/backends\/vllm\b|\[vllm\]|\bvllm_model\b/);
// Open MPI's banners and signal reports: of the engines firedup reads only TensorRT-LLM (trtllm-serve's workers,
// Triton's launch_triton_server.py, the 0.x mpirun examples) runs under MPI. With them the frames of a native
// stack that only a rank under MPI prints: Open MPI's signal handler's own (opal/util/stacktrace.c show_stackframe,
// `[host:pid] [ n] lib(sym+0x…)[0x…]`), and a frame inside the MPI library itself (its `PMPI_*` entry points, the
// ompi/ sources of its build path, libmpi.so) as another crash reporter (UCX's `==== backtrace ====`) prints it.
const OPEN_MPI = new GatedPattern(
  /It looks like orte_init failed|^ORTE was unable to reliably start one or more daemons|^An ORTE daemon has unexpectedly failed|^ORTE has lost communication with its daemon|^(?:mpirun|prterun) (?:noticed|detected) that|MPI_ABORT was invoked|^\[[\w.-]+:\d+\] (?:\*\*\* Process received signal|Signal: |PRTE ERROR: |ORTE_ERROR_LOG: |\[ *\d+\] \S+\[0x[0-9a-f]+\]$)|^ *\d+ +0x[0-9a-f]+ +(?:PMPI_\w+\(\)|\w+\(\) +\S*\/ompi\/)|\blibmpi\.so\b/,
);

// TensorRT-LLM's names in a line (its logger's tags, package, command)
const TRTLLM_NAME = new GatedPattern(
  /\[TRT-LLM\]|\[TensorRT-LLM\]|TensorRT[- ]LLM version|tensorrt_llm|trtllm-serve|MpiPoolSession|tlc_init|\[Autotuner\]/,
);
// Messages only TensorRT-LLM prints, whatever prefix a paste kept: executor/worker.py worker_main `Failed to
// initialize executor on rank N: …`, executor/proxy.py `Executor worker returned error`, its NIXL transfer agent
// (cache_transmission/nixl_utils/transferAgent.cpp, _torch/disaggregation/nixl BindingsNixlTransferAgent), the
// executor's memory monitor (_torch/pyexecutor/py_executor_creator.py _maybe_explain_if_oom: `Executor creation
// failed due to insufficient GPU memory.`, `… with an error which might indicate insufficient GPU memory.`, its
// table `Previously created components and free GPU memory before/after creation (GiB):`)
const TRTLLM_ONLY = new GatedPattern(
  /Failed to initialize executor on rank \d+|Executor worker returned error|nixl_utils\/transferAgent\.cpp|BindingsNixlTransferAgent|Executor creation failed (?:due to insufficient GPU memory|with an error which might indicate)|^Previously created components and free GPU memory/,
);

function tritonEvidence(line: LogLine): number {
  const t = line.text;
  if (TRITON_TRTLLM.test(t)) return 12;
  if (TRITON_VLLM.test(t)) return 0;
  if ((t.includes('.cc:') || t.includes('.h:')) && TRITON_FILE.test(t)) return 1;
  if (TRITON_OTHER.test(t)) return 1;
  // (the message too: a markdown quote's `> ` stays in the text before Open MPI's `[host:pid]`)
  if (OPEN_MPI.test(t) || (line.msg !== t && OPEN_MPI.test(line.msg))) return 3;
  return 0;
}

export const trtllm: EngineModule = {
  id: 'trtllm',
  detect(line: LogLine): number {
    if (TRTLLM_NAME.test(line.text)) return 8;
    if (TRTLLM_ONLY.test(line.msg)) return 8;
    if (line.msg.startsWith('w1_weight_scale_2') && MOE_SCALE_MISMATCH.test(line.msg)) return 8;
    if (line.frame === 'trtllm' || /^\[\d{2}\/\d{2}\/\d{4}-\d{2}:\d{2}:\d{2}\] /.test(line.text)) return 3;
    return tritonEvidence(line);
  },
  signatures,
  raises: [
    // executor/proxy.py GenerationExecutorProxy._start_executor_workers: a worker's ready signal was an error, logged
    // above (`Executor worker initialization error: …`, the worker's own traceback): `raise RuntimeError("Executor
    // worker returned error") from ready_signal` only points at it
    { type: /^RuntimeError$/, message: /^Executor worker returned error/, failure: 'other' },
  ],
  // The PyTorch backend's module loop (_torch/models/modeling_utils.py _load_weights_impl: `for name, module in
  // tqdm(list(model.named_modules()), desc="Loading weights")`, after the files were prefetched under `Loading
  // safetensors weights in parallel`): at its total every module holds its weights, and ModelLoader.load logs
  // nothing after it (`Use %.2f GB for model weights.` comes before); the next lines are the KV cache's
  loadedAtBarEnd: /^Loading weights$/,
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
