/**
 * The generic reader: what any server's log says when no engine module reads it (Ollama, LMDeploy, LocalAI,
 * Xinference, NVIDIA NIM, Dynamo, Ray Serve, llama-swap, ramalama, KoboldCpp, FastChat, MLX servers, …).
 *
 * Mostly data, like an engine module: `genericSignatures` are tried only while no engine has shown itself, or
 * when the log is another program's that runs an engine inside it (EngineDetector.foreign); `PROGRAMS` names that
 * program for the report. A rule's shape is its program's own log call (named next to it) or a runtime's (uvicorn,
 * Go's net/http and gin, glibc, libc++abi, Open MPI, Slurm). Every rule has a literal that the analyzer checks first
 * (`lit`), so a line none of them can match costs a few bit tests.
 */
import type { Signature } from './types.js';

/** Request paths that run the model (an answered one is a request served): OpenAI's, Ollama's, llama.cpp's, TGI's, FastChat's. */
const INFER =
  // (llama-swap routes a model's own endpoints under `/upstream/<model>/`)
  '(?:/upstream/[^/\\s"]+)?/(?:v1/(?:chat/completions|completions|embeddings|responses|messages)|chat/completions|completions?|api/(?:generate|chat|embed(?:dings)?)|generate(?:_stream)?|infill|embeddings?|worker_generate(?:_stream)?)';

