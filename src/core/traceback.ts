/**
 * Groups a Python traceback, printed over many lines (each possibly carrying a logger prefix), into one
 * exception event: its type, message, rank, first line and the line that names the exception.
 */
import { classifyExceptionType, classifyFailureText } from './failure-class.js';
import type { FailureClass, LogLine, Phase } from './types.js';
import { phaseRank } from './types.js';

/** Function and module names on a traceback's frames that tell which startup step was running. */
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
const SERVING_FRAME =
  /serving_chat|serving_completion|chat_completion_stream|_process_request|run_batch|event_loop_normal|event_loop_overlap|forward_batch_generation|worker_busy_loop|run_engine_core|engine_step|process_input_sockets|output_handler|run_engine_loop|engine_core_client|async_llm_engine|_handle_request|create_chat_completion|create_completion|\bstep\b|handle_generate_request/;

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
  /** Exceptions that end a process normally (Ctrl+C, cancelled requests), not failures. */
  benign: boolean;
  /** The remedies the engine printed after the exception (`Possible solutions:` lists). */
  remedies: string[];
  /** The furthest launch phase the traceback's frames show (init_cuda_graphs → cuda_graph, …). */
  framePhase: Phase | null;
  /** Set when the traceback went through a request handler (uvicorn/starlette), which does not kill the server. */
  requestScoped: boolean;
}

const TB_START = /Traceback \(most recent call last\):?\s*$/;
const FRAME =
  /^(?:\s|\^|~|File ["“”']|\.\.\.<\d+ lines>\.\.\.|During handling of the above exception|The above exception was the direct cause|\s*\+[- ]|\s*\|)/;
const EXCEPTION =
  /^((?:[A-Za-z_]\w*\.)*(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Fault|Failure|Dead\w*|Timeout)\w*|Exception|KeyboardInterrupt|SystemExit|StopIteration|CancelledError))(?::\s?(.*))?$/;
const BENIGN =
  /^(?:KeyboardInterrupt|SystemExit|(?:asyncio\.(?:exceptions\.)?)?CancelledError|GeneratorExit|StopIteration|StopAsyncIteration)$/;
const REQUEST_FRAME =
  /starlette|uvicorn\/protocols|fastapi\/routing|Exception in ASGI application|anyio\/_backends/;

export class TracebackTracker {
  private open = false;
  private start: number | null = null;
  private startText: string | null = null;
  private tags: string | null = null;
  private sawFrames = false;
  private requestScoped = false;
  private framePhase: Phase | null = null;
  private servingFrames = false;
  /** Line number of the traceback header seen on the last fed line, if it opened a new traceback. */
  opened = -1;
  private last: ExceptionEvent | null = null;
  private remedyWindow = 0;

  /** Feeds one line; returns an exception event when this line names one. */
  feed(line: LogLine): ExceptionEvent | null {
    const msg = line.msg;
    this.opened = -1;
    this.scopedStart = null;
    if (this.remedyWindow > 0 && this.last) {
      this.remedyWindow--;
      const r = /^\s*\d\.\s+(.+)$/.exec(msg);
      if (r) {
        this.last.remedies.push(r[1]!.trim());
        return null;
      }
      if (/^Possible solutions:?$/.test(msg.trim())) return null;
    }
    if (TB_START.test(msg)) {
      if (!this.open) {
        this.lastRaise = null;
        this.opened = line.no;
        this.framePhase = null;
        this.servingFrames = false;
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
        cls: classifyExceptionType(type) ?? classifyFailureText(`${type}: ${message}`) ?? 'python_exception',
        line: line.no,
        text: line.text,
        startLine: this.start,
        startText: this.startText,
        tags: line.tags ?? this.tags,
        ts: line.ts,
        benign,
        remedies: [],
        requestScoped: this.requestScoped,
        framePhase: this.framePhase ?? (this.servingFrames ? 'serving' : null),
      };
      this.framePhase = null;
      this.servingFrames = false;
      this.open = false;
      this.sawFrames = false;
      this.last = ev;
      this.remedyWindow = 12;
      return ev;
    }
    if (FRAME.test(msg) || msg === '') {
      if (!this.open && !this.sawFrames && /^\s*File ["“”']/.test(msg)) {
        // The file starts (or resumes) inside a traceback whose header is not in the log.
        this.open = true;
        this.lastRaise = null;
        this.opened = line.no;
        this.start = line.no;
        this.startText = line.text;
        this.framePhase = null;
        this.servingFrames = false;
      }
      this.sawFrames = true;
      if (REQUEST_FRAME.test(msg) && !this.requestScoped) {
        // A request handler's traceback: the server was serving, and the request, not the server, failed.
        this.requestScoped = true;
        this.pendingPhase = 'serving';
        this.scopedStart = this.start;
      }
      this.notePhase(msg);
      return null;
    }
    if (line.framed && !/^(?:ERROR|CRITICAL)/.test(line.msg)) this.reset();
    return null;
  }

  /** Set when frames just showed the open traceback runs through a request handler: its first line. */
  scopedStart: number | null = null;

  /** `raise X(...)` in the innermost frame read so far: names the exception when the file cuts it off. */
  lastRaise: { type: string; text: string } | null = null;

  /** A phase the frames read so far have shown, not yet taken by the caller. */
  pendingPhase: Phase | null = null;

  private notePhase(msg: string): void {
    const r = /^\s+raise ((?:\w+\.)*[A-Z]\w*)\((.*)$/.exec(msg);
    if (r) this.lastRaise = { type: r[1]!, text: r[2]! };
    if (!/^\s*File |^\s+\S/.test(msg)) return;
    for (const [phase, re] of FRAME_PHASES) {
      if (re.test(msg) && (this.framePhase === null || phaseRank(phase) > phaseRank(this.framePhase))) {
        this.framePhase = phase;
        this.pendingPhase = phase;
      }
    }
    if (SERVING_FRAME.test(msg)) this.servingFrames = true;
  }

  /** First line of the traceback being read, while no exception line has closed it. */
  get openStart(): number | null {
    return this.open || this.sawFrames ? this.start : null;
  }

  /** A plain logger line (from the fast path) ends any traceback in progress. */
  reset(): void {
    if (
      !this.open &&
      !this.sawFrames &&
      this.start === null &&
      this.remedyWindow === 0 &&
      this.framePhase === null &&
      !this.requestScoped
    )
      return;
    this.open = false;
    this.sawFrames = false;
    this.start = null;
    this.requestScoped = false;
    this.remedyWindow = 0;
    this.framePhase = null;
    this.servingFrames = false;
  }
}
