/** SGLang (`python -m sglang.launch_server`, `sglang serve`): line shapes from research/sglang.md. */

import { parseSglangServerArgs } from '../config/engine-config.js';
import { argparseSignatures } from './cli-errors.js';
import { sglangEvidence } from './evidence.js';
import type { EngineModule, Signature } from './types.js';

const num = (s: string | undefined): number | null => (s === undefined ? null : Number(s));

const signatures: Signature[] = [
  // launch
  {
    id: 'launch_server_warning',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'sglang.launch_server',
    re: /launch_server\.py:\d+: UserWarning: 'python -m sglang\.launch_server'/,
  },
  {
    id: 'server_args',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'server_args=',
    re: /^server_args=ServerArgs\(/,
    config: parseSglangServerArgs,
  },
  // ServerArgs.__post_init__ warnings come before the args dump: they open the launch too
  {
    id: 'config_warning',
    kind: 'launch',
    phase: 'args',
    lit: ' ',
    re: /^(?:Set (?:NSA|DSA) backends for |Attention backend not (?:explicitly )?(?:specified|set)\. Use |Setting KV cache dtype to \S+ for DeepSeek|Use (?:nsa|dsa) attention backend for DeepSeek|Use \S+ as MoE runner backend on|Cuda graph is disabled |Detected (?:Blackwell|ROCm) and MXFP4 quantization)/,
  },
  {
    // The launch command pasted on a line of its own, without the shell prompt common.ts `shell_launch` needs
    // (the commands of research/engine-source sglang.json: `python -m sglang.launch_server`, `sglang serve`)
    id: 'launch_command',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'sglang',
    re: /^(?:\w+=\S+ +)*(?:nohup +)?(?:python3? +-m +sglang\.launch_server|sglang +serve)(?: |$)/,
  },
  // config-time notes: the launch has begun, nothing more
  {
    id: 'launch_dp',
    kind: 'phase',
    phase: 'args',
    lit: 'Launch DP',
    re: /^Launch DP\d+ starting at GPU #\d+/,
  },
  {
    // sgl-router (Rust; src/router.rs wait_for_healthy_workers, `[Router (Rust)]` prefix in its 2025 Python-launched
    // builds): while it waits for the workers' /health it logs `Worker is not ready yet`, `Initializing workers:`
    // and `Worker <url> health check is pending with error: …`: the workers it launched are still starting, so
    // the launch has begun and shows nothing further by itself
    id: 'router_waiting',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'orker',
    re: /(?:^|: )Worker is not ready yet$|(?:^|: )Initializing workers:$|Worker \S+ health check is pending with error/,
  },
  {
    // sgl-router / model gateway (Rust) server.rs startup: `Starting router on {host}:{port} | mode: {mode:?} |
    // policy: … | max_payload: …MB`, then `Initializing workers for routing mode: {mode:?}` before it submits the
    // workers' initialisation: the router process has begun; its workers (a model server each) show nothing yet
    id: 'router_startup',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'r',
    re: /(?:^|: )(?:Starting router on \S+ \| mode: |Initializing workers for routing mode: )/,
  },
  {
    // The gRPC router (sgl-router / model gateway, late 2025) connects to each worker's scheduler when the worker
    // is added: grpc_client/sglang_scheduler.rs SglangSchedulerClient::connect (debug) `Connecting to SGLang
    // scheduler at grpc://…`, and core/worker.rs (error) `Failed to connect gRPC client for worker <url>: <e>`
    // while that scheduler is not listening yet (it retries): the workers are still starting, as above
    id: 'router_grpc_connect',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'SGLang scheduler',
    re: /(?:^|: )Connecting to SGLang scheduler at grpc:\/\/\S+$/,
  },
  {
    id: 'router_grpc_connect_failed',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'gRPC client for worker',
    re: /(?:^|: )Failed to connect gRPC client for worker grpc:\/\/\S+: /,
  },
  // distributed init
  {
    id: 'init_dist_begin',
    kind: 'phase',
    phase: 'dist_init',
    lit: 'Init torch distributed',
    re: /^Init torch distributed (?:begin|ends)/,
  },
  {
    id: 'init_dist_nccl',
    kind: 'phase',
    phase: 'dist_init',
    // NCCL's own INFO lines are common.ts `nccl_info` (they never open a launch).
    re: /^sglang is using nccl==/,
  },
  // weights
  {
    id: 'load_weight_begin',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'Load weight begin',
    re: /^Load weight begin\b/,
  },
  {
    id: 'weights_format',
    kind: 'phase',
    phase: 'loading_weights',
    // model_loader/weight_utils.py download_weights_from_hf `Using model weights format …`,
    // _find_local_hf_snapshot_dir_unlocked `Found local HF snapshot for … at …; skipping download.` (no substring
    // both share: anchored, the regex is its own quick reject)
    re: /^Using model weights format|^Found local HF snapshot/,
  },
  {
    // model_loader/weight_utils.py _prefetch_all_checkpoints (2026): a background thread reads the shards into
    // the page cache while the weights load: `Rank %d: prefetching %d/%d checkpoint shards into page cache …`,
    // `Rank %d: prefetching checkpoint files: %d%% (%d/%d)`, `… into page cache finished in %.2fs`
    id: 'checkpoint_prefetch',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'prefetching',
    re: /^Rank \d+: prefetching (?:\d+\/\d+ checkpoint shards into page cache|checkpoint files)/,
  },
  {
    // multimodal_gen (diffusion: `sglang generate`, `sglang serve` of a diffusion model)
    // runtime/loader/component_loader.py TransformerLoader: `Loading model from %s safetensors files: %s`, then
    // `Loading %s, default_dtype: %s` as the transformer's weights are read
    id: 'diffusion_load',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'Loading ',
    re: /^Loading model from \d+ safetensors files[: ]|^Loading \w+, default_dtype: /,
  },
  {
    // v0.1.x-v0.2.x (managers/router/model_runner.py, managers/controller/model_runner.py ModelRunner.load_model):
    // `Rank {self.tp_rank}: load weight begin.` / `… load weight end.`, before the `[time TPn]` prefix existed
    id: 'old_load_weight',
    kind: 'phase',
    phase: 'loading_weights',
    lit: ': load weight begin',
    re: /^Rank \d+: load weight begin\./,
  },
  {
    id: 'old_load_weight_end',
    kind: 'phase',
    phase: 'weights_loaded',
    lit: ': load weight end',
    re: /^Rank \d+: load weight end\./,
  },
  {
    // v0.1.x managers/router/model_rpc.py ModelRpcServer.__init__, once the KV pool is sized:
    // `Rank 0: max_total_num_token=52656, max_prefill_num_token=8776, context_len=4096, model_mode=[]`
    id: 'old_max_total_num_token',
    kind: 'phase',
    phase: 'kv_cache',
    lit: ': max_total_num_token=',
    re: /^Rank \d+: max_total_num_token=\d+, max_prefill_num_token=/,
  },
  {
    id: 'load_weight_end',
    kind: 'phase',
    phase: 'weights_loaded',
    lit: 'Load weight end',
    re: /^Load weight end\./,
  },
  // KV cache
  {
    id: 'kv_cache',
    kind: 'phase',
    phase: 'kv_cache',
    lit: 'KV',
    re: /^(?:Using KV cache dtype:|(?:(?:Full|SWA) )?KV Cache (?:is allocated|VA upper bound)\.)/,
  },
  {
    id: 'memory_pool',
    kind: 'phase',
    phase: 'kv_cache',

    re: /^Memory pool end\.|^Use sliding window memory pool|^max_total_tokens=\d+ is larger than the profiled value|^Allocating [\d.]+ GB host memory for (?:hierarchical KV cache|V4 paged pool)/,
  },
  {
    // PD disaggregation: the KV manager registers the pools it has just allocated with the transfer engine
    // (disaggregation/nixl/conn.py NixlKVManager.register_buffer_to_engine: `Register kv tensors, len(kv_addr)= N`),
    // at scheduler init right after the memory pool
    id: 'disagg_register_kv',
    kind: 'phase',
    phase: 'kv_cache',
    lit: 'Register kv tensors',
    re: /^Register kv tensors, len\(kv_addr\)=/,
  },
  {
    id: 'max_total_num_tokens',
    kind: 'phase',
    phase: 'kv_cache',
    lit: 'max_total_num_tokens=',
    re: /^max_total_num_tokens=\d+/,
  },
  {
    // entrypoints/engine.py Engine._set_startup_time (newest): `Engine startup timings (s): load_weight=…,
    // kv_cache_allocation=…, scheduler_e2e=…, cuda_graph={…}, tokenizer_e2e=…`, logged once the schedulers report
    // ready, after their CUDA-graph capture and before the HTTP server starts (uvicorn's `Started server process`
    // follows it): every scheduler step up to the graphs is over, the warm-up request not yet sent
    id: 'startup_timings',
    kind: 'phase',
    phase: 'cuda_graph',
    lit: 'Engine startup timings',
    re: /^Engine startup timings \(s\):/,
  },
  // kernel warm-up
  {
    id: 'autotune',
    kind: 'phase',
    phase: 'autotune',

    re: /^Running FlashInfer autotune|^FlashInfer autotune completed|AutoTuner|\[Autotuner\]/,
  },
  {
    id: 'deepgemm',
    kind: 'phase',
    phase: 'compile',
    lit: 'DeepGEMM',
    re: /DeepGEMM JIT|^DeepGEMM warmup|^Try DeepGEMM/,
  },
  {
    // sglang-jax (SGLang's JAX/TPU port) sgl_jax/srt/managers/tp_worker.py ModelWorker.precompile_extend and
    // precompile_decode (and their speculative twins): `[EXTEND] begin to precompile` (later `… Begin to
    // precompile bs_paddings=…`), `[EXTEND] precompile (bs=…, num_tokens=…)`, `[DECODE] precompile finished in N
    // secs`: XLA compiles the forward pass for each padding before the HTTP server starts
    id: 'jax_precompile',
    kind: 'phase',
    phase: 'compile',
    lit: 'precompile',
    re: /^\[(?:EXTEND|DECODE|SPEC_EXTEND|SPEC_DECODE)\] (?:[Bb]egin to precompile|precompile (?:\(|finished in))/,
  },
  // CUDA graphs
  {
    id: 'cuda_graph_begin',
    kind: 'phase',
    phase: 'cuda_graph',

    re: /^Capture (?:cuda|cpu|npu|musa|xpu) graph (?:begin|bs\b)|^Capture (?:target|draft) (?:decode|verify|prefill) \w+ graph begin|^Capture piecewise CUDA graph begin|^Capturing batches \(|^Capturing num tokens|^Compiling num tokens|^Registering \d+ cuda graph addresses/,
  },
  {
    id: 'cuda_graph_end',
    kind: 'phase',
    phase: 'cuda_graph',
    lit: 'raph',
    re: /^Capture (?:cuda|cpu|npu|musa|xpu) graph end\.|^Capture (?:target|draft) (?:decode|verify|prefill) \w+ graph end\.|^Capture piecewise CUDA graph end\./,
  },
  {
    // PyTorch refuses a call on a CUDA stream being captured (c10/cuda CUDAGeneratorImpl `Cannot call
    // CUDAGeneratorImpl::current_seed during CUDA graph capture … Current cudaStreamCaptureStatus:
    // cudaStreamCaptureStatusActive`; the CUDA runtime's `operation not permitted when stream is capturing`): the
    // error happened inside a graph capture, which SGLang runs at startup (CudaGraphRunner.capture)
    id: 'during_capture',
    kind: 'phase',
    phase: 'cuda_graph',
    lit: 'aptur',
    re: /during CUDA graph capture\b|cudaStreamCaptureStatusActive|operation not permitted when stream is capturing/,
  },
  // HTTP server and warm-up: uvicorn being up is not readiness for SGLang
  {
    id: 'uvicorn_start',
    kind: 'phase',
    phase: 'warmup',
    lit: 'INFO:',
    re: /^INFO: +(?:Started server process|Waiting for application startup|Application startup complete|Uvicorn running on)/,
  },
  {
    id: 'granian',
    kind: 'phase',
    phase: 'warmup',
    lit: 'Granian',
    re: /^Starting embedded Granian HTTP\/2 server/,
  },
  {
    // entrypoints/openai/serving_chat.py OpenAIServingChat.__init__, made in http_server.py's lifespan as uvicorn
    // starts (between `Waiting for application startup.` and `Application startup complete.`): `Using default chat
    // sampling params from model generation config: {…}`. The engine is up, the HTTP server is starting.
    id: 'openai_chat_init',
    kind: 'phase',
    phase: 'warmup',
    lit: 'chat sampling params',
    re: /^Using default chat sampling params from model generation config: /,
  },
  {
    id: 'warmup_pd',
    kind: 'phase',
    phase: 'warmup',

    re: /^(?:Start of|End of) (?:pd |prefill |decode )?disaggregation (?:mode )?warmup|^Disaggregation warmup requests completed/i,
  },
  {
    id: 'ready',
    kind: 'ready',
    phase: 'ready',
    lit: 'fired up',
    re: /The server is fired up and ready to roll!/,
  },
  {
    // A client's chat request taken in: entrypoints/openai/protocol.py ChatCompletionRequest declares `max_tokens`
    // with pydantic's `Field(deprecated="max_tokens is deprecated in favor of the max_completion_tokens field")`,
    // so reading it (serving_chat.py OpenAIServingChat._validate_request, on every /v1/chat/completions request)
    // makes Python print `…/serving_chat.py:N: DeprecationWarning: max_tokens is deprecated in favor of the
    // max_completion_tokens field`. SGLang's own warm-up posts to /generate or /encode (http_server.py
    // _execute_server_warmup), never to the OpenAI API: a user's request reached the server, none answered yet
    id: 'client_chat_request',
    kind: 'ready',
    phase: 'ready',
    lit: 'max_completion_tokens field',
    re: /DeprecationWarning: max_tokens is deprecated in favor of the max_completion_tokens field/,
  },
  {
    // SGLang run by NVIDIA Dynamo (its worker builds `sgl.Engine`, then registers the model with its runtime):
    // components/src/dynamo/sglang/register.py _register_llm_with_runtime_config `Successfully registered LLM with
    // runtime config` and register_llm_with_readiness_gate `Model registration succeeded; processing queued
    // requests`, after reading the engine's scheduler_info (its KV pool size): the engine's start-up is over and the
    // worker takes requests
    id: 'dynamo_registered',
    kind: 'ready',
    phase: 'ready',
    lit: 'egist',
    re: /^(?:Successfully registered LLM with runtime config|Model registration succeeded; processing queued requests)$/,
  },
  {
    // A node of a multi-node launch with --node-rank >= 1 never prints `fired up`: once its schedulers are
    // ready it starts a dummy health-check server on --port and blocks, so this line is its startup's end
    // (srt/utils/common.py launch_dummy_health_check_server in v0.5.9 and newest; srt/utils.py in v0.4.10).
    id: 'worker_ready',
    kind: 'ready',
    phase: 'ready',
    lit: 'ummy health check server',
    re: /^(?:Dummy health check server (?:started in background thread|scheduled on existing loop) at|Starting dummy health check server at) \S+:\d+/,
  },
  // serving
  {
    id: 'decode_batch',
    kind: 'serving',
    phase: 'serving',
    lit: 'Decode batch',
    re: /^Decode batch(?: \[\d+\])?[.,] #running-req: (\d+), (?:.*?token usage: ([\d.]+), )?.*?gen throughput \(token\/s\): ([\d.]+)(?:, #queue-req: (\d+))?/,
  },
  {
    // managers/scheduler_metrics_mixin.py log_prefill_stats; a PD prefill server (disaggregation mode prefill)
    // prints `#unbootstrapped-req: N, #queue-req: N, #transferring-req: N` where others print `#running-req`
    id: 'prefill_batch',
    kind: 'serving',
    phase: 'warmup',
    lit: 'Prefill batch',
    re: /^Prefill batch(?:\(mixed #running-req: \d+\))?(?: \[\d+\])?[.,] #new-seq: \d+, #new-token: \d+, #cached-token: \d+, (?:.*?token usage: ([\d.]+), )?(?:#running-req: (\d+)|#unbootstrapped-req: \d+), #queue-req: (\d+)(?:.*?input throughput \(token\/s\): ([\d.]+))?/,
  },
  {
    id: 'old_fill_batch',
    kind: 'serving',
    phase: 'warmup',
    lit: 'fill batch',
    re: /^new fill batch\. #seq: \d+\. .*#running_req: (\d+)/,
  },
  {
    id: 'old_decode',
    kind: 'serving',
    phase: 'serving',
    lit: '#running-req',
    re: /^#running-req: (\d+), #token: \d+, token usage: ([\d.]+)(?:, gen throughput \(token\/s\): ([\d.]+))?, #queue-req: (\d+)/,
  },
  {
    id: 'access',
    kind: 'serving',
    phase: 'warmup',
    lit: 'HTTP/',
    re: /^INFO: +\S+ - "(?:GET|POST|PUT|DELETE|HEAD|OPTIONS|PATCH|PRI) \S+ HTTP\/[\d.]+" \d{3}/,
  },
  // degraded, not dead
  {
    // entrypoints/http_server.py health_generate answers /health_generate: the HTTP server is up, which SGLang
    // starts once the schedulers are ready and before its warm-up request (firedup's warmup phase, as uvicorn's lines)
    id: 'health_failed',
    kind: 'degraded',
    phase: 'warmup',
    lit: 'Health check failed',
    re: /^Health check failed\./,
  },
  {
    // Retraction: the scheduler's decode step found the KV pool too full for the running batch's next tokens and
    // sent requests back to the queue (scheduler.py Scheduler.update_running_batch: `KV cache pool is full.
    // Retract requests. #retracted_reqs: …`; in v0.3-v0.4 `Decode out of memory happened. #retracted_reqs: N,
    // #new_token_ratio: a -> b`; v0.1-v0.2 managers/router/model_rpc.py forward_decode_batch `decode out of memory
    // happened, #retracted_reqs: …`). Only a running decode batch is retracted: requests are being served (the
    // warm-up's single short request does not fill the pool). Degraded, not failed: the server carries on.
    id: 'retract',
    kind: 'degraded',
    phase: 'serving',
    lit: 'etract',
    re: /^KV cache pool is full\. Retract requests\.|^[Dd]ecode out of memory happened[.,] #retracted_reqs: \d+/,
  },
  {
    id: 'warmup_failed_pd',
    kind: 'degraded',
    // (the regex ignores case: a real line says `warm Up Failed`)
    lit: 'isaggregation mode',
    re: /disaggregation mode warm ?up failed/i,
  },
  {
    // PD disaggregation: disaggregation/prefill.py (process_disagg_prefill_inflight_queue) and decode.py (the
    // transfer queue) on KVPoll.Failed: logger.warning(`Prefill|Decode transfer failed for request rank=…
    // req.rid=… [with exception …]`), then prepare_abort answers that request with a 500 and the scheduler goes on:
    // one user request's KV transfer failed while serving, the server lives
    id: 'pd_transfer_failed',
    kind: 'degraded',
    phase: 'serving',
    lit: 'transfer failed for request',
    re: /^(?:Prefill|Decode) transfer failed for request rank=\d+ /,
  },
  {
    // managers/utils.py validate_input_length, called by Scheduler.handle_generate_request on each request it
    // receives (engine-source catalog phase serving): `Input length (N tokens) exceeds the maximum allowed length
    // (M tokens). Use a shorter input or enable --allow-auto-truncate.` (logger.error, the request is answered
    // with it) or, with truncation, `Request length is longer than the KV cache pool size or the max context
    // length. Truncated. …`: a user's request reached the scheduler, which goes on
    id: 'input_too_long',
    kind: 'phase',
    phase: 'serving',
    re: /^Input length \(\d+ tokens\) exceeds the maximum allowed length \(\d+ tokens\)|^Request length is longer than the KV cache pool size or the max context length\. Truncated\./,
  },
  { id: 'invalid_http', kind: 'noise', lit: 'Invalid HTTP request', re: /Invalid HTTP request received/ },
  {
    // entrypoints/openai/serving_base.py OpenAIServingBase.handle_request: `except Exception as e:
    // logger.exception(f"Error in request: {e}")` and returns a 500 to that request (the custom-labels header
    // parse logs the same message and goes on): the traceback under it is one request's, the server keeps serving.
    id: 'request_error',
    kind: 'degraded',
    catches: true,
    lit: 'Error in request: ',
    re: /^Error in request: /,
  },
  // failures
  {
    // model_executor/cuda_graph_runner.py CudaGraphRunner.__init__ (and the draft/target runners' twins) wraps
    // what capture() raised: `Exception: Capture cuda graph failed: {e}` and the fixes (CUDA_GRAPH_CAPTURE_FAILED_MSG)
    id: 'capture_failed',
    kind: 'failure',
    phase: 'cuda_graph',
    lit: 'graph failed',
    re: /^(?:\w+(?:\.\w+)*(?:Error|Exception)): Capture (?:\w+ )*graph failed: ?(.*)$/,
  },
  {
    // The KV pool's sizing raises (engine-source catalog, phase kv_cache, class oom): ModelRunner.init_memory_pool
    // (v0.4.10), ModelRunnerKVCacheMixin.init_memory_pool (v0.5.9) and pool_configurator.py MemoryPoolConfig
    // `Not enough memory. Please try to increase --mem-fraction-static…`; newest kv_cache_configurator.py
    // KVCacheConfigurator._profile_available_bytes `Loaded weights leave no GPU memory for the KV cache under …`,
    // _handle_max_mamba_cache / resolve_max_num_reqs for the hybrid state cache, SWAChunkCapPoolConfigurator
    // `SWA pool cap (…) leaves no room for the full KV pool`: the weights are in, the pool does not fit. The
    // prefix alone names it (a paste often cuts the long message).
    id: 'not_enough_memory',
    kind: 'failure',
    failure: 'oom',
    phase: 'kv_cache',
    re: /Not enough memory\. Please try to increase --mem-fraction-static|^(?:ValueError: )?Loaded weights leave no GPU memory for the KV cache|^(?:RuntimeError: )?(?:Not enough GPU memory for hybrid \(mamba\/linear-attention\) state cache|Hybrid \(mamba\/linear-attention\) state cache is too small to serve any requests|SWA pool cap \(.*\) leaves no room for the full KV pool)/,
  },
  {
    // The KV pool ran out of token or request slots for a batch being scheduled (engine-source catalog, phase
    // serving: mem_cache/allocation.py alloc_paged_token_slots_decode/_extend `Decode out of memory. Try to lower your
    // batch size.`, `Prefill out of memory. …`; managers/schedule_batch.py ScheduleBatch.alloc_req_slots
    // `alloc_req_slots runs out of memory. …`, in <=v0.5 also ScheduleBatch.alloc_token_slots): the scheduler was
    // forming batches, so the launch was serving them (the warm-up request's too, like the watchdog's)
    id: 'runtime_oom',
    kind: 'failure',
    failure: 'oom',
    phase: 'serving',
    lit: 'out of memory',
    re: /^(?:RuntimeError: )?(?:Prefill|alloc_req_slots runs|Decode) out of memory\. Try to lower/,
  },
  {
    id: 'scheduler_died',
    kind: 'failure',
    lit: 'scheduler',
    re: /Rank \d+ scheduler (?:died during initialization \(exit code: (-?\d+)\)|is dead\.)/,
  },
  {
    // entrypoints/engine.py _launch_subprocesses (v0.4.x–v0.5.x): after `Rank N scheduler is dead.` it joins the
    // process and logs `Exit code: {scheduler_procs[i].exitcode}`; multiprocessing's exitcode -N means killed by
    // signal N, so `-9` is SIGKILL (the host OOM killer, an operator), which the failure classes read as killed
    id: 'scheduler_exit_code',
    kind: 'failure',
    lit: 'Exit code: ',
    re: /^Exit code: (-?\d+)$/,
  },
  {
    // entrypoints/engine.py sigchld_handler (v0.4.4–v0.4.9): `Child process unexpectedly failed with an exit code
    // %d. pid=%d`, the raw os.waitpid status: 9 is a child killed by SIGKILL (no exit code, no core); any other
    // value is a child that failed and says why in its own lines
    id: 'sigchld_killed',
    kind: 'failure',
    failure: 'killed',
    lit: 'unexpectedly failed',
    re: /^Child process unexpectedly failed with an exit code 9\. pid=\d+/,
  },
  {
    id: 'sigchld_failed',
    kind: 'consequence',
    lit: 'unexpectedly failed',
    re: /^Child process unexpectedly failed with an exit code \d+\. pid=\d+/,
  },
  {
    id: 'subprocess_crashed',
    kind: 'failure',
    lit: 'crashed with exit code',
    re: /^Subprocess \S+ \(pid=\d+\) crashed with exit code (-?\d+)/,
  },
  {
    // The scheduler's watchdog only runs around the event loop's forward passes (managers/scheduler.py
    // Scheduler.watchdog_thread <=v0.5.5; utils/watchdog.py WatchdogRaw._watchdog_once, fed by the event loop):
    // it fires on a batch that did not finish, so the launch was serving batches (the warm-up request's too)
    id: 'watchdog',
    kind: 'failure',
    failure: 'timeout',
    phase: 'serving',
    lit: 'atchdog timeout',
    re: /^(?:\w+ )?[Ww]atchdog timeout \(self\.watchdog_timeout=/,
  },
  {
    // utils/watchdog.py WatchdogRaw._watchdog_once (v0.5.9, newest): when the watchdog fires it first logs
    // `{debug_name} debug info:` and the stuck batch (`scheduler.cur_batch.batch_size()=…`), then the
    // `… watchdog timeout` line: a paste cut after the dump still shows the watchdog firing
    id: 'watchdog_dump',
    kind: 'failure',
    failure: 'timeout',
    phase: 'serving',
    lit: ' debug info:',
    re: /^(?:Scheduler|DetokenizerManager|TokenizerManager|DataParallelController|\w+Scheduler) debug info:$/,
  },
  {
    // managers/scheduler.py Scheduler.watchdog_thread (v0.4.x, the engine-source catalog's v0.4.10 tree): once a
    // forward pass outlives --watchdog-timeout it logs (error) `{self.cur_batch.batch_size()=},
    // {self.cur_batch.reqs=}, {info_msg}`, then pyspy_dump_schedulers, then `Watchdog timeout (…)` and the
    // SIGQUIT to the parent: only a firing watchdog prints this dump, so a paste cut after it still shows the timeout
    id: 'watchdog_batch_dump',
    kind: 'failure',
    failure: 'timeout',
    phase: 'serving',
    lit: 'self.cur_batch.batch_size()=',
    re: /^self\.cur_batch\.batch_size\(\)=\d+, self\.cur_batch\.reqs=/,
  },
  {
    // utils pyspy_dump_schedulers (`Pyspy dump for PID %s:` then py-spy's output) runs only when the scheduler's
    // watchdog fires (utils/watchdog.py WatchdogRaw._watchdog_once; scheduler.py watchdog_thread in v0.4.x): a batch
    // made no progress for --watchdog-timeout. Its frames (pyspy.ts) say where; the watchdog's own timeout line, if
    // the paste holds it, says the crash (`watchdog`), and a soft watchdog (`self.soft=True`) lets the server go on:
    // the dump alone says the scheduler is stuck.
    id: 'pyspy_dump',
    kind: 'stall_hint',
    stuck: true,
    lit: 'Pyspy dump for PID',
    re: /^Pyspy dump for PID \d+:/,
  },
  // entrypoints/http_server.py _execute_server_warmup (catalog phase warmup): the warm-up request failed
  {
    id: 'warmup_error',
    kind: 'failure',
    phase: 'warmup',
    lit: 'warmup error',
    re: /^Initialization failed\. warmup error/,
  },
  {
    // multimodal_gen/runtime/entrypoints/http_server.py _run_server_warmup_after_http_ready (diffusion server):
    // `logger.error("Server warmup failed; aborting startup: %s", e, exc_info=True)`, then SIGTERM to itself, so
    // uvicorn's shutdown lines follow: the warm-up failed and took the launch down; what it caught (`e`, the
    // traceback under it) says why
    id: 'diffusion_warmup_failed',
    kind: 'failure',
    phase: 'warmup',
    lit: 'Server warmup failed',
    re: /^Server warmup failed; aborting startup: ?(.*)$/,
  },
  {
    // model_executor/piecewise_cuda_graph_runner.py enable_piecewise_cuda_graph (and the torch.compile backend's
    // twin): `logger.error("Piecewise CUDA Graph failed with error: %s\n%s", e, …CAPTURE_FAILED_MSG)` then raise.
    // It fires during the startup capture and on a recompilation while serving alike: it names cuda_graph, which
    // a launch already warming up or serving keeps (phases only advance), so before the server is up it is the
    // startup capture's failure (a replay in the event loop before any ready line stays the warm-up request's)
    id: 'piecewise_graph_failed',
    kind: 'failure',
    phase: 'cuda_graph',
    lit: 'Piecewise CUDA Graph failed',
    re: /^Piecewise CUDA Graph failed with error: ?(.*)$/,
  },
  {
    // The CUDA driver's own line when a GPU exception (illegal address, trap, MMU fault) hits a process running
    // with CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1, which SGLang sets from --crash-dump-folder (server_args.py
    // ServerArgs._handle_crash_dump_env, `Auto-set %s=%s`) or the user exports: only a kernel fault starts one
    id: 'gpu_coredump',
    kind: 'failure',
    failure: 'cuda_error',
    lit: 'GPU coredump',
    re: /^Starting GPU coredump generation\b/,
  },
  {
    id: 'http_bind',
    kind: 'failure',
    failure: 'port_in_use',
    lit: 'bind',
    re: /^ERROR: +\[Errno \d+\] error while attempting to bind on address/,
  },
  {
    id: 'port_in_use',
    kind: 'failure',
    failure: 'port_in_use',
    lit: 'already in use',
    re: /^Port is already in use\. dist_init_port=/,
  },
  {
    // ModelRunner.load_model waits on every rank with torch's monitored barrier once its weights are in
    // (engine-source catalog raise `TP rank … could finish the model loading, but there are other ranks that
    // didn't finish loading`): Gloo reporting that this rank reached it means this rank loaded its weights.
    id: 'load_barrier',
    kind: 'failure',
    phase: 'weights_loaded',
    lit: 'monitoredBarrier',
    re: /^(?:\[rank\d+\]:)?\[E\d{3,4}[^\]]*\] Rank \d+ successfully reached monitoredBarrier, but received errors/,
  },
  {
    // model_executor/model_runner.py ModelRunner.load_model (v0.4.x-v0.5.9) and load_model_utils.py
    // dist_barrier_after_load (newest) raise `ValueError: TP rank N could finish the model loading, but there are
    // other ranks that didn't finish loading. It is likely due to …`: this rank loaded its weights and waited for
    // the others at the barrier in vain (engine-source catalog class: timeout); the prefix alone names it, a
    // paste is often cut before the rest
    id: 'other_ranks_not_loaded',
    kind: 'failure',
    failure: 'timeout',
    phase: 'weights_loaded',
    lit: 'could finish the model loading',
    re: /^(?:ValueError: )?TP rank \d+ could finish the model loading/,
  },
  // consequences of a failure reported elsewhere
  {
    id: 'sigquit',
    kind: 'consequence',

    re: /^Received sigquit from a child process|^SIGQUIT received\./i,
  },
  {
    id: 'init_failed',
    kind: 'consequence',
    lit: 'Initialization failed',
    re: /^(?:RuntimeError: )?Initialization failed\. Please see the error messages above/,
  },
  {
    id: 'dumped',
    kind: 'consequence',
    lit: 'before crash',
    re: /^Dumped \d+ finished and \d+ unfinished requests before crash/,
  },
  {
    id: 'hit_exception',
    kind: 'consequence',
    lit: 'hit an exception',
    re: /^(?:Scheduler|DataParallelController|DetokenizerManager|TokenizerManager|MultiTokenizerRouter|GrpcRequestManager) hit an exception/,
  },
  {
    id: 'old_exception',
    kind: 'consequence',
    lit: 'Exception in',
    re: /^Exception in (?:run_tp_server|ModelTpServer|ControllerSingle|ControllerMulti)/,
  },
  // shutdown
  { id: 'sigterm', kind: 'shutdown', lit: 'SIGTERM', re: /^SIGTERM received\./ },
  { id: 'graceful', kind: 'shutdown', lit: 'Gracefully exiting', re: /^Gracefully exiting\.\.\./ },
  {
    id: 'uvicorn_stop',
    kind: 'shutdown',
    lit: 'INFO:',
    re: /^INFO: +(?:Shutting down|Waiting for application shutdown|Application shutdown complete|Finished server process)/,
  },
  {
    id: 'worker_end',
    kind: 'shutdown',
    lit: 'terminated with',
    re: /^Scheduler or DataParallelController \d+ terminated with (-?\d+)/,
  },
  ...argparseSignatures('launch_server\\.py|sglang(?: serve)?'),
];

export const sglang: EngineModule = {
  id: 'sglang',
  detect: sglangEvidence,
  signatures,
  sample(sig, m) {
    switch (sig.id) {
      case 'decode_batch':
      case 'old_decode':
        return {
          genTps: num(m[3]),
          promptTps: null,
          running: num(m[1]),
          queued: num(m[4]),
          kvUsage: num(m[2]),
        };
      case 'prefill_batch':
        return {
          genTps: null,
          promptTps: num(m[4]),
          running: num(m[2]),
          queued: num(m[3]),
          kvUsage: num(m[1]),
        };
      case 'old_fill_batch':
        return { genTps: null, promptTps: null, running: num(m[1]), queued: null, kvUsage: null };
      default:
        return null;
    }
  },
  hints: {
    oom: 'lower --mem-fraction-static (e.g. by 0.05), or --cuda-graph-max-bs / --max-running-requests; check nvidia-smi for other processes holding GPU memory',
    nccl: 'check that every rank and node can reach --dist-init-addr, NCCL_SOCKET_IFNAME / NCCL_IB_* settings, and run with NCCL_DEBUG=INFO',
    cuda_error:
      'rerun with CUDA_LAUNCH_BLOCKING=1 to locate the kernel; check the GPU architecture is supported by the installed sgl-kernel/flashinfer build',
    port_in_use: 'another process holds the port: `ss -ltnp | grep PORT`, stop it or pass a different --port',
    model_not_found: 'check --model-path exists on this host (or the repo id and HF_TOKEN)',
    config_error:
      'fix the flag named in the error; `python -m sglang.launch_server --help` lists valid values',
    timeout: 'a collective or forward pass hung: `py-spy dump --pid <scheduler pid>` on each rank',
    killed: 'a process was killed (often the host OOM killer): `dmesg -T | grep -i -E "oom|killed"`',
    unsupported:
      'the model or flag combination is not supported by this SGLang build or GPU; try another --attention-backend / --moe-runner-backend or a newer release',
    python_exception:
      'read the traceback above the evidence line; search the SGLang issues for the exception',
    'stalled:loading_weights':
      'shards stopped arriving: check the filesystem holding the checkpoint (`iostat -x 1`, network FS), and `py-spy dump --pid <scheduler pid>`',
    'stalled:dist_init':
      'ranks are waiting for each other: check every node started, --dist-init-addr is reachable, and NCCL_DEBUG=INFO output',
    'stalled:weights_loaded':
      'KV-cache allocation normally takes seconds: `py-spy dump --pid <scheduler pid>` on TP0 and check nvidia-smi memory',
    'stalled:kv_cache':
      'check `nvidia-smi` utilisation (autotune/JIT keeps GPUs busy) and `py-spy dump --pid <scheduler pid>`',
    'stalled:cuda_graph':
      'graph capture is hung: `py-spy dump --pid <scheduler pid>`; retry with --cuda-graph-max-bs lower or --disable-cuda-graph to confirm',
    'stalled:warmup':
      'the warm-up request did not finish: `curl -s localhost:PORT/health_generate`, and `py-spy dump` the scheduler',
  },
  silentBudget: {
    args: 120,
    dist_init: 600,
    loading_weights: 300,
    weights_loaded: 90,
    kv_cache: 900,
    autotune: 900,
    compile: 1800,
    cuda_graph: 900,
    warmup: 150,
  },
};
