/**
 * One made-up line per log call or error of TGI, llama-server and TensorRT-LLM that the engine modules read,
 * with the source it comes from: each is read at its phase, or as the crash (and class) it is, after a line
 * that opens the launch. A new rule adds its row here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FailureClass, Outcome, Phase } from '../../../src/core/base/types.js';
import { ENGINE_MODULES } from '../../../src/core/engines/index.js';
import { parseLine } from '../../../src/core/lines/prefix.js';
import { analyzeText } from '../../helpers.js';

type Row = { src: string; line: string; phase?: Phase; outcome?: Outcome; cls?: FailureClass };

const tgi = (msg: string, level = 'INFO') => `2025-11-03T09:12:44.518293Z ${level.padStart(5)} ${msg}`;
const OPEN: Record<string, string[]> = {
  tgi: [tgi('text_generation_launcher: Args {'), '    model_id: "org/m",', '}'],
  llamacpp: ['build: 5500 (abcdef12) with cc (GCC) 13.2.0 for x86_64-linux-gnu'],
  trtllm: ['[TensorRT-LLM] TensorRT-LLM version: 1.1.0rc3'],
};

const ROWS: Record<string, Row[]> = {
  tgi: [
    {
      src: 'launcher/src/main.rs num_shard',
      line: tgi(
        'text_generation_launcher: Parsing num_shard from CUDA_VISIBLE_DEVICES/NVIDIA_VISIBLE_DEVICES',
      ),
      phase: 'args',
    },
    {
      src: 'launcher/src/main.rs download_convert_model (<2.0)',
      line: tgi('download: text_generation_launcher: Starting download process.'),
      phase: 'loading_weights',
    },
    {
      src: 'server/…/utils/hub.py download_weights',
      line: tgi('text_generation_launcher: Downloaded /data/m/model.safetensors in 0:00:31.'),
      phase: 'loading_weights',
    },
    {
      src: 'server/…/models/flash_causal_lm.py warmup (the OOM is caught, warmup goes on)',
      line: tgi('text_generation_launcher: Decode cuda graph warmup failed', 'ERROR'),
      outcome: 'in_progress',
    },
    {
      src: 'server/…/models/globals.py',
      line: tgi('text_generation_launcher: Using Attention = flashinfer'),
      phase: 'loading_weights',
    },
    {
      src: 'server/…/models/__init__.py get_model',
      line: tgi('text_generation_launcher: Auto selecting quantization method fp8'),
      phase: 'loading_weights',
    },
    {
      src: 'server/…/server.py serve_inner',
      line: tgi('text_generation_launcher: Server started at unix:///tmp/text-generation-server-0'),
      phase: 'weights_loaded',
    },
    {
      src: 'backends/v3/src/main.rs',
      line: tgi(
        'text_generation_router: backends/v3/src/main.rs:162: Maximum input tokens defaulted to 8191',
      ),
      phase: 'warmup',
    },
    {
      src: 'router/src/main.rs (<3.0)',
      line: tgi('text_generation_router: router/src/main.rs:300: Inferred max batch total tokens: 16000'),
      phase: 'warmup',
    },
    {
      src: 'launcher/src/main.rs (<0.9)',
      line: tgi('text_generation_launcher: Shard 0 ready in 21.4s'),
      phase: 'weights_loaded',
    },
    {
      src: 'launcher/src/main.rs (<0.9)',
      line: tgi('text_generation_launcher: Shard 0 failed:', 'ERROR'),
      outcome: 'crashed',
    },
    {
      src: 'launcher/src/main.rs shard_manager',
      line: tgi(
        'shard-manager: text_generation_launcher: Shard process was signaled to shutdown with signal 9 rank=0',
        'ERROR',
      ),
      outcome: 'crashed',
      cls: 'killed',
    },
    {
      src: 'launcher/src/main.rs download_convert_model',
      line: tgi(
        'download: text_generation_launcher: Download process was signaled to shutdown with signal 9: ',
        'ERROR',
      ),
      outcome: 'crashed',
      cls: 'killed',
    },
    {
      src: 'launcher/src/main.rs spawn_shards',
      line: tgi('text_generation_launcher: Shard status channel disconnected', 'ERROR'),
      outcome: 'crashed',
    },
    {
      src: 'launcher/src/main.rs spawn_webserver',
      line: tgi(
        'text_generation_launcher: Failed to start webserver: No such file or directory (os error 2)',
        'ERROR',
      ),
      outcome: 'crashed',
    },
    {
      src: 'server/…/server.py serve_inner',
      line: tgi('text_generation_launcher: Error when initializing model', 'ERROR'),
      outcome: 'crashed',
    },
    {
      src: 'launcher main → LauncherError::NotEnoughCUDADevices',
      line: 'Error: NotEnoughCUDADevices("num_shard (4) > available devices (2)")',
      outcome: 'crashed',
      cls: 'config_error',
    },
    {
      src: 'router/src/main.rs (<3.0) RouterError::Warmup',
      line: 'Error: Warmup(Generation("Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`"))',
      outcome: 'crashed',
      cls: 'oom',
    },
  ],
  llamacpp: [
    { src: 'server.cpp main', line: 'main: loading model', phase: 'loading_weights' },
    {
      src: 'server-context.cpp get_available_slot (2025-10+)',
      line: 'srv  get_availabl: updating prompt cache',
      phase: 'serving',
    },
    {
      src: 'server-context.cpp server_slot::prompt_save',
      line: 'srv   prompt_save:  - saving prompt with length 512, total state size = 12.500 MiB (draft: 0.000 MiB)',
      phase: 'serving',
    },
    {
      src: 'server-task.cpp server_prompt_cache::load',
      line: 'srv          load:  - looking for better prompt, base f_keep = 0.100, sim = 0.200',
      phase: 'serving',
    },
    {
      src: 'server-task.cpp server_prompt_cache::update',
      line: 'srv        update:  - cache state: 2 prompts, 100.000 MiB (limits: 8192.000 MiB, 32768 tokens, 32768 est)',
      phase: 'serving',
    },
    {
      src: 'server-context.cpp server_slot::prompt_clear',
      line: 'slot prompt_clear: id  1 | task -1 | clearing prompt with 300 tokens',
      phase: 'serving',
    },
    {
      src: 'server.cpp load_model (2025)',
      line: 'srv    load_model: initializing slots, n_slots = 4',
      phase: 'kv_cache',
    },
    // right after start-up lines, before any model line: the 2024-01 order (#4860, HTTP thread first), the port only
    {
      src: 'server.cpp (2024-01, #4860)',
      line: 'llama server listening at http://127.0.0.1:8080',
      phase: 'args',
      outcome: 'in_progress',
    },
    {
      src: 'server.cpp (<2024-10)',
      line: '{"tid":"1","timestamp":1,"level":"INFO","function":"main","line":3,"msg":"model loaded"}',
      phase: 'warmup',
    },
    {
      src: 'server.cpp (<2024-10)',
      line: "couldn't bind to server socket: hostname=0.0.0.0 port=8080",
      outcome: 'crashed',
      cls: 'port_in_use',
    },
    {
      src: 'ggml-cuda.cu ggml_cuda_error (HIP build)',
      line: 'ROCm error: out of memory',
      outcome: 'crashed',
      cls: 'oom',
    },
    {
      src: 'ggml-cuda.cu ggml_cuda_error (HIP build; engines/common.ts)',
      line: 'ROCm error: invalid device function',
      outcome: 'crashed',
      cls: 'cuda_error',
    },
    {
      src: 'src/llama.cpp llama_model_load_from_file_impl (the model load failed: it was loading)',
      line: 'llama_model_load_from_file_impl: failed to load model',
      outcome: 'crashed',
      cls: 'other',
      phase: 'loading_weights',
    },
    {
      src: "common/common.cpp common_init_from_params (2026: common's `cmn  %12.*s: ` macro)",
      line: "cmn  common_init_: failed to load model '/m/x.gguf'",
      outcome: 'crashed',
      cls: 'other',
      phase: 'loading_weights',
    },
    {
      src: 'common/common.cpp common_init_from_params (the context could not be made)',
      line: "common_init_from_params: failed to create context with model '/m/x.gguf'",
      outcome: 'crashed',
      cls: 'other',
      phase: 'kv_cache',
    },
    {
      src: 'src/llama.cpp llama_kv_cache_init',
      line: 'llama_kv_cache_init: failed to allocate buffer for kv cache',
      outcome: 'crashed',
      cls: 'oom',
    },
    {
      src: 'ggml-metal.m',
      line: 'ggml_backend_metal_buffer_type_alloc_buffer: error: failed to allocate buffer, size = 8192.00 MiB',
      outcome: 'crashed',
      cls: 'oom',
    },
    {
      src: 'ggml-vulkan.cpp',
      line: "terminate called after throwing an instance of 'vk::OutOfDeviceMemoryError'  what():  vk::Device::allocateMemory: ErrorOutOfDeviceMemory",
      outcome: 'crashed',
      cls: 'oom',
    },
    {
      src: 'ggml.c ggml_abort',
      line: '/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:1234: not implemented for split dim 1',
      outcome: 'crashed',
    },
    {
      src: 'llama-vocab.cpp',
      line: "llama_model_load: error loading model: error loading model vocabulary: unknown pre-tokenizer type: 'newtok'",
      outcome: 'crashed',
      cls: 'unsupported',
    },
    {
      src: 'ggml.c gguf_init_from_file (2024)',
      line: 'gguf_init_from_file: failed to open /m/x.gguf: No such file or directory',
      outcome: 'crashed',
      cls: 'model_not_found',
    },
    {
      src: 'libstdc++ verbose terminate handler (engines/common.ts)',
      line: "terminate called after throwing an instance of 'std::runtime_error'",
      outcome: 'crashed',
    },
    {
      src: 'server.cpp signal handler',
      line: 'Received second interrupt, terminating immediately.',
      outcome: 'shutdown',
    },
  ],
  trtllm: [
    {
      src: "TensorRT's runtime deserializing the engine, out of memory",
      line: '[TensorRT-LLM][ERROR] [deserialize.cpp::load::500] Error Code 2: OutOfMemory (Requested size was 1000 bytes.)',
      outcome: 'crashed',
      cls: 'oom',
      phase: 'loading_weights',
    },
    {
      src: 'runtime/tllmRuntime.cpp TllmRuntime::TllmRuntime',
      line: '[TensorRT-LLM][ERROR] Assertion failed: Failed to deserialize cuda engine. (/src/cpp/tensorrt_llm/runtime/tllmRuntime.cpp:135)',
      outcome: 'crashed',
      phase: 'loading_weights',
    },
    {
      src: 'libstdc++ terminate handler: what() of a TllmException',
      line: '  what():  [TensorRT-LLM][ERROR] CUDA runtime error in cudaMalloc(&ptr, n): out of memory (/src/x.h:12)',
      outcome: 'crashed',
      cls: 'oom',
    },
    {
      src: 'llmapi (args validation)',
      line: '[07/24/2025-08:13:02] [TRT-LLM] [I] KV cache quantization set to "auto". Using checkpoint KV quantization.',
      phase: 'args',
    },
    {
      src: 'runtime/tllmRuntime.cpp',
      line: '[TensorRT-LLM][INFO] Loaded engine size: 15300 MiB',
      phase: 'loading_weights',
    },
    {
      src: 'C++ executor (TrtGptModelInflightBatching)',
      line: '[TensorRT-LLM][INFO] TRTGptModel maxNumSequences: 64',
      // the TrtGptModel constructor (batch_manager trtGptModel.h) runs as the executor takes the engine in
      phase: 'loading_weights',
    },
    {
      src: 'TensorRT (relayed by the runtime logger)',
      line: '[TensorRT-LLM][INFO] [MemUsageChange] TensorRT-managed allocation in engine deserialization: CPU +0, GPU +6945, now: CPU 0, GPU 6945 (MiB)',
      phase: 'weights_loaded',
    },
    {
      src: 'batch_manager kvCacheManager (≤0.12)',
      line: '[TensorRT-LLM][INFO] Max KV cache pages per sequence: 32',
      phase: 'kv_cache',
    },
    {
      src: 'runtime/tllmRuntime.cpp',
      line: '[TensorRT-LLM][INFO] Engine load time 5000 ms',
      phase: 'weights_loaded',
    },
    {
      src: '_torch/pyexecutor/_util.py',
      line: '[11/03/2025-09:14:40] [TRT-LLM] [RANK 0] [I] Memory used after loading model weights (inside torch) in memory usage profiling: 60.50 GiB',
      phase: 'kv_cache',
    },
    {
      src: 'batch_manager kvCacheManager',
      line: '[TensorRT-LLM][INFO] Number of tokens per block: 32.',
      phase: 'kv_cache',
    },
    {
      src: '_torch/autotuner.py',
      line: '[12/07/2025-00:20:58] [TRT-LLM] [I] [Autotuner] Cache size after warmup is 0',
      phase: 'autotune',
    },
    {
      src: 'serve/openai_server.py uvicorn, port open before the model loads (serve/readiness.py, 2026)',
      line: 'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
      phase: 'args',
      outcome: 'in_progress',
    },
    {
      src: 'Open MPI (trtllm-serve workers)',
      line: 'mpirun detected that one or more processes exited with non-zero status, thus causing the job to be terminated.',
      outcome: 'crashed',
    },
    {
      src: 'common/tllmException.h',
      line: '[TensorRT-LLM][ERROR] tensorrt_llm::common::TllmException: [TensorRT-LLM][ERROR] Assertion failed: Only SM100 is supported (/src/x.cpp:1)',
      outcome: 'crashed',
      cls: 'unsupported',
    },
  ],
};

describe('TGI, llama-server and TensorRT-LLM lines from their sources', () => {
  for (const [engine, rows] of Object.entries(ROWS)) {
    for (const row of rows) {
      it(`${engine} (${row.src}): ${row.line.slice(0, 80)}`, () => {
        const r = analyzeText([...OPEN[engine]!, row.line].join('\n'));
        const l = r.launches.at(-1)!;
        assert.equal(r.engine, engine);
        if (row.phase) assert.equal(l.phase, row.phase);
        if (row.outcome) assert.equal(l.outcome, row.outcome);
        if (row.cls) assert.equal(l.failure?.class, row.cls);
      });
    }
  }
});

describe('their quick-reject substrings', () => {
  it('never hide a line the regex matches', () => {
    const sigs = ENGINE_MODULES.filter((e) => e.id in ROWS).flatMap((e) => e.signatures);
    for (const row of Object.values(ROWS).flat()) {
      const msg = parseLine(row.line, 1, 0, { year: 2026 }).msg;
      for (const sig of sigs)
        if (sig.lit !== undefined && sig.re.test(msg))
          assert.ok(msg.includes(sig.lit), `${sig.id}: lit '${sig.lit}' hides ${JSON.stringify(msg)}`);
    }
  });
});
