/**
 * Groups a Python traceback, printed over many lines (each possibly carrying a logger prefix), into one
 * exception event: its type, message, rank, first line and the line that names the exception.
 */

import { classifyExceptionType, classifyFailureText } from '../base/failure-class.js';
import type { FailureClass, LogLine, Phase } from '../base/types.js';
import { phaseRank } from '../base/types.js';
import { cutCallClass, cutFrameClass } from '../engines/frames/cut-class.js';
import {
  type FrameEngine,
  type FramePhase,
  frameEngine,
  lookupCall,
  lookupFrame,
  PARTIAL_FRAME_TABLES,
} from '../engines/frames/index.js';
import { textBeforeMessage } from '../lines/prefix.js';

/**
 * Fallback for frames the engine-source catalog does not cover (TGI, TensorRT-LLM, versions before the
 * catalog's, cut paths): function and module names that tell which startup step was running.
 */
const FRAME_PHASES: Array<[Phase, RegExp]> = [
  [
    'args',
    /create_engine_config|from_cli_args|ServerArgs|EngineArgs|VllmConfig|ModelConfig|__post_init__|_verify_|parse_args|check_server_args|get_config\b|config\.py/,
  ],
  [
    'dist_init',
    /init_distributed_environment|init_torch_distributed|initialize_model_parallel|init_process_group|ensure_model_parallel_initialized|init_world_group|init_device\b|_init_device/,
  ],
  [
    'loading_weights',
    /load_model|load_weights|huggingface_hub|text_generation_server\/models|weight_utils|model_loader|safetensors|get_model\b|from_pretrained|hf_hub_download|snapshot_download|_load_w|initialize_model\b/,
  ],
  ['weights_loaded', /monitored_barrier/],
  [
    'kv_cache',
    /init_memory_pool|profile_max_num_token|determine_num_available_blocks|determine_available_memory|profile_run|initialize_kv_cache|_initialize_kv_caches|init_kv_cache|get_kv_cache_spec|_get_available_kv|kv_cache_utils|check_enough_kv_cache_memory|init_cache_engine/,
  ],
  ['compile', /torch\/_dynamo|torch\/_inductor|compile_or_warm_up_model|deep_gemm|jit_compile/],
  ['autotune', /autotune|kernel_warmup/],
  [
    'cuda_graph',
    /init_cuda_graphs|init_device_graphs|cuda_graph_runner|CudaGraphRunner|capture_one_batch|capture_model|_capture_cudagraphs|graph_capture|cudagraph/i,
  ],
  ['warmup', /_wait_and_warmup|_execute_server_warmup|warmup_thread/],
];
/** Fallback: frames of a serving loop or request handler. */
const SERVING_FRAME =
  /serving_chat|serving_completion|chat_completion_stream|_process_request|run_batch|event_loop_normal|event_loop_overlap|forward_batch_generation|worker_busy_loop|run_engine_core|engine_step|process_input_sockets|output_handler|run_engine_loop|engine_core_client|async_llm_engine|_handle_request|create_chat_completion|create_completion|\bstep\b|handle_generate_request/;

