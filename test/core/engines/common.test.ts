import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const SGLANG_UP = [
  '[2026-02-03 04:05:06 TP0] Init torch distributed begin.',
  'gpu-7:311:311 [0] NCCL INFO comm 0x5612aa0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x9f - Init COMPLETE',
  '[2026-02-03 04:05:10 TP0] Load weight begin. avail mem=78.50 GB',
  '[2026-02-03 04:05:40 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB',
  '[2026-02-03 04:05:41 TP0] KV Cache is allocated. #tokens: 400000, K size: 6.00 GB, V size: 6.00 GB',
  '[2026-02-03 04:06:01] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)',
  '[2026-02-03 04:06:03] The server is fired up and ready to roll!',
  '[2026-02-03 04:06:09 TP0] Decode batch, #running-req: 1, #token: 90, token usage: 0.00, cuda graph: True, gen throughput (token/s): 41.20, #queue-req: 0,',
];

describe('lines any engine prints: NCCL', () => {
  it("NCCL's INFO lines after the server is up (a communicator made lazily, one torn down) never start a launch", () => {
    const text = [
      ...SGLANG_UP,
      // PyTorch makes a group's communicator at its first collective: NCCL reports it while the server serves.
      'gpu-7:311:902 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read',
      'gpu-7:311:902 [0] NCCL INFO comm 0x77aa010 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0xa1 - Init COMPLETE',
      '[2026-02-03 04:07:09 TP0] Decode batch, #running-req: 1, #token: 130, token usage: 0.00, cuda graph: True, gen throughput (token/s): 40.80, #queue-req: 0,',
    ].join('\n');
    const r = analyzeText(`${text}\n`);
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.outcome, 'serving');
  });

  it('nor at shutdown (`Destroy COMPLETE`), and they still mark the distributed set-up of a launch that starts', () => {
    const text = [
      ...SGLANG_UP,
      '[2026-02-03 04:08:00] Received sigterm, shutting down.',
      'gpu-7:311:311 [0] NCCL INFO comm 0x5612aa0 rank 0 nranks 2 cudaDev 0 busId 18000 - Destroy COMPLETE',
    ].join('\n');
    const r = analyzeText(`${text}\n`);
    assert.equal(r.launches.length, 1);
    const starting = analyzeText(`${SGLANG_UP.slice(0, 2).join('\n')}\n`);
    assert.equal(starting.launches[0]!.phase, 'dist_init');
  });
});

describe('lines any engine prints: Gloo', () => {
  it("Gloo's `Rank N is connected to M peer ranks` marks distributed init, and never starts a launch once serving", () => {
    const gloo = '[Gloo] Rank 3 is connected to 7 peer ranks. Expected number of connected peer ranks is : 7';
    const starting = analyzeText(`${SGLANG_UP[0]}\n${gloo}\n`);
    assert.equal(starting.launches[0]!.phase, 'dist_init');
    const cut = analyzeText(`${gloo}\n${gloo.replace('Rank 3', 'Rank 4')}\n`);
    assert.equal(cut.launches.at(-1)!.phase, 'dist_init');
    const r = analyzeText(`${[...SGLANG_UP, gloo].join('\n')}\n`);
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.outcome, 'serving');
  });
});

describe('Triton Inference Server around any backend', () => {
  // server src/main.cc loads the model repository, then starts the endpoints (grpc_server.cc, http_server.cc);
  // its default log format puts each message in double quotes (qa/L0_logging/log_format_test.py)
  it('its endpoints started are ready, with the vLLM backend too, quoted or not', () => {
    const load = [
      'I0412 08:10:02.140551 1 model_lifecycle.cc:472] "loading: m:1"',
      "INFO 04-12 08:10:11 [llm_engine.py:240] Initializing a V0 LLM engine (v0.8.5) with config: model='/models/m', dtype=torch.bfloat16, tensor_parallel_size=1",
      'INFO 04-12 08:10:20 [model_runner.py:1146] Model loading took 14.9889 GiB and 5.64 seconds',
      'INFO 04-12 08:10:41 [model_runner.py:1592] Graph capturing finished in 16 secs, took 0.31 GiB',
      'I0412 08:10:41.980111 1 model_lifecycle.cc:839] "successfully loaded \'m\'"',
    ];
    for (const started of [
      'I0412 08:10:42.011944 1 grpc_server.cc:2558] "Started GRPCInferenceService at 0.0.0.0:8001"',
      'I0412 08:10:42.012230 1 http_server.cc:4725] Started HTTPService at 0.0.0.0:8000',
    ]) {
      const r = analyzeText(`${[...load, started].join('\n')}\n`);
      assert.equal(r.engine, 'vllm');
      assert.equal(r.launches.at(-1)!.phase, 'ready');
    }
    assert.notEqual(analyzeText(`${load.join('\n')}\n`).launches.at(-1)!.phase, 'ready');
  });
});

