/** vLLM (`vllm serve`, `python -m vllm.entrypoints.openai.api_server`): line shapes from research/vllm-and-peers.md §1. */

import {
  parseVllmEngineConfig,
  parseVllmNamespace,
  parseVllmNonDefaultArgs,
} from '../config/engine-config.js';
import { argparseSignatures } from './cli-errors.js';
import { vllmEvidence } from './evidence.js';
import type { EngineModule, Signature } from './types.js';

const num = (s: string | undefined): number | null => (s === undefined ? null : Number(s));

/** `tcp://10.0.0.1:13345` → `10.0.0.1`: the head's address, as `--data-parallel-address` names it. */
function hostOf(uri: string): string {
  const m = /^(?:tcp:\/\/)?\[?([^\]/]+?)\]?(?::\d+)?\/?$/.exec(uri);
  return m?.[1] ?? uri;
}

/** serve.py run_headless's DP line (the rule below and its config read the same match). */
const HEADLESS_DP =
  /^Launching (\d+) data parallel engine\(s\) in headless mode, with head node address (\S+?)\.?$/;

function headlessDp(msg: string): Record<string, unknown> | null {
  const m = HEADLESS_DP.exec(msg);
  if (!m) return null;
  return { headless: true, data_parallel_size_local: Number(m[1]), data_parallel_address: hostOf(m[2]!) };
}

function headlessMp(msg: string): Record<string, unknown> | null {
  const m = /with head node address (\S+) for torch\.distributed/.exec(msg);
  return m ? { headless: true, master_addr: hostOf(m[1]!) } : null;
}

function groupLeader(msg: string): Record<string, unknown> | null {
  const m =
    /^DP group leader: node_rank=(\d+), node_rank_within_dp=\d+, master_addr=([^,]+), .*?world_size=(\d+), local_world_size=(\d+)/.exec(
      msg,
    );
  if (!m) return null;
  const world = Number(m[3]);
  const local = Number(m[4]);
  const out: Record<string, unknown> = { node_rank: Number(m[1]), master_addr: m[2] };
  if (local > 0 && world % local === 0) out.nnodes = world / local;
  return out;
}

