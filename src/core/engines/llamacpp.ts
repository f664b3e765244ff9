/** llama.cpp `llama-server`: research/vllm-and-peers.md §4 (observed on build b11669, plus older default-verbose builds). */
import { GatedPattern } from '../base/gated-pattern.js';
import type { LogLine } from '../base/types.js';
import type { EngineModule, Signature } from './types.js';

const num = (s: string | undefined): number | null => (s === undefined ? null : Number(s));

const signatures: Signature[] = [
  {
    id: 'initializing',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'initializing',
    re: /llama_server: initializing \.\.\.$/,
  },
  {
    id: 'build',
    kind: 'launch',
    phase: 'args',
    lit: 'build',
    // (the JSON log of 2024: `{"timestamp":…,"function":"main",…,"message":"build info","build":2036,…}`, keys
    // sorted from 2024-03: `{"build":2360,"commit":"…","function":"main",…,"msg":"build info",…}`)
    // (the text format of the same months, server_log's `%4s [%24s] %s | k=v …`: `INFO [                    main]
    // build info | tid="…" timestamp=… build=2036 commit="…"`; a docker image built without git says build=0)
    re: /^(?:main: )?build(?: =|:) ?(\d+) \(([^)]+)\)|^build_info: |^\{.*"(?:msg|message)":"build info".*"build":(\d+)|^\{"build":(\d+),.*"msg":"build info"|^\s*INFO \[ *main\] build info \|.* build=(\d+)/,
    version: (m) => {
      const b = m[1] ?? m[3] ?? m[4] ?? m[5];
      return b !== undefined && b !== '0' ? `b${b}` : null;
    },
  },
  {
    // src/llama-context.cpp (llama_context's constructor, `sched_reserve` since 2026): when the pipelined compute
    // graph cannot be reserved, `LLAMA_LOG_WARN("%s: compute buffer allocation failed, retrying without pipeline
    // parallelism")`, then it reserves again with one copy; only if that fails too does it throw. The allocation
    // failures printed just before it were handled: the load goes on
    id: 'pp_retry',
    kind: 'degraded',
    recovers: true,
    lit: 'retrying without pipeline parallelism',
    re: /compute buffer allocation failed, retrying without pipeline parallelism/,
  },
  {
    // src/llama-kv-cache.cpp (llama_kv_cache_init in src/llama.cpp before 2025): `failed to allocate buffer for kv
    // cache`, and its caller's `llama_kv_cache_init() failed for self-attention cache`: the KV cache did not fit,
    // whatever line came last before it (the context's parameters, printed just before it is made)
    id: 'kv_oom',
    kind: 'failure',
    failure: 'oom',
    phase: 'kv_cache',
    lit: 'cache',
    re: /failed to allocate buffer for kv cache|llama_kv_cache_init\(\) failed for self-attention cache/,
  },
  {
    // Before the phase rules: the library's own allocation failures begin with the phase's prefixes
    // (`llama_kv_cache_init: failed …`, `load_tensors: failed …`).
    id: 'gpu_oom',
    kind: 'failure',
    failure: 'oom',
    // ggml-vulkan: `Device memory allocation of size N failed`, vk `ErrorOutOfDeviceMemory`; ggml-metal:
    // `…alloc_buffer: error: failed to allocate buffer, size = …`; src/llama.cpp (llama-context, llama-kv-cache):
    // `failed to allocate buffer for kv cache`, `failed to allocate compute buffers`, after which the context
    // is not made and the server exits. (ggml-cuda's `CUDA error: …` line is read by the common
    // `gpu_runtime_error`: PyTorch prints the same words.)
    re: /cudaMalloc failed: out of memory|failed to allocate \S+ buffer of size|unable to allocate \S+ buffer|ErrorOutOfDeviceMemory|Device memory allocation of size \d+ failed|alloc_buffer: error: failed to allocate buffer, size =|failed to allocate buffer for kv cache|failed to allocate compute buffers/,
  },
  {
    // ggml's backend registry loading the backends it finds (ggml/src/ggml-backend-reg.cpp load_backend: `%s: loaded
    // %s backend from %s`), through ggml_backend_load_all, which common_params_parse calls first thing: a llama.cpp
    // process starting, one line per backend (CPU, CUDA, RPC…). Before the process got anywhere a repeat is the same
    // start's next backend (perProcess); once the launch has ended or got past its arguments, the next start (a
    // restart loop under compose or a supervisor prints no other header)
    id: 'load_backend',
    kind: 'launch',
    phase: 'args',
    perProcess: true,
    lit: 'load_backend: loaded',
    re: /^load_backend: loaded \w+ backend from /,
  },
  {
    id: 'system_info',
    kind: 'phase',
    phase: 'args',
    // (before 2024-04 ggml-cuda's init printed as `ggml_init_cublas: …`; the 2026 uptime format tags lines `cmn  common_param: …`)
    // (server.cpp main sets up its HTTP server before it loads the model: `main: binding port with default address
    // family`, then `main: HTTP server is listening`)
    re: /^(?:main: )?system info:|^system_info:|^(?:cmn +)?common_param|^main: HTTP server is listening|^main: binding port with |^device_info|^ggml_init_cublas: /,
  },
  {
    id: 'loading',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'o',
    // server.cpp main: `main: loading model` before the loader's own lines
    // (2024 text format `INFO [ main] loading model | …`; the verbose loader's `create_tensor: loading tensor …`;
    // router mode's child reporting `cmd_child_to_router:state:{"state":"loading",…}`). load_tensors' `… model
    // buffer size` lines (src/llama-model.cpp; llm_load_tensors in src/llama.cpp before 2025) come before
    // load_all_data reads the weights into those buffers, so they are still loading: llama.cpp prints no line once
    // the weights are in (src/llama-model-loader.cpp load_all_data's own `load_all_data: using async uploads for device
    // …` is printed as it starts reading them)
    // (src/llama-vocab.cpp init_tokenizer, run by load_vocab: `init_tokenizer: initializing tokenizer for type %d`;
    // the GGML-v3 loader of 2023: `llama.cpp: loading model from %s` (llama_file_loader), then
    // `llama_model_load_internal: format = …`)
    re: /load_model: loading model '|^main: loading model$|^llama_model_loader: |^llama_load_model_from_file|^print_info: |^load_tensors: |^llm_load_print_meta|^llm_load_tensors|^common_init_: fitting params|\] loading model \||^create_tensor: loading tensor|^(?:\[\d+\] )?cmd_child_to_router:state:\{"state":"loading"|^load_all_data: |^init_tokenizer: initializing tokenizer|^llama\.cpp: loading model from |^llama_model_load_internal: /,
  },
  {
    id: 'kv',
    kind: 'phase',
    phase: 'kv_cache',
    lit: 'e',
    // the server's slot setup after the context: `load_model: initializing, n_slots` (2026),
    // `initializing slots, n_slots` (2025), `INFO [ init] initializing slots | n_slots=…` (older text format)
    // (not a native frame of the same classes: `llama_context::decode()`, `llama_kv_cache_unified::update()` on a
    // ggml_print_backtrace stack run at any phase; the log lines are `llama_context: …`, `llama_kv_cache: …`)
    re: /^llama_(?:new_)?context(?!::)|^llama_kv_cache(?:_unified)?:(?!:)|load_model: initializing,? (?:slots, )?n_slots|\] initializing slots \||"msg":"initializing slots"|^graph_reserve|^llama_kv_cache_init/,
  },
  {
    // ggml-metal's backend init (ggml-metal.m ggml_metal_init, ggml-metal-context.m since 2025-09: `allocating`,
    // `found device`, `picking default device`, `GPU name`, `recommendedMaxWorkingSetSize`, …), which llama.cpp runs
    // when it makes the context (src/llama.cpp llama_new_context_with_model ggml_backend_metal_init, later
    // llama-context.cpp ggml_backend_dev_init), after the weights and right before it allocates the KV cache. Ollama's
    // Go engine (ml/backend/ggml/ggml.go initDevices) inits its backends before it loads the weights: `from`
    id: 'metal_context_init',
    kind: 'phase',
    phase: 'kv_cache',
    weak: true,
    from: 'loading_weights',
    lit: 'ggml_metal_init: ',
    re: /^ggml_metal_init: /,
  },
  {
    // tools/server/server-models.cpp server_models::load (router mode): `SRV_INF("spawning server instance with
    // name=%s on port %d")`, then `spawning server instance with args:` and one argument per line: the router
    // starts a llama-server child for a model, which then reads its arguments. Weak: the router itself stays up
    // and serves (a model asked for after others is loaded while it runs), so its state is not set back; only a
    // fragment that starts here learns the start-up it shows
    id: 'router_spawn',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'spawning server instance',
    re: /^srv +load: spawning server instance with (?:name=\S+ on port \d+|args:)/,
  },
  {
    // ggml-cuda.cu ggml_cuda_error, under its `CUDA error: …` line: `  current device: %d, in function %s at
    // %s:%d`. ggml_backend_cuda_buffer_init_tensor (zeroes a quantized tensor's padding) and
    // ggml_backend_cuda_buffer_set_tensor (copies a tensor's data in) are what llama-model-loader's load_all_data
    // drives while it places the weights on the GPU: the launch was loading them
    id: 'cuda_error_in_load',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'in function ggml_backend_cuda_buffer_',
    re: /current device: \d+, in function ggml_backend_cuda_buffer_(?:init|set)_tensor at /,
  },
  {
    // ggml-cuda.cu ggml_cuda_compute_forward: a kernel's launch failed (`%s: %s failed` with the op, then CUDA_CHECK's
    // `current device: %d, in function ggml_cuda_compute_forward at …`). Only a graph being computed runs it, and
    // the first graph a llama-server launch computes is the warm-up decode (frame_decode below): warmup at least
    id: 'cuda_error_in_compute',
    kind: 'phase',
    phase: 'warmup',
    weak: true,
    lit: 'ggml_cuda_compute_forward',
    re: /^ggml_cuda_compute_forward: \S+ failed$|current device: \d+, in function ggml_cuda_compute_forward at /,
  },
  {
    // ggml-sycl's SYCL_CHECK (ggml/src/ggml-sycl/common.hpp ggml_sycl_error): `  in function %s at %s:%d` names
    // the function whose call failed; an op's kernel (ggml_sycl_mul_mat_batched_sycl, ggml_sycl_op_*) runs only
    // from ggml_sycl_compute_forward, as a graph is computed: as with CUDA (cuda_error_in_compute), warmup at least
    id: 'sycl_error_in_compute',
    kind: 'phase',
    phase: 'warmup',
    weak: true,
    lit: 'in function ggml_sycl_',
    re: /^\s*in function ggml_sycl_(?:mul_mat\w*|op_\w+|compute_forward) at /,
  },
  {
    // `init: llama threadpool init, n_threads = %d` (common's init, `cmn init:` in the 2026 tagged format; `main:`
    // in llama-cli): the CPU threadpool is attached once the context is made, after `llama_context`/`sched_reserve`
    // lines and before the warm-up run (`warming up the model with an empty run` follows it): kv_cache at least
    id: 'threadpool_init',
    kind: 'phase',
    phase: 'kv_cache',
    weak: true,
    lit: 'llama threadpool init',
    re: /^(?:(?:cmn +)?init|main): llama threadpool init, n_threads = \d+/,
  },
  {
    // server.cpp server_context::load_model (common_init_from_params: the model's weights, then its context and
    // the warm-up run) in a native backtrace (gdb `#11 0x… in server_context::load_model(common_params const&) ()`,
    // ggml_print_backtrace): it died loading, at least; a deeper frame (llama_decode) says warmup
    id: 'frame_load_model',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'server_context',
    re: /\bserver_context(?:_impl)?::load_model\(/,
  },
  {
    // common/common.cpp common_init_from_params: unless --no-warmup, the warm-up run decodes an empty batch
    // (`warming up the model with an empty run`) before the server is up; after that the server decodes only
    // from its main loop (frame_serving below, further up the same stack). A native frame of llama_decode
    // (ggml_print_backtrace `llama_decode()  libllama.so`, glibc `libllama.so(llama_decode+0x…)`) says warmup
    // at least.
    id: 'frame_decode',
    kind: 'phase',
    phase: 'warmup',
    weak: true,
    lit: 'llama_decode',
    re: /^llama_decode\(\) +\S+\.(?:so|dylib|dll)|\(llama_decode\+0x[0-9a-f]+\)/,
  },
  {
    id: 'warmup',
    kind: 'phase',
    phase: 'warmup',

    re: /warming up the model with an empty run|^slot +load_model|new slot,? n_ctx|\] new slot \||"msg":"new slot"/,
  },
  {
    id: 'model_loaded',
    kind: 'phase',
    phase: 'warmup',
    lit: 'model loaded',
    // before the 2024-10 logging rework server.cpp main printed `LOG_INFO("model loaded", {})` as
    // `INFO [ main] model loaded | tid=… ` (text) or `{…"msg":"model loaded"…}` (--log-format json)
    re: /(?:llama_server|main): model loaded$|\] model loaded(?: \||$)|"msg":"model loaded"/,
    readyOnceListening: true,
  },
  {
    id: 'ready',
    kind: 'ready',
    phase: 'ready',
    // The older server's `LOG_INFO("HTTP server listening", {hostname, port})` has no `on`: the quick-reject
    // substring is the part every shape shares.
    lit: 'listening',
    // 2023 server.cpp: `llama server listening at http://host:port`
    re: /(?:llama_server|main): (?:server is )?listening on \S+|HTTP server listening|^llama server listening at \S+/,
    // From 2024-01 (#4860) the server started its HTTP thread before loading the model and printed `llama server
    // listening at …` and `HTTP server listening` first (llamafile too); `model loaded` (#4881) or the main loop's
    // `all slots are idle` then say it is up. After start-up lines and before the KV cache, they show the port only.
    after: 'kv_cache',
    afterKnown: true,
  },
  {
    // server.cpp update_slots prints it when the main loop starts and after every task: it says nothing was served
    id: 'idle',
    kind: 'phase',
    phase: 'ready',
    lit: 'all slots are idle',
    // (2023-10 to 2024-02 LOG_TEE printed it bare, with the system-prompt clause: b1448 server.cpp update_slots)
    re: /update_slots(?:: |\] )all slots are idle|"msg":"all slots are idle"|^all slots are idle and system prompt is empty/,
  },
  {
    id: 'timing',
    kind: 'serving',
    phase: 'serving',
    // before 2024-10 the server's print_timings went through server_log:
    // `INFO [ print_timings] prompt eval time     =  47.81 ms /  7 tokens (…)`, `generation eval time = … runs   (…)`;
    // 2023-10 (#3677) to 2024-02 (#5700): LOG_TEE("%s: prompt eval time = …", __func__), `print_timings: eval time = …`
    lit: ' time ',
    // (`--log-format json`, the default then: `{…"function":"print_timings",…,"msg":"prompt eval time = …"`)
    re: /^(?:slot +)?(?:print_timings?: )?(?:INFO \[ *print_timings\] |\{.*"function":"print_timings".*"msg":")?(?:id +\d+ \| task \d+ \| )?\s*(prompt eval|generation eval|eval|total) time += +([\d.]+) ms \/ +(\d+) (?:tokens|runs)(?: +\( +[\d.]+ ms per token, +([\d.]+) tokens per second\))?/,
  },
  {
    id: 'slot',
    kind: 'serving',
    phase: 'serving',
    lit: 'slot',
    // older text format: `INFO [ launch_slot_with_task] slot is processing task | …`, `… slot released | …`;
    // from 2023-10 (#3677, parallel decoding) to 2024-02 (#5700, unified log format) LOG_TEE's
    // `slot %i is processing [task id: %i]` and `slot %d released (%d tokens in cache)`
    // (2024 text format: `INFO [ update_slots] kv cache rm [p0, end) | … id_slot=0 id_task=90`, a slot at work)
    // (tools/server server_slot::print_timings_tg, while a request decodes: SLT_INF(`n_decoded = %6d, tg = %6.2f
    // t/s`, later with `, tg_3s = …`; 2026 server-context.cpp counts stats.n_gen: `n_gen = %6d, tg = …, tg_3s = …`),
    // the function name cut to 12 characters: `slot print_timing: id  3 | task 0 | n_decoded = …`: a request being
    // answered)
    re: /^slot \d+ (?:is processing \[task id: \d+\]|released \(\d+ tokens in cache\))|\] kv cache rm \[|launch_slot_|^(?:slot +)?(?:get_availabl|release|launch_slot_|update_slots):|^slot +print_timing: id +\d+ \| task \d+ \| n_(?:decoded|gen) = |processing task|prompt processing|stop processing|\] slot released \|/,
  },
  {
    // server.cpp request handling: `srv  params_from_: Chat format: …` (each request's parameters),
    // `srv    send_error: task id = N, error: …` (a request refused: the server answers it and goes on)
    id: 'request_handling',
    kind: 'serving',
    phase: 'serving',
    lit: 'srv ',
    re: /^srv +(?:params_from_|send_error): /,
  },
  {
    // The prompt cache at work on a task (tools/server, 2025-10 on): server-context.cpp get_available_slot picks a
    // slot for a completion task and updates the cache (`srv  get_availabl: updating prompt cache`, `… prompt cache
    // update took %.2f ms`), saving the slot's prompt (server_slot::prompt_save `srv   prompt_save:  - saving prompt
    // with length %d, …`) and looking for a better one (server-task.cpp server_prompt_cache::load `srv          load:
    // - looking for better prompt, …`), then server_prompt_cache::update (`srv        update:  - cache state: %zu
    // prompts, …`); server_slot::prompt_clear (`slot prompt_clear: id  0 | task -1 | clearing prompt with %zu
    // tokens`) is called on a task's slot, a slot erased through the API or purged to make room. All while tasks
    // are taken in: an excerpt of them is a server serving.
    id: 'prompt_cache',
    kind: 'serving',
    phase: 'serving',
    lit: 'prompt',
    re: /^(?:srv +get_availabl: (?:updating prompt cache|prompt cache update took)|srv +prompt_save: +- saving prompt with length \d+|srv +load: +- looking for better prompt|srv +update: +- cache state: \d+ prompts|slot +prompt_clear: .*\bclearing prompt with \d+ tokens)/,
  },
  {
    // server.cpp log_server_request: `request: GET /health 127.0.0.1 503`. The server listens before the model
    // is loaded and answers 503 meanwhile (health checks poll it), so only a 2xx answer is a request served:
    // an access line, whose status the analyzer reads from the `status` group.
    id: 'access',
    kind: 'serving',
    phase: 'serving',
    lit: 'request:',
    re: /request: (?:GET|POST|PUT|DELETE|OPTIONS|HEAD) \S+ \S+ (?<status>\d{3})/,
  },
  {
    id: 'load_failed',
    kind: 'failure',
    failure: 'model_not_found',
    lit: 'o',
    // gguf.cpp: `failed to open GGUF file '%s' (%s)` (2025-26), `failed to open %s: %s` (older, ggml.c)
    re: /failed to open GGUF file|^gguf_init_from_file\w*: failed to open .*No such file|error loading model: .*(?:No such file|failed to open)/,
  },
  {
    // src/llama-arch / llama-model.cpp: `error loading model architecture: unknown model architecture: '…'`
    // (a GGUF of an architecture this build does not know: a newer model than the build); llama-vocab.cpp
    // likewise for a tokenizer: `unknown pre-tokenizer type: '…'`
    id: 'unknown_arch',
    kind: 'failure',
    failure: 'unsupported',
    lit: 'unknown ',
    re: /unknown model architecture: '[^']*'|unknown pre-tokenizer type: '[^']*'/,
  },
  {
    // gguf.cpp gguf_init_from_file_impl: the file is not a GGUF (a safetensors file, an HTML error page, a
    // partial download): the cause, though the callers then say `failed to load model`
    id: 'not_gguf',
    kind: 'failure',
    lit: 'invalid magic characters',
    re: /gguf_init_from_file\w*: invalid magic characters/,
  },
  {
    // src/llama.cpp llama_model_load: `LLAMA_LOG_ERROR("%s: error loading model: %s\n", __func__, err.what())`,
    // the exception's own text is the cause: the loader's raise site classes it (engine-source catalog). It is
    // the model load's own catch: the launch was loading
    id: 'load_error',
    kind: 'failure',
    phase: 'loading_weights',
    raised: true,
    lit: 'error loading model: ',
    re: /error loading model: (.+)/,
  },
  {
    // libstdc++'s terminate handler for an exception nothing caught (a throw in server.cpp or common/ outside
    // the loader's try): `terminate called after throwing an instance of 'std::runtime_error'`, then
    // `  what():  <message>`, then abort
    id: 'uncaught',
    kind: 'failure',
    raised: true,
    lit: 'what():',
    re: /^\s*what\(\): +(.+)/,
  },
  {
    // What the callers print after a failed load whatever the cause (llama_model_load_from_file_impl,
    // common_init_from_params, server load_model; before 2024-10 `llama_init_from_gpt_params: error: …` and
    // `LOG_ERROR("unable to load model", …)`): the cause is the line above, so these only confirm the crash. Alone
    // they name no cause (`failed to load model` is printed for any: a missing file, a bad GGUF, an allocation):
    // class `other`, not a missing model. Each says where the launch was: the model's load (llama_model_load
    // returned its error to llama_model_load_from_file_impl, which common_init_from_params and the server relay)
    // is loading the weights; a context that could not be made (common_init_from_params after
    // llama_init_from_model, llama_new_context_with_model before) is sizing the KV cache, as its lines are.
    // (common's own macro since 2026 prefixes them `cmn  %12.*s: `, the function cut to 12: `cmn  common_init_: `)
    id: 'load_failed_after',
    kind: 'consequence',
    failure: 'other',
    phase: 'loading_weights',
    lit: 'model',
    re: /failed to load model, '|^llama_(?:model_)?load_(?:model_)?from_file(?:_impl)?: failed to load model|^(?:cmn +)?(?:common_init_\w*|llama_init_from_gpt_params): (?:error: )?failed to load model|\] unable to load model(?: \||$)|"msg":"unable to load model"/,
  },
  {
    id: 'context_failed_after',
    kind: 'consequence',
    failure: 'other',
    phase: 'kv_cache',
    lit: 'failed to create context',
    re: /^(?:cmn +)?(?:common_init_\w*|llama_init_from_gpt_params): (?:error: )?failed to create context/,
  },
  {
    id: 'bind',
    kind: 'failure',
    failure: 'port_in_use',
    lit: 'bind',
    // before 2024-10 (and in forks since): `couldn't bind to server socket: hostname=%s port=%d`
    re: /couldn't bind HTTP server socket|couldn't bind to server socket/,
  },
  {
    // ggml/src/ggml-sycl/common.hpp: CHECK_TRY_ERROR catches the SYCL runtime's exception and prints its what()
    // (`Native API failed. Native API returns: -999 …`, `level_zero backend failed with error: 20
    // (UR_RESULT_ERROR_DEVICE_LOST)`) then `Exception caught at file:…, line:…, func:…`; SYCL_CHECK around it calls
    // ggml_sycl_error: `SYCL error: <stmt>: Exception caught in this line of code.`, `  in function %s at %s:%d`,
    // GGML_ABORT("SYCL error"). ggml-sycl.cpp's own `catch (sycl::exception const &exc)` blocks print the same line
    // and std::exit(1). The GPU runtime failed: the server aborts whatever phase it was in
    id: 'sycl_error',
    kind: 'failure',
    failure: 'cuda_error',
    lit: 'caught at file:',
    re: /^Exception caught at file:\S*ggml[-_]sycl\S*, line:\d+/,
  },
  {
    id: 'sycl_error_abort',
    kind: 'failure',
    failure: 'cuda_error',
    lit: 'SYCL error: ',
    re: /^SYCL error: (.+)$/,
  },
  {
    // ROCm's HIP runtime (clr hipamd/src/hip_fatbin.cpp, with AMD_LOG_LEVEL's `:1:file :line : N us:` prefix):
    // `No compatible code objects found for: gfx1152`: the build has no kernels for this GPU's architecture
    // (ggml-hip is built for the AMDGPU_TARGETS given to cmake); the program then fails on its first kernel
    id: 'hip_no_code_object',
    kind: 'failure',
    failure: 'unsupported',
    lit: 'No compatible code objects',
    re: /No compatible code objects found for: (gfx\w+)/,
  },
  {
    // ggml.c ggml_abort: `fprintf(stderr, "%s:%d: ", file, line)` + the message, then a backtrace and abort();
    // GGML_ASSERT(x) prints `file:line: GGML_ASSERT(x) failed` the same way. Only ggml's and llama's own files.
    // ggml-cuda.cu's own aborts (ggml_cuda_error `CUDA error`, the VMM pool's `%s:%d: HipVMM Failure: …`, cuBLAS):
    // a GPU runtime failure whatever the words
    id: 'ggml_cuda_abort',
    kind: 'failure',
    failure: 'cuda_error',
    lit: '.cu:',
    // (a GGML_ASSERT there is the code's own check, classed by its site like any other assertion)
    re: /^\S*ggml[_-]cuda\.cu:\d+: (?!GGML_ASSERT)(.+)$/,
  },
  {
    id: 'ggml_abort',
    kind: 'failure',
    raised: true,
    lit: ':',
    // Any message: GGML_ABORT's are free text (`unknown architecture`, `not enough space in the buffer`; the
    // engine-source catalog classes them by their site). A compiler's diagnostic has a column (`file:12:5: `).
    re: /^\S*(?:ggml|llama)[\w./-]*\.(?:c|cc|cpp|cu|cuh|h|m|mm):\d+: (?!\d)(.+)$/,
  },
  {
    id: 'exiting',
    kind: 'consequence',
    lit: 'exiting due to',
    re: /exiting due to (?:model loading error|HTTP server error)/,
  },
  {
    id: 'no_backend',
    kind: 'failure',
    failure: 'unsupported',
    lit: 'no backends',
    re: /no backends are loaded/,
  },
  {
    // common/arg.cpp common_params_parse_ex: `error: invalid argument: --x`, `error while handling argument "--x": …`
    // (the message after the argument is the throw's what(): the catalog knows a missing file from a bad value)
    id: 'arg_error',
    kind: 'failure',
    failure: 'config_error',
    raised: true,
    lit: 'rror',
    re: /^error: (?:invalid|unknown) argument: |^error while handling (?:argument|environment variable) "[^"]*": (.+)/,
  },
  {
    // ggml.c ggml_abort prints the message, then ggml_print_backtrace, then abort(): its own frame in the
    // backtrace (glibc backtrace_symbols `libggml-base.so(ggml_abort+0x152)[0x…]`, or `ggml_abort()  libggml-base.so`)
    // says the process aborted there, also where the paste lost the message above it
    id: 'ggml_abort_frame',
    kind: 'consequence',
    lit: 'ggml_abort',
    re: /\(ggml_abort\+0x[0-9a-f]+\)\[0x[0-9a-f]+\]|^ggml_abort\(\) +\S+\.(?:so|dylib|dll)/,
  },
  {
    // A native backtrace (gdb `#N 0x… in f() ()`, ggml_print_backtrace `f()  lib.so`) through the server's main
    // loop (server.cpp server_context::update_slots, called from server_queue::start_loop): it died serving
    id: 'frame_serving',
    kind: 'phase',
    phase: 'serving',
    weak: true,
    lit: '::',
    re: /\bserver_context(?:_impl)?::update_slots\(\)|\bserver_queue::start_loop\(\)/,
  },
  {
    // server.cpp main's clean_up lambda: after start_loop returns (a stop), and also on the load-failure path
    // before `exiting due to model loading error`, so it says nothing of how far the launch got
    id: 'shutdown',
    kind: 'shutdown',
    re: /cleaning up before exit\.\.\./,
  },
  {
    // server.cpp signal_handler: a second SIGINT/SIGTERM while the first one's stop is under way. llama-server's
    // main installs that handler (sigaction SIGINT/SIGTERM) only after load_model returned and it logged `model
    // loaded` (the HTTP side ready); before, a signal kills the process unprinted. So the server was up.
    // (llama-cli installs the same handler before its load, but prints its own `Loading model...` spinner.)
    id: 'second_interrupt',
    kind: 'shutdown',
    phase: 'ready',
    re: /^Received second interrupt, terminating immediately/,
  },
];

