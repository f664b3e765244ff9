import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeLine } from '../../../src/core/lines/clean.js';
import { type PrefixContext, parseLine } from '../../../src/core/lines/prefix.js';
import { EngineDetector } from '../../../src/core/reading/detect.js';
import { analyzeText } from '../../helpers.js';

function detect(lines: string[]): EngineDetector {
  const d = new EngineDetector();
  const ctx: PrefixContext = { year: 2026 };
  lines.forEach((t, i) => {
    d.observe(parseLine(decodeLine(Buffer.from(t), 0, Buffer.byteLength(t)), i + 1, 0, ctx));
  });
  return d;
}

describe('evidence-weighted engine detection', () => {
  it('an engine path and milestone outweigh generic python-logging lines', () => {
    const d = detect([
      '2025-05-05 01:02:03,000 INFO Loading configuration',
      '2025-05-05 01:02:04,000 INFO Connecting to store',
      '2025-05-05 01:02:05,000 WARNING Slow disk',
      '  File "/usr/lib/python3/site-packages/sglang/srt/model_executor/model_runner.py", line 5, in load',
      'Load weight begin. avail mem=40.00 GB',
    ]);
    assert.equal(d.best(), 'sglang');
  });

  it('ISO-stamped vLLM lines are vLLM, not TGI', () => {
    const d = detect([
      '2025-03-04T05:06:07.100Z INFO 03-04 05:06:07 [api_server.py:1] args ok',
      '2025-03-04T05:06:07.200Z INFO 03-04 05:06:07 [core.py:2] engine up',
      '2025-03-04T05:06:07.300Z INFO 03-04 05:06:07 [loader.py:3] loading',
    ]);
    assert.equal(d.best(), 'vllm');
    assert.equal(d.scores.tgi, 0);
  });

  it('cut paths and a capture bar vote for their engine', () => {
    assert.equal(detect(['    at srt/managers/scheduler.py line 9']).best(), 'sglang');
    assert.equal(detect(['  File "v1/engine/core.py", line 9, in step']).best(), 'vllm');
    assert.equal(
      detect(['Capturing CUDA graphs (decode, FULL):  40%|████      | 4/10 [00:01<00:01,  9.0it/s]']).best(),
      'vllm',
    );
  });

  it("the engine's own command as a traceback's outermost frame votes for it (an excerpt's first frames)", () => {
    assert.equal(detect(['  File "/opt/venv/bin/vllm", line 8, in <module>']).best(), 'vllm');
    assert.equal(
      detect(["    sys.exit(load_entry_point('vllm==0.7.3', 'console_scripts', 'vllm')())"]).best(),
      'vllm',
    );
    assert.equal(detect(['  File "/usr/local/bin/sglang", line 10, in <module>']).best(), 'sglang');
    // a virtualenv named after an engine is no frame of its command
    assert.equal(detect(['  File "/opt/vllm_env/bin/python", line 8, in <module>']).best(), null);
  });

  it("TGI's launcher ending on its LauncherError (launcher/src/main.rs) votes for TGI", () => {
    assert.equal(detect(['Error: ShardCannotStart']).best(), 'tgi');
    assert.equal(
      detect(['Error: ArgumentValidation("`max_input_tokens` must be < `max_total_tokens`")']).best(),
      'tgi',
    );
    // another program's error line is not TGI's
    assert.equal(detect(['Error: connection refused']).best(), null);
  });

  it("an excerpt's own engine evidence: vLLM's engine core process, llama-server's binary and ggml's CUDA check, TGI's image", () => {
    // v1/engine/core_client.py (2025): the engine core process is `EngineCore_{index}`
    assert.equal(
      detect([
        '(EngineCore_0 pid=4242) Process EngineCore_0:',
        '(EngineCore_0 pid=4242) Traceback (most recent call last):',
      ]).best(),
      'vllm',
    );
    // glibc backtrace_symbols of the server's own binary (ggml_print_backtrace's fallback)
    assert.equal(detect(['/usr/local/bin/llama-server(+0x1a2b3c)[0x5600aabbccdd]']).best(), 'llamacpp');
    // ggml-cuda.cu ggml_cuda_error, under its `CUDA error: …` line
    assert.equal(
      detect([
        'CUDA error: an illegal memory access was encountered',
        '  current device: 0, in function ggml_backend_cuda_synchronize at /src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:2500',
      ]).best(),
      'llamacpp',
    );
    assert.equal(
      detect([
        'Use the official Docker image (ghcr.io/huggingface/text-generation-inference:latest) or install flash attention with `cd server && make install install-flash-attention`',
      ]).best(),
      'tgi',
    );
    // another program's binary, another stack's `current device`
    assert.equal(detect(['/usr/bin/python3(+0x1a2b3c)[0x5600aabbccdd]']).best(), null);
    assert.equal(detect(['  current device: 0, in function f at /src/mylib/kernels.cu:10']).best(), null);
  });

  it("llama-server's request lines of other eras vote for it: 2023-10's slot lines, 2024-25's bare timings", () => {
    assert.equal(
      detect([
        'slot 0 is processing [task id: 7]',
        'slot 0 : in cache: 0 tokens | to process: 12 tokens',
      ]).best(),
      'llamacpp',
    );
    assert.equal(
      detect([
        'prompt eval time =      20.00 ms /     4 tokens (    5.00 ms per token,   200.00 tokens per second)',
        '       eval time =    1000.00 ms /    50 tokens (   20.00 ms per token,    50.00 tokens per second)',
        '      total time =    1020.00 ms /    54 tokens',
      ]).best(),
      'llamacpp',
    );
  });

  it('router and launcher lines vote for SGLang', () => {
    assert.equal(detect(['$ python3 -m sglang.launch_server --model-path m --port 30000']).best(), 'sglang');
    assert.equal(detect(['[Router (Rust)] worker http://10.0.0.1:30000 is healthy']).best(), 'sglang');
  });

  it("vLLM's import-time platform line, printed by each process of another engine that imports vLLM, votes once and little", () => {
    const d = detect([
      ...Array(4).fill('INFO 02-13 08:41:37 __init__.py:190] Automatically detected platform cuda.'),
      '[2025-02-13 08:41:43 TP1] Init torch distributed begin',
    ]);
    assert.equal(d.best(), 'sglang');
    // alone it still says vLLM
    assert.equal(
      detect(['INFO 02-13 08:41:37 __init__.py:190] Automatically detected platform cuda.']).best(),
      'vllm',
    );
  });

  it("uvicorn's own lines under a bare `[date time]` stamp say nothing of SGLang (any server formats them so)", () => {
    const d = detect([
      '[2026-01-19 22:38:00] Started server process [4242]',
      '[2026-01-19 22:38:00] Waiting for application startup.',
      '[2026-01-19 22:38:13] Application startup complete.',
      '[2026-01-19 22:38:13] Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
    ]);
    assert.equal(d.best(), null);
  });

  it("KoboldCpp's loader prints name it without its name (koboldcpp.py, model_adapter.cpp, expose.cpp)", () => {
    const d = detect([
      'Loading Text Model: C:\\models\\some-model-Q4_K_M.gguf',
      'The reported GGUF Arch is: llama',
      'llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from C:\\models\\m.gguf (version GGUF V3 (latest))',
    ]);
    assert.equal(d.program, 'koboldcpp');
    assert.equal(d.reported(), null);
  });

  it('a server that embeds a llama.cpp runner (Ollama) is not reported as llama.cpp', () => {
    const d = detect([
      'time=2025-01-01T00:00:00.000Z level=INFO source=routes.go:10 msg="Listening on 127.0.0.1:11434 (version 0.5.0)"',
      'time=2025-01-01T00:00:01.000Z level=INFO source=server.go:20 msg="starting llama server" cmd="/tmp/ollama_llama_server"',
      'llama_model_loader: loaded meta data with 20 key-value pairs',
      'llama_model_loader: - kv   0: general.architecture str = llama',
    ]);
    assert.equal(d.best(), 'llamacpp');
    assert.equal(d.reported(), null);
  });
});

