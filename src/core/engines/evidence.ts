/**
 * How strongly one line says which engine wrote the log, by kind of evidence. The weights make the specific
 * kinds win over many lines of a shape others share: a `[date time]` stamp or a python-logging line says
 * little, a path inside the engine's package, a milestone only that engine prints, or its config dump says a
 * lot. Generic lines (python logging, uvicorn, ISO stamps, `[date time]` without rank tags) vote 0 or 1.
 */
import { GatedPattern } from '../base/gated-pattern.js';
import type { LogLine } from '../base/types.js';

export const WEIGHT = {
  /** A stamp shape the engine prints but others may too (`[date time]`). */
  weakFrame: 1,
  /** The engine's own line grammar (vLLM `LEVEL MM-DD ts [file:N]`, SGLang `[ts TPn]`, TGI `…Z LEVEL target:`). */
  frame: 2,
  /** The engine's package in a path or module name (traceback frames, command lines, imports). */
  path: 4,
  /** vLLM's package paths: SGLang up to 0.4 imports vLLM's layers and distributed code, so its tracebacks hold them. */
  sharedPath: 3,
  /** A milestone line only this engine prints, or its worker process names. */
  milestone: 6,
  /** Its config dump, version banner or launcher command: says the engine by itself. */
  config: 12,
} as const;