describe('C and CUDA assertions, and the shell that saw its job die', () => {
  const served = [
    'slot update_slots: id  1 | task 7 | prompt processing done, n_tokens = 40, batch.n_tokens = 40',
    'srv  log_server_r: done request: POST /completion 127.0.0.1 200',
  ];
  it("glibc's `prog: file:line: func: Assertion `expr' failed.` is the crash, and zsh's `abort` job line follows it", () => {
    const text = [
      ...served,
      "llama-server: /build/src/llama-sampler.cpp:812: void sample(llama_sampler*): Assertion `idx >= 0' failed.",
      'zsh: abort (core dumped)  ./serve.sh',
    ].join('\n');
    const r = analyzeText(`${text}\n`);
    assert.equal(r.launches.at(-1)!.outcome, 'crashed');
    assert.equal(r.launches.at(-1)!.failure?.class, 'other');
    assert.equal(r.launches.at(-1)!.failure?.line, 3);
  });
  it("a CUDA kernel's device-side assert (`x.cu:N: kernel: block: [..], thread: [..] Assertion `` failed.`) is a CUDA error", () => {
    const text = [
      'INFO:     127.0.0.1:5100 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
      '/opt/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: [3,0,0], thread: [64,0,0] Assertion `idx < size` failed.',
      'Traceback (most recent call last):',
      '  File "/srv/engine/loop.py", line 20, in step',
    ].join('\n');
    const r = analyzeText(`${text}\n`);
    assert.equal(r.launches.at(-1)!.outcome, 'crashed');
    assert.equal(r.launches.at(-1)!.failure?.class, 'cuda_error');
  });
});

describe('lines any engine prints: a C++ backtrace (c10/util/Backtrace.cpp)', () => {
  it("c10's `frame #N: … (0x… in …)` frames are an exception surfacing: the process is dying", () => {
    const r = analyzeText(
      [
        '[2026-02-03 04:05:10 TP0] Load weight begin. avail mem=78.50 GB',
        'frame #20: _PyObject_MakeTpCall + 0x26b (0x55d0c0a4ba6b in sglang::scheduler_TP0)',
        'frame #21: _PyEval_EvalFrameDefault + 0x54a6 (0x55d0c0a479d6 in sglang::scheduler_TP0)',
        'frame #22: <unknown function> + 0x29d90 (0x7f0000029d90 in /lib/x86_64-linux-gnu/libc.so.6)',
      ].join('\n'),
    );
    assert.equal(r.launches[r.launches.length - 1]!.outcome, 'crashed');
  });

  it('a frame-looking line without the address part is not one', () => {
    const r = analyzeText(
      ['[2026-02-03 04:05:10 TP0] Load weight begin. avail mem=78.50 GB', 'frame #3: rendered in 12 ms'].join(
        '\n',
      ),
    );
    assert.notEqual(r.launches[r.launches.length - 1]!.outcome, 'crashed');
  });
});

describe('GPU runtime libraries that abort (issue 22, unseen-2026-12-03e)', () => {
  it("synthetic: rocBLAS's `rocBLAS error: …` before its abort is the crash, a GPU runtime error", () => {
    const r = analyzeText(
      [
        'llama_model_loader: loaded meta data with 24 key-value pairs and 291 tensors from /models/m.gguf (version GGUF V3 (latest))',
        'rocBLAS error: Could not initialize Tensile host: No devices found',
        'Aborted (core dumped)',
      ].join('\n'),
    );
    const l = r.launches[r.launches.length - 1];
    assert.equal(l?.outcome, 'crashed');
    assert.equal(l?.failure?.class, 'cuda_error');
    assert.equal(l?.failure?.line, 2);
  });
});

describe("lines any engine prints: pip's output (issue 22)", () => {
  const pip = [
    '  Running command git clone --filter=blob:none --quiet https://example.org/org/lib.git /tmp/pip-req-build-a1b2c3',
    'Requirement already satisfied: numpy in /usr/local/lib/python3.10/dist-packages (from lib==0.1) (1.26.4)',
    'Installing collected packages: lib',
    'Successfully installed lib-0.1.dev0',
    "WARNING: Running pip as the 'root' user can result in broken permissions and conflicting behaviour with the system package manager.",
  ];
  const crash = [
    'Traceback (most recent call last):',
    '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main',
    '  File "/opt/sglang/python/sglang/launch_server.py", line 3, in <module>',
    '    from sglang.srt.entrypoints.http_server import launch_server',
    "ModuleNotFoundError: No module named 'fastapi'",
  ];

  it("after a launch that crashed, a container's command running again: a second launch", () => {
    const r = analyzeText([...crash, ...pip, ...crash].join('\n'));
    assert.equal(r.launches.length, 2);
    assert.equal(r.launches[1]!.outcome, 'crashed');
    assert.equal(r.launches[1]!.phase, 'args');
  });

  it('before the server starts, one launch however many lines pip prints', () => {
    const r = analyzeText([...pip, ...SGLANG_UP].join('\n'));
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.outcome, 'serving');
  });

  it('collect_env’s `Collecting environment information...` is not pip', () => {
    const r = analyzeText([...SGLANG_UP, 'Collecting environment information...'].join('\n'));
    assert.equal(r.launches.length, 1);
  });
});