export const genericSignatures: Signature[] = [
  // ---- start of a program's server (a launch) ----
  {
    // A shell prompt that starts a server of another program.
    id: 'generic_shell_launch',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'serve',
    // (conda's prompt prefix `(env) `, stacked when an env is activated over another: `(lmdeploy) (base) root@…#`)
    re: /^(?:\([\w.-]+\) )*(?:[\w.-]+@[\w.-]+:\S*)?(?:PS \S+)?[$#>❯] +(?:\w+=\S+ +)*(?:python3? +-m +(?:lmdeploy\.serve\S*|fastchat\.serve\.\S+|mlx_lm\.server|llama_cpp\.server)|lmdeploy +serve|ollama +serve|ramalama +(?:\S+ +)*serve|dynamo +serve|mlx_lm\.server)/,
  },
  {
    // Ollama server/routes.go Serve: `slog.Info("server config", "env", envconfig.Values())` (before 0.1.3x:
    // `log.Printf("server config …")` after `routes.go:N: INFO`): the first line of `ollama serve`.
    id: 'ollama_server_config',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'server config',
    re: /(?:^|\bmsg=|: INFO )"?server config"? env=/,
  },
  {
    // systemd's unit start (src/core/job.c job_emit_done_message: `Started %s.`) for a model server's service
    id: 'systemd_started_server',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Started ',
    re: /^Started (?:Ollama|LocalAI|llama[\w.-]*|vLLM|Xinference)[\w .-]*\.$/i,
  },
  {
    // LocalAI core/application/startup.go: `xlog.Info("Starting LocalAI", …)`; before 2.x `Starting LocalAI using %d threads, with models path: %s`
    id: 'localai_start',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Starting LocalAI',
    re: /Starting LocalAI\b/,
  },
  {
    // xinference core/supervisor.py __post_create__: `logger.info(f"Xinference supervisor {self.address} started")`
    id: 'xinference_start',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Xinference supervisor',
    re: /Xinference supervisor \S+ started/,
  },
  {
    // KoboldCpp koboldcpp.py main: `print(f"Welcome to KoboldCpp - Version {KcppVersion}")`
    id: 'koboldcpp_start',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Welcome to KoboldCpp',
    re: /^Welcome to KoboldCpp - Version (\S+)/,
    version: (m) => m[1] ?? null,
  },
  {
    // NVIDIA NIM for LLMs' container banner (nvidia_entrypoint): `NVIDIA Inference Microservice LLM NIM Version X`
    id: 'nim_banner',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Inference Microservice',
    re: /^NVIDIA Inference Microservice LLM NIM Version (\S+)/,
    version: (m) => m[1] ?? null,
  },
  {
    // TorchServe's frontend (frontend/server/src/main/java/org/pytorch/serve/util/ConfigManager.java
    // dumpConfigurations, which ModelServer.start logs first: `\nTorchserve version: %s\nTS Home: …`)
    id: 'torchserve_version',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Torchserve version: ',
    re: /^Torchserve version: (\S+)/,
    version: (m) => m[1] ?? null,
  },
  {
    // Dynamo's `dynamo serve` (deploy/sdk cli/serve.py): `Running dynamo serve with service configs …`
    id: 'dynamo_serve',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Running dynamo serve',
    re: /Running dynamo serve with/,
  },
  {
    // A server's own start command pasted bare as the log's first line (no shell prompt): Aphrodite's CLI
    // (aphrodite/endpoints/cli.py: `aphrodite run <model>`, `aphrodite serve` later), LMDeploy's (`lmdeploy serve
    // api_server <model>`), `ollama serve`, `dynamo serve <graph>`
    id: 'bare_server_command',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: ' ',
    re: /^(?:\w+=\S+ +)*(?:aphrodite (?:run|serve) +\S|lmdeploy serve (?:api_server|proxy) +\S|ollama serve\b|dynamo serve +\S)/,
  },
  {
    // Aphrodite Engine aphrodite/engine/aphrodite_engine.py AphroditeEngine.__init__: `Initializing the Aphrodite
    // Engine (v%s) with the following config:` (before 0.5 without the version)
    id: 'aphrodite_engine_init',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Initializing the Aphrodite Engine',
    re: /Initializing the Aphrodite Engine(?: \(v([^)\s]+)\))?/,
    version: (m) => m[1] ?? null,
  },
  {
    // FastChat serve/controller.py and model_worker.py: `logger.info(f"args: {args}")` under its `| name |` logger
    id: 'fastchat_args',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: '| args: Namespace',
    re: /\| (?:controller|model_worker|\w+_worker|openai_api_server) \| args: Namespace\(/,
  },
  {
    // GPUStack's worker starting a model instance (gpustack/worker/backends/*.py `_start`: `logger.info(f"Starting
    // {SGLang|vLLM|VoxBox|Custom|…} model instance: {self._model_instance.name}")`), under its Python logger name
    // `gpustack.worker.backends.<backend> - INFO - `: the instance's server is launched from here
    id: 'gpustack_instance_start',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'model instance: ',
    re: /\bgpustack\.worker\.backends\.\w+ - INFO - Starting [\w .-]+ model instance: \S+/,
  },
  {
    // TabbyAPI's launcher (start.py / start.sh, before main.py): `Starting TabbyAPI...`
    id: 'tabbyapi_start',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'Starting TabbyAPI',
    re: /^Starting TabbyAPI\.\.\./,
  },
  {
    // MLC LLM's server command (python/mlc_llm/__main__.py, `mlc_llm serve MODEL`) at a shell prompt, zsh's `%` too
    id: 'mlc_serve_command',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'mlc_llm serve',
    re: /^"?(?:\([\w.-]+\) )*(?:\S+@\S+ +\S+ +)?[$#%>❯] +(?:\w+=\S+ +)*(?:python3? +-m +)?mlc_llm +serve\b/,
  },
  {
    // mlx-serve's startup banner: `mlx-serve <version> (MLX <version>)`
    id: 'mlx_serve_banner',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'mlx-serve ',
    re: /^mlx-serve (\S+) \(MLX /,
    version: (m) => m[1] ?? null,
  },
  // ---- startup phases ----
  {
    // Ollama llm/server.go NewLlamaServer: `slog.Info("starting llama server", "cmd", …)` (before 0.1.3x,
    // llm/llama.go `starting llama runner`; 0.12+ `starting runner`): a runner process of its own is started for a model. The runner is
    // part of the Ollama server's launch (it serves through it), whose phase follows the runner from here.
    id: 'ollama_runner_start',
    kind: 'phase',
    phase: 'args',
    weak: true,
    restarts: true,
    lit: 'starting ',
    re: /(?:msg=|\d: )"?starting (?:llama )?(?:server|runner)"?/,
  },
  {
    // llama-swap proxy/process.go checkHealthEndpoint: `<%s> Health check error on %s, %v (normal during
    // startup)`: the upstream answers 503 while its model loads; refused, it is not listening yet
    id: 'upstream_health_loading',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'normal during startup',
    re: /Health check error on \S+, status code: 503 \(normal during startup\)/,
  },
  {
    // LocalAI pkg/model/initializers.go: `GRPC: Loading model with options: …` sent to the backend process
    id: 'localai_grpc_loading',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'GRPC',
    re: /GRPC: Loading model with options/,
  },
  {
    // Ollama llm/server.go WaitUntilRunning: `slog.Info("waiting for server to become available", "status", status)`
    id: 'ollama_runner_loading',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'llm server loading model',
    re: /status="?llm server loading model/,
  },
  {
    // Ollama llm/server.go ollamaServer.Load (0.12+): `slog.Info("loading model", "model layers", …)` as it lays the
    // model out on the devices and asks its runner to load it
    id: 'ollama_load_model',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'msg="loading model"',
    re: /msg="loading model" /,
  },
  {
    // Ollama's `slog.Info("system memory", …)`, the first line of a model's load: llm/server.go NewLlamaServer
    // (0.3–0.11), llamaServer.Load / ollamaServer.Load (0.12+), server/sched.go (2026). A runner for a model
    // starts here (see ollama_runner_start)
    id: 'ollama_load_start',
    kind: 'phase',
    phase: 'args',
    weak: true,
    restarts: true,
    lit: 'msg="system memory"',
    re: /msg="system memory" /,
  },
  {
    // A Go goroutine dump (a runner's panic) through Ollama's runner loading its model: runner/ollamarunner
    // runner.go (*Server).load → initModel → reserveWorstCaseGraph, runner/llamarunner runner.go
    // (*Server).loadModel: the runner died loading the model
    id: 'ollama_runner_load_frame',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'runner.(*Server).',
    re: /ollama\/runner\/(?:ollama|llama)runner\.\(\*Server\)\.(?:load|loadModel|initModel|reserveWorstCaseGraph)\(/,
  },
  {
    // Ollama ml/backend/ggml/ggml.go New: `slog.Info("model weights", "buffer", …, "size", …)` once the weights'
    // buffers are allocated on each device, before the tensors are read into them; from late 2025 the memory summary
    // ml/device.go BackendMemory.Log (`slog.Log(…, "model weights", "device", gpu.Name, "size", …)`, then `kv cache`,
    // `compute graph`), which llm/server.go ollamaServer.Load logs for each layout it tries while the model loads
    id: 'ollama_model_weights',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'msg="model weights"',
    re: /msg="model weights" (?:buffer|device)=/,
  },
  {
    // llama-box's load-progress callback (see PROGRAMS): `loaded  36% model tensors into buffer`
    id: 'llama_box_load_progress',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'model tensors into buffer',
    re: /^loaded +\d+% model tensors into buffer$/,
  },
  {
    // LMDeploy lmdeploy/serve/async_engine.py AsyncEngine.__init__: `input backend={backend},
    // backend_config={backend_config}` as the engine is built from the server's arguments
    id: 'lmdeploy_input_backend',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'input backend=',
    re: /(?:^|- )input backend=(?:turbomind|pytorch), backend_config=/,
  },
  {
    // MLC LLM python/mlc_llm/support/auto_device.py (`Using device: metal:0` after probing each runtime) and
    // serve/engine_base.py (`The selected engine mode is local. …`): the device and engine settings, before the
    // model's weights are loaded
    id: 'mlc_engine_setup',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'Using device: ',
    re: /^Using device: \w+:\d+$/,
  },
  {
    // Any server's `Model successfully loaded.` (TabbyAPI's model loader after its layers are in; the phrase is
    // common to many servers, and means the same in each): the weights are in
    id: 'generic_model_loaded',
    kind: 'phase',
    phase: 'weights_loaded',
    weak: true,
    lit: 'odel successfully loaded',
    // (under a uvicorn-style `INFO:     ` level, which TabbyAPI's logger prints like uvicorn's, kept in the message)
    re: /^(?:[A-Z]+: +)?(?:The )?[Mm]odel successfully loaded\.?$/,
  },
  {
    // LocalAI pkg/model/initializers.go: `Loading model '%s' with backend %s` (each backend tried in turn)
    id: 'localai_loading',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: ' model',
    re: /(?:Loading model '[^']+' with backend \S+|Trying to load the model '[^']+' with (?:all )?the available backends)/,
  },
  {
    // LocalAI pkg/model/loader.go ModelLoader.LoadModel: `Loading model in memory from file: %s` only once it found
    // the model not loaded (CheckIsLoaded): LocalAI loads a model on the first request that names it, so after
    // requests this is a model's backend started and loading for a request, as Ollama's runner is (see
    // ollama_runner_start). A streamed request's `Success … status=200` before it was logged when its handler
    // returned, before the stream ran (core/http/endpoints/openai/chat.go, api/openai/chat.go before: the streamed
    // handler hands fasthttp a SetBodyStreamWriter and returns): not one answered
    id: 'localai_model_load',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    restarts: true,
    lit: 'Loading model in memory from file',
    re: /Loading model in memory from file/,
  },
  {
    // FastChat serve/model_worker.py: `Loading the model {model_names} on worker {worker_id} ...`; KoboldCpp
    // koboldcpp.py load_model: `Loading model: {path}`; TabbyAPI's model loader the same under its `INFO:     `
    id: 'worker_loading',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'Loading ',
    re: /(?:\| model_worker \| Loading the model |^(?:INFO: +)?Loading model: \S)/,
  },
  {
    // LMDeploy lmdeploy/turbomind/turbomind.py _from_hf / _load_weights: `logger.warning(f'get {len(tm_params)}
    // model params')` once the checkpoint's tensors are gathered, as they are copied into TurboMind's weights
    id: 'turbomind_params',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: ' model params',
    re: /(?:^|- )get \d+ model params$/,
  },
  {
    // TurboMind src/turbomind/models/llama/BlockManager.cc: `TM_LOG_INFO("[BlockManager] block_size = %.3f MB")`,
    // `max_block_count = %d`: the KV cache's blocks are sized and allocated
    id: 'turbomind_kv_blocks',
    kind: 'phase',
    phase: 'kv_cache',
    weak: true,
    lit: '[BlockManager] ',
    re: /^\[TM\]\[INFO\] \[BlockManager\] (?:block_size|max_block_count) = /,
  },
  {
    // TurboMind src/turbomind/models/llama/LlamaBatch.cc: `TM_LOG_INFO("[Gemm2] Tuning sequence: %s")`, then one
    // line per batch size tuned: the GEMM kernels are tuned before the engine serves
    id: 'turbomind_gemm_tuning',
    kind: 'phase',
    phase: 'autotune',
    weak: true,
    lit: '[Gemm2] ',
    re: /^\[TM\]\[INFO\] \[Gemm2\] (?:Tuning sequence: |\d+$)/,
  },
  {
    // text-embeddings-inference's start (its crates' targets stay in the message: `text_embeddings_core::download:
    // core/src/download.rs:42: Starting download`): core/src/download.rs download_artifacts (`Starting download`,
    // `Model artifacts downloaded in …`), router/src/lib.rs run (`Starting model backend`, then the backend's
    // `Starting {Bert,FlashBert,Qwen3,…} model on {device}`, backends/candle/src/lib.rs), before `Warming up model`
    id: 'tei_loading',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'text_embeddings_',
    re: /text_embeddings_\w+(?:::\w+)*: (?:\S+\.rs:\d+: )?(?:Starting download$|Model artifacts downloaded in |Starting model backend$|Starting \w+ model on )/,
  },
  {
    // NVIDIA NIM for LLMs picks its profile and lays out the model's workspace before it starts its engine
    // (vllm_nvext/hub/ngc_profile.py and ngc_injector.py, nim_llm_sdk/hub/ later: `Running NIM without LoRA. …`,
    // `Detected %d compatible profile(s).`, `Valid profile: …`, `Selected profile: …`, `Profile metadata: …`,
    // `Preparing model workspace. …`, `Model workspace is now ready. It took %s seconds`): start-up, before the load
    id: 'nim_profile',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'rofile',
    re: /(?:^|\] )(?:Running NIM with(?:out)? LoRA\b|Detected \d+ compatible profile|Valid profile: \S+|Selected profile: \S+|Profile metadata: \w+)/,
  },
  {
    id: 'nim_workspace',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'odel workspace',
    re: /(?:^|\] )(?:Preparing model workspace\.|Model workspace is now ready\.)/,
  },
  {
    // vllm.rs (guoqingbao/vllm.rs, later xinfer, a Rust engine) src/runner: `log_info!("Loading model at rank {}")`
    // in each rank's runner as it builds the model, then the model's own `Loading vision tower...` / `Loading
    // language model...` (models/*.rs) under the crate's tracing target
    id: 'rust_runner_loading',
    kind: 'phase',
    phase: 'loading_weights',
    weak: true,
    lit: 'Loading ',
    re: /(?:^|runner: )Loading model at rank \d+$|\b(?:vllm_rs|xinfer)::models::\w+: Loading /,
  },
  // ---- ready ----
  {
    // text-embeddings-inference's router (router/src/http/server.rs and grpc/server.rs run): `Starting HTTP server:
    // {addr}`, then `Ready` once it serves
    id: 'tei_ready',
    kind: 'ready',
    phase: 'ready',
    lit: 'Ready',
    re: /text_embeddings_router::(?:http|grpc)::server: (?:\S+\.rs:\d+: )?Ready$/,
  },
  {
    // uvicorn's own line once its socket listens (uvicorn/server.py Server._log_started_message:
    // `Uvicorn running on %s://%s:%d (Press CTRL+C to quit)`): every FastAPI app prints it (LMDeploy, FastChat,
    // Xinference, NIM, llama-cpp-python)
    id: 'generic_uvicorn_running',
    kind: 'ready',
    phase: 'ready',
    lit: 'Uvicorn running on',
    re: /Uvicorn running on\s+(\S+)/,
  },
  {
    // LMDeploy lmdeploy/serve/openai/api_server.py serve: once the engine is built (the pipeline's AsyncEngine,
    // weights and KV cache in), it prints `HINT:    Please open {http}://{host}:{port} in a browser for detailed
    // api usage!!!` three times, then calls uvicorn.run
    id: 'lmdeploy_hint',
    kind: 'ready',
    phase: 'ready',
    lit: 'in a browser for detailed api usage',
    re: /^HINT: +Please open +(?:\x1b\[[\d;]*m)*(\S+?)(?:\x1b\[[\d;]*m)* +in a browser for detailed api usage/,
  },
  {
    // Ollama server/routes.go Serve: `Listening on %s (version %s)` (before 0.1.2x without the version)
    id: 'ollama_listening',
    kind: 'ready',
    phase: 'ready',
    lit: 'Listening on ',
    re: /(?:^|msg="|\d: )Listening on (\S+?:\d+)(?: \(version ([^)\s]+)\))?/,
    version: (m) => m[2] ?? null,
  },
  {
    // Ollama llm/server.go WaitUntilRunning: `llama runner started in %0.2f seconds`: the model's runner is up
    id: 'ollama_runner_started',
    kind: 'ready',
    phase: 'ready',
    lit: 'llama runner started in',
    re: /llama runner started in [\d.]+ seconds/,
  },
  {
    // gin's debug line (gin.go Engine.Run: `Listening and serving HTTP on %s`); llama-swap.go: `llama-swap
    // listening on http://%s`; mlx_lm server.py: `Starting httpd at %s on port %d...`; Ray Serve
    // (serve/_private/api.py): `Application '%s' is ready at %s`
    id: 'generic_listening',
    kind: 'ready',
    phase: 'ready',
    lit: 'istening',
    re: /(?:Listening and serving HTTP on \S+|^llama-swap listening on \S+)/,
  },
  {
    id: 'generic_app_ready',
    kind: 'ready',
    phase: 'ready',
    lit: 'is ready at ',
    re: /Application '[^']+' is ready at \S+/,
  },
  {
    id: 'mlx_lm_httpd',
    kind: 'ready',
    phase: 'ready',
    lit: 'Starting httpd at ',
    re: /^Starting httpd at \S+ on port \d+/,
  },
  {
    // The Fiber framework's startup box (gofiber app.go startupMessage), which LocalAI 1.x/2.x prints: the line
    // with the address it serves on
    id: 'fiber_box_address',
    kind: 'ready',
    phase: 'ready',
    lit: '│',
    re: /^\s*│\s+https?:\/\/[\w.:[\]-]+\s+│\s*$/,
  },
  // ---- requests answered (serving) ----
  {
    // gin's access line (logger.go defaultLogFormatter: `[GIN] %v |%s %3d %s| %13v | %15s |%s %-7s %s %#v`),
    // which Ollama prints for every request: a model request answered 2xx is one served
    id: 'gin_served',
    kind: 'serving',
    phase: 'serving',
    lit: '[GIN]',
    re: new RegExp(
      `^\\[GIN\\] [\\d/]+ - [\\d:]+ \\|\\s*2\\d\\d\\s*\\|[^|]*\\|[^|]*\\|\\s*POST\\s+"${INFER}"`,
    ),
  },
  {
    // uvicorn's access line (uvicorn/protocols/http/*_impl.py: `%s - "%s %s HTTP/%s" %d`) and llama-swap's
    // proxy log (proxy/proxymanager.go: `[llama-swap] %s [%s] "%s %s %s" %d …`) for a model request answered 2xx
    id: 'http_served',
    kind: 'serving',
    phase: 'serving',
    lit: 'POST /',
    re: new RegExp(`"POST ${INFER}(?:\\?\\S*)? HTTP/[\\d.]+" 2\\d\\d\\b`),
  },
  {
    // LocalAI's request log (core/http/app.go, zerolog: `Success ip=… latency=… method=POST status=200 url=…`)
    id: 'localai_served',
    kind: 'serving',
    phase: 'serving',
    lit: 'Success ip=',
    re: new RegExp(`Success ip=\\S* latency=\\S+ method=POST status=2\\d\\d url=${INFER}`),
  },
  {
    // text-embeddings-inference's router (router/src/http/server.rs and grpc/server.rs): each model route is an
    // instrumented span (`embed{…}`, `openai_embed{…}`, `rerank{…}`, …) and ends a request answered with
    // `tracing::info!("Success")`, as TGI's generate does: a request served
    id: 'tei_served',
    kind: 'serving',
    phase: 'serving',
    completes: true,
    lit: 'Success',
    re: /(?:^|: )(?:embed|embed_all|embed_sparse|openai_embed|predict|rerank|similarity)\{.*\}.*: text_embeddings_router::\S+: (?:\S+\.rs:\d+: )?Success$/,
  },
  {
    // KoboldCpp gpttype_adapter.cpp gpttype_generate: `\rProcessing Prompt [BLAS] (%d / %d tokens)` (without
    // `[BLAS]` for a short prompt) as it reads a request's prompt in batches, redrawn in place with no newline, so a
    // message after it may share its line: a request being run
    id: 'koboldcpp_processing_prompt',
    kind: 'serving',
    phase: 'serving',
    lit: 'Processing Prompt',
    re: /^Processing Prompt(?: \[\w+\])? \(\d+ \/ \d+ tokens\)/,
  },
  {
    // llama.cpp's library timings (src/llama.cpp llama_print_timings, before 2024-07's llama_perf_context_print:
    // `llama_print_timings:        eval time = … runs (…)`), which a program embedding it prints after each
    // generation it answered (llama-cpp-python's server: llama_cpp/llama.py, verbose by default)
    id: 'llama_print_timings',
    kind: 'serving',
    phase: 'serving',
    lit: 'llama_print_timings:',
    re: /^llama_print_timings: +(?:prompt eval|eval|sample) time += +[\d.]+ ms \/ +\d+ (?:tokens|runs)/,
  },
  {
    // llama-box's access log (llama-box/httpserver.hpp: `SRV_FUNC_INF(" response", "rid %s | %4s %s %s:%d |
    // status %d | cost …")`, `log_server_response` before its v2 logging): a model request answered 2xx
    id: 'llama_box_served',
    kind: 'serving',
    phase: 'serving',
    lit: '| status 2',
    re: new RegExp(
      `\\bsrv +(?:log_server_)?response: rid \\S+ \\| +POST ${INFER} \\S+ \\| status 2\\d\\d \\|`,
    ),
  },
  // ---- failures ----
  {
    // Ollama's runner killed by a signal (the kernel's OOM killer, or a stop from outside): `error="signal: killed"`
    id: 'ollama_runner_killed',
    kind: 'failure',
    failure: 'killed',
    lit: 'signal: killed',
    re: /llama runner (?:terminated"? error="?|process has terminated: )signal: killed/,
  },
  {
    // Ollama server/sched.go load: `slog.Error("error loading llama server", "error", err)` when
    // llm.WaitUntilRunning fails: the runner it started died (or timed out) before it had the model in. Where the
    // runner's own error says it could not initialise its backend (the MLX runner's `failed to initialize MLX:
    // …`), it died before loading anything; otherwise it died loading the model. The error names why (the class
    // is read from it)
    id: 'ollama_runner_init_failed',
    kind: 'failure',
    lit: 'error loading llama server',
    re: /msg="?error loading llama server"? error="?([^"]*failed to initiali[sz]e[^"]*)/,
  },
  {
    id: 'ollama_load_failed',
    kind: 'failure',
    phase: 'loading_weights',
    lit: 'error loading llama server',
    re: /msg="?error loading llama server"? error="?([^"]*)/,
  },
  {
    // Ollama llm/server.go: `slog.Error("llama runner terminated", "error", err)` (the runner's process exited,
    // at any time); before 0.1.3x llm/llama.go `error starting llama runner: %v`: the model's runner process is
    // gone; the error names why (the class is read from it)
    id: 'ollama_runner_failed',
    kind: 'failure',
    lit: 'llama ',
    re: /(?:msg="?llama runner terminated"? error="?([^"]*)|error starting llama runner: (.*))/,
  },
  {
    // The client's `Error: …` line of a Go CLI (cobra) or a Rust one (anyhow): Ollama's `Error: llama runner process has terminated: …`
    id: 'cli_error',
    kind: 'failure',
    lit: 'Error: ',
    re: /^Error: (.+)$/,
  },
  {
    // Dynamo's runtime (lib/runtime/src/transports/etcd.rs Client::new, connect_startup_attempt): it connects to
    // etcd and takes a lease before anything else starts (`Unable to connect to etcd server at %s. Check etcd
    // server status`, `Unable to create lease. Check etcd server status at %s`): a service it needs is not up
    id: 'dynamo_etcd_unreachable',
    kind: 'failure',
    failure: 'other',
    phase: 'args',
    lit: 'Check etcd server status',
    re: /Unable to (?:connect to etcd server at \S+|create lease)\. Check etcd server status/,
  },
  {
    // Rust's panic message (std panicking.rs default_hook): `thread '%s' panicked at %s:%d:%d:` with the message
    // on the next line since Rust 1.73, `thread '%s' panicked at '%s', %s:%d:%d` before: a Rust server died
    id: 'rust_panic',
    kind: 'failure',
    lit: 'panicked at ',
    re: /^thread '[^']*' panicked at (?:'(.+)', \S+|\S+:\d+:\d+:?)$/,
  },
  {
    // The Go runtime's panic (runtime/panic.go printpanics: `panic: %v`) and fatal errors (runtime/panic.go
    // fatal: `fatal error: %s`): Ollama's runner `panic: unable to load model: …`
    id: 'go_panic',
    kind: 'failure',
    lit: 'panic: ',
    re: /^panic: (.+)$/,
  },
  {
    id: 'go_fatal',
    kind: 'failure',
    lit: 'fatal error: ',
    re: /^fatal error: (.+)$/,
  },
  {
    // The rest of a Go crash's goroutine dump, where the paste lost its `panic:`/`fatal error:` head: the runtime's
    // own frames (`runtime.goexit({})` at the foot of every stack) and goroutines (`created by
    // runtime.gcBgMarkStartWorkers in goroutine 1`) are printed only at GOTRACEBACK level `system`, which
    // runtime/traceback.go takes for a runtime throw (fatal error, a signal in cgo code: runtime/panic.go
    // `gp.m.throwing >= throwTypeRuntime`); a recovered panic's debug.Stack (net/http's `http: panic serving`) prints
    // at the default level, without them. The program is dying: the cause is above the excerpt
    id: 'go_runtime_dump',
    kind: 'consequence',
    lit: 'runtime.',
    re: /^runtime\.goexit\((?:\{\})?\)$|^created by runtime\.\w+(?: in goroutine \d+)?$/,
  },
  {
    // ggml's buffer allocation as every program embedding llama.cpp prints it (ggml-cuda.cu
    // ggml_backend_cuda_buffer_type_alloc_buffer: `allocating %.2f MiB on device %d: cudaMalloc failed: %s`)
    id: 'ggml_alloc_failed',
    kind: 'failure',
    failure: 'oom',
    lit: 'Malloc failed',
    re: /allocating [\d.]+ MiB on device \d+: (?:cuda|hip)Malloc failed: out of memory/,
  },
  {
    // llama.cpp's loader (src/llama-model.cpp load_tensors: `unable to allocate %s buffer`; before 2025
    // `failed to allocate buffer`) as another program prints it: a device buffer it could not get is memory
    id: 'ggml_model_load_oom',
    kind: 'failure',
    failure: 'oom',
    phase: 'loading_weights',
    lit: 'error loading model',
    re: /^llama_model_load: error loading model: (?:failed to allocate buffer|unable to allocate \S+ buffer)/,
  },
  {
    // llama.cpp's loader (src/llama-model-loader.cpp get_tensor_meta: `missing tensor '%s'`; src/llama-model.cpp
    // load_arch: `unknown model architecture: '%s'`): the file lacks a tensor this build's architecture expects, or
    // names an architecture it does not know: a model this build does not support
    id: 'ggml_missing_tensor',
    kind: 'failure',
    failure: 'unsupported',
    phase: 'loading_weights',
    lit: 'error loading model',
    re: /error loading model: (?:missing tensor '[^']+'|.*unknown model architecture: '[^']+')/,
  },
  {
    // llama.cpp's loader (src/llama.cpp llama_model_load: `%s: error loading model: %s`) inside another program;
    // the error names the class (a buffer it could not allocate is memory)
    id: 'ggml_model_load_error',
    kind: 'failure',
    lit: 'error loading model',
    re: /^llama_model_load: error loading model: (.+)$/,
  },
  {
    // ggml's assertion (ggml/src/ggml.c ggml_abort via GGML_ASSERT: `%s:%d: GGML_ASSERT(%s) failed`; before
    // mid-2024 `GGML_ASSERT: %s:%d: %s`) in a program that embeds ggml
    id: 'ggml_assert_embedded',
    kind: 'failure',
    lit: 'GGML_ASSERT',
    re: /GGML_ASSERT(?:\((.+)\) failed|: (\S+:\d+: .+))/,
  },
  {
    // glibc's assert (assert/assert.c __assert_fail_base: `%s%s%s:%u: %s%sAssertion `%s' failed.`), MSVC's
    // (`Assertion failed: %s, file %s, line %d`), libstdc++'s debug mode (`Assertion '__n < this->size()' failed.`)
    id: 'c_assert',
    kind: 'failure',
    lit: 'Assertion',
    re: /Assertion (?:[`'](.+)' failed\.?|failed: (.+))$/,
  },
  {
    // LMDeploy's TurboMind logger (src/turbomind/utils/logger.h: `[TM][%s] `), e.g. `[TM][ERROR] CUDA runtime
    // error: out of memory …/allocator.cc:49` (the class is read from the message)
    id: 'turbomind_error',
    kind: 'failure',
    lit: '[TM][',
    re: /^\[TM\]\[(?:ERROR|FATAL)\] (.+)$/,
  },
  {
    // Apple Foundation's uncaught Objective-C exception, and libc++abi's terminate (libcxxabi
    // cxa_default_handlers.cpp `terminating due to uncaught exception of type %s`): MLX's Metal device setup
    id: 'objc_uncaught',
    kind: 'failure',
    lit: 'erminat',
    re: /^(?:\*\*\* Terminating app due to uncaught exception '(\w+)'|libc\+\+abi(?::)? terminating(?: due to uncaught exception of type (\S+))?)/,
  },
  {
    // Cosmopolitan libc's crash report (libc/log/oncrash.c ShowCrashReport: `error: Uncaught %G (%s) on %s pid %d tid
    // %d`, then the executable's path, errno's text and the registers): an Actually Portable Executable (llamafile)
    // died of a signal; the class is read from the signal
    id: 'cosmo_uncaught_signal',
    kind: 'failure',
    lit: 'error: Uncaught SIG',
    re: /^error: Uncaught (SIG[A-Z]+) \([^)]*\)(?: at \S+)? on \S+ pid \d+ tid \d+/,
  },
  {
    // catatonit, the init podman runs in containers (catatonit.c: `ERROR (catatonit:%d): failed to exec pid1`):
    // the container's program never started
    id: 'container_init_error',
    kind: 'failure',
    lit: 'catatonit',
    re: /^ERROR \(catatonit:\d+\): (.+)$/,
  },
  {
    // xinference core/worker.py: `logger.error(f"Failed to load model {model_uid}", exc_info=True)` (the traceback
    // under it names the cause); Ray Serve's controller (serve/_private/deployment_state.py check_ready):
    // `Exception in Replica(…), the replica will be stopped.`
    id: 'model_load_failed',
    kind: 'failure',
    phase: 'loading_weights',
    lit: 'ailed to load model',
    re: /(?:^|\s)Failed to load model \S+$/,
  },
  {
    // KServe's model servers catch whatever stopped them starting and exit with it (python/huggingfaceserver/
    // huggingfaceserver/__main__.py: `logger.error(f"Failed to start model server: {e}", exc_info=True)` around
    // load_model() and ModelServer().start, then sys.exit(1)): the message is the exception's (the class is read
    // from it)
    id: 'model_server_start_failed',
    kind: 'failure',
    lit: 'Failed to start model server: ',
    re: /\bFailed to start model server: (.+)$/,
  },
  {
    // vLLM's Ray executor, which Aphrodite kept (executor/ray_utils.py RayWorkerWrapper.execute_method:
    // `Error executing method %s. This might cause deadlock in distributed execution.`) for the model load
    id: 'ray_worker_load_model_error',
    kind: 'failure',
    phase: 'loading_weights',
    lit: 'Error executing method',
    re: /Error executing method load_model\b/,
  },
  {
    id: 'ray_replica_exception',
    kind: 'failure',
    lit: 'Exception in Replica',
    re: /Exception in Replica\(.*\), the replica will be stopped/,
  },
  {
    // xinference's REST API relaying a launch's error (api/restful_api.py launch_model: `logger.error(e)`):
    // `[address=…, pid=…] <message>`; the message names the class
    id: 'xinference_launch_error',
    kind: 'failure',
    lit: '[address=',
    re: /ERROR +\[address=[^\]]+\] (.+)$/,
  },
  {
    // A program's model launch relayed as an exception: xinference `RuntimeError: Failed to launch model, detail: …`
    id: 'launch_failed_runtime_error',
    kind: 'failure',
    failure: 'python_exception',
    lit: 'Failed to launch model',
    re: /^RuntimeError: Failed to launch model, detail: (.+)$/,
  },
  {
    // Open MPI's launcher (orte/mca/errmgr: `mpirun noticed that process rank %d with PID %d on node %s exited on
    // signal %d (%s).`) and its init failure banner (`It looks like orte_init failed for some reason`)
    id: 'mpi_rank_signal',
    kind: 'failure',
    lit: 'mpirun noticed',
    re: /^mpirun noticed that process rank \d+ with PID \d+ on node \S+ exited on signal (\d+)(?: \(([^)]*)\))?/,
  },
  {
    id: 'orte_init_failed',
    kind: 'failure',
    lit: 'orte_init failed',
    re: /It looks like orte_init failed|orte_init failed/,
  },
  {
    // llama-swap proxy/process.go: `cmd.Wait() returned error: %v` for its upstream: a signal that ended it from
    // outside (killed, terminated) is a kill; any other exit is read from its text
    id: 'upstream_signalled',
    kind: 'failure',
    failure: 'killed',
    lit: 'cmd.Wait()',
    re: /cmd\.Wait\(\) returned error: signal: (?:killed|terminated)/,
  },
  {
    id: 'upstream_exited',
    kind: 'consequence',
    lit: 'cmd.Wait()',
    re: /cmd\.Wait\(\) returned error: (?:signal: .+|exit status \d+)/,
  },
  {
    // llama-swap proxy/process.go, its upstream's exit seen by the process manager: `ExitError >> exit status %d`
    id: 'upstream_exit_error',
    kind: 'consequence',
    lit: 'ExitError',
    re: /ExitError >> exit status [1-9]\d*/,
  },
  {
    // Slurm's srun (src/srun/libsrun/launch.c: `%s: task %s: %s`) reporting a task that died
    id: 'srun_task_error',
    kind: 'consequence',
    lit: 'srun: error:',
    re: /^srun: error: \S+: tasks? [\d,-]+: (?:Killed|Exited with exit code [1-9]\d*|Segmentation fault)/,
  },
  {
    // A frozen Python app (PyInstaller bootloader: `Failed to execute script '%s' due to unhandled exception!`),
    // Windows Terminal's `[process exited with code %d (0x%08x)]`, and an app's own `Exit code N` above a
    // server's output: the process is gone
    id: 'process_exit',
    kind: 'consequence',
    lit: 'Failed to execute script',
    re: /Failed to execute script '?[\w.-]+'? due to unhandled exception/,
  },
  {
    id: 'terminal_process_exit',
    kind: 'consequence',
    lit: 'process exited with code',
    re: /^\[process exited with code [1-9]\d*/,
  },
  {
    id: 'app_exit_code',
    kind: 'consequence',
    lit: 'Exit code ',
    re: /^Exit code [1-9]\d*$/,
  },
  // ---- handled errors (the server goes on) ----
  {
    // LocalAI pkg/model/initializers.go: a backend that could not load the model, then the next one is tried
    id: 'localai_backend_fails',
    kind: 'degraded',
    lit: '] Fails: ',
    re: /\[[^\]]+\] Fails: /,
  },
  // ---- orderly stops ----
  {
    // Xinference (xorbitsai/inference) taking a model down, on a DELETE of the model or the supervisor's cleanup of
    // a launch: xinference/core/worker.py WorkerActor.terminate_model (`logger.debug("Start to destroy model actor:
    // %s", model_ref)`, then xo.destroy_actor), which runs the model's stop: xinference/model/llm/vllm/core.py
    // VLLMModel.stop (`logger.info("Stopping vLLM engine")`, then the engine's executor is shut down)
    id: 'xinference_terminate',
    kind: 'shutdown',
    lit: 'St',
    re: /\bStart to destroy model actor: |\bStopping vLLM engine$/,
  },
  {
    // uvicorn/server.py Server.shutdown ... `Finished server process [%d]`
    id: 'generic_finished_server',
    kind: 'shutdown',
    lit: 'Finished server process',
    re: /Finished server process \[\d+\]/,
  },
  {
    // Ray Serve's controller (serve/_private/deployment_state.py): `Removing %d replica(s) from Deployment(…)` and
    // `Replica(…) is stopped.` after the application is deleted
    id: 'ray_replica_stopped',
    kind: 'shutdown',
    lit: 'eplica',
    re: /(?:Removing \d+ replicas? from Deployment\(|Replica\(id='[^']+'.*\) is stopped\.)/,
  },
  // ---- set-up lines, last: a program's failure lines come from the same files ----
  {
    // Ollama's scheduler and runner set-up before a model loads (server/sched.go, llm/server.go, llm/memory.go,
    // discover/gpu.go, all `slog` lines from those files), and its GPU discovery's `[GPU-…] CUDA freeMem` prints
    id: 'ollama_setup',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: '.go:',
    re: /source=(?:sched|server|memory|gpu|amd_linux|amd_windows|ggml|payload|images|types)\.go:\d+ msg=/,
  },
  {
    // KoboldCpp's start-up in koboldcpp.py before load_model: main's backend and layer choice (`Auto Selected CUDA
    // Backend...`, `Auto Recommended GPU Layers: %d`), its chat adapter (`Loading Chat Completions Adapter: %s`,
    // `Chat Completions Adapter Loaded`), then init_library's `Initializing dynamic library: %s`
    id: 'koboldcpp_setup',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: ' ',
    re: /^(?:Auto Selected \w+ Backend\.\.\.|Auto Recommended GPU Layers: -?\d+$|Loading Chat Completions Adapter: \S|Chat Completions Adapter Loaded$|Initializing dynamic library: koboldcpp\S*$)/,
  },
  {
    // TorchServe's frontend (org/pytorch/serve/ModelServer.java): start registers the startup models and starts their
    // workers (initModelStore: `Loading initial models: %s`), then binds its APIs (initializeServer: `Initialize %s
    // server with: %s.`, `%s API bind to: %s`) and prints `Model server started.`, while each worker process
    // (ts/model_service_worker.py, relayed as `W-<port>-<model>-stdout MODEL_LOG - `: `Listening on port: %s`)
    // has still to load its model: set-up, not the model in
    id: 'torchserve_setup',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: ' - ',
    re: /\borg\.pytorch\.serve\.ModelServer - (?:Loading initial models: |Initialize \w+ server with: |\w+ API bind to: )|\bMODEL_LOG - Listening on port: /,
  },
  {
    id: 'ollama_gpu_discovery',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: '[GPU-',
    re: /^\[GPU-[\da-f-]+\] (?:CUDA|Compute)/,
  },
  {
    // Dynamo's `dynamo serve` start-up (deploy/sdk serving.py serve_dynamo_graph, allocator.py, circus's arbiter
    // and watchers: circus/watcher.py _start `%s started`; its vLLM fork's platforms/__init__.py
    // vllm_version_matches_substr: `Using ai_dynamo_vllm`) and ramalama's debug log of the container it starts (`run_cmd:`, `exec_cmd: podman run …`)
    id: 'orchestrator_setup',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'dynamo',
    re: /\b(?:serving\.serve_dynamo_graph|serving\.create_dynamo_watcher|utils\.save_dynamo_state|watcher\._start: dynamo_\w+)(?:: | started$)|\.vllm_version_matches_substr: Using ai_dynamo_vllm$/,
  },
  {
    // Dynamo's service loader (deploy/sdk lib/loader.py find_and_load_service and _do_import: `Working directory:
    // …`, `Parsed import string - path: …`, `Attempting to import module: …`) as `dynamo serve` imports the graph
    // it serves
    id: 'dynamo_loader',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'loader.',
    re: /\bloader\.(?:find_and_load_service|_do_import): /,
  },
  {
    id: 'ramalama_debug',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'DEBUG - ',
    re: /\bDEBUG - (?:run_cmd|exec_cmd): /,
  },
];

/**
 * Programs that serve models and whose logs name them. `wraps`: the program runs an engine inside it and is the
 * server a user runs (its API, its lines): the report's engine is then none of ours (`other`) whatever engine
 * lines it relays. Without `wraps` the program fronts a server (a proxy, a launcher, an orchestrator) whose own
 * lines stay its engine's: it is named only when no engine shows itself.
 */
export interface ProgramRule {
  name: string;
  lit: string;
  re: RegExp;
  wraps: boolean;
}

export const PROGRAMS: readonly ProgramRule[] = [
  {
    name: 'ollama',
    lit: 'llama',
    // Go's log/slog text handler with a source file (Ollama is the Go server among these): `level=INFO source=routes.go:N msg=`
    // (and a Go stack through its own packages: `github.com/ollama/ollama/llama/runner.(*Server).loadModel`)
    // (its copy of llama.cpp in its own tree: the `llm/llama.cpp` submodule to 2024-10, vendored as `llama/llama.cpp`
    // since, and ggml on its own under `ml/backend/ggml/ggml/` from 2025, so ggml's file paths in a source build's
    // messages name it: `C:\a\ollama\ollama\ml\backend\ggml\ggml\src\ggml-cuda\ggml-cuda.cu:73: CUDA error`; its runner's `panic(err)` on
    // llama/llama.go LoadModelFromFile's `unable to load model: %s` (runner/llamarunner/runner.go loadModel): llama.cpp
    // is C++, a Go panic is its host's; `docker compose logs`' gutter for the service its docs/docker.md names `ollama`;
    // its own library folder, `lib/ollama/` under the install prefix (its Linux tarball holds bin/ollama and
    // lib/ollama/, which scripts/install.sh unpacks into /usr or /usr/local; `…\Programs\Ollama\lib\ollama\` on
    // Windows), from which ggml's backend loader reads its GPU backends: `load_backend: loaded CUDA backend from
    // /usr/lib/ollama/cuda_v12/libggml-cuda.so`)
    re: /level=[A-Z]+ source=[\w./-]+\.go:\d+ msg=|[/\\]lib[/\\]ollama[/\\]|github\.com\/ollama\/ollama\/|ollama\[\d+\]|[/\\]ollama[/\\](?:llm|llama)[/\\]llama\.cpp[/\\]|[/\\]ollama[/\\]ml[/\\]backend[/\\]ggml[/\\]|^panic: unable to load model: |^ollama(?:[-_]\d+)? +\| |\bollama (?:serve|run|runner)\b|Ollama Service|OLLAMA_[A-Z_]+[:=]|llama runner |\/api\/(?:generate|chat|tags|show)"|status="llm server|ollama_llama_server|\/ollama\/server\./,
    wraps: true,
  },
  {
    name: 'lmdeploy',
    lit: 'm',
    // (turbomind.py from_pretrained: `logger.info(f'model_source: {model_source}')`, its ModelSource values)
    re: /\blmdeploy\b|^\[TM\]\[|\bturbomind\b|^model_source: (?:hf_model|hf_lmdeploy|workspace)$/,
    wraps: true,
  },
  // TGI's relatives, whose tracing targets are their own crates (Cargo.toml): LoRAX (lorax-launcher,
  // lorax-router, lorax-client) and text-embeddings-inference (text-embeddings-router, -backend, -core)
  { name: 'lorax', lit: 'lorax', re: /\blorax[_-](?:launcher|router|client|server)\b/, wraps: true },
  {
    name: 'text-embeddings-inference',
    lit: 'embeddings',
    re: /\btext[_-]embeddings[_-](?:router|backend|core)\b/,
    wraps: true,
  },
  // llama-box (GPUStack's llama.cpp server): its server lines carry a request id (httpserver.hpp `rid %s | …`), and
  // its model load reports its progress, which llama.cpp's loader does not print (`loaded  36% model tensors into
  // buffer`, its load-progress callback)
  {
    name: 'llama-box',
    lit: 'rid ',
    re: /\bllama-box\b|\bsrv +\S+: rid \S+ \| |\bloaded +\d+% model tensors into buffer$/,
    wraps: true,
  },
  { name: 'xinference', lit: 'nference', re: /\bxinference\b/i, wraps: true },
  {
    name: 'localai',
    lit: 'a',
    // (pkg/model/initializers.go's process start: `Loading GRPC Process: %s`, `GRPC Service for %s will be running
    // at: '%s'`, `GRPC Service Started`; its external backends under /build/extra/grpc/ and its state under
    // /tmp/localai/, which its `Loading GRPC Model` line lists)
    re: /LocalAI|local-ai|\/build\/backend\/|with backend \S+|GRPC\(|\/build\/extra\/grpc\/|\/tmp\/localai\/|Loading GRPC (?:Model|Process)\b|GRPC Service (?:for \S+ will be running|Started)/,
    wraps: true,
  },
  // (NIM's own package, vllm_nvext then nim_llm_sdk: its hub/ngc_profile.py and hub/ngc_injector.py pick the profile)
  {
    name: 'nvidia-nim',
    lit: 'i',
    re: /Inference Microservice|\/opt\/nim\/|nim_llm|vllm_nvext|\bngc_(?:injector|profile)\.py:\d+\]/,
    wraps: true,
  },
  // vllm.rs (guoqingbao/vllm.rs; renamed xinfer), a Rust engine of its own despite the name: its tracing targets
  // are its crate's modules (`vllm_rs::models::qwen3_vl`, `xinfer::utils::progress`)
  { name: 'vllm.rs', lit: '::', re: /\b(?:vllm_rs|xinfer)::\w+/, wraps: true },
  { name: 'aphrodite', lit: 'phrodite', re: /aphrodite/i, wraps: true },
  // MLC LLM (TVM-compiled models): its package and command `mlc_llm`, and its JIT policy line (support/auto_device.py,
  // interface/jit.py `MLC_JIT_POLICY = ON. …`). Its logger's `[date] LEVEL file.py:N: ` is also SGLang's newer one.
  { name: 'mlc-llm', lit: 'mlc', re: /\bmlc[_-]llm\b|MLC_JIT_POLICY/, wraps: true },
  // TabbyAPI (ExLlamaV2/V3's OpenAI server): its name, and its backend's `ExllamaV2 version: %s` line
  { name: 'tabbyapi', lit: 'abby', re: /\bTabbyAPI\b|\btabbyAPI\b|ExllamaV[23] version: /, wraps: true },
  // KoboldCpp (LostRuins/koboldcpp) names itself, and its loader's own prints name it when its name is not in the
  // paste: koboldcpp.py load_model `Loading Text Model: {path}` (`Loading model:` before), model_adapter.cpp
  // `The reported GGUF Arch is: %s` and `Arch Category: %d`, expose.cpp `Identified as GGUF model: (ver %d)`
  {
    name: 'koboldcpp',
    lit: 'o',
    re: /koboldcpp|^Loading Text Model: |The reported GGUF Arch is: |^Arch Category: \d|^Identified as GGUF model\b/i,
    wraps: true,
  },
  { name: 'fastchat', lit: 'a', re: /fastchat|\| (?:controller|model_worker) \|/, wraps: true },
  // llama-cpp-python (its package `llama_cpp`, its server `llama_cpp.server`) and LangChain's `LlamaCpp` class over it
  // (langchain_community/llms/llamacpp.py: its validator raises `Could not load Llama model from path`, which
  // pydantic reports as `1 validation error for LlamaCpp`): llama.cpp's library lines inside a Python program
  {
    name: 'llama-cpp-python',
    lit: 'llama',
    re: /llama_cpp[/.]server|llama-cpp-python|\/site-packages\/llama_cpp\/|validation error for LlamaCpp\b|\bLlamaCpp\(/,
    wraps: true,
  },
  { name: 'llamaedge', lit: 'a', re: /WASI-NN|llama-api-server|LlamaEdge/, wraps: true },
  { name: 'mlx', lit: 'mlx', re: /mlx-serve|mlx_lm\.server|omlx/i, wraps: true },
  // Dynamo's Python processes send their logging to its Rust logger (lib/bindings/python/src/dynamo/runtime/logging.py
  // LogHandler: the target is `{module}.{funcName}`, and configure_dynamo_logging routes vLLM's and SGLang's loggers
  // there too): `2025-05-07T02:48:35.982Z  INFO arbiter.start: …`, a Rust-formatted line whose target is a Python
  // function. Such a log is Dynamo's own, whatever engine it runs. Its other lines (a worker's TensorRT-LLM prints)
  // stay the engine's.
  {
    name: 'dynamo',
    lit: 'Z ',
    re: /^\d{4}-\d\d-\d\dT[\d:.]+Z +(?:TRACE|DEBUG|INFO|WARN|ERROR) +(?:__init__|[a-z]\w*)\.(?:_?[a-z]\w*): /,
    wraps: true,
  },
  {
    name: 'dynamo',
    lit: 'dynamo',
    re: /dynamo serve|serve_dynamo|\bdynamo_\w+|ai_dynamo_vllm|\/dynamo\/lib\/runtime\//,
    wraps: false,
  },
  {
    name: 'ray-serve',
    lit: 'Serve',
    re: /\((?:ServeController|ServeReplica|ProxyActor)\b|serve\.llm/,
    wraps: false,
  },
  // KServe's Python model servers log through its own format (python/kserve/kserve/logging.py KSERVE_LOG_FORMAT:
  // `%(asctime)s.%(msecs)03d %(process)s %(name)s %(levelname)s [%(filename)s:%(funcName)s():%(lineno)s]`, logger
  // `kserve`); its huggingfaceserver runs vLLM inside, whose own lines stay vLLM's
  {
    name: 'kserve',
    lit: 'kserve',
    re: /[\d.] \d+ kserve(?:\.trace)? (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \[/,
    wraps: false,
  },
  // TorchServe: its Java frontend's loggers (`org.pytorch.serve.…`) and its workers' output relayed as `MODEL_LOG`;
  // a handler may run vLLM inside, whose own lines stay vLLM's
  {
    name: 'torchserve',
    lit: ' ',
    re: /\borg\.pytorch\.serve\.[\w.]+ - |\bW-\d+-\S+ MODEL_LOG - |^Torchserve version: /,
    wraps: false,
  },
  { name: 'llama-swap', lit: 'llama-swap', re: /llama-swap/, wraps: false },
  { name: 'ramalama', lit: 'ramalama', re: /ramalama/, wraps: false },
  // llamafile (Mozilla's llama.cpp in one Actually Portable Executable, built with Cosmopolitan libc): its own copy
  // of llama.cpp and its own server, run as the user's program, so its llama.cpp lines are its own. Named by the
  // executable (`model.Q5_K_M.llamafile`, `llamafile -m …`) and the folder it extracts its GPU support into
  // (llamafile/get_app_dir.c: `~/.llamafile/v/%d.%d.%d/`; before, `~/.llamafile/ggml-metal.metal`), not by
  // llama.cpp's own `llamafile` sgemm (ggml-cpu/llamafile/sgemm.cpp, `LLAMAFILE = 1` in its system info). Its server
  // opens the user's browser on the UI once it listens (llamafile/launch_browser.c llamafile_launch_browser, built on
  // Cosmopolitan's IsWindows/IsXnu: `opening browser tab... (pass --nobrowser to disable)`, and on failure
  // report_failure's `failed to open <url> in a browser tab using <explorer.exe|open|xdg-open>: <reason>`), which
  // llama.cpp's own server never does
  {
    name: 'llamafile',
    lit: 'llamafile',
    re: /\.llamafile\b|(?:^|[\s/\\])llamafile(?:\.exe)? +-|failed to open \S+ in a browser tab using \S+: |opening browser tab\.\.\. \(pass --nobrowser to disable\)/,
    wraps: true,
  },
  // GPUStack (gpustack/gpustack) runs each model instance's server (vLLM, SGLang, llama-box, …) as a process of its
  // own: its Python loggers are `gpustack.<module>` (`gpustack.worker.serve_manager - INFO - …`)
  {
    name: 'gpustack',
    lit: 'gpustack',
    re: /\bgpustack\.(?:worker|server|utils|detectors)\.\w+/,
    wraps: false,
  },
];