// SGLang: `server_args=ServerArgs(` (srt/server_args.py, printed by launch_server), the launch commands
// (`python -m sglang.launch_server`, `sglang serve` — research/engine-source sglang.json), the ready line
// (srt/entrypoints/http_server.py), and the router (`sglang_router`, the Rust router's `[Router (Rust)]` prefix).
const SG_CONFIG = new GatedPattern(
  /^server_args=ServerArgs\(|sglang\.launch_server|\bsglang serve\b|fired up and ready to roll|sglang_router|\[Router \(Rust\)\]/,
);
// Milestones printed by srt/managers/scheduler.py, srt/model_executor/model_runner.py and cuda_graph_runner.py
// (tqdm `Capturing batches (bs=… avail_mem=…)`, `Capturing num tokens (num_tokens=…)`); v0.1.x-v0.2.x's
// `Rank N: load weight begin.` (managers/router/model_runner.py) and `Rank N: max_total_num_token=…`
// (managers/router/model_rpc.py); argparse's usage line for launch_server.py (server_args.py add_cli_args
// makes --model-path the first required option); v0.4.x cuda_graph_runner.py's older bar description
// `Capturing batches ({avail_mem=:.2f} GB)` (before bs= joined it); distributed/device_communicators/pynccl.py
// PyNcclCommunicator.__init__ `sglang is using nccl==%s` (vLLM's twin says `vLLM is using nccl==`);
// entrypoints/openai/serving_chat.py OpenAIServingChat.__init__ `Using default chat sampling params from model
// generation config: {…}` as the HTTP server starts (vLLM's serving_chat.py says `… params from model: {…}`).
const SG_MILESTONE =
  /^(?:Decode|Prefill) batch[.,]|^Using default chat sampling params from model generation config: |^Load weight (?:begin|end)\.|^Memory pool end\.|^Capture cuda graph|^Init torch distributed begin\.|^max_total_num_tokens=|^Scheduler hit an exception|^new fill batch\.|^Capturing (?:batches \((?:bs=|avail_mem=)|num tokens \(num_tokens=)|^sglang is using nccl==|^KV Cache is allocated\.|^Rank \d+: (?:load weight (?:begin|end)\.|max_total_num_token=\d+, max_prefill_num_token=)|^usage: launch_server\.py \[-h\] --model-path/;
// The package in a path (`…/sglang/srt/managers/scheduler.py`), a module name (`sglang.srt.…`), its kernels,
// and a path cut at the left by a paste (`srt/managers/…`; vLLM has no `srt/` package); the `sglang` command's
// frame (the `sglang` console script, sglang/cli/main.py main for `sglang serve`: `File "…/bin/sglang", line 8`).
const SG_PATH = new GatedPattern(
  /\/sglang\/|\/bin\/sglang["']|\bsglang\.srt\b|sglang::|sgl_kernel|sgl-workspace|(?:^|[\s"'/])srt\/(?:managers|model_executor|model_loader|mem_cache|entrypoints|layers|distributed|utils)\//,
);

// uvicorn's own lifecycle lines (uvicorn/server.py Server.startup/shutdown, lifespan/on.py: `Started server process
// [%d]`, `Waiting for application startup.`, `Application startup complete.`, `Uvicorn running on %s`, …) under a
// `[date time]` stamp: any Python server that gives uvicorn's loggers its own format prints them so (SGLang's carry
// uvicorn's `INFO:     ` level prefix as well), so the stamp says nothing of SGLang there.
const UVICORN_LIFECYCLE =
  /^(?:INFO: +)?(?:Started server process \[\d+\]|Waiting for application (?:startup|shutdown)\.|Application (?:startup|shutdown) complete\.|Uvicorn running on |Shutting down$|Finished server process)/;

export function sglangEvidence(line: LogLine): number {
  const m = line.msg;
  if (SG_CONFIG.test(m)) return WEIGHT.config;
  if (SG_MILESTONE.test(m)) return WEIGHT.milestone;
  if (SG_PATH.test(line.text)) return WEIGHT.path;
  if (line.frame === 'sglang') return WEIGHT.frame;
  if (line.frame === 'bracket' && line.ts !== null && line.ts > 1e8 && !UVICORN_LIFECYCLE.test(m))
    return WEIGHT.weakFrame;
  return 0;
}

// vLLM: `non-default args: {` (entrypoints/utils.py log_non_default_args), the version banner and
// `vLLM API server version` (entrypoints/openai/api_server.py), `Initializing a V1 LLM engine (v…)` /
// `Initializing an LLM engine (v…)` (v1/engine/core.py, engine/llm_engine.py), the stats line
// (v1/metrics/loggers.py), and the launch commands (`vllm serve`, `-m vllm.entrypoints.openai.api_server`).
const VL_CONFIG = new GatedPattern(
  /^non-default args: \{|^vLLM (?:API )?server version|LLM engine \(v|[█▀▄]\s+version\s+\S+|Avg prompt throughput: .* Avg generation throughput|\bvllm serve\b|-m vllm\.entrypoints\./,
);
// Milestones only vLLM prints (research/engine-source vllm.json): the capture bar `Capturing CUDA graphs ({}, {})`
// (v1/worker/gpu_model_runner.py), `Starting vLLM API server %d on %s`, `Model loading took %s GiB`,
// `Available KV cache memory: %s GiB`, `Graph capturing finished in %.0f secs`, the worker's start-up memory
// check (v1/worker/gpu_worker.py Worker.init_device, v1/worker/utils.py request_memory): `Free memory on device
// (%s/%s GiB) on startup is less than desired GPU memory utilization`.
const VL_MILESTONE = new GatedPattern(
  /^Capturing CUDA graphs \(|^Starting vLLM API server|^Model loading took [\d.]+ GiB|^Available KV cache memory: |^Graph capturing finished in \d|Free memory on device (?:\S+ )?\([\d.]+\/[\d.]+ GiB\) on startup is less than/,
);
// vLLM's worker process names (v1/executor/multiproc_executor.py, v1/engine/core.py, Ray workers: 0.2–0.3's
// engine/ray_utils.py RayWorkerVllm, later RayWorkerWrapper, vllm-ascend's NPURayWorkerWrapper); the engine core
// process was `EngineCore_{index}` (v1/engine/core_client.py BackgroundProcHandle's process_name, 2025) before
// `EngineCore_DP{index}`.
const VL_TAGS =
  /^(?:APIServer|ApiServer_\d+|EngineCore(?:_DP\d+|_\d+)?|Worker(?:_[A-Z]+\d+)*|VllmWorker(?:Process)?|(?:NPU)?RayWorkerWrapper|RayWorkerVllm)$|^VllmWorker /;
// The package in a path or module name, vLLM's own logger file names, and cut paths of the v1 package; the
// `vllm` command's own frame, the outermost of a traceback it prints (setup.py's console script `vllm`, at
// vllm/scripts.py main, later vllm/entrypoints/cli/main.py main: `File "…/bin/vllm", line 8, in <module>`, and
// setuptools' older wrapper script `load_entry_point('vllm==0.7.3', 'console_scripts', 'vllm')`).
const VL_PATH =
  /\/vllm\/|\/bin\/vllm["']|load_entry_point\(["']vllm==|vllm\.(?:entrypoints|v1|engine|worker|model_executor)|\[(?:core|api_server|gpu_model_runner|default_loader|kv_cache_utils|loggers|gpu_worker|parallel_state)\.py:\d+\]|(?:^|[\s"'/])v1\/(?:engine|worker|executor|core|sample|attention)\/|^vllm\/(?:engine|entrypoints|v1|worker|executor|model_executor|distributed|config)\/\w+\.py"/;

// vLLM's import-time line (platforms/__init__.py resolve_current_platform_cls_qualname, logged when the package is
// first imported: `Automatically detected platform cuda.`) is printed by every program that imports vLLM, in vLLM's
// logger format: SGLang up to 0.4 (its layers and distributed code are vLLM's), Xinference's workers. It says vLLM
// is installed, not that vLLM is the server.
const VL_IMPORT_LINE = /^Automatically detected platform /;

export function vllmEvidence(line: LogLine): number {
  const m = line.msg;
  if (VL_CONFIG.test(m)) return WEIGHT.config;
  if (line.tags && VL_TAGS.test(line.tags)) return WEIGHT.milestone;
  if (VL_MILESTONE.test(m)) return WEIGHT.milestone;
  if (VL_PATH.test(line.text)) return WEIGHT.sharedPath;
  if (line.frame === 'vllm') return VL_IMPORT_LINE.test(m) ? WEIGHT.weakFrame : WEIGHT.frame;
  return 0;
}

// TGI's crate and module names (launcher, router, the python shard server).
// (`text_generation_client` is the router's gRPC client crate before 3.x; `text-generation-server` is the shard's command and its socket path: `/tmp/text-generation-server-0`)
// Its image, `ghcr.io/huggingface/text-generation-inference`: in a `docker run` command and in the shard's own
// errors (server/text_generation_server/models/__init__.py FLASH_ATT_ERROR_MESSAGE: `Use the official Docker image
// (ghcr.io/huggingface/text-generation-inference:latest) or install flash attention with …`).
const TGI_NAME = new GatedPattern(
  /ghcr\.io\/huggingface\/text-generation-inference\b|text_generation_launcher|text_generation_router|text_generation_client|text-generation-launcher|text_generation_server|text-generation-server\b/,
);
// TGI's compact tracing frame carries span names and a target before the message (research/vllm-and-peers.md):
// an ISO stamp and a level alone do not make a TGI line (container runtimes print the stamp).
const TGI_TARGET = /^(?:[\w-]+(?:\{[^}]*\})?: )*\w+(?:::\w+)*: /;
// tower-http's TraceLayer events (`tower_http::trace::on_failure: response failed …`): TGI's router adds no
// TraceLayer (router/src/server.rs: extensions, OtelAxumLayer, a body limit, CORS), Dynamo's frontend does (lib/llm/src/http/service/
// service_v2.rs): another Rust server's line, not TGI's. So are Dynamo's own crates' (lib/runtime `dynamo_runtime::…`,
// lib/llm `dynamo_llm::…`) and its Python binding's (lib/bindings/python, the module `dynamo._core`: `_core: Registered
// base model …`), which a Dynamo worker prints around the SGLang or vLLM engine it runs
const NOT_TGI_TARGET = /^(?:[\w-]+(?:\{[^}]*\})?: )*(?:tower_http::|dynamo_\w+::|_core: )/;

// The router's request span (router/src/server.rs: `#[instrument(fields(parameters = ?req.parameters, …))]` on its
// generate handlers) prints the request's `GenerateParameters { best_of: …` struct: TGI's router says so by itself
// (its relatives LoRAX and TEI name themselves by their crates, engines/generic.ts PROGRAMS)
const TGI_REQUEST_SPAN =
  /\b(?:generate|generate_stream|compat_generate|chat_completions|completions)\{parameters=GenerateParameters \{/;

// launcher/src/env_runtime.rs Env's Display (`--env`, and at every start under `Runtime environment:`): the image's
// label, `Docker label: sha-{7 hex}` (the Dockerfile's DOCKER_LABEL build arg), on the line after `Commit sha: `
const TGI_ENV_LABEL = /^Docker label: sha-[0-9a-f]{7,}$/;

// transformers' configuration_utils PretrainedConfig.from_dict warns `You are using a model of type {checkpoint's} to
// instantiate a model of type {cls.model_type}. …` when they differ; TGI's own config classes (server/
// text_generation_server/models/custom_modeling: flash_llama_modeling.py LlamaConfig, flash_rw_modeling.py RWConfig
// in 1.0, …) subclass PretrainedConfig without a model_type, so its shard's from_pretrained names none: `… to
// instantiate a model of type . …`. The engines' own configs (vLLM's transformers_utils/configs) name theirs.
const TGI_UNTYPED_CONFIG = /^You are using a model of type \w+ to instantiate a model of type \. /;

// launcher/src/main.rs: `fn main() -> Result<(), LauncherError>`, so an error ends the launcher with Rust's
// `Error: {:?}` of its LauncherError variant (`Error: ShardCannotStart`, `Error: ArgumentValidation("…")`): the
// launcher's last line names TGI when an excerpt holds nothing else of it (LoRAX, a fork, names itself apart:
// engines/generic.ts PROGRAMS)
const TGI_LAUNCHER_ERROR =
  /^Error: (?:ShardCannotStart|ShardDisconnected|ShardFailed|WebserverFailed|WebserverCannotStart|DownloadError|(?:ArgumentValidation|NotEnoughCUDADevices)\(")/;

export function tgiEvidence(line: LogLine): number {
  if (TGI_NAME.test(line.text)) return 8;
  if (line.msg.startsWith('Error: ') && TGI_LAUNCHER_ERROR.test(line.msg)) return WEIGHT.milestone;
  if (line.msg.startsWith('You are using a model') && TGI_UNTYPED_CONFIG.test(line.msg)) return WEIGHT.path;
  if (line.msg.includes('GenerateParameters {') && TGI_REQUEST_SPAN.test(line.msg)) return WEIGHT.milestone;
  if (line.msg.startsWith('Docker label: ') && TGI_ENV_LABEL.test(line.msg)) return WEIGHT.milestone;
  if (line.frame === 'tgi' && TGI_TARGET.test(line.msg) && !NOT_TGI_TARGET.test(line.msg))
    return WEIGHT.frame;
  return 0;
}