describe("a launch's engine is the one its own lines vote for", () => {
  const engines = (text: string): [string | null, Array<string | null>] => {
    const r = analyzeText(text);
    return [r.engine, r.launches.map((l) => l.engine)];
  };

  it('a uvicorn access line first (a shape every python server prints) does not name the launch', () => {
    const text = [
      'INFO:     127.0.0.1:45354 - "POST /v1/completions HTTP/1.1" 200 OK',
      'INFO 01-04 17:21:02 [core.py:247] RUNNING: 3 | WAITING: 6',
    ].join('\n');
    assert.deepEqual(engines(text), ['vllm', ['vllm']]);
  });

  it("a vLLM worker's line then a shards bar is vLLM, not the first engine whose rule reads the bar", () => {
    const text = [
      '(Worker_TP3_EP3 pid=5766) INFO 02-13 06:25:33 [compilation.py:903] Using a custom backend.',
      'Loading safetensors checkpoint shards:   1% Completed | 1/99 [00:01<01:53,  1.16s/it]',
      'Loading safetensors checkpoint shards:   2% Completed | 2/99 [00:02<01:53,  1.16s/it]',
    ].join('\n');
    assert.deepEqual(engines(text), ['vllm', ['vllm']]);
  });

  it("a traceback's code line that lost its indent (`res = …`) is no llama-server line", () => {
    // llama-server's macros print `srv  %12.*s: `, `slot %12.*s: id …` (tools/server): a function name and a colon
    assert.equal(detect(['res = func(*args, **kwargs)']).best(), null);
    assert.equal(detect(['    async for res in result_generator:']).best(), null);
    assert.equal(detect(["srv    load_model: loading model 'm.gguf'"]).best(), 'llamacpp');
    assert.equal(detect(['srv    operator(): operator(): cleaning up before exit...']).best(), 'llamacpp');
    const text = [
      'Traceback (most recent call last):',
      '  File "/usr/lib/python3.12/concurrent/futures/thread.py", line 58, in run',
      'res = self.fn(*self.args, **self.kwargs)',
      '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 80, in step',
      'output = self.model_executor.execute_model(scheduler_output)',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.',
    ].join('\n');
    assert.deepEqual(engines(text), ['vllm', ['vllm']]);
  });

  it('a fragment no line votes in has no engine, for the file or the launch', () => {
    const text =
      'host:2949601:2949642 [0] NCCL INFO comm 0x55fb6f3ce680 rank 0 nranks 4 cudaDev 0 busId 41000 - Init COMPLETE';
    assert.deepEqual(engines(text), [null, [null]]);
  });

  it('two launches of two engines in one file keep their own engines', () => {
    const text = [
      'build: 5500 (abcdef12) with cc (GCC) 13.2.0 for x86_64-linux-gnu',
      "srv    load_model: loading model 'm.gguf'",
      'srv  llama_server: model loaded',
      'srv  llama_server: listening on http://127.0.0.1:8080',
      'INFO 03-01 10:00:00 [__init__.py:1] Automatically detected platform cuda.',
      "INFO 03-01 10:00:01 [utils.py:2] non-default args: {'model': 'org/m', 'tensor_parallel_size': 2}",
      'INFO 03-01 10:00:02 [core.py:3] Initializing a V1 LLM engine (v0.11.0) with config: model=org/m',
      'INFO 03-01 10:00:03 [gpu_model_runner.py:4] Starting to load model org/m...',
    ].join('\n');
    const [, launches] = engines(text);
    assert.deepEqual(launches, ['llamacpp', 'vllm']);
  });
});