// CPython's faulthandler (Python/traceback.c dump_frame) prints its stack dump on a fatal signal with no comma
// before `in`: `  File "…/scheduler.py", line 1257 in process_batch_result_decode`.
const FILE_LINE = /^\s*File ["“”'](.*?)["“”'], line \d+,? in (\S+)/;
/** A frame's line less its `  File "` and the start of its path (TracebackTracker.cutFrameHead). */
const CUT_FRAME_HEAD = /^[\w.-]+(?:[/\\][\w.-]+)*\.py["“”'], line \d+, in [\w<>.]+\s*$/;
const FAULTHANDLER_FRAME = /^\s*File ["“”'].*?["“”'], line \d+ in \S+\s*$/;
/**
 * Other libraries' frames that still tell the phase (catalog README §5): torch.compile at work (not the
 * runtime wrappers a compiled model runs through while serving) and CUDA graph capture (not replay).
 */
const GENERIC_FRAMES: Array<[Phase, RegExp]> = [
  [
    'compile',
    /torch\/_(?:dynamo|inductor)\/(?!eval_frame\.py|aot_compile\.py|external_utils\.py|output_code\.py|utils\.py|runtime\/)/,
  ],
  ['cuda_graph', /torch\/cuda\/graphs\.py$/],
  // AWS Neuron: neuronx_distributed trace/model_builder.py (ModelBuilder.trace, HLO generation and compile) and
  // libneuronxla neuron_cc_wrapper.py (runs neuronx-cc): the model is being compiled (vllm-neuron, at load)
  ['compile', /neuronx_distributed\/trace\/|libneuronxla\/neuron_cc_wrapper\.py$/],
];
/**
 * Hugging Face Hub downloads (huggingface_hub, transformers' hub helpers). Their phase is that of what was
 * being fetched (hubFilePhase, HUB_CALLER): every engine reads the model's config.json and tokenizer files
 * while it parses its arguments (vLLM transformers_utils/config.py `get_config`, SGLang hf_transformers_utils.py
 * `get_config`/`get_tokenizer`), before any weight; weight files come down while loading weights (vLLM
 * model_executor/model_loader/weight_utils.py `download_weights_from_hf`, a `snapshot_download`).
 */
const HUB_FRAME = /huggingface_hub\/|transformers\/utils\/hub\.py$/;
const HUB_FN = /^(?:hf_hub_download|snapshot_download|cached_files?)$/;
/**
 * transformers' callers of its hub helpers: config and tokenizer classes (AutoConfig/PretrainedConfig,
 * AutoTokenizer/tokenization_utils_base `from_pretrained`, processors, generation config, remote code) fetch
 * args-time files; modeling_utils `PreTrainedModel.from_pretrained` fetches weights.
 */
const HUB_CALLER: Array<[Phase, RegExp]> = [
  // the engines' own config and tokenizer helpers around the Hub (vLLM transformers_utils/: config.py get_config,
  // repo_utils.py list_repo_files, processor.py, tokenizer*.py; SGLang hf_transformers_utils.py get_config,
  // get_tokenizer): the model's config is read while the arguments are checked. A weight download goes through
  // the model loader's frames (weight_utils.py), which decide before any of these.
  ['args', /\/vllm\/transformers_utils\/[\w/]+\.py$|\/sglang\/srt\/(?:utils\/)?hf_transformers_utils\.py$/],
  [
    'args',
    /transformers\/(?:configuration_utils|tokenization_utils\w*|generation\/configuration_utils|dynamic_module_utils|feature_extraction_utils|image_processing_base|processing_utils|models\/auto\/(?:configuration|tokenization|processing|feature_extraction|image_processing)_auto)\.py$/,
  ],
  ['loading_weights', /transformers\/modeling_utils\.py$/],
];
/** A fetched file named in a message: a Hub URL (`…/resolve/<revision>/<file>`) or transformers' wording. */
const HUB_FILE =
  /\/resolve\/[^/\s]+\/(\S+)|(?:a file named|named|filename[=:]\s*)\s*['"`]?([\w.\-/]+\.(?:json|safetensors|bin|pt|pth|gguf|model|txt|py|tiktoken|jinja))/;
/** Files read with the model's config or tokenizer, at args time. */
const ARGS_FILE =
  /(?:^|\/)(?:(?:generation_|preprocessor_|processor_|tokenizer_|video_preprocessor_)?config\.json|tokenizer\.(?:json|model)|special_tokens_map\.json|added_tokens\.json|vocab\.\w+|merges\.txt|params\.json|chat_template\.\w+|[^/]*\.tiktoken|[^/]*\.py)$/;
/** Weight files (and their shard index). */
const WEIGHT_FILE = /\.(?:safetensors|bin|pt|pth|gguf|ckpt|h5|msgpack|npz)(?:\.index\.json)?$/;

/** The phase of a Hub download of the file a message names, if it names one this can tell. */
export function hubFilePhase(message: string): Phase | null {
  const m = HUB_FILE.exec(message);
  if (!m) return null;
  const file = (m[1] ?? m[2]!).replace(/[.,;:)'"`\]]+$/, '');
  if (WEIGHT_FILE.test(file)) return 'loading_weights';
  if (ARGS_FILE.test(file)) return 'args';
  return null;
}
/** Engines the catalog does not cover: their frames go through the fallback list. */
const OTHER_ENGINE = /(?:^|\/)(?:text_generation_server|tensorrt_llm|lmdeploy)\//;
/** Python's own files and other libraries (torch, asyncio, transformers, huggingface_hub…): not the engine's. */
const OTHER_LIB = /(?:site|dist)-packages\/|\/lib\/python\d[\d.]*\/|^<|\.pyx$/;
/** Functions that run in every phase (a model's forward, decorators, entry points): they tell nothing. */
const ANY_PHASE_FN =
  /^(?:forward|__call__|_call_impl|_wrapped_call_impl|wrapper|inner|_fn|decorate_context|sync_wrapper|<module>|main|run|_run_code|_run_module_as_main)$/;

/**
 * vLLM's model code: the model classes and their layers (model_executor/models/, model_executor/layers/,
 * quantization kernels' wrappers included). A frame there that is not building or loading the model runs its
 * forward pass, and at start-up the first forward is the memory-profiling run that sizes the KV cache (V1
 * v1/worker/gpu_worker.py Worker.determine_available_memory -> GPUModelRunner.profile_run -> _dummy_run; V0
 * worker/worker.py Worker.determine_num_available_blocks -> ModelRunner.profile_run): a traceback that shows
 * no caller above the model's own frames is read there. Weak: a caller frame (capture_model, execute_model
 * while serving) decides, and a launch its own lines placed already keeps its phase (FramePhaseAt.unplaced): one
 * placed in compile is in that same forward pass, one placed earlier may have been cut before the lines that
 * moved it on.
 */
const VLLM_MODEL_CODE = /(?:^|\/)model_executor\/(?:models|layers)\//;
/**
 * Functions of the model code that build it or take its weights in (loading, not a forward pass), or its import
 * (`<module>`).
 */
const MODEL_BUILD_FN =
  /weight|load|^_?(?:create|init|make|build|verify|check|get_quant|setup|register)|^__\w+__$|^<|quant_method|^process_/i;
/**
 * SGLang's model code (srt/models/, srt/layers/; up to 0.4 also vLLM's model_executor layers, read as vLLM's).
 * The weights are loaded before any forward pass (model_executor/model_runner.py ModelRunner.initialize: load_model,
 * then the memory pool, kernel warm-up, CUDA-graph capture, then the scheduler's event loop and the warm-up request):
 * a traceback that shows a model class's forward (srt/models/, a `forward…` function: the model files also hold
 * their construction helpers, `make_layers`' `get_layer`) has got at least that far. Unlike vLLM there is no
 * profiling forward before the KV pool (profile_max_num_token reads free memory), so nothing further is implied.
 * The layers alone (srt/layers/) say nothing of it: they are library code that tools call outside a server too (the
 * fused-MoE kernel tuning scripts under benchmark/kernels/ call fused_moe directly). Weak: a caller frame (capture,
 * run_batch) decides.
 */
const SGLANG_MODEL_CODE = /(?:^|\/)sglang\/srt\/(?:models|layers)\//;
const SGLANG_MODEL_CLASS = /(?:^|\/)sglang\/srt\/models\//;
/**
 * The model class being built: its `__init__` and its layers' (LinearBase.__init__ -> quant_method.create_weights
 * allocates each parameter). The loader constructs the model right before it reads the checkpoint into it (vLLM
 * model_executor/model_loader/utils.py initialize_model, `model_class(vllm_config=…)`; SGLang
 * model_loader/loader.py _initialize_model, and v0.1-0.3 model_runner.py load_model's `model_class(config=…)`):
 * a cut traceback of construction alone is the weight-loading step. Weak, as above.
 */
const MODEL_CONSTRUCT_FN = /^(?:__init__|create_weights)$/;

/**
 * CPython's ctypes on Windows turns a structured exception raised inside the C function it called into an OSError
 * (Modules/_ctypes/callproc.c SetException: `exception: access violation reading 0x…` / `writing`, `exception: stack
 * overflow`, `exception: integer divide by zero`, `exception: illegal instruction`, …, else `exception code 0x…`):
 * the native library crashed, what Linux reports as a segfault and firedup classes as one (common.ts
 * windows_fatal_exception, segfault: other), not an error of the Python code (KoboldCpp and llama-cpp-python call
 * llama.cpp so).
 */
const CTYPES_TYPE = /^(?:OSError|WindowsError)$/;
const CTYPES_NATIVE_CRASH = /^exception(?:: | code 0x)/;

/** A frame's verdict: a phase (weak: only a module-wide catalog glob), a relay frame, or nothing. */
type FrameRead = { phase: FramePhase; weak: boolean; unplaced?: boolean } | 'relay' | null;

function fallbackPhase(text: string): Phase | null {
  let best: Phase | null = null;
  for (const [phase, re] of FRAME_PHASES)
    if (re.test(text) && (best === null || phaseRank(phase) > phaseRank(best))) best = phase;
  return best ?? (SERVING_FRAME.test(text) ? 'serving' : null);
}

/**
 * Reads one frame (`path`, bare function name `fn`): the catalog for SGLang, vLLM, TensorRT-LLM and TGI, then
 * the fallbacks (for TensorRT-LLM and TGI, whose tables are partial, also for a function the table lacks).
 * `outer`: the bare function names of the frames above it in the same traceback, outermost first (a catalog
 * helper that several steps call takes its caller's phase).
 */
export function readFrame(path: string, fn: string, outer: readonly string[] = []): FrameRead {
  const engine = frameEngine(path);
  if (engine !== null) {
    const v = lookupFrame(engine, path, fn, outer);
    if (v.kind === 'phase') return { phase: v.phase, weak: v.weak };
    if (v.kind === 'relay') return 'relay';
    const modelCode =
      (engine === 'vllm' && VLLM_MODEL_CODE.test(path)) ||
      (engine === 'sglang' && SGLANG_MODEL_CODE.test(path));
    if (modelCode && MODEL_CONSTRUCT_FN.test(fn)) return { phase: 'loading_weights', weak: true };
    if (modelCode && !MODEL_BUILD_FN.test(fn)) {
      if (engine === 'vllm') return { phase: 'kv_cache', weak: true, unplaced: true };
      if (SGLANG_MODEL_CLASS.test(path) && /forward/.test(fn)) return { phase: 'weights_loaded', weak: true };
    }
    if (!PARTIAL_FRAME_TABLES.has(engine)) {
      // A function the catalog does not list (another version): its name alone, never its module's.
      const p = ANY_PHASE_FN.test(fn) ? null : fallbackPhase(fn);
      return p ? { phase: p, weak: false } : null;
    }
  }
  const p = path.replace(/\\/g, '/');
  // SGLang's load_model waits on all ranks with a monitored barrier once its weights are in (catalog raise
  // `TP rank … could finish the model loading, but there are other ranks that didn't finish loading`).
  if (fn === 'monitored_barrier' && /torch\/distributed\//.test(p))
    return { phase: 'weights_loaded', weak: false };
  // Calling code compiled or captured earlier (`__call__`, `_fn`, `run`, graph `replay`) is not compiling.
  if (fn !== 'replay' && !ANY_PHASE_FN.test(fn))
    for (const [phase, re] of GENERIC_FRAMES) if (re.test(p)) return { phase, weak: false };
  if (OTHER_LIB.test(p) && !OTHER_ENGINE.test(p)) return null;
  if (ANY_PHASE_FN.test(fn)) return null;
  const f = fallbackPhase(`${p}", in ${fn}`);
  return f ? { phase: f, weak: false } : null;
}

/** A phase a traceback's frames showed, with the frame line that showed it. */
export interface FramePhaseAt {
  phase: Phase;
  no: number;
  ts: number | null;
  text: string;
  /** The phase holds only for a launch whose own lines placed it nowhere yet (VLLM_MODEL_CODE's forward pass). */
  unplaced?: boolean;
}

export interface ExceptionEvent {
  type: string;
  message: string;
  cls: FailureClass;
  line: number;
  text: string;
  startLine: number | null;
  startText: string | null;
  tags: string | null;
  ts: number | null;
  /**
   * The class came from the exception's type alone (`ValueError` → config_error), not from its message: a
   * continuation line that names a class replaces it (TracebackTracker.continued).
   */
  typeOnly: boolean;
  /** Exceptions that end a process normally (Ctrl+C, cancelled requests), not failures. */
  benign: boolean;
  /** The remedies the engine printed after the exception (`Possible solutions:` lists). */
  remedies: string[];
  /** The launch phase the traceback's innermost engine frame shows (init_cuda_graphs → cuda_graph, …). */
  framePhase: Phase | null;
  /** framePhase holds only for a launch not placed yet (FramePhaseAt.unplaced). */
  frameUnplaced?: boolean;
  /** Set when the traceback went through a request handler (uvicorn/starlette), which does not kill the server. */
  requestScoped: boolean;
  /**
   * Set when the traceback is an HTTP client's failing to reach a server (see CLIENT_FRAME): a script's or
   * benchmark's paste next to the server log, not the server's failure.
   */
  client: boolean;
  /**
   * Set when the exception is an HTTP error answer (HTTP_ANSWER): the handler refused or failed one request and
   * the web framework answered it with the status; the server goes on.
   */
  httpAnswer: boolean;
}

/**
 * FastAPI's and Starlette's `HTTPException` (fastapi/exceptions.py subclasses starlette/exceptions.py's): what a
 * request handler raises to answer with an error status; Starlette's ExceptionMiddleware turns it into that
 * response (`fastapi.exceptions.HTTPException: 500: …` is printed when the handler's own code logs it or it ends a
 * streamed response). One request's error, never the server's end.
 */
const HTTP_ANSWER = /(?:^|\.)HTTPException$/;

/**
 * pydantic's `ValidationError` (vLLM's configs are pydantic dataclasses since 0.10: vllm/config/utils.py `config`
 * wraps `pydantic.dataclasses.dataclass`, so a `ValueError` raised in `__post_init__` reaches the log wrapped).
 */
const PYDANTIC_ERROR = /^(?:pydantic(?:_core)?\.)?(?:_pydantic_core\.)?ValidationError$/;
/** pydantic's line for a wrapped error: `  Value error, <message> [type=value_error, …]`. */
const PYDANTIC_WRAPPED = /^\s+(Value|Assertion) error, (.+?)(?:\s+\[type=\w+(?:,.*)?\]?)?\s*$/;
/**
 * The continuation window: how many lines after an exception line, and how many characters in all, may carry on
 * its message (a multi-line `str(exc)`: Triton's `PTXASError` with ptxas' stderr, NCCL's `Last error:` lines).
 */
const CONT_LINES = 6;
const CONT_CHARS = 4096;
/**
 * Lines that end a message's continuation: frames, chaining, remedies (hints, not causes), ASGI headers, and lines
 * that are records of their own: warnings (Python's `…Warning:`, c10's `[rank0]:[W812 04:47:26.79 …]`, glog's
 * `W0812 04:47:26.79 …`).
 */
const CONT_END =
  /^\s*File ["“”']|^\[rank\d+\]:|^\[?[WEIF]\d{4} \d\d:\d\d|^\w*Warning\b|^WARNING\b|^(?:The above exception was the direct cause|During handling of the above exception)|^\s*\d\.\s|^Possible solutions|Exception in ASGI application|Exception in callback|Error in ASGI/;
// Python's header (traceback.c / traceback.py: `Traceback (most recent call last):`); a paste cut in the middle
// of its last words (`Traceback (most recent call las`) still shows a traceback being printed
const TB_START =
  /Traceback \(most recent call(?: l(?:a(?:st?)?)?)?$|Traceback \(most recent call last\):?\s*$/;
const FRAME =
  /^(?:\s|\^|~|File ["“”']|\.\.\.<\d+ lines>\.\.\.|During handling of the above exception|The above exception was the direct cause|\s*\+[- ]|\s*\|)/;
// OutOfResources: Triton's (triton/runtime/errors.py), whose name ends in no Error
const EXCEPTION =
  /^((?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Fault|Failure|Dead\w*|Timeout)\w*|Exception|KeyboardInterrupt|SystemExit|StopIteration|CancelledError|OutOfResources))(?::\s?(.*))?$/;
const BENIGN =
  /^(?:KeyboardInterrupt|SystemExit|(?:asyncio\.(?:exceptions\.)?)?CancelledError|GeneratorExit|StopIteration|StopAsyncIteration)$/;
/**
 * HTTP client libraries' frames: requests (requests/adapters.py HTTPAdapter.send raises `ConnectionError` from
 * urllib3's `MaxRetryError`), urllib3 (connection.py `_new_conn` raises `NewConnectionError`), httpx/httpcore
 * (`ConnectError`), aiohttp (connector.py `ClientConnectorError`), openai (_base_client.py `_request` raises
 * `APIConnectionError`/`APITimeoutError` from httpx's).
 */
const CLIENT_FRAME =
  /(?:^|\/)(?:requests|urllib3|httpx|httpcore|aiohttp|openai|anthropic|http\/client\.py|socket\.py)/;
/** What those clients raise when no server answers (or it hung up): connection errors and their timeouts. */
const CLIENT_CONNECT_ERROR =
  /(?:^|\.)(?:ConnectionError|ConnectionRefusedError|ConnectionResetError|APIConnectionError|APITimeoutError|ConnectError|ConnectTimeout|ReadTimeout|RemoteProtocolError|MaxRetryError|NewConnectionError|ClientConnectorError|ClientOSError|ServerDisconnectedError|RemoteDisconnected)$/;
/**
 * Frames that make a traceback the server's own, whatever it called: the engines' packages (a server calls
 * HTTP clients too: SGLang's warmup request, http_server.py `_wait_and_warmup`), model downloads (the Hub's
 * `requests` calls, huggingface_hub/file_download.py), Ray.
 */
const SERVER_FRAME =
  /(?:^|\/)(?:sglang|vllm|text_generation_server|tensorrt_llm|lmdeploy|sgl_kernel|ray|huggingface_hub|transformers|modelscope)\//;
const REQUEST_FRAME =
  /starlette|uvicorn\/protocols|fastapi\/routing|Exception in ASGI application|anyio\/_backends/;

/**
 * rich's traceback (rich/traceback.py Traceback._render_stack: a Panel titled `Traceback (most recent call last)`,
 * each frame `{filename}:{lineno} in {name}`, then its code under a `❱ N │` line-number gutter, every line of it
 * inside the panel's `│ … │`), which typer prints for an uncaught exception (typer/main.py except_hook with
 * pretty_exceptions_enable, its default when rich is installed): TGI's shard (server/text_generation_server/cli.py
 * is a typer app) dies with one. Read as Python's own lines: the header, the `File` lines, the code lines.
 */
const RICH_HEADER = /^╭─+ Traceback \(most recent call last\) ─+╮$/;
const RICH_FRAME = /^│ (\S+\.py):(\d+) in (\S+?) *│$/;
const RICH_CODE = /^│ (?:❱ | {2}) *\d+ │(.*?) *│$/;

/**
 * loguru (its _better_exceptions.py ExceptionFormatter, with backtrace=True as TGI's server/text_generation_server/
 * cli.py sets it) marks the frame where the exception was caught by putting `>` for the first space of its `File`
 * line (`> File "…/interceptor.py", line 21, in intercept`): the frame line as Python prints it; null for any other.
 */
function loguruCatchPoint(msg: string): string | null {
  return msg.charCodeAt(0) === 62 /* > */ && msg.startsWith('> File ') ? ` ${msg.slice(1)}` : null;
}

/** A rich traceback's line as Python's plain traceback would print it; null for any other line. */
function plainFromRich(msg: string, open: boolean): string | null {
  const c = msg.charCodeAt(0);
  if (c !== 0x2502 && c !== 0x256d && c !== 0x2570) return null;
  const t = msg.trimEnd();
  if (c === 0x256d) return RICH_HEADER.test(t) ? 'Traceback (most recent call last):' : null;
  const f = RICH_FRAME.exec(t);
  if (f) return `  File "${f[1]}", line ${f[2]}, in ${f[3]}`;
  if (!open) return null;
  // the code (its indent guides are `│` too), the panel's blank and locals lines, its bottom border
  const code = RICH_CODE.exec(t);
  return code ? `    ${code[1]!.replace(/│/g, ' ').trim()}` : '';
}

export class TracebackTracker {
  private open = false;
  private start: number | null = null;
  private startText: string | null = null;
  private tags: string | null = null;
  private sawFrames = false;
  private requestScoped = false;
  /** The traceback (and those chained to it) ran through an HTTP client's frames / through a server's frames. */
  private clientFrames = false;
  private serverFrames = false;
  /** The innermost frame read so far that told a phase (`shutdown` frames tell none). */
  private frame: (Omit<FramePhaseAt, 'phase'> & { phase: FramePhase; weak: boolean }) | null = null;
  /** The step the innermost frame's code line calls (frames/index.ts lookupCall), while no deeper frame came. */
  private call: (Omit<FramePhaseAt, 'phase'> & { phase: FramePhase; weak: boolean }) | null = null;
  /** The engine whose package holds the innermost frame read so far. */
  private frameEngine: FrameEngine | null = null;
  /** Bare function names of the frames read so far in this traceback, outermost first (callers: readFrame). */
  private outer: string[] = [];
  /**
   * Frames of a Hugging Face Hub download (`hf_hub_download`, `cached_file`…) in a traceback whose engine
   * frames told nothing: loading weights only if no traceback of the same chain tells otherwise (a config
   * or tokenizer download while parsing the arguments shows `get_config` in the chained traceback).
   */
  private hub: Omit<FramePhaseAt, 'phase'> | null = null;
  private hubSeen: Omit<FramePhaseAt, 'phase'> | null = null;
  /** What that download was fetching: a file a message named, and transformers' frame that called the Hub. */
  private hubFile: Phase | null = null;
  private hubCaller: Phase | null = null;
  /** The last lines joined this traceback to the one before (`The above exception was the direct cause…`). */
  private chained = false;
  /** A `File "…` line whose path the terminal wrapped: the rest (`…py", line N, in fn`) is on the next line. */
  private partialFile: string | null = null;
  /** Line number of the traceback header seen on the last fed line, if it opened a new traceback. */
  opened = -1;
  private last: ExceptionEvent | null = null;
  private remedyWindow = 0;

  /** Lines after a pydantic `ValidationError` that may still name the error it wraps. */
  private wrapWindow = 0;

  /**
   * The continuation window of the last exception (CONT_LINES lines, CONT_CHARS characters at most): the lines
   * after its `Type: message` line that carry on its message (ptxas' output under Triton's `PTXASError`, NCCL's
   * `Last error:` lines). `contPrefix`: the prefix of the exception line (logger, process, rank; `''` when it had
   * none): each line of one message carries the same (vLLM's formatter prefixes every line of a record, Ray and
   * vLLM's process prefixes every line a process writes), and a line with another is someone else's, which ends
   * the window.
   */
  private contLeft = 0;
  private contChars = 0;
  private contPrefix: string | null = null;

  /**
   * A continuation line of the last exception's message that names a failure class (CONT_LINES), read on the
   * line just fed: the caller takes its class if the exception's own is generic. Reset by every line.
   */
  continued: { ev: ExceptionEvent; cls: FailureClass; text: string } | null = null;

  /**
   * The error a pydantic `ValidationError` wraps, read on the line just fed (`Value error, …`): the caller
   * classifies the exception by it. Reset by every line.
   */
  wrapped: { ev: ExceptionEvent; type: string; message: string } | null = null;

  /** Set while the last line fed was a `File "…"` line of an open traceback (awaitsCode). */
  private fileLast = false;

  /** Feeds one line; returns an exception event when this line names one. */
  feed(line: LogLine): ExceptionEvent | null {
    const msg =
      plainFromRich(line.msg, this.open) ??
      loguruCatchPoint(line.msg) ??
      this.cutFrameHead(line.msg) ??
      line.msg;
    this.fileLast = false;
    this.opened = -1;
    this.wrapped = null;
    this.continued = null;
    this.scopedStart = null;
    const cont = this.contLeft > 0 && this.continuation(line);
    // Any exception of the chain may name the file: a download's first error (`requests…ConnectionError: … url:
    // /org/model/resolve/main/config.json`) comes before the hub's own frames, in the traceback it caused.
    if (
      this.hubFile === null &&
      (this.hub !== null || this.hubSeen !== null || this.open || this.sawFrames || this.chained)
    )
      this.hubFile = hubFilePhase(msg);
    if (this.remedyWindow > 0 && this.last) {
      this.remedyWindow--;
      const r = /^\s*\d\.\s+(.+)$/.exec(msg);
      if (r) {
        this.last.remedies.push(r[1]!.trim());
        return null;
      }
      if (/^Possible solutions:?$/.test(msg.trim())) return null;
    }
    if (this.wrapWindow > 0 && this.last) {
      // pydantic prints the error its validator raised on the lines after `N validation error(s) for X`:
      // `  Value error, <message> [type=value_error, input_value=…]`. That message is the exception's.
      this.wrapWindow--;
      const w = PYDANTIC_WRAPPED.exec(msg);
      if (w) {
        this.wrapWindow = 0;
        this.wrapped = {
          ev: this.last,
          type: w[1] === 'Assertion' ? 'AssertionError' : 'ValueError',
          message: w[2]!,
        };
        return null;
      }
    }
    if (TB_START.test(msg)) {
      if (this.open && this.sawFrames) this.flushFrames();
      else if (!this.open && !this.chained) this.flushHub();
      if (!this.open && !this.chained) this.clientFrames = this.serverFrames = false;
      this.chained = false;
      this.outer = [];
      if (!this.open) {
        this.lastRaise = null;
        this.cutClass = null;
        this.opened = line.no;
        this.frame = null;
        this.call = null;
        this.start = line.no;
        this.startText = line.text;
        this.tags = line.tags;
        this.requestScoped = /Exception in ASGI application/.test(msg);
      }
      this.open = true;
      this.sawFrames = false;
      return null;
    }
    if (/Exception in ASGI application|Exception in callback|Error in ASGI/.test(msg)) {
      this.requestScoped = true;
      this.start = line.no;
      this.startText = line.text;
      return null;
    }
    const m = EXCEPTION.exec(msg);
    if (m && (this.open || this.sawFrames || m[2] !== undefined)) {
      const type = m[1]!;
      const message = (m[2] ?? '').trim();
      const benign = BENIGN.test(type);
      const ev: ExceptionEvent = {
        type,
        message,
        cls:
          (CTYPES_TYPE.test(type) && CTYPES_NATIVE_CRASH.test(message) ? 'other' : null) ??
          classifyExceptionType(type) ??
          classifyFailureText(`${type}: ${message}`) ??
          'python_exception',
        typeOnly: false,
        line: line.no,
        text: line.text,
        startLine: this.start,
        startText: this.startText,
        tags: line.tags ?? this.tags,
        ts: line.ts,
        benign,
        remedies: [],
        requestScoped: this.requestScoped,
        client:
          this.clientFrames &&
          !this.serverFrames &&
          CLIENT_CONNECT_ERROR.test(type) &&
          !/huggingface\.co|hf\.co|hf-mirror/.test(message),
        httpAnswer: HTTP_ANSWER.test(type),
        framePhase: this.frame && this.frame.phase !== 'shutdown' ? this.frame.phase : null,
        frameUnplaced: this.frame?.unplaced === true,
      };
      if (this.frame !== null) this.clearHub();
      else if (this.hubSeen !== null) this.hub = this.hubSeen;
      else if (this.hub === null) this.hubCaller = null;
      this.hubSeen = null;
      this.frame = null;
      this.call = null;
      this.outer = [];
      this.partialFile = null;
      this.open = false;
      this.sawFrames = false;
      this.last = ev;
      this.remedyWindow = 12;
      this.wrapWindow = PYDANTIC_ERROR.test(type) && /^\d+ validation errors? for /.test(message) ? 4 : 0;
      // pydantic's wrapped errors have their own reading (wrapWindow); a benign exception has no cause to name
      this.contLeft = benign || PYDANTIC_ERROR.test(type) ? 0 : CONT_LINES;
      this.contChars = 0;
      this.contPrefix = textBeforeMessage(line);
      ev.typeOnly = ev.cls !== 'python_exception' && classifyFailureText(message) === null;
      return ev;
    }
    if (/^(?:The above exception was the direct cause|During handling of the above exception)/.test(msg))
      this.chained = true;
    if (FRAME.test(msg) || msg === '') {
      if (!this.open && (!this.sawFrames || this.start === null) && /^\s*File ["“”']/.test(msg)) {
        // The file starts (or resumes) inside a traceback whose header is not in the log (maybe after a code
        // line or a blank line of the frame above, which set sawFrames without opening it).
        this.open = true;
        this.lastRaise = null;
        this.cutClass = null;
        this.opened = line.no;
        this.start = line.no;
        this.startText = line.text;
        this.frame = null;
        this.call = null;
        this.outer = [];
      }
      this.sawFrames = true;
      this.fileLast = this.open && /^\s*File ["“”']/.test(msg);
      if (REQUEST_FRAME.test(msg) && !this.requestScoped) {
        // A request handler's traceback: the server was serving, and the request, not the server, failed.
        this.requestScoped = true;
        this.pendingPhase = { phase: 'serving', no: line.no, ts: line.ts, text: line.text };
        this.scopedStart = this.start;
      }
      this.notePhase(msg, line);
      return null;
    }
    if (this.partialFile !== null) {
      // The terminal wrapped the frame's path: `…/vllm/model_exe` + `cutor/warmup/x.py", line 9, in f`.
      const rest = /^\S+["“”'], line \d+,? in \S+\s*$/.exec(msg);
      const head = this.partialFile;
      this.partialFile = null;
      if (rest) {
        this.notePhase(head + rest[0], line);
        return null;
      }
    }
    if (line.framed && !/^(?:ERROR|CRITICAL)/.test(line.msg)) {
      // a continuation in the exception's own record (vLLM's formatter prefixes each line of a record) goes on
      const left = this.contLeft;
      this.reset();
      if (cont) this.contLeft = left;
    }
    return null;
  }

  /**
   * Whether the line carries on the last exception's message (it is within the window: not blank, not a new
   * traceback, frame, exception, remedy or logger record); a line that does not closes the window. Sets
   * `continued` when the line names a failure class.
   */
  private continuation(line: LogLine): boolean {
    const msg = line.msg;
    const prefix = textBeforeMessage(line);
    this.contChars += msg.length;
    if (
      this.last === null ||
      msg.trim() === '' ||
      this.contChars > CONT_CHARS ||
      prefix === null ||
      prefix !== this.contPrefix ||
      TB_START.test(msg) ||
      EXCEPTION.test(msg) ||
      CONT_END.test(msg)
    ) {
      this.contLeft = 0;
      return false;
    }
    this.contLeft--;
    const cls = classifyFailureText(msg);
    if (cls !== null) this.continued = { ev: this.last, cls, text: msg.trim() };
    return true;
  }

  /** Set when frames just showed the open traceback runs through a request handler: its first line. */
  scopedStart: number | null = null;

  /** `raise X(...)` in the innermost frame read so far: names the exception when the file cuts it off. */
  lastRaise: { type: string; text: string } | null = null;

  /**
   * The class the innermost frame read so far shows when the file cuts the traceback before its exception
   * (frames/cut-class.ts; `other` for a faulthandler dump): the caller refines the cut traceback's class by it.
   */
  cutClass: FailureClass | null = null;

  /**
   * A phase for the caller to take: a request handler's traceback (serving), or the innermost frame's phase
   * of a traceback that ended without its exception line (cut by the file or by another line).
   */
  pendingPhase: FramePhaseAt | null = null;

  /**
   * The innermost engine frame wins (issue 10): each frame that tells a phase replaces the one before it,
   * except that a weak one (a module-wide catalog glob) does not replace one an outer frame told.
   */
  private notePhase(msg: string, line: LogLine): void {
    const r = /^\s+raise ((?:\w+\.)*[A-Z]\w*)\((.*)$/.exec(msg);
    if (r) this.lastRaise = { type: r[1]!, text: r[2]! };
    // the innermost frame's code line: the call it was making, in case the file cuts the callee's frame off
    const call = r
      ? null
      : /^\s+(?:[\w.[\]]+(?:, *[\w.]+)* *=\s*)?(?:await\s+|return\s+)?(?:\w+\.)*(\w+)\(/.exec(msg);
    if (call && this.frameEngine !== null && !FILE_LINE.test(msg)) {
      const phase = lookupCall(this.frameEngine, call[1]!);
      this.call = phase === null ? null : { phase, weak: false, no: line.no, ts: line.ts, text: line.text };
      this.cutClass = cutCallClass(this.frameEngine, call[1]!) ?? this.cutClass;
    }
    // vLLM (and SGLang's copy) distributed/device_communicators/pynccl.py PyNcclCommunicator.__init__ reaches NCCL
    // only through pynccl_wrapper.py NCCLLibrary.NCCL_CHECK, `raise RuntimeError(f"NCCL error: {error_str}")`: a
    // traceback cut while constructing the communicator or inside the wrapper names that exception
    if (
      !r &&
      (/^\s+(?:\S.*[=(] *)?(?:PyNcclCommunicator|self\.NCCL_CHECK)\(/.test(msg) ||
        /[\\/]pynccl_wrapper\.py["“”']/.test(msg))
    )
      this.lastRaise = { type: 'RuntimeError', text: 'f"NCCL error: (cut traceback)' };
    this.partialFile = null;
    const f = FILE_LINE.exec(msg);
    if (!f) {
      if (/^\s*File ["“”'][^"“”']+$/.test(msg)) this.partialFile = msg;
      return;
    }
    if (HUB_FRAME.test(f[1]!) || HUB_FN.test(f[2]!))
      this.hubSeen ??= { no: line.no, ts: line.ts, text: line.text };
    for (const [phase, re] of HUB_CALLER) if (re.test(f[1]!)) this.hubCaller = phase;
    if (SERVER_FRAME.test(f[1]!)) this.serverFrames = true;
    else if (CLIENT_FRAME.test(f[1]!)) this.clientFrames = true;
    this.call = null;
    this.frameEngine = frameEngine(f[1]!);
    // Python's faulthandler (traceback.c dump_frame) prints `File "…", line N in fn`, no comma: a dump after a
    // fatal signal (`Fatal Python error: …`) or a timer, no exception: what killed the process is no Python error
    this.cutClass = FAULTHANDLER_FRAME.test(msg)
      ? 'other'
      : this.frameEngine === null
        ? null
        : cutFrameClass(this.frameEngine, f[1]!, f[2]!);
    const v = readFrame(f[1]!, f[2]!, this.outer);
    this.outer.push(f[2]!);
    if (v === null || v === 'relay' || (v.weak && this.frame !== null)) return;
    this.frame = {
      phase: v.phase,
      weak: v.weak,
      no: line.no,
      ts: line.ts,
      text: line.text,
      unplaced: v.unplaced,
    };
  }

  /**
   * A frame line whose head the paste cut (the copy began inside the path: `lmdeploy/turbomind/turbomind.py", line
   * 147, in _create_weight_func`), as Python's traceback.py FrameSummary prints it (`  File "%s", line %d, in %s`)
   * less its opening: the frame's line restored, so its path and function still tell the phase. Not while a
   * wrapped path waits for its rest (partialFile), which such a line completes.
   */
  private cutFrameHead(msg: string): string | null {
    if (this.partialFile !== null || !CUT_FRAME_HEAD.test(msg)) return null;
    return `  File "${msg}`;
  }

  /** A traceback ended without its exception line: its frames' phase goes to the caller. */
  private flushFrames(): void {
    // cut right after a frame's code line: the step it was calling is the innermost one shown
    const f = this.call ?? this.frame;
    this.call = null;
    this.frameEngine = null;
    this.frame = null;
    this.outer = [];
    if (f !== null) this.clearHub();
    else if (this.hubSeen !== null) this.hub = this.hubSeen;
    this.hubSeen = null;
    if (f && f.phase !== 'shutdown')
      this.pendingPhase = { phase: f.phase, no: f.no, ts: f.ts, text: f.text, unplaced: f.unplaced };
    else this.flushHub();
  }

  /**
   * The chain of tracebacks ended with a hub download and no engine frame that told a phase: the phase of
   * what it fetched (a file a message named, else transformers' calling frame), else loading weights.
   */
  private flushHub(): void {
    if (this.hub !== null)
      this.pendingPhase ??= { phase: this.hubFile ?? this.hubCaller ?? 'loading_weights', ...this.hub };
    this.clearHub();
  }

  private clearHub(): void {
    this.hub = this.hubSeen = null;
    this.hubFile = this.hubCaller = null;
  }

  /**
   * The last line fed was an open traceback's `  File "…", line N, in fn`: Python prints the frame's source line
   * next (Lib/traceback.py FrameSummary / StackSummary.format: the `    code` line under each `File` line), so a
   * line of another kind here was written into the traceback by another stream (stdout and stderr interleaved).
   */
  get awaitsCode(): boolean {
    return this.fileLast && this.open;
  }

  /** First line of the traceback being read, while no exception line has closed it. */
  get openStart(): number | null {
    return this.open || this.sawFrames ? this.start : null;
  }

  /**
   * Nothing open, pending or counting down: a line that no rule of this reader takes leaves it as it is, so the
   * generic bulk reader (generic-scan.ts) may skip such lines, and `reset` after them does nothing.
   */
  get quiet(): boolean {
    return (
      !this.open &&
      !this.sawFrames &&
      this.start === null &&
      this.remedyWindow === 0 &&
      this.wrapWindow === 0 &&
      this.contLeft === 0 &&
      this.frame === null &&
      this.call === null &&
      this.hub === null &&
      this.hubSeen === null &&
      this.hubFile === null &&
      !this.requestScoped &&
      !this.chained &&
      this.partialFile === null &&
      this.pendingPhase === null &&
      this.opened === -1 &&
      this.wrapped === null &&
      this.continued === null &&
      this.scopedStart === null
    );
  }

  /** A plain logger line (from the fast path) ends any traceback in progress; the file's end, too. */
  reset(): void {
    if (
      !this.open &&
      !this.sawFrames &&
      this.start === null &&
      this.remedyWindow === 0 &&
      this.contLeft === 0 &&
      this.frame === null &&
      this.hub === null &&
      this.hubFile === null &&
      !this.requestScoped
    )
      return;
    this.flushFrames();
    this.partialFile = null;
    this.fileLast = false;
    this.open = false;
    this.sawFrames = false;
    this.start = null;
    this.requestScoped = false;
    this.clientFrames = this.serverFrames = false;
    this.remedyWindow = 0;
    this.contLeft = 0;
  }
}
