/** llama.cpp `llama-server`: research/vllm-and-peers.md §4 (observed on build b11669, plus older default-verbose builds). */
import type { LogLine } from '../types.js';
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
    re: /^(?:main: )?build(?: =|:) ?(\d+) \(([^)]+)\)|^build_info: /,
    version: (m) => (m[1] ? `b${m[1]}` : null),
  },
  {
    id: 'system_info',
    kind: 'phase',
    phase: 'args',
    lit: 'e',
    re: /^(?:main: )?system info:|^system_info:|^common_param|^load_backend: loaded|^main: HTTP server is listening|^device_info/,
  },
  {
    id: 'loading',
    kind: 'phase',
    phase: 'loading_weights',
    lit: 'o',
    re: /load_model: loading model '|^llama_model_loader: |^llama_load_model_from_file|^print_info: |^load_tensors: |^llm_load_print_meta|^llm_load_tensors|^common_init_: fitting params/,
  },
  {
    id: 'loaded',
    kind: 'phase',
    phase: 'weights_loaded',
    lit: 'buffer size',
    re: /^load_tensors: +\S+ model buffer size|^llm_load_tensors: +\S+ buffer size/,
  },
  {
    id: 'kv',
    kind: 'phase',
    phase: 'kv_cache',
    lit: 'e',
    re: /^llama_(?:new_)?context|^llama_kv_cache(?:_unified)?:|load_model: initializing, n_slots|^graph_reserve|^llama_kv_cache_init/,
  },
  {
    id: 'warmup',
    kind: 'phase',
    phase: 'warmup',

    re: /warming up the model with an empty run|^slot +load_model|new slot, n_ctx/,
  },
  {
    id: 'model_loaded',
    kind: 'phase',
    phase: 'warmup',
    lit: 'model loaded',
    re: /(?:llama_server|main): model loaded$/,
  },
  {
    id: 'ready',
    kind: 'ready',
    phase: 'ready',
    lit: 'listening on',
    re: /(?:llama_server|main): (?:server is )?listening on \S+|HTTP server listening/,
  },
  {
    // server.cpp update_slots prints it when the main loop starts and after every task: it says nothing was served
    id: 'idle',
    kind: 'phase',
    phase: 'ready',
    lit: 'all slots are idle',
    re: /update_slots: all slots are idle/,
  },
  {
    id: 'timing',
    kind: 'serving',
    phase: 'serving',
    lit: 'time =',
    re: /^(?:slot +)?(?:print_timing: )?(?:id +\d+ \| task \d+ \| )?\s*(prompt eval|eval|total) time = +([\d.]+) ms \/ +(\d+) (?:tokens|runs)(?: \( +[\d.]+ ms per token, +([\d.]+) tokens per second\))?/,
  },
  {
    id: 'slot',
    kind: 'serving',
    phase: 'serving',
    lit: 'slot',
    re: /launch_slot_|^(?:slot +)?(?:get_availabl|release|launch_slot_|update_slots):|processing task|prompt processing|stop processing/,
  },
  {
    id: 'request',
    kind: 'serving',
    phase: 'serving',
    lit: 'request:',
    re: /request: (?:GET|POST) \S+ \S+ \d{3}/,
  },
  {
    id: 'load_failed',
    kind: 'failure',
    failure: 'model_not_found',
    lit: 'o',
    re: /failed to open GGUF file|error loading model: .*(?:No such file|failed to open)/,
  },
  {
    id: 'load_error',
    kind: 'failure',
    lit: 'model',
    re: /error loading model: (.+)|failed to load model, '/,
  },
  {
    id: 'bind',
    kind: 'failure',
    failure: 'port_in_use',
    lit: 'bind',
    re: /couldn't bind HTTP server socket/,
  },
  {
    id: 'gpu_oom',
    kind: 'failure',
    failure: 'oom',
    lit: 'alloc',
    re: /cudaMalloc failed: out of memory|failed to allocate \S+ buffer of size|unable to allocate \S+ buffer/,
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
    id: 'arg_error',
    kind: 'failure',
    failure: 'config_error',
    lit: 'rror',
    re: /^error: (?:invalid|unknown) argument: |^error while handling (?:argument|environment variable) /,
  },
  { id: 'shutdown', kind: 'shutdown', lit: 'cleaning up before exit', re: /cleaning up before exit\.\.\./ },
];

export const llamacpp: EngineModule = {
  id: 'llamacpp',
  detect(line: LogLine): number {
    if (
      /llama_server:|llama_model_loader:|^llm_load_|llama_context:|llama_kv_cache|load_tensors:|print_info: |gguf_init_from_file|ggml_cuda_init|main: server is listening/.test(
        line.msg,
      )
    )
      return 8;
    if (/^(?:srv|slot|que|res|cmn) +\S+/.test(line.msg) || line.frame === 'llamacpp') return 4;
    return 0;
  },
  signatures,
  sample(sig, m) {
    if (sig.id !== 'timing') return null;
    if (m[1] === 'eval')
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
