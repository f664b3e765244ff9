/** Hugging Face text-generation-inference (`text-generation-launcher`): research/vllm-and-peers.md §3. */

import { parseTgiArgs } from '../config/engine-config.js';
import { clapSignatures } from './cli-errors.js';
import { tgiEvidence } from './evidence.js';
import type { EngineModule, Signature } from './types.js';

const signatures: Signature[] = [
  {
    id: 'args',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Args {',
    re: /(?:text_generation_launcher: )?Args \{/,
    config: parseTgiArgs,
  },
  {
    // launcher/src/main.rs prints its Args with `{:#?}` since 2.x: one field a line, which a cut paste may start
    // in the middle of (fields only this launcher has)
    id: 'args_field',
    kind: 'phase',
    phase: 'args',
    re: /^ {4}(?:shard_uds_path|waiting_served_ratio|max_batch_prefill_tokens|max_waiting_tokens|huggingface_hub_cache|weights_cache_override|disable_custom_kernels|cuda_memory_fraction|max_top_n_tokens|max_stop_sequences|max_best_of|validation_workers|disable_grammar_support|max_client_batch_size|tokenizer_config_path): /,
  },
  {
    id: 'config',
    kind: 'phase',
    phase: 'args',
    lit: 'e',
    // launcher/src/main.rs main: also `Parsing num_shard from CUDA_VISIBLE_DEVICES/…` (num_shard), `Default
    // \`max_input_tokens\` to {value}` (2.x), and launcher/src/gpu.rs `Cannot determine GPU compute capability: …`
    re: /Using attention \S+ - Prefix caching|Default `max_(?:batch_prefill|input)_tokens` to|Cannot determine GPU compute capability: |Using default cuda graphs|Sharding model on \d+ processes|Model supports up to \d+|Runtime environment:$|Parsing num_shard from CUDA_VISIBLE_DEVICES/,
  },
  {
    // launcher/src/env_runtime.rs Env's Display (`text-generation-launcher --env`, logged at start as `Runtime
    // environment:`): `Target: {triple}`, `Cargo version: {semver}`, `Commit sha: {sha}`, `Docker label: {label}`, then
    // `nvidia-smi:` and its table; the launcher prints it before its Args
    id: 'env_runtime',
    kind: 'phase',
    phase: 'args',
    re: /^(?:Target: \w+-\w+-\w+(?:-\w+)?|Cargo version: \d+\.\d+\.\d+|Commit sha: (?:[0-9a-f]{40}|N\/A)|Docker label: (?:sha-[0-9a-f]{7,}|N\/A))$/,
  },
  {
    id: 'download',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'ownload',
    // launcher download_convert_model (`Starting download process.` before 2.x); server utils/hub.py
    // download_weights: `Download file:`, `Downloaded {path} in {time}.`, `Download: [i/n] -- ETA:`
    // (cli.py before 0.9: `Files are already present in the local cache. Skipping download.`)
    re: /Starting check and download process|Starting download process\.|Files are already present (?:on the host|in the local cache)|(?:^|: )Skipping download\.$|Download file:|Downloaded \S+ in [\d:.]+|Download: \[\d+\/\d+\]|Successfully downloaded weights/,
  },
  {
    // The download step's other lines, which name no download: utils/convert.py convert_files, for .bin checkpoints
    // (`Convert {pt} to {sf}.`, `Convert: [i/n] -- Took: …`); the launcher of early 2023 with
    // --weights-cache-override (`weights_cache_override is set to …`, then `Skipping download.`)
    id: 'download_steps',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'Convert',
    re: /(?:^|: )(?:Convert: \[\d+\/\d+\] -- Took: |Convert \S+ to \S+)/,
  },
  {
    id: 'weights_cache_override',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'weights_cache_override is set to ',
    re: /weights_cache_override is set to /,
  },
  {
    id: 'shard_start',
    kind: 'phase',
    phase: 'loading_weights',
    // launcher shard_manager; the shard's models/globals.py prints the attention lines when it imports the
    // model code, i.e. while the shard loads
    // (models/__init__.py get_model: `Auto selecting quantization method …`, `Using speculation …`; models/model.py
    // Model.__init__: `Using prefill chunking = …`, `Using experimental prefill chunking = …` in 2.x)
    // (before 0.9 the rank was in the message: `Starting shard 0`, `Waiting for shard 0 to be ready...`)
    // (GPTQ weights: utils/weights.py, later layers/gptq/__init__.py, log `Using exllama kernels[ v2]` as the layers
    // are built from the checkpoint; transformers' configuration_utils warns `You are using a model of type x to
    // instantiate a model of type y` when get_model reads the checkpoint's config in the shard)
    // (and what the shard says as it imports its model code: models/__init__.py `Could not import Flash Attention
    // enabled models: …`, `Could not import Mamba: …`; utils/flash_attn.py `Unable to use Flash Attention V2: …`;
    // custom_modeling `We're not using custom kernels.`; utils/layers.py `Disabling exllama v2 and using v1 instead
    // because there are issues when sharding`; models/metadata_kernels.py `Using optimized Triton indexing kernels.`)
    re: /^You are using a model of type \w* to instantiate a model of type |Could not import (?:Flash Attention enabled models|Mamba|Flash Transformers Backend): |Unable to use Flash Attention V2: |We're not using custom kernels\.|Disabling exllama v2 and using v1 instead|Using optimized Triton indexing kernels\.|Starting shard(?: rank=| )\d+|"message":"Starting shard"|Waiting for shard (?:\d+ )?to be ready|Using prefix caching = \w+|Using Attention = \w+|Auto selecting quantization method|Using speculation \S+ with \d+ input ids|Using exllama kernels(?: v\d)?$|Using (?:experimental )?prefill chunking =/,
  },
  {
    // server/text_generation_server/server.py serve_inner builds the model, then starts the gRPC server and
    // logs `Server started at …`; the launcher's shard_manager sees the socket and logs `Shard ready in …`
    id: 'shard_ready',
    kind: 'phase',
    phase: 'weights_loaded',
    re: /Server started at unix:\/\/|Shard (?:\d+ )?ready in/,
  },
  {
    // launcher/src/main.rs main: spawn_shards returns once every shard said it is ready (`Shard ready in`), and
    // only then does spawn_webserver log `Starting Webserver` and start the router, whose connect_backend warms
    // the shards up (`Warming up model`): the weights are in, warm-up has not started
    id: 'webserver_start',
    kind: 'phase',
    phase: 'weights_loaded',
    lit: 'Starting Webserver',
    re: /Starting Webserver/,
  },
  {
    // The router's start: it asks the hub about the model (router/src/main.rs get_model_info before 2.x, `Serving
    // revision {sha} of model {id}`, `Could not retrieve model info from the Hugging Face hub.`, `no pipeline tag
    // found for model …`, `Could not find a fast tokenizer implementation for …`; router/src/server.rs run since,
    // `Using the Hugging Face API`, `Offline mode active using cache defaults`). Before 2.x it did so before it
    // connected to the shards and warmed them up; since, backends/v3/src/main.rs warms up first and then calls
    // server::run, where a phase that only moves forward changes nothing: the shards are ready either way.
    id: 'router_hub',
    kind: 'phase',
    phase: 'weights_loaded',
    lit: 'e',
    // (the message follows the event's target and, in 0.9–1.x, its file:line: `text_generation_router:
    // router/src/main.rs:346: Serving revision …`)
    // The same function reads the model's config and tokenizer files: `Using config Some(…)`, `Using local tokenizer
    // config`, `Using chat template from chat_template.json`, `Tokenizer_config …`, `Odd tokenizer detected, …`,
    // `Failed to import python tokenizer …`. (Its address, `Invalid hostname, defaulting to 0.0.0.0`, is read after
    // the warm-up in every era: the catalog's warmup.)
    // Before the hub call (0.9+): `` `--revision` is not set``, `We strongly advise to set it to a known supported
    // commit.` (LoRAX's router, a fork, says the same)
    re: /(?:^|: )(?:Serving revision \S+ of model |Could not retrieve model info from the Hugging Face hub|no pipeline tag found for model |Could not find a fast tokenizer implementation for |Using the Hugging Face API$|Offline mode active using cache defaults$|Using config Some\(|Using local tokenizer config$|Using chat template from chat_template\.json$|Tokenizer_config (?:None|Some)|Odd tokenizer detected, falling back on legacy tokenization$|Failed to import python tokenizer |`--revision` is not set$|We strongly advise to set it to a known supported commit\.$)/,
  },
  {
    id: 'webserver',
    kind: 'phase',
    phase: 'warmup',
    lit: 'e',
    // router (backends/v3/src/{lib,main}.rs, router/src/main.rs before 2.x): the limits it settles on while
    // the shards warm up
    // (backends/v3/src/backend.rs Backend::new, which connect_backend makes after the warm-up: `Model supports
    // prefill chunking. …`)
    re: /Warming up model|Model supports prefill chunking\. |Cuda Graphs are disabled|Setting max batch total tokens to|Using backend V3|Inferred max batch total tokens|Model does not support automatic max batch total tokens|Maximum (?:input|total) tokens defaulted to|Warming up TunableOp for seqlen=|PyTorch (?:ROCm )?TunableOp /,
  },
  {
    // models/flash_causal_lm.py FlashCausalLM.warmup, inside the router's Warmup RPC: the paged KV cache is sized
    // and allocated (`KV-cache blocks: N, size: B`), then the decode CUDA graphs are captured (`Cuda Graphs are
    // enabled for sizes [...]`, also mamba.py)
    id: 'warmup_kv',
    kind: 'phase',
    phase: 'kv_cache',
    lit: 'KV-cache blocks',
    re: /KV-cache blocks: \d+/,
  },
  {
    id: 'warmup_cuda_graphs',
    kind: 'phase',
    phase: 'cuda_graph',
    lit: 'Cuda Graphs are enabled',
    re: /Cuda Graphs are enabled for sizes/,
  },
  {
    // The router's gRPC client turns each failed call into a ClientError and logs it as it does (backends/v3/src/
    // client/mod.rs, router/client/src/lib.rs before: `impl From<Status> for ClientError` → `Server error: {msg}`),
    // under the span of the call: in the Warmup call's span it is the shard's failure relayed (its message, or
    // `CANCELLED` for the other shards' calls once one died), which ends the router's start (`Error:
    // Backend(Warmup(…))`). Where the shard's own traceback placed the step that failed (a CUDA-graph capture), that
    // step stands; otherwise the launch was warming up.
    id: 'warmup_client_error',
    kind: 'failure',
    phaseIfUnplaced: 'warmup',
    lit: 'warmup{',
    re: /^warmup\{[^}]*\}:warmup: .*Server error: (.*)$/,
  },
  {
    // The router's `warmup` function is traced as a span (backends/*/src/client: `#[instrument] warmup`):
    // its lines, errors included, are printed inside `warmup{max_input_length=…}:warmup:`.
    id: 'warmup_span',
    kind: 'phase',
    phase: 'warmup',
    lit: 'warmup{',
    re: /^warmup\{[^}]*\}:warmup/,
  },
  {
    // router/src/server.rs run: `Connected`; with --json-output the line is the event as JSON (the router
    // flattens its fields: `"message":"Connected"`)
    id: 'ready',
    kind: 'ready',
    phase: 'ready',
    lit: 'Connected',
    re: /(?:^|: )Connected$|"message":"Connected"/,
  },
  {
    // request_failed below where the router's gRPC call never reached the shard: the client's tonic channel to the
    // shard's unix socket (server.py serve_inner, `unix:///tmp/text-generation-server-N`) reports a transport
    // failure as the Status message (`error trying to connect: No such file or directory (os error 2)`: the socket
    // file is gone; `Connection refused`: nobody listens; `transport error`: the connection dropped mid-call). The
    // shard process is dead, and the launcher stops every shard once it sees one gone (`Shard N crashed`): the
    // server died while it served.
    id: 'request_failed_shard_gone',
    kind: 'failure',
    failure: 'other',
    phase: 'serving',
    lit: 'Server error: ',
    // The batching task's own report of the same call (router/client/src/lib.rs, backends/v3/src/client: the
    // ClientError logged under the `batch{…}:prefill|decode` spans) says it first.
    re: /(?:Request failed during generation: |^batch\{[^}]*\}:.*: )Server error: (?:error trying to connect|transport error|Connection refused|Broken pipe)/,
  },
  {
    // The batching task's report of a failed Prefill/Decode call (router/client/src/lib.rs before 3.x,
    // backends/v3/src/client/mod.rs since: `impl From<Status> for ClientError` -> `Server error: {msg}`, logged under
    // the `batch{batch_size=…}:prefill|decode` spans): the shard failed that batch (a CUDA OOM of a long prompt, …) and
    // the router sends the error to the batch's requests only (infer send_errors) and goes on batching. Before 2.4
    // the shard lives on (server/…/interceptor.py only logs and aborts the call); since, a RuntimeError makes it
    // shut down, and the launcher says so (`Shard N crashed`, `Error: ShardFailed`): this line alone is a failed
    // request of a serving server.
    id: 'request_batch_error',
    kind: 'degraded',
    phase: 'serving',
    lit: 'Server error: ',
    re: /^batch\{[^}]*\}:(?:prefill|decode)\b.*: Server error: /,
  },
  {
    // router/src/infer/mod.rs InferError::GenerationError: a shard failed the batch. Whether the server lives
    // on depends on the error: since 2.4 (server/…/interceptor.py) a RuntimeError, CUDA OOM included, stops
    // the shard and the launcher then says `Shard N crashed`; so this line alone neither kills nor recovers.
    // It is sent only to the entries of a running batch (router/src/infer.rs send_errors, backends/v3 backend.rs
    // under the `batch{batch_size=…}:prefill|decode` spans; warmup fails as `Unable to warmup model`), so a user
    // request was being generated: serving.
    id: 'request_failed',
    kind: 'degraded',
    phase: 'serving',
    lit: 'Request failed during generation',
    re: /Request failed during generation: /,
  },
  {
    // router/src/server.rs generate / generate_stream: `tracing::info!("Success")` once a request's response is
    // complete, its span's fields (total_time, inference_time…) on the line: the router and every shard served it
    // (a shard that died stops the launcher: `Shard N crashed`), so an earlier failed batch did not kill the server.
    // Before request_debug, which takes any line of a request's span.
    id: 'request',
    kind: 'serving',
    phase: 'serving',
    completes: true,
    lit: 'Success',
    re: /(?:generate|generate_stream|chat_completions|completions)\{.*\}.*: Success$/,
  },
  {
    // router/src/server.rs handlers are traced spans (`#[instrument] async fn generate…`): every line inside
    // one, a refused request's validation error (`Input validation error: …`, `\`inputs\` tokens + …`)
    // included, is a request the HTTP server took.
    // (a paste that drops the event's time keeps its level word before the spans: `INFO generate{parameters=…`)
    id: 'request_debug',
    kind: 'serving',
    phase: 'serving',
    re: /^(?:(?:TRACE|DEBUG|INFO|WARN|ERROR) +)?(?:generate|generate_stream|chat_completions|completions|vertex_compatibility|compat_generate)(?:\{|:(?:generate|async_stream|chat|completions))/,
  },
  {
    // server/text_generation_server/models/flash_causal_lm.py (and mamba.py) warmup: `except
    // torch.cuda.OutOfMemoryError: logger.exception("Decode cuda graph warmup failed")` — the OOM is caught and
    // warmup returns without the remaining CUDA graphs. loguru prints the traceback under the message and the
    // launcher relays the whole text as one event, so the unframed lines under it are the caught exception's.
    // The `try` holds the capture loop that `Cuda Graphs are enabled for sizes` opens: the launch was capturing.
    id: 'cuda_graph_warmup_failed',
    kind: 'degraded',
    phase: 'cuda_graph',
    catches: true,
    lit: 'cuda graph warmup failed',
    re: /Decode cuda graph warmup failed/,
  },
  {
    // models/flash_causal_lm.py warmup: `Not enough memory to handle {n} prefill tokens. You need to decrease
    // --max-batch-prefill-tokens` (the router's warmup call fails with it)
    id: 'warmup_oom',
    kind: 'failure',
    failure: 'oom',
    phase: 'warmup',
    lit: 'Not enough memory',
    re: /Not enough memory to handle/,
  },
  {
    // server/text_generation_server/utils/dist.py initialize_torch_distributed: `assert WORLD_SIZE <=
    // torch.cuda.device_count(), "Each process is one gpu"`: more shards (--num-shard) than visible GPUs
    id: 'shards_over_gpus',
    kind: 'failure',
    failure: 'config_error',
    lit: 'Each process is one gpu',
    re: /AssertionError: Each process is one gpu/,
  },
  { id: 'bind', kind: 'failure', failure: 'port_in_use', lit: 'Failed to bind', re: /Failed to bind to \S+/ },
  {
    // launcher shard_manager / download_convert_model: `… was signaled to shutdown with signal {signal}`;
    // signal 9 is the kernel's OOM killer or an operator, read as killed by the failure classes
    id: 'signaled',
    kind: 'failure',
    lit: 'was signaled to shutdown with signal',
    re: /(?:Shard|Download) process was signaled to shutdown with signal (\d+.*)$/,
  },
  {
    // The launcher's and the router's `main` return their error: Rust prints its Debug form at exit
    // (launcher LauncherError::ArgumentValidation / NotEnoughCUDADevices; backends/v3/src/main.rs
    // RouterError::ArgumentValidation).
    id: 'main_arg_error',
    kind: 'failure',
    failure: 'config_error',
    lit: 'Error: ',
    re: /^Error: (?:ArgumentValidation|NotEnoughCUDADevices)\((.*)\)$/,
  },
  {
    // backends/v3/src/main.rs RouterError::Backend(V3Error::{Connection,Warmup,…}(ClientError)): the cause is
    // the shard's message inside (`Generation("CUDA out of memory…")`)
    id: 'main_backend_error',
    kind: 'failure',
    lit: 'Error: ',
    // (before the backends split, router/src/main.rs RouterError had the variants at the top: `Warmup(…)`)
    re: /^Error: (?:Backend|WebServer|Tokenizer|Axum|Warmup|Connection|Cache|Info|Tokio)\((.*)\)$/,
  },
  {
    // server/text_generation_server/interceptor.py: `Method {name} encountered an error.` over the traceback of
    // the gRPC call that raised: Warmup is the router's warm-up, Prefill and Decode only run for requests
    id: 'method_warmup_error',
    kind: 'failure',
    phase: 'warmup',
    lit: 'Method Warmup encountered an error',
    re: /Method Warmup encountered an error/,
  },
  {
    id: 'method_request_error',
    kind: 'failure',
    phase: 'serving',
    lit: 'encountered an error',
    re: /Method (?:Prefill|Decode) encountered an error/,
  },
  {
    // router/src/main.rs before the backends split (0.9–2.0): `infer.warmup(…).await.expect("Unable to warmup
    // model")` panics in `main` with the shard's error inside
    id: 'warmup_panic',
    kind: 'failure',
    phase: 'warmup',
    lit: 'Unable to warmup model',
    re: /panicked at '?Unable to warmup model: (.*)/,
  },
  {
    // A panic on a tokio worker thread of the router: the router's main future (argument checks, connection to
    // the shards, warm-up) runs on `main`; worker threads run what it spawns once it serves (the HTTP handlers,
    // the batching task)
    id: 'worker_panic',
    kind: 'failure',
    phase: 'serving',
    lit: "thread 'tokio-runtime-worker' panicked",
    re: /^thread 'tokio-runtime-worker' panicked at (.*)/,
  },
  {
    // launcher/src/main.rs: spawn_shards returns once every shard said it is ready, and only then is the webserver
    // spawned; its crash (`Webserver Crashed`, then shutdown_shards and `Error: WebserverFailed` as main's result)
    // comes after the shards' weights were in. The shutdown lines before `Error: WebserverFailed` are that cleanup.
    id: 'webserver_failed',
    kind: 'failure',
    phase: 'weights_loaded',
    afterShutdown: true,
    re: /^Error: WebserverFailed$|Webserver Crashed$/,
  },
  {
    // launcher/src/main.rs spawn_shards: a shard process that exited before it said ready (`Shard {rank} failed to
    // start`, then main's `Error: ShardCannotStart`): it was loading the model (shard_start above), unless the
    // shard's own lines before it said where it stopped (its torch.distributed setup, below)
    id: 'shard_cannot_start',
    kind: 'failure',
    phaseIfUnplaced: 'loading_weights',
    // (before 0.9: `Shard {rank} failed to start:` with the shard's error on the lines under it)
    re: /Shard \d+ failed to start:?$|^Error: ShardCannotStart$/,
  },
  {
    // server/text_generation_server/utils/dist.py initialize_torch_distributed: init_process_group makes the c10d
    // TCPStore at MASTER_ADDR:MASTER_PORT (the launcher's --master-port, 29500), whose socket errors (c10d
    // socket.cpp: `The server socket has failed to listen on any local network address.`, `The client socket has
    // failed to connect to …` / `has timed out after …`) mean the shards never met: distributed init, before any
    // weight is read
    id: 'dist_store_socket',
    kind: 'failure',
    phase: 'dist_init',
    lit: ' socket has ',
    re: /The server socket has failed to (?:listen on|bind to)|The client socket has (?:failed to connect to|timed out after)/,
  },
  {
    // server/text_generation_server/server.py serve_inner logs this, then re-raises: the traceback follows. Only
    // get_model (get_model_with_lora_adapters since 2.x) is inside that try, which builds the model class and reads
    // its weights (the shard's process group is made in the model's constructor too): the model load, so the
    // launch got that far even when the traceback under it is cut before the engine's frames
    id: 'init_error',
    kind: 'consequence',
    phase: 'loading_weights',
    lit: 'Error when initializing model',
    re: /Error when initializing model$/,
  },
  {
    // launcher/src/main.rs main: `Err(LauncherError::ShardFailed)` is set only in the loop that runs once every
    // shard said ready and spawn_webserver returned (`Shard {rank} crashed`, then terminate("webserver") and
    // shutdown_shards, whose `shard terminated` lines come before main's `Error: ShardFailed`): a crash after the
    // shards' load, not a requested stop. The router may still be warming up then (since 2.4 the shard's
    // interceptor.py exits on a RuntimeError in Warmup too), so the load is all it shows.
    id: 'shard_failed_exit',
    kind: 'failure',
    phaseIfUnplaced: 'weights_loaded',
    afterShutdown: true,
    re: /^Error: ShardFailed$/,
  },
  {
    id: 'shard_failed',
    kind: 'consequence',

    // launcher/src/main.rs: spawn_shards, download_convert_model, spawn_webserver and the main loop; the
    // `not found in PATH` lines are printed when the child binary is missing
    // (before 0.9: `Shard {rank} failed:\n{err}`, `Download process exited with an unknown status.`)
    re: /Shard \d+ (?:failed:|crashed)|Download process exited with an unknown status|Shard complete standard error output|Shard status channel disconnected|Download encountered an error|Failed to start webserver|text-generation-(?:server|router) not found in PATH|^Error: (?:ShardDisconnected|WebserverCannotStart|DownloadError)/,
  },
  {
    id: 'arg_error',
    kind: 'failure',
    failure: 'config_error',
    lit: 'error:',
    re: /^error: (?:invalid value '[^']*' for '--|unexpected argument|the following required arguments|a value is required for)/,
  },
  {
    id: 'shutdown',
    kind: 'shutdown',

    // router/src/server.rs shutdown_signal; launcher shutdown_shards and terminate(process_name): `Terminating
    // {name}`, `Waiting for {name} to gracefully shutdown`, `{name} terminated`, `Killing {name}`, `{name} killed`
    re: /signal received, starting graceful shutdown|Terminating (?:webserver|shard)|Waiting for (?:webserver|shard) to gracefully shutdown|(?:webserver|shard(?: \d+)?) (?:terminated|killed)|Killing (?:webserver|shard)|Shutting down shards/i,
  },
  ...clapSignatures('text-generation-(?:launcher|router)'),
];

export const tgi: EngineModule = {
  id: 'tgi',
  detect: tgiEvidence,
  signatures,
  hints: {
    oom: 'lower --max-batch-prefill-tokens / --max-total-tokens, or quantize, or use more shards',
    config_error: 'fix the launcher argument named in the error (`text-generation-launcher --help`)',
    nccl: 'check NCCL between shards (NCCL_DEBUG=INFO, shared memory size of the container: --shm-size)',
  },
  silentBudget: { args: 120, loading_weights: 600, warmup: 600 },
};