const signatures: Signature[] = [
  // launch: the API server's banner, its args, then the engine process's config line
  { id: 'logo', kind: 'launch', strong: true, phase: 'args', lit: '█', re: /^\s*█\s+█\s+█▄\s+▄█\s*$/ },
  {
    id: 'logo_version',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'version',
    re: /[█▀▄]\s+version\s+(\S+)\s*$/,
    version: (m) => m[1] ?? null,
  },
  {
    id: 'server_version',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'server version',
    re: /^vLLM (?:API )?server version (\S+?)(?:, serving model \S+)?$/,
    version: (m) => m[1] ?? null,
  },
  {
    id: 'non_default_args',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'non-default args:',
    re: /^non-default args: \{/,
    config: parseVllmNonDefaultArgs,
  },
  {
    id: 'args_namespace',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'args: Namespace(',
    re: /^args: Namespace\(/,
    config: parseVllmNamespace,
  },
  {
    id: 'engine_config',
    kind: 'launch',
    phase: 'args',
    lit: 'LLM engine',
    re: /^Initializing an? (?:V0 |V1 )?LLM engine \(v([^)]+)\) with config: /,
    config: parseVllmEngineConfig,
    version: (m) => m[1] ?? null,
  },
  {
    // The tail of V0's engine config line (engine/llm_engine.py LLMEngine.__init__ `Initializing an LLM engine
    // with config: model=%r, …, enforce_eager=%s, seed=%d)` in 0.2.x–0.3.x), a paste cut inside it: args
    id: 'engine_config_tail',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'seed=',
    re: /\benforce_eager=(?:True|False), seed=\d+\)\s*$/,
  },
  // A node of a multi-node launch that serves no API prints neither the banner nor `non-default args` (those
  // come from the API server's setup): these lines are all it says of its place (multinode/identity.ts).
  {
    // entrypoints/cli/serve.py run_headless: `Launching %d data parallel engine(s) in headless mode, with head
    // node address %s.` (2025-09-12, newest); the address is the DP handshake's tcp://HOST:PORT.
    id: 'headless_dp',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'headless mode',
    re: HEADLESS_DP,
    config: headlessDp,
  },
  {
    // entrypoints/cli/serve.py run_headless (newest, `--nnodes N --node-rank R --headless`): `Launching vLLM
    // (v%s) headless multiproc executor, with head node address %s for torch.distributed process group.`
    id: 'headless_mp',
    kind: 'launch',
    strong: true,
    phase: 'args',
    lit: 'headless multiproc',
    re: /^Launching vLLM \(v([^)]+)\) headless multiproc executor, with head node address (\S+) for torch\.distributed/,
    config: headlessMp,
    version: (m) => m[1] ?? null,
  },
  {
    // v1/executor/multiproc_executor.py MultiprocExecutor._init_executor (newest): `DP group leader:
    // node_rank=%d, node_rank_within_dp=%d, master_addr=%s, mq_connect_ip=%s (local), world_size=%d,
    // local_world_size=%d`: the node's rank and the nodes (world / local) when the flags were not logged.
    id: 'dp_group_leader',
    kind: 'phase',
    phase: 'dist_init',
    lit: 'DP group leader',
    re: /^DP group leader: node_rank=\d+/,
    config: groupLeader,
  },
  {
    id: 'config_notes',
    kind: 'phase',
    phase: 'args',
    lit: 'e',
    re: /^(?:Resolved architecture:|Using max model len|Chunked prefill is enabled|Asynchronous scheduling is|Started DP Coordinator process|Reducing Torch parallelism|Enforce eager set)/,
  },
  {
    // platforms/__init__.py resolve_current_platform_cls_qualname: `Automatically detected platform %s.`, logged
    // when `vllm` is first imported, by any process that imports it: the server, but also its clients
    // (`vllm bench serve`, entrypoints/cli/main.py; a script importing vllm). Not a start of its own: a benchmark
    // run pasted after the server's log is no relaunch. The probes that decide it, at DEBUG, are of the same
    // moment (platforms/__init__.py tpu_platform_plugin, cuda_platform_plugin, rocm_platform_plugin, …:
    // `Checking if CUDA platform is available.`, `Confirmed CUDA platform is available.`, `ROCm platform is not
    // available because: …`).
    id: 'platform_detected',
    kind: 'phase',
    phase: 'args',
    weak: true,
    lit: 'latform',
    re: /^Automatically detected platform|^(?:Checking if|Confirmed) \w+ platform is available\.|^\w+ platform is not available because/,
  },
  // distributed init
  {
    id: 'dist_init',
    kind: 'phase',
    phase: 'dist_init',

    re: /^world_size=\d+ rank=\d+ local_rank=\d+|^vLLM is using nccl==|GPU P2P access cache|^rank \d+ in world size \d+ is assigned as|^Custom allreduce is disabled|^Initializing distributed environment|^Found nccl from library/,
  },
  {
    // v1/engine/utils.py wait_for_engine_startup (DEBUG, every STARTUP_POLL_PERIOD_MS): `Waiting for %d local, %d
    // remote core engine proc(s) to connect.` / `… to start.`: the API server has started the engine-core
    // processes and waits for their handshake, which they send once their own start-up (loading, KV cache,
    // capture) is done: the start is under way past the args. Repeated while the engine loads, so it starts
    // nothing (weak).
    id: 'engine_wait',
    kind: 'phase',
    phase: 'dist_init',
    weak: true,
    lit: 'core engine proc(s) to',
    re: /^Waiting for \d+ local, \d+ remote core engine proc\(s\) to (?:start|connect)\.$/,
  },
  {
    // V0 executor/ray_distributed_executor.py (ray_gpu_executor.py before) RayDistributedExecutor._init_workers_ray:
    // `use_ray_spmd_worker: %s`, logged once the placement group is in hand, before the Ray workers are created
    id: 'ray_workers',
    kind: 'phase',
    phase: 'dist_init',
    lit: 'use_ray_spmd_worker: ',
    re: /^use_ray_spmd_worker: (?:True|False)$/,
  },
  {
    // executor/ray_utils.py (v1/executor/ray_utils.py since V1) initialize_ray_cluster: `The number of required
    // %ss exceeds the total number of available %ss in the placement group.` (a warning, then it creates the
    // group anyway), and _wait_until_pg_ready, every 10, 30, 70… s until the group is placed or PG_WAIT_TIMEOUT
    // raises: `Waiting for creating a placement group of specs for %d seconds. specs=%s. Check `ray status` …`.
    // The Ray executor gathers its GPUs before any worker starts: distributed init, repeated (weak)
    id: 'ray_placement_wait',
    kind: 'phase',
    phase: 'dist_init',
    weak: true,
    lit: 'placement group',
    re: /^Waiting for creating a placement group of specs for \d+ seconds\.|^The number of required \w+s exceeds the total number of available \w+s in the placement group\.$/,
  },
  {
    // V1 v1/worker/tpu_model_runner.py _get_req_paddings (`Preparing request paddings:` then `    %d` per size),
    // called from TPUModelRunner.__init__, which TPUWorker.init_device builds once torch.distributed is up and
    // before load_model
    id: 'tpu_paddings',
    kind: 'phase',
    phase: 'dist_init',
    lit: 'Preparing request paddings:',
    re: /^Preparing request paddings:$/,
  },
  // weights
  {
    // The attention backend chosen: platforms/cuda.py get_attn_backend_cls `Using Flash Attention backend on V1
    // engine.` (FlashInfer, Triton, FlexAttention, MLA…; the suffix went in 2025-11), V0 attention/selector.py
    // `Using XFormers backend.`, V0 platforms `Using Triton MLA backend.`. V0 GPUModelRunnerBase.__init__ (worker
    // construction) and, from 2025-01 until #18593 (2025-05-24), V1 GPUModelRunner.__init__ asked for it before
    // Worker.load_model (`Starting to load model`); later the layers ask while the model is built, after that
    // line, where this mark (below loading) changes nothing. (`Using %s attention backend out of potential
    // backends` of the newest builds stays with load_start.)
    id: 'attn_backend',
    kind: 'phase',
    phase: 'dist_init',
    lit: 'backend',
    re: /^Using [\w -]+ backend(?: for (?!compilation)\S+)?(?: on V1 engine)?\.$/,
  },
  {
    id: 'load_start',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'o',
    // Not `Using V2 Model Runner`: v1/worker/gpu_worker.py Worker.init_device logs it when it builds the runner,
    // before load_model (the catalog's dist_init reads it). Not V0's `Loading model weights took %.4f GB` either
    // (load_done below): worker/model_runner.py GPUModelRunnerBase.load_model logs it once the weights are in.
    re: /^Starting to load model|^Loading model from scratch|^Using \S+ attention backend|^Loading model weights(?! took)|^Time spent downloading weights|^Using model weights format|^Loading weights with BitsAndBytes|^Detected (?:fp8|FP8) checkpoint/,
  },
  {
    id: 'load_done',
    kind: 'phase',
    phase: 'weights_loaded',
    lit: 'took',
    // V0 worker/model_runner.py GPUModelRunnerBase.load_model (and vllm-ascend's NPU runners, same words):
    // `Loading model weights took %.4f GB`, the end of loading; V1 gpu_model_runner.py load_model says `Model
    // loading took %.4f GiB …` (`%.4f GB and %.6f seconds` in its first releases, early 2025). HabanaAI/vllm-fork
    // worker/hpu_model_runner.py (habana_model_runner.py before) HPUModelRunner.load_model, once get_model and
    // the HPU-graph wrap are done: `Loading model weights took in total {m.get_summary_string()}` (`15.05 GiB of
    // device memory (…) and 1.134 GiB of host memory (…)`)
    re: /^Loading weights took [\d.]+ seconds|^Model loading took [\d.]+ ?Gi?B|^Loading model weights took (?:[\d.]+ ?GB|in total [\d.]+ ?[KMGT]?i?B of device memory)/,
  },
  {
    // tpu-inference runner/tpu_runner.py TPUModelRunner.load_model ends with `Init model | hbm=%sGiB` (HBM used
    // per chip once the weights are on the TPUs)
    id: 'tpu_load_done',
    kind: 'phase',
    phase: 'weights_loaded',
    lit: 'Init model | hbm=',
    re: /^Init model \| hbm=/,
  },
  {
    // Neuron compiles the model while it loads it (vllm-neuron / transformers-neuronx, before any KV sizing):
    // neuronx_distributed trace/model_builder.py ModelBuilder.trace logs on the `Neuron` logger (`INFO:Neuron:`
    // when Python's default format prints it): `Generating HLOs for the following models: …`, `Generated all
    // HLOs in %s seconds`, `Starting compilation for the priority HLO`, `Done compilation for the priority HLO`
    // (`… in %s seconds`), `Finished Compilation for all HLOs in %s seconds`, and `Neuron compiler flags: %s`
    // from its compiler-args helper; libneuronxla's neuron_cc_wrapper prints `||NEURON_CC_WRAPPER||: Call
    // compiler with cmd: neuronx-cc compile …` and `||NEURON_CACHE||: Compile cache path: …`; neuronx-cc itself
    // `Compilation Successfully Completed for model.MODULE_….hlo_module.pb` and `Using a cached neff at …`
    id: 'neuron_compile',
    kind: 'phase',
    phase: 'compile',
    re: /^(?:INFO:Neuron:)?(?:Generating HLOs for the following models|Generated all HLOs in|Starting compilation for (?:the priority HLO|all HLOs)|Done compilation for the priority HLO|Finished Compilation for all HLOs|Neuron compiler flags:)|\|\|NEURON_(?:CC_WRAPPER|CACHE)\|\|: (?:Call compiler|Compile cache path)|\[INFO\]: (?:Compilation Successfully Completed for model\.|Using a cached neff at )/,
  },
  {
    // Hybrid (mamba + attention) models' block size: `Setting attention block size to %d tokens to ensure that
    // attention page size is >= mamba page size.` and `Padding mamba page size by %.2f%% …`. Until 2026 the
    // API server logged them while it built the config (model_executor/models/config.py
    // HybridAttentionMambaModelConfig.verify_and_update_config, args); the newest builds log them from
    // platforms/interface.py Platform.update_block_size_for_backend, which the worker calls once load_model is
    // done, before the profile run. Read as args, which moves no launch back: never as the KV-cache sizing that
    // the catalog's newest-version phase would say (it would hide the torch.compile that follows, whose rank is
    // below the KV cache's in vLLM: base/types.ts ENGINE_RANK).
    id: 'hybrid_block_size',
    kind: 'phase',
    phase: 'args',
    weak: true,
    re: /^Setting attention block size to \d+ tokens|^Padding mamba page size by [\d.]+%/,
  },
  {
    // v1/worker/gpu_model_runner.py GPUModelRunner.profile_run opens with the encoder's profile: `Encoder cache
    // will be initialized with a budget of %s tokens, and profiled with %s %s items of the maximum feature
    // size.` (or `Skipping memory profiling for multimodal encoder and encoder cache.`), before the dummy run in
    // which torch.compile compiles: the weights are in, the compile not started (weights_loaded).
    id: 'encoder_profile',
    kind: 'phase',
    phase: 'weights_loaded',
    re: /^Encoder cache will be initialized with a budget of \d+ tokens|^Skipping (?:memory profiling for multimodal encoder and encoder cache|encoder profiling for embedding-only mode)/,
  },
  {
    // V0 (0.6.x) worker/model_runner.py GPUModelRunnerBase.profile_run and worker/enc_dec_model_runner.py
    // EncoderDecoderModelRunner.profile_run log `Starting profile run for multi-modal models.` when the model takes
    // images; Worker.determine_num_available_blocks runs it to size the KV cache (LLMEngine._initialize_kv_caches),
    // and V0 compiles nothing before: the KV-cache phase.
    id: 'v0_mm_profile_run',
    kind: 'phase',
    phase: 'kv_cache',
    lit: 'Starting profile run',
    re: /^Starting profile run for multi-modal models\./,
  },
  {
    // model_executor/layers/fused_moe/fused_moe.py get_moe_configs (lru_cache): `Using default MoE config.
    // Performance might be sub-optimal! Config file not found at %s`, on the first forward through the MoE
    // layers, the profile run that sizes the KV cache (V0 Worker.determine_num_available_blocks, before `Memory
    // profiling takes`; V1 Worker.determine_available_memory, after `torch.compile took`, before `Initial
    // profiling/warmup run took`): the KV-cache phase, as traceback.ts reads profile_run's frames. Weak: it
    // starts nothing.
    id: 'moe_default_config',
    kind: 'phase',
    phase: 'kv_cache',
    weak: true,
    lit: 'Using default MoE config',
    re: /^Using default MoE config\. Performance might be sub-optimal!/,
  },
  // torch.compile
  {
    id: 'compile',
    kind: 'phase',
    phase: 'compile',
    lit: 'o',
    re: /for vLLM's torch\.compile|^Dynamo bytecode transform time|^Compiling a graph for|^Cache the graph of|^Directly load (?:the compiled graph|AOT compilation)|^torch\.compile (?:takes|took|and initial)|^Initial profiling\/warmup run took|^Compile and warming up model for size|^Compiling model with|torch\._inductor|^Start compiling/,
  },
  {
    // TPU precompilation, in the worker's compile_or_warm_up_model once the KV cache is sized, where GPUs run
    // their kernel warmups before graph capture (autotune's rank, which scores as compile): V0
    // worker/tpu_model_runner.py TPUModelRunner.warmup_model `Compiling the model with different input
    // shapes...` then `batch_size: %d, seq_len: %d` per shape; V1 v1/worker/tpu_model_runner.py capture_model /
    // _precompile_* `Compiling the model with different input shapes.`, `  -- num_tokens: %d`, `Compiling
    // sampling with different input shapes.`, `Compilation finished in %.2f [secs].` (once printed `in in`);
    // tpu-inference runner/compilation_manager.py `Precompile %s --> %s` and the same `Compilation finished in`
    id: 'xla_precompile',
    kind: 'phase',
    phase: 'autotune',
    re: /^Compiling (?:the model|sampling|[\w -]+) with different input shapes|^\s*-- num_tokens: \d+|^batch_size: \d+, seq_len: \d+$|^Compilation finished in (?:in )?[\d.]+ \[secs\]|^Precompile \S+ \S+ -->/,
  },
  {
    // HabanaAI/vllm-fork worker/habana_model_runner.py (later hpu_model_runner.py) HabanaModelRunner.log_warmup:
    // `[Warmup][{phase}][{i+1}/{max_i}] batch_size:{bs} seq_len:{n} free_mem:{mem}` (`num_blocks:` for decode),
    // one line per bucket while the HPU graphs are compiled after the KV cache is allocated
    id: 'hpu_warmup',
    kind: 'phase',
    phase: 'warmup',
    lit: '[Warmup][',
    re: /^\[Warmup\]\[\w+\]\[\d+\/\d+\]/,
  },
  {
    // vllm-gaudi (vLLM's HPU platform plugin) vllm_gaudi/v1/worker/hpu_model_runner.py HPUModelRunner.warmup_sampler,
    // part of warmup_model once the KV cache is allocated (its docs' "Sampler Warm-Up" page shows the sequence):
    // `Warming up sampler with batch sizes: %s and following configs:`, one `temp=%s, top_p=%s, top_k=%s,
    // batch_changed=%s` per config, `Starting sampler warmup...`, `Sampler warmup completed successfully`
    id: 'hpu_sampler_warmup',
    kind: 'phase',
    phase: 'warmup',
    re: /^(?:Warming up sampler with batch sizes: |Starting sampler warmup\.\.\.$|Sampler warmup completed successfully$|temp=[\d.]+, top_p=[\d.]+, top_k=-?\d+, batch_changed=(?:True|False)$)/,
  },
  {
    // model_executor/warmup/kernel_warmup.py kernel_warmup (Worker.compile_or_warm_up_model, after the KV
    // cache is allocated, before capture_model): `Warming up ll_bf16 router GEMM kernels for shapes: %s.`,
    // `Skipping FlashInfer autotune because it is disabled.`, `Warming up FlashInfer attention.`, `Using
    // FlashInfer autotune cache file: %s`; the DeepGEMM warmup shows only its bar (tqdm.ts)
    id: 'kernel_warmup',
    kind: 'phase',
    phase: 'autotune',
    re: /^Warming up (?:ll_bf16 router GEMM kernels|FlashInfer attention)|^(?:Skipping|Using) FlashInfer autotune/,
  },
  // KV cache sizing
  {
    // `# TPU blocks: %d, # CPU blocks: %d` (V0 executor/ray_tpu_executor.py, tpu_executor.py) and `# HPU blocks`
    // (HabanaAI vllm-fork executor/habana_executor.py) are the GPU line's words on those platforms
    id: 'kv_cache',
    kind: 'phase',
    phase: 'kv_cache',

    re: /^Available KV cache memory(?!: -)|^GPU KV cache size|^Maximum concurrency for|^# (?:cuda|GPU|CPU|npu|xpu|TPU|HPU) blocks|^Memory profiling takes|^Profiling CUDA graph memory|^Estimated CUDA graph memory|^KV cache (?:memory|size)|^Auto-fit max_model_len|^the current vLLM instance can use|^model weights take|^Setting max_num_seqs|vllm cache_config_info/,
  },
  // CUDA graphs
  {
    id: 'cuda_graph',
    kind: 'phase',
    phase: 'cuda_graph',
    lit: 'raph',
    // (`Graph capturing for %d input tokens`: the per-size capture lines of gpu_model_runner.py builds with the
    // lazy CUDA-graph change, vLLM PR builds of 2025-08)
    re: /^Capturing CUDA graph|^Capturing cudagraphs for decoding|^Graph capturing finished in|^Graph capturing for \d+ input tokens|^CUDA graph pool memory|^Capturing the model for CUDA graphs/,
  },
  // engine up, API server starting: vLLM has no warm-up request, this is the window before uvicorn listens
  {
    id: 'engine_ready',
    kind: 'phase',
    phase: 'warmup',
    lit: 'init engine',
    re: /^init engine \(profile, create kv cache, warmup model\) took/,
  },
  {
    id: 'api_start',
    kind: 'phase',
    phase: 'warmup',

    re: /^Supported tasks:|^INFO: +(?:Started server process|Waiting for application startup)/,
  },
  // the route table is printed inside serve_http, right before uvicorn takes the already-bound socket; the line
  // before it, `Starting vLLM API server %d on %s` (entrypoints/openai/api_server.py run_server_worker, 2025-09)
  // or `Starting vLLM server on %s` (build_and_serve, 2026), is logged right before serve_http is called, with
  // the engine up and the socket bound (setup_server): the research catalog's `ready` too, and an excerpt that
  // ends on it has nothing else to say so
  {
    id: 'routes',
    kind: 'ready',
    phase: 'ready',
    re: /^Available routes are:|^Route: \S+, (?:Methods|Endpoint)|^Starting vLLM (?:API )?server (?:\d+ )?on /,
  },
  {
    id: 'ready',
    kind: 'ready',
    phase: 'ready',
    lit: 'INFO:',
    re: /^INFO: +(?:Application startup complete\.|Uvicorn running on )/,
  },
  {
    // V0 engine/async_llm_engine.py AsyncLLMEngine.run_engine_loop: `Engine iteration timed out. This should
    // never happen!` before it raises the asyncio TimeoutError that `Engine background task failed` reports
    id: 'iteration_timeout',
    kind: 'failure',
    failure: 'timeout',
    // (run_engine_loop steps the engine only once the server is up, for the requests it has taken in: serving)
    phase: 'serving',
    lit: 'Engine iteration timed out',
    // (the whole sentence, not anchored, and before the serving rules: a paste that lost its newlines runs the
    // records together on one line, the stats line that came before it first)
    re: /Engine iteration timed out\. This should never happen!/,
  },
  // serving
  {
    id: 'stats',
    kind: 'serving',
    phase: 'serving',
    lit: 'prompt throughput: ',
    // V0 engine/metrics.py LoggingStatLogger.log, V1 v1/metrics/loggers.py: the request counts and cache usage
    // are optional here, since a terminal of ~130 columns hard-wraps the line inside them (`Running: 32 r` / `eqs,`).
    // Any run of spaces between the words: a log console that pads them (`Avg   prompt throughput`) keeps the line
    re: /Avg +prompt +throughput: +([\d.]+) +tokens\/s, +Avg +generation +throughput: +([\d.]+) +tokens\/s(?:, +Running: +(\d+) +reqs,(?: +Swapped: +\d+ +reqs,)? +(?:Waiting|Pending): +(\d+) +reqs(?:.*?GPU +KV +cache +usage: +([\d.]+)%)?)?/,
  },
  {
    id: 'access',
    kind: 'serving',
    phase: 'serving',
    lit: 'HTTP/',
    re: /^INFO: +\S+ - "(?:GET|POST|PUT|DELETE|HEAD|OPTIONS|PATCH) \S+ HTTP\/[\d.]+" \d{3}/,
  },
  {
    // entrypoints/openai/serving_chat.py create_chat_completion (and serving_completion.py, serving_embedding.py;
    // from v0.6.4 until the serving refactor of 2026-01, #32240): `except ValueError as e` (from #15650 also
    // TypeError, RuntimeError, jinja2.TemplateError): `logger.exception("Error in preprocessing prompt inputs")`
    // then `return self.create_error_response(str(e))`: one request refused while rendering its prompt (a 400:
    // prompt too long, a chat template error); the traceback under it, each line under the record's prefix
    // (NewLineFormatter), is that request's and the server keeps serving.
    id: 'preprocess_error',
    kind: 'degraded',
    catches: true,
    lit: 'Error in preprocessing prompt inputs',
    re: /^Error in preprocessing prompt inputs$/,
  },
  {
    id: 'requests',
    kind: 'serving',
    phase: 'serving',
    lit: 'request',
    re: /^(?:Added request|Finished request|Aborted request)/,
  },
  {
    // entrypoints/chat_utils.py _log_chat_template_content_format (lru_cached: once): logged when the first chat
    // request is rendered, so after ready it is a request being run. Newer versions also log it from the
    // renderer's warm-up at start-up (renderers/hf.py, entrypoints/openai/serving.py `Warming up chat template
    // processing...`), before the server is ready: there it says nothing of requests.
    id: 'chat_template_format',
    kind: 'serving',
    phase: 'serving',
    after: 'ready',
    lit: 'chat template content format',
    re: /^Detected the chat template content format to be '\w+'/,
  },
  {
    // entrypoints/logger.py RequestLogger.log_inputs `Received request %s: prompt: …`: the API server took a
    // request in, before the engine has it (`Added request`, above, is the engine scheduling it): the server is
    // up, no request is answered yet (the label rules: serving needs a request answered or a batch line)
    id: 'request_in',
    kind: 'ready',
    phase: 'ready',
    lit: 'Received request',
    re: /^Received request /,
  },
  {
    // Disaggregated prefill/decode, the decode side's KV pull for one request: Mooncake connector
    // (distributed/kv_transfer/kv_connector/v1/mooncake_connector.py, vllm-ascend's
    // distributed/mooncake_connector.py KVCacheRecvingThread._handle_request) `Failed to transfer KV cache for
    // request %s: %s` and its transfer's (_transfer_kv_cache) `Mooncake transfer failed for request %s`, newer
    // `Mooncake transfer failed for request. remote_request_id=%s, ret=%d.`: a request is being handled, none
    // answered yet (the label rules: ready). The request fails; the server keeps running.
    id: 'kv_transfer_request',
    kind: 'ready',
    phase: 'ready',
    lit: 'for request',
    re: /^(?:Failed to transfer KV cache|Mooncake transfer failed) for request(?: \S+|\. remote_request_id=)/,
  },
  {
    // entrypoints/llm.py LLM._run_engine (offline `LLM.generate`): its tqdm bar `Processed prompts: N%|…| a/b
    // [… est. speed input: … toks/s, output: … toks/s]` runs while the engine steps batches
    id: 'offline_generate',
    kind: 'serving',
    phase: 'serving',
    lit: 'Processed prompts',
    re: /^Processed prompts: +\d+%/,
  },
  {
    id: 'spec',
    kind: 'serving',
    phase: 'serving',
    lit: 'SpecDecoding metrics',
    re: /^SpecDecoding metrics:/,
  },
  // hang hints
  {
    id: 'shm_wait',
    kind: 'stall_hint',
    lit: 'shared memory broadcast',
    re: /No available shared memory broadcast block found in \d+ seconds?/,
  },
  // failures with a definite class
  {
    // V0 worker/worker.py raise_if_cache_size_invalid (initialize_cache, after the profile run) and V1
    // v1/core/kv_cache_utils.py check_enough_kv_cache_memory: raised once the KV cache is sized
    id: 'no_cache_memory',
    kind: 'failure',
    failure: 'oom',
    phase: 'kv_cache',
    lit: 'cache blocks',
    re: /No available memory for the cache blocks/,
  },
  {
    id: 'max_len_kv',
    kind: 'failure',
    failure: 'oom',
    phase: 'kv_cache',
    lit: 'KV cache',
    re: /KV cache is needed, which is larger than the available KV cache memory|is larger than the maximum number of tokens that can be stored in KV cache/,
  },
  {
    // v1/worker/gpu_worker.py Worker.determine_available_memory logs `Available KV cache memory: %.2f GiB`; below
    // zero (the weights and activations took more than gpu_memory_utilization allows) the KV-cache check that
    // follows (v1/core/kv_cache_utils.py check_enough_kv_cache_memory, `No available memory for the cache
    // blocks`) always raises: the failure is decided on this line, whatever the cut traceback after it shows
    id: 'negative_kv_memory',
    kind: 'failure',
    failure: 'oom',
    phase: 'kv_cache',
    lit: 'Available KV cache memory: -',
    re: /^Available KV cache memory: -[\d.]+ ?GiB/,
  },
  {
    // v1/worker/gpu_worker.py Worker.init_device (2025-09), v1/worker/utils.py request_memory (newest): `Free
    // memory on device [cuda:0 ](%s/%s GiB) on startup is less than desired GPU memory utilization (%s, %s GiB).`,
    // raised while the worker takes its device, before any weight loads (dist_init). The sentence is read up to
    // `is less than`: a comment or a narrow terminal wraps the rest onto the next line.
    id: 'free_memory',
    kind: 'failure',
    failure: 'oom',
    phase: 'dist_init',
    lit: 'Free memory on device',
    re: /Free memory on device (?:\S+ )?\([\d.]+\/[\d.]+ GiB\) on startup is less than/,
  },
  {
    id: 'load_oom',
    kind: 'failure',
    failure: 'oom',
    lit: 'not enough GPU memory',
    re: /Failed to load model - not enough GPU memory/,
  },
  {
    id: 'max_len_config',
    kind: 'failure',
    failure: 'config_error',
    lit: 'max_model_len',
    re: /User-specified max_model_len \(\d+\) is greater than the derived max_model_len/,
  },
  {
    id: 'arch_unsupported',
    kind: 'failure',
    failure: 'unsupported',
    lit: 'not supported for now',
    re: /Model architectures \[[^\]]*\] are not supported for now/,
  },
  {
    // V0 worker/worker_base.py WorkerWrapperBase.execute_method: `Error executing method %r. This might cause
    // deadlock in distributed execution.`, and executor/multiproc_worker_utils.py _run_worker_process:
    // `Exception in worker %s while processing method %s: %s, %s` (later without the message): the method names
    // the step that failed; the traceback (or the message) follows
    id: 'method_failed_kv',
    kind: 'failure',
    phase: 'kv_cache',
    lit: 'method',
    re: /^(?:Error executing method '?(?:determine_num_available_blocks|initialize_cache)'?\.|Exception in worker \S+ while processing method (?:determine_num_available_blocks|initialize_cache)\b:? ?(.*))/,
  },
  {
    id: 'method_failed_load',
    kind: 'failure',
    phase: 'loading_weights',
    lit: 'method',
    re: /^(?:Error executing method '?load_model'?\.|Exception in worker \S+ while processing method load_model\b:? ?(.*))/,
  },
  {
    id: 'method_failed_dist',
    kind: 'failure',
    phase: 'dist_init',
    lit: 'method',
    re: /^(?:Error executing method '?(?:init_device|init_worker)'?\.|Exception in worker \S+ while processing method (?:init_device|init_worker)\b:? ?(.*))/,
  },
  {
    id: 'ready_timeout',
    kind: 'failure',
    failure: 'timeout',
    lit: 'Timed out waiting for engine',
    re: /Timed out waiting for engine core processes to start/,
  },
  {
    // V0 engine/multiprocessing/engine.py MQLLMEngine.start (v0.6.x–0.8.x): `logger.exception(repr(e))`, an
    // ERROR line holding the exception's repr, `RuntimeError('CUDA error: …\n…')`, before its traceback.
    id: 'exception_repr',
    kind: 'failure',
    lit: "('",
    re: /^((?:\w+\.)*[A-Z]\w*(?:Error|Exception)\(['"].*)$/,
  },
  {
    // Gaudi: the Habana PyTorch bridge (habana_frameworks.torch, lazy mode) raises RuntimeError with the device
    // runtime's own report, `[Rank:%d] FATAL ERROR :: MODULE:PT_LAZY Error, …` (PT_BRIDGE, PT_SYNHELPER, … name
    // the bridge's module), which V0 engine/multiprocessing/engine.py run_mp_engine logs (`logger.exception(e)`)
    // before its traceback: a failure of the device runtime, as a CUDA error is on a GPU
    id: 'habana_fatal',
    kind: 'failure',
    failure: 'cuda_error',
    lit: 'FATAL ERROR :: MODULE:',
    re: /\[Rank:\d+\] FATAL ERROR :: MODULE:\w+ /,
  },
  {
    // The same report when the worker's error names the start of a graph capture: torch's CUDAGraph.capture_begin
    // (torch/cuda/graphs.py; torch_npu's NPUGraph.capture_begin, whose ACL call is `aclmdlRICaptureBegin`), which
    // the runner reaches only in its graph capture (GPUModelRunner.capture_model; vllm-ascend's ACL graph mode):
    // the worker failed capturing graphs
    id: 'worker_failed_capture',
    kind: 'failure',
    phase: 'cuda_graph',
    lit: 'Worker failed with error',
    re: /Worker failed with error '(.*?(?:capture_begin|CaptureBegin).*?)(?:', please check the stack trace above|$)/,
  },
  {
    id: 'worker_failed',
    kind: 'failure',
    lit: 'Worker failed with error',
    // v1/executor/multiproc_executor.py WorkerProc.wait_for_ready: `raise RuntimeError(f"Worker failed with error
    // '{e}', please check the stack trace above for the root cause")`; an error text of several lines (torch_npu's
    // CANN errors) leaves the first line without the closing words
    re: /Worker failed with error '(.*?)(?:', please check the stack trace above|$)/,
  },
  // consequences
  {
    id: 'engine_failed',
    kind: 'consequence',

    re: /^EngineCore failed to start\.|^EngineCore encountered a fatal error\.|Engine core initialization failed\. See root cause above|^AsyncLLM output_handler failed\.|EngineDeadError|EngineCore encountered an issue|^Engine background task failed|Engine loop is not running|Engine process \(pid \d+\) died|MQEngineDeadError|^Engine loop has died/,
  },
  {
    // v1/engine/core_client.py MPClient.start_engine_core_monitor: `Engine core proc %s died unexpectedly,
    // shutting down client.` (2025), `[shutdown] MPClient: engine core exited unexpectedly; starting cleanup`
    // (newest). MPClient.__init__ starts this monitor only once every engine core has sent its ready message
    // (after its KV cache and graphs): the core died in its busy loop, which the frames read as serving
    // (frames/vllm.ts core.py run_busy_loop), a consequence whose cause its own lines print.
    id: 'engine_core_died',
    kind: 'consequence',
    phase: 'serving',
    lit: 'nexpectedly',
    re: /^Engine core proc \S+ died unexpectedly|^\[shutdown\] MPClient: engine core exited unexpectedly/,
  },
  {
    id: 'worker_failed_generic',
    kind: 'consequence',
    lit: 'Worker',
    re: /^WorkerProc (?:hit an exception|failed to start|failed)\.|WorkerProc initialization failed due to an exception in a background process|^Worker proc \S+ died unexpectedly|^Worker \S+ pid \d+ died, exit code|RayWorkerWrapper.*(?:died|Error)/,
  },
  // shutdown
  {
    // entrypoints/launcher.py serve_http: `Shutting down FastAPI HTTP server.` (V0 and early V1) and the newest
    // `[shutdown] API server: …` lines. serve_http runs only once the engine is up and uvicorn serves, so
    // these lines also say the server had been ready (a paste holding only its shutdown)
    id: 'http_shutdown',
    kind: 'shutdown',
    phase: 'ready',
    lit: 'Shutting down FastAPI HTTP server',
    re: /^Shutting down FastAPI HTTP server\./,
  },
  {
    id: 'http_shutdown_structured',
    kind: 'shutdown',
    phase: 'ready',
    lit: '[shutdown] API server: ',
    re: /^\[shutdown\] API server: /,
  },
  {
    id: 'shutdown',
    kind: 'shutdown',

    // `WorkerProc was terminated`: v1/executor/multiproc_executor.py WorkerProc.worker_main, on the SIGTERM/SIGINT
    // the executor or Ctrl-C sends (after an engine failure the failure has already been read)
    re: /^Shutting down Fas|^WorkerProc was terminated$|^Shutdown initiated \(timeout=|^Shutdown complete$|^EngineCore exiting|^Aborting \d+ requests|^Draining \d+ in-flight requests/,
  },
  {
    // uvicorn's own stop (uvicorn/server.py Server._serve: startup, main_loop, then shutdown() `Shutting down`,
    // the lifespan's `Waiting for application shutdown.` / `Application shutdown complete.`, then `Finished server
    // process [%d]`; a failed startup returns before any of them), and vLLM's serve_http starts uvicorn only once
    // the engine is up: these lines say the server had been ready, even in a paste that begins with them
    id: 'uvicorn_shutdown',
    kind: 'shutdown',
    phase: 'ready',
    lit: 'INFO:',
    re: /^INFO: +(?:Shutting down$|Waiting for application shutdown|Application shutdown complete|Finished server process)/,
  },
  {
    // newest vLLM's structured teardown (v1/engine/core.py _handle_shutdown, entrypoints/launcher.py serve_http,
    // core_client.py MPClient.shutdown); "engine core exited unexpectedly" is a consequence (above), not a stop
    id: 'shutdown_structured',
    kind: 'shutdown',
    lit: '[shutdown] ',
    re: /^\[shutdown\] (?!MPClient: engine core exited unexpectedly)(?:EngineCore|API server|MPClient|Executor): /,
  },
  ...argparseSignatures('vllm(?: serve)?|api_server\\.py'),
];

export const vllm: EngineModule = {
  id: 'vllm',
  detect: vllmEvidence,
  signatures,
  sample(sig, m) {
    if (sig.id !== 'stats') return null;
    return {
      promptTps: num(m[1]),
      genTps: num(m[2]),
      running: num(m[3]),
      queued: num(m[4]),
      kvUsage: m[5] === undefined ? null : Number(m[5]) / 100,
    };
  },
  raises: [
    {
      // distributed/device_communicators/shm_broadcast.py MessageQueue.acquire_read: `raise RuntimeError("cancelled")`
      // once the queue is shutting down, which the executor does when a worker died (v1/executor/multiproc_executor.py
      // start_worker_monitor: `Worker proc %s died unexpectedly, shutting down executor.`): a consequence.
      type: /^RuntimeError$/,
      message: /^cancelled$/,
      failure: 'other',
    },
  ],
  hints: {
    oom: 'lower --gpu-memory-utilization or --max-model-len / --max-num-seqs, raise --tensor-parallel-size, or check nvidia-smi for another process holding GPU memory',
    nccl: 'check NCCL_SOCKET_IFNAME / NCCL_IB_* and that all ranks can reach each other; rerun with NCCL_DEBUG=INFO',
    cuda_error:
      'rerun with CUDA_LAUNCH_BLOCKING=1 and --enforce-eager to locate the kernel; check the GPU architecture is supported by this build',
    port_in_use: 'another process holds the port: `ss -ltnp | grep PORT`, stop it or pass a different --port',
    model_not_found: 'check the model path exists on every node (or the repo id and HF_TOKEN)',
    config_error: 'fix the argument named in the error (`vllm serve --help`)',
    timeout:
      'the engine did not answer in time: check the engine processes with `py-spy dump --pid <EngineCore pid>`; raise VLLM_ENGINE_READY_TIMEOUT_S for long warm-ups',
    killed: 'a process was killed (often the host OOM killer): `dmesg -T | grep -i -E "oom|killed"`',
    unsupported:
      'the model or option is not supported by this vLLM build; check the supported-models list or upgrade',
    python_exception: 'read the traceback above the evidence line; search the vLLM issues for the exception',
    'stalled:loading_weights':
      'shards stopped arriving: check the filesystem holding the checkpoint and `py-spy dump --pid <Worker_TP0 pid>`',
    'stalled:dist_init':
      'ranks are waiting for each other: check every node is up and NCCL_DEBUG=INFO output',
    'stalled:compile':
      'torch.compile can take minutes; if the GPUs are idle and CPU time is not moving, `py-spy dump --pid <Worker pid>`',
    'stalled:cuda_graph':
      'graph capture is hung: `py-spy dump --pid <Worker pid>`; retry with --enforce-eager to confirm',
    'stalled:warmup': 'the engine is up but the API server is not: `py-spy dump --pid <APIServer pid>`',
  },
  silentBudget: {
    args: 180,
    dist_init: 600,
    loading_weights: 300,
    weights_loaded: 300,
    compile: 900,
    kv_cache: 300,
    cuda_graph: 600,
    warmup: 120,
  },
};