// The detection patterns `detect` tests on every line, gated by the literals they need (base/gated-pattern.ts); what
// each reads is said where `detect` tests it.
const LOADER_LINE = new GatedPattern(
  /llama_server:|llama_model_loader:|^llm_load_|llama_context:|llama_kv_cache|load_tensors:|print_info: |gguf_init_from_file|ggml_cuda_init|main: server is listening|^llama_model_load(?:_from_file_impl)?: |^init_tokenizer: initializing tokenizer|^llama_model_load_internal: |^(?:cmn +)?common_init_from_params: /,
);
const GGML_LINE = new GatedPattern(
  /GGML_ASSERT|ggml[_-]cuda\.cu:\d+: |^ggml_init_cublas: |^llama_load_model_from_file|^llama_init_from_gpt_params|^create_tensor: loading tensor|^(?:\[\d+\] )?cmd_child_to_router:|^main: (?:binding port|couldn't bind HTTP server socket|loading model$)|^(?:\S*[$#>❯] +)?(?:\S*[/\\])?llama-server(?:\.exe)? |^zsh: [a-z ()-]+ {2}(?:\S*\/)?llama-server\b/,
);
const ARG_OR_FRAME = new GatedPattern(
  /^Exception caught at file:\S*ggml[-_]sycl|ggml[-_]sycl\S*:\d+: SYCL error$|^(?:\S*[$#>❯] +)?(?:\.\/|\S*\/)server(?:\.exe)? (?:.* )?(?:-m|--model) \S+\.gguf\b|^error while handling argument|\(env: LLAMA_ARG_|^to show complete usage, run with -h|server_context(?:_impl)?::|server_queue::start_loop|llama_sampler_\w+\(|common_init_from_params\(\)|(?:^|[/\\])llama-server(?:\.exe)?\([\w:]*\+0x[0-9a-f]+\)\[0x|^\s*current device: \d+, in function \w+ at \S*ggml[/\\]src[/\\]/,
);

export const llamacpp: EngineModule = {
  id: 'llamacpp',
  detect(line: LogLine): number {
    // (common/common.cpp common_init_from_params: the common library of llama.cpp's own tools, which libllama's
    // bindings such as llama-cpp-python do not use; libllama's context lines, `llama_new_context_with_model:`, are
    // printed by every program that embeds it, and vote nothing)
    if (LOADER_LINE.test(line.msg)) return 8;
    // common.cpp's build banner (`build: %d (%s) with %s for %s`), the first line every llama.cpp tool prints
    if (/^build: \d+ \([0-9a-f]+\) with .+ for \S+/.test(line.msg)) return 8;
    // ggml's own lines and llama.cpp's loader/init functions of every era (ggml.c GGML_ASSERT, ggml-cuda.cu init
    // before 2024-04 `ggml_init_cublas`, llama.cpp `llama_load_model_from_file` / `llama_init_from_gpt_params`,
    // the verbose loader's `create_tensor: loading tensor`, router mode's child-to-router state lines), and the
    // command line that starts the server (a paste's first line)
    if (GGML_LINE.test(line.msg)) return 8;
    // common/arg.cpp's argument errors and usage (`error while handling argument`, `(env: LLAMA_ARG_…)`, `to show
    // complete usage, run with -h`); a native backtrace through the server's own functions (gdb, ggml_print_backtrace)
    // or its own binary (glibc's backtrace_symbols, ggml_print_backtrace's fallback: `/app/llama-server(+0xfb930)
    // [0x…]`); ggml-cuda.cu ggml_cuda_error's line under `CUDA error: …` (`  current device: %d, in function %s at
    // %s:%d`, the failing call's site in ggml's sources); ggml-sycl's error lines (common.hpp CHECK_TRY_ERROR
    // `Exception caught at file:<ggml-sycl.cpp>, line:…`, ggml_sycl_error's abort `<common.hpp>:%d: SYCL error`);
    // the server's binary under its name before 2024-06 (`./server -m model.gguf …`, renamed llama-server by #7809)
    if (ARG_OR_FRAME.test(line.msg)) return 4;
    // the server's per-module macros (tools/server: `SRV_INF` → `srv  %12.*s: `, `SLT_INF` → `slot %12.*s: id …`,
    // `QUE_`, `RES_`; common's `cmn`): the tag, the function name cut to 12 characters, a colon. A tag alone is not
    // enough: a traceback's code line that lost its indent (`res = func(*args)`, `res in …`) starts the same way.
    if (/^(?:srv|slot|que|res|cmn) +[\w()~:<>]{1,12}: /.test(line.msg) || line.frame === 'llamacpp') return 4;
    // the server's own request lines of other eras: server.cpp 2023-10 (#3677) to 2024-02 (#5700) LOG_TEE's `slot %i
    // is processing [task id: %i]`, `slot %d : in cache: %i tokens | to process: %i tokens`, `slot %d : kv cache
    // rm - [%d, end)`, `slot %d released (%d tokens in cache)`; server_slot::print_timings 2024-09 to 2025-11,
    // SLT_INF("\n" "prompt eval time = %10.2f ms / %5d tokens (…)" …), whose three timing lines come bare (2023-10
    // to 2024-02: `print_timings: prompt eval time = …`)
    if (
      /^slot \d+ (?:is processing \[task id: \d+\]|: in cache: \d+ tokens \| to process: \d+ tokens|: kv cache rm - \[\d+, end\)|released \(\d+ tokens in cache\))|^(?:print_timings: )?(?:prompt eval|\s*eval|\s*total) time = +[\d.]+ ms \/ +\d+ tokens\b/.test(
        line.msg,
      )
    )
      return 4;
    // ggml's backend registry and device init as llama.cpp's tools print them first (ggml/src/ggml-backend-reg.cpp
    // load_backend `loaded %s backend from %s`; ggml-vulkan.cpp `ggml_vulkan: Found %d Vulkan devices:`; ggml-metal's
    // device and context init, `ggml_metal_init: …`, `ggml_metal_device_init: error: failed to allocate context`):
    // ggml is also inside other programs (Ollama's runner), whose own lines then outweigh these
    if (
      /^load_backend: loaded \w+ backend from |^ggml_vulkan: Found \d+ Vulkan devices:|^ggml_metal_(?:device_)?init: /.test(
        line.msg,
      )
    )
      return 4;
    // the server's JSON log format before 2024-10, its default (server_log: `{"tid":…,"function":…,"msg":…}`;
    // 2024-01 `{"timestamp":…,"level":…,"function":…,"line":…,"message":…}`; 2024-03 keys sorted, `{"build":…}`)
    if (
      /^\{"tid":"\d+","timestamp":\d+,"level":"\w+","function":"\w+","line":\d+,"msg":"/.test(line.msg) ||
      /^\{"(?:timestamp|build|function)":.*"function":"\w+".*"line":\d+,"(?:msg|message)":"/.test(line.msg) ||
      // (server_log's json is nlohmann::json, whose object keys are sorted: without `build`, `function` comes first:
      // `{"function":"launch_slot_with_data","level":"INFO","line":829,"msg":"…",…,"tid":"…","timestamp":…}`)
      /^\{"function":"\w+","level":"\w+","line":\d+,"msg":".*"tid":"[^"]*","timestamp":\d+\}$/.test(line.msg)
    )
      return 4;
    // the server's text log format before 2024-10 (server_log: `%4s [%24s] %s | k=v …`), also indented as a paste
    // quotes it; its tid is std::this_thread::get_id() streamed, a number on Linux, a hex pthread_t on macOS
    // (libc++: `tid="0x1e89e4c00"`)
    if (
      /^\s*(?:INFO|WARN|ERR|ERROR|VERB) \[ *(?:main|init|load_model|update_slots|launch_slot_with_task|print_timings|log_server_request)\] /.test(
        line.msg,
      ) ||
      // (any function, as forks kept it: ik_llama.cpp's `INFO [ batch_pending_prompt] … | tid="…" timestamp=…`)
      /^\s*(?:INFO|WARN|ERR|ERROR|VERB) \[ *\w+\] .* \| tid="(?:\d+|0x[\da-f]+)" timestamp=\d+/.test(line.msg)
    )
      return 4;
    return 0;
  },
  signatures,
  sample(sig, m) {
    if (sig.id !== 'timing') return null;
    if (m[1] === 'eval' || m[1] === 'generation eval')
      return { genTps: num(m[4]), promptTps: null, running: null, queued: null, kvUsage: null };
    if (m[1] === 'prompt eval')
      return { genTps: null, promptTps: num(m[4]), running: null, queued: null, kvUsage: null };
    return null;
  },
  hints: {
    model_not_found: 'check the -m/--model path exists and is a GGUF file',
    port_in_use: 'another process holds the port: `ss -ltnp | grep PORT`, or pass a different --port',
    oom: 'offload fewer layers (-ngl) or lower the context size (-c)',
  },
  silentBudget: { args: 60, loading_weights: 600, kv_cache: 120, warmup: 120 },
};
