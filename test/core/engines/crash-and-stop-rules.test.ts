/**
 * Crash, stop and phase-order rules of issue 10 (causes 4, 5 and 7), each on made-up lines of the shape
 * the engine (or the runtime around it) prints.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyFailureText } from '../../../src/core/base/failure-class.js';
import { analyzeText } from '../../helpers.js';

const last = (text: string) => {
  const r = analyzeText(text);
  return { ...r.launches[r.launches.length - 1]!, engine: r.engine };
};

const sgl = (t: string, msg: string) => `[2026-03-01 10:00:${t} TP0] ${msg}`;
const vl = (t: string, msg: string, who = 'EngineCore pid=71') =>
  `(${who}) INFO 03-01 10:00:${t} [core.py:90] ${msg}`;

describe('failure classes', () => {
  it('leave out causes named only as possibilities', () => {
    assert.equal(
      classifyFailureText('Watchdog timeout: the collective did not finish (e.g., OOM) or a slow node'),
      'timeout',
    );
    assert.equal(
      classifyFailureText('Timed out after 600 s; this may be caused by an OOM on another rank'),
      'timeout',
    );
    assert.equal(
      classifyFailureText('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB'),
      'oom',
    );
  });

  it("read Python's own operand TypeError as no unsupported feature, and TensorRT-LLM's CUDA check as a CUDA error", () => {
    assert.equal(
      classifyFailureText("TypeError: unsupported operand type(s) for |: 'type' and 'type'"),
      null,
    );
    assert.equal(
      classifyFailureText(
        '[TensorRT-LLM][ERROR] CUDA runtime error in cudaDeviceGetDefaultMemPool(&p, 0): operation not supported',
      ),
      'cuda_error',
    );
  });

  it("read a kernel library's refusal of the GPU or dtype as unsupported (flash-attn flash_api.cpp)", () => {
    assert.equal(
      classifyFailureText('RuntimeError: FlashAttention only supports Ampere GPUs or newer.'),
      'unsupported',
    );
    assert.equal(
      classifyFailureText('RuntimeError: FlashAttention only support fp16 and bf16 data type'),
      'unsupported',
    );
    assert.equal(classifyFailureText('ValueError: this flag only supports values up to 8'), 'config_error');
  });

  it('read device faults of other runtimes as cuda_error', () => {
    for (const t of [
      'RuntimeError: CUDA kernel failed : 7',
      'Queue 0x7f00 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access memory',
      'RuntimeError: Sync:x.cpp:12 NPU function error: aclrtSynchronizeStream(stream), error code is 507011',
      'RuntimeError: cutlass_scaled_mm, /src/cutlass/scaled_mm.cuh:40, Error Internal',
    ])
      assert.equal(classifyFailureText(t), 'cuda_error', t);
  });

  it('read a CUDA call that failed for want of memory as oom, by its text or its code', () => {
    for (const t of [
      '[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, stream): out of memory (/src/tllmBuffers.h:112)',
      '[FT][ERROR] CUDA runtime error: out of memory /src/fastertransformer/utils/allocator.h:220',
      'RuntimeError: cudaMalloc returned cudaErrorMemoryAllocation',
      'CUDA driver error CUDA_ERROR_OUT_OF_MEMORY at cuMemCreate',
    ])
      assert.equal(classifyFailureText(t), 'oom', t);
  });

  it("read an MPI call between ranks that failed (TensorRT-LLM's MPICHECK, common/mpiUtils.cpp) as nccl", () => {
    assert.equal(
      classifyFailureText(
        "Assertion failed: Failed: MPI error /src/cpp/tensorrt_llm/common/mpiUtils.cpp:211 '6'",
      ),
      'nccl',
    );
  });
});

describe('crash lines of other shapes', () => {
  it('TensorRT-LLM: a failed executor start names its cause', () => {
    const l = last(
      [
        '[04/02/2026-10:00:01] [TRT-LLM] [I] Starting TensorRT-LLM init.',
        '[04/02/2026-10:00:09] [TRT-LLM] [RANK 1] [E] Failed to initialize executor on rank 1: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO)',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'nccl');
    assert.equal(l.failure?.line, 2);
  });

  it('TensorRT-LLM: an error in the forward step fails requests only; a later signal kills the server', () => {
    const l = last(
      [
        '[04/02/2026-10:00:01] [TRT-LLM] [I] Starting TensorRT-LLM init.',
        'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
        'Traceback (most recent call last):',
        '  File "/x/tensorrt_llm/_torch/pyexecutor/py_executor.py", line 10, in _forward_step',
        'AssertionError: The input length (9000) exceeds the maximum (4096).',
        '[04/02/2026-10:01:00] [TRT-LLM] [E] Encountered an error in forward function: The input length (9000) exceeds the maximum (4096).',
        '[gpu-7:311 :0:399] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x10)',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.line, 7);
  });

  it('a failure line a paste cut mid-word inside a call is read whole, its class from the rest', () => {
    const head =
      'E1103 02:59:01.152656 81041 backend_model.cc:553] ERROR: Failed to create instance: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mStr';
    const l = last(
      [
        '[TensorRT-LLM][INFO] Loaded engine size: 12000 MiB',
        head,
        'eam->get()): out of memory (/src/cpp/tensorrt_llm/runtime/tllmBuffers.h:112)',
        '1       0x7f5fe6888d85 /opt/tritonserver/backends/tensorrtllm/libtriton_tensorrtllm.so(+0x35d85) [0x7f5fe6888d85]',
      ].join('\n'),
    );
    assert.equal(l.failure?.class, 'oom');
    assert.equal(l.failure?.line, 2);
    // a line that does not close the call is a line of its own
    const own = last(
      ['[TensorRT-LLM][INFO] Loaded engine size: 12000 MiB', head, 'eam: illegal memory access'].join('\n'),
    );
    assert.equal(own.failure?.class, 'cuda_error');
  });

  it('ROCm: a queue aborted by the runtime is a device fault', () => {
    const l = last(
      [
        sgl('01', 'Load weight begin. avail mem=60.00 GB'),
        ':0:rocdevice.cpp            :2900: 123456 us:  Callback: Queue 0x7f00 aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a hardware exception. code: 0x1016',
        'Fatal Python error: Aborted',
      ].join('\n'),
    );
    assert.equal(l.failure?.class, 'cuda_error');
    assert.equal(l.failure?.line, 2);
  });

  it('ROCm: a GPU page fault reported by the runtime is a device fault', () => {
    for (const fault of [
      'Memory access fault by GPU node-4 (Agent handle: 0x5f00) on address 0x7f00c000. Reason: Page not present or supervisor privilege.',
      'Memory access fault by GPU node-2 (Agent handle: 0x5f00) on address 0x7f00c000(may not be exact address). Reason: Unknown.',
    ]) {
      const l = last(
        [
          sgl('01', 'Capture cuda graph begin. This can take up to several minutes. avail mem=40.00 GB'),
          fault,
          'Fatal Python error: Aborted',
          '[2026-03-01 10:00:09] Rank 0 scheduler is dead. Please check if there are relevant logs.',
        ].join('\n'),
      );
      assert.equal(l.outcome, 'crashed');
      assert.equal(l.failure?.class, 'cuda_error');
      assert.equal(l.failure?.line, 2);
    }
  });

  it('c10 error lines from any source file name their cause', () => {
    const l = last(
      [
        sgl('01', 'The server is fired up and ready to roll!'),
        '[rank3]:[E0301 10:00:05.123456789 allocator.ts:120] NPU out of memory. Tried to allocate 1.00 GiB (NPU 3; 60 GiB total capacity).',
      ].join('\n'),
    );
    assert.equal(l.failure?.class, 'oom');
  });

  it("NCCL's WARN and return-code chain name the class of a traceback cut right after them", () => {
    const nccl = [
      'node-1:41:977 [3] socket.c:500 NCCL WARN socketStartConnect: Connect to 10.0.0.9<40001> failed : Connection refused',
      'node-1:41:977 [3] NCCL INFO transport/net.cc:700 -> 2',
      'node-1:41:41 [3] NCCL INFO init.cc:1300 (ncclCommInitRankFunc) -> 2',
    ];
    const header = '[2026-03-01 10:00:05 TP3] Scheduler hit an exception: Traceback (most recent call last):';
    const frame = '  File "/x/sglang/srt/managers/scheduler.py", line 10, in run_scheduler_process';
    const cut = last([sgl('01', 'Init torch distributed begin.'), ...nccl, header, frame].join('\n'));
    assert.equal(cut.outcome, 'crashed');
    assert.equal(cut.failure?.class, 'nccl');
    assert.equal(cut.failure?.line, 5);
    // the exception line, when the file has it, names the class itself
    const whole = last([...nccl, header, frame, 'ValueError: world size 4 is not divisible by 3'].join('\n'));
    assert.equal(whole.failure?.class, 'config_error');
    // NCCL's lines alone are no crash, and a traceback far from them is not theirs
    assert.equal(
      last([sgl('01', 'Init torch distributed begin.'), ...nccl].join('\n')).outcome,
      'in_progress',
    );
    const far = Array.from({ length: 60 }, (_, i) => sgl('02', `Load weight begin. step ${i}`));
    assert.equal(last([...nccl, ...far, header, frame].join('\n')).failure?.class, 'python_exception');
  });

  it("Windows' structured exceptions are a native crash, classed as a segfault is, not a Python exception", () => {
    const served = [
      'srv  update_slots: all slots are idle',
      'srv  log_server_r: done request: POST /completion 127.0.0.1 200',
    ];
    for (const crash of [
      ['[02:10:44]Exception: C0000005.ACCESS_VIOLATION', '[02:10:44]Unhandled: C0000005.ACCESS_VIOLATION'],
      ['[02:10:44] Unhandled: C0000409.STACK_BUFFER_OVERRUN'],
      ['Exception code: 0xc0000005'],
      [
        'Windows fatal exception: access violation',
        '',
        'Current thread 0x00001a2c (most recent call first):',
      ],
    ]) {
      const l = last([...served, ...crash].join('\n'));
      assert.equal(l.outcome, 'crashed', crash[0]);
      assert.equal(l.failure?.class, 'other', crash[0]);
      assert.equal(l.failure?.line, 3, crash[0]);
    }
  });

  it('Slurm cancelling the job is a kill', () => {
    const l = last(
      [
        vl(
          '01',
          'Engine 000: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 9.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%',
          'APIServer pid=7',
        ),
        'slurmstepd: error: *** JOB 4242 ON node-3 CANCELLED AT 2026-03-01T12:00:00 DUE TO TIME LIMIT ***',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'killed');
  });

  it("SGLang: a scheduler's exit status after it died says whether it was killed", () => {
    const dead = [
      sgl('01', 'Load weight begin. avail mem=70.00 GB'),
      'Loading safetensors checkpoint shards:  40% Completed | 4/10 [00:30<00:45,  7.50s/it]',
      '[2026-03-01 10:01:00] Rank 0 scheduler is dead. Please check if there are relevant logs.',
    ];
    const eof = [
      'Traceback (most recent call last):',
      '  File "/x/sglang/srt/entrypoints/engine.py", line 600, in _launch_subprocesses',
      '    data = scheduler_pipe_readers[i].recv()',
      'EOFError',
    ];
    // entrypoints/engine.py: `Exit code: {scheduler_procs[i].exitcode}` (multiprocessing: -9 is SIGKILL)
    const killed = last([...dead, '[2026-03-01 10:01:00] Exit code: -9', ...eof].join('\n'));
    assert.equal(killed.outcome, 'crashed');
    assert.equal(killed.failure?.class, 'killed');
    assert.equal(killed.phase, 'loading_weights');
    const failed = last([...dead, '[2026-03-01 10:01:00] Exit code: 1', ...eof].join('\n'));
    assert.equal(failed.outcome, 'crashed');
    assert.notEqual(failed.failure?.class, 'killed');
    // entrypoints/engine.py sigchld_handler (v0.4.4–v0.4.9): the raw waitpid status, 9 for SIGKILL
    const sigchld = (status: number) =>
      last(
        [
          sgl('01', 'Load weight begin. avail mem=70.00 GB'),
          `[2026-03-01 10:01:00] Child process unexpectedly failed with an exit code ${status}. pid=4242`,
        ].join('\n'),
      );
    assert.equal(sigchld(9).outcome, 'crashed');
    assert.equal(sigchld(9).failure?.class, 'killed');
    assert.equal(sigchld(256).outcome, 'crashed');
    assert.notEqual(sigchld(256).failure?.class, 'killed');
  });

  it("the container's or the unit's own exit line ends the launch: 137 and status=9/KILL are kills", () => {
    const loading = [
      `app-1  | ${sgl('01', 'Load weight begin. avail mem=70.00 GB')}`,
      'app-1  | Loading safetensors checkpoint shards:  40% Completed | 4/10 [00:30<00:45,  7.50s/it]',
    ];
    const compose = last([...loading, 'app-1 exited with code 137'].join('\n'));
    assert.equal(compose.outcome, 'crashed');
    assert.equal(compose.failure?.class, 'killed');
    assert.equal(compose.phase, 'loading_weights');
    assert.equal(last([...loading, 'app exited with code 1'].join('\n')).outcome, 'crashed');
    assert.equal(last([...loading, 'app-1 exited with code 0'].join('\n')).outcome, 'in_progress');
    const unit = last(
      [
        `Mar 01 10:00:01 host python3[811]: ${sgl('01', 'Load weight begin. avail mem=70.00 GB')}`,
        'Mar 01 10:02:00 host systemd[1]: llm.service: Main process exited, code=killed, status=9/KILL',
      ].join('\n'),
    );
    assert.equal(unit.outcome, 'crashed');
    assert.equal(unit.failure?.class, 'killed');
    assert.equal(classifyFailureText('app exited with code 137'), 'killed');
    assert.equal(classifyFailureText('app exited with code 1'), null);
  });

  it('vLLM: an engine core that died is a crash, not a stop', () => {
    const l = last(
      [
        vl('01', 'Graph capturing finished in 12 secs, took 0.50 GiB'),
        '(APIServer pid=7) ERROR 03-01 10:00:09 [core_client.py:600] Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
  });
});

describe('stops', () => {
  it("vLLM's structured [shutdown] lines end a launch cleanly", () => {
    const l = last(
      [
        vl('01', 'Graph capturing finished in 12 secs, took 0.50 GiB'),
        '(APIServer pid=7) INFO:     Application startup complete.',
        vl('30', '[shutdown] EngineCore: trigger received signal=SIGTERM'),
        '(APIServer pid=7) ERROR 03-01 10:00:31 [async_llm.py:700] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'shutdown');
  });

  it('leaked multiprocessing resources: a kill before ready, a stop after', () => {
    const leak =
      '/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: There appear to be 3 leaked semaphore objects to clean up at shutdown';
    const early = last([sgl('01', 'Load weight begin. avail mem=60.00 GB'), leak].join('\n'));
    assert.equal(early.outcome, 'crashed');
    assert.equal(early.failure?.class, 'killed');
    const late = last(
      [
        sgl('01', 'The server is fired up and ready to roll!'),
        sgl(
          '02',
          'Decode batch, #running-req: 1, #token: 90, token usage: 0.00, gen throughput (token/s): 20.00, #queue-req: 0',
        ),
        leak,
      ].join('\n'),
    );
    assert.equal(late.outcome, 'shutdown');
  });

  it('a warning glued to the end of a progress bar is still read', () => {
    const l = last(
      [
        sgl('01', 'Capture cuda graph begin. This can take up to several minutes. avail mem=20.00 GB'),
        'Capturing batches (bs=64 avail_mem=19.00 GB):   3%|▎         | 1/36 [00:01<00:40,  1.2s/it]/opt/py/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown',
      ].join('\n'),
    );
    assert.equal(l.failure?.class, 'killed');
  });

  it("a runtime's abort message glued to the end of a progress bar is still read", () => {
    const l = last(
      [
        sgl('01', 'Capture cuda graph begin. This can take up to several minutes. avail mem=20.00 GB'),
        'Capturing batches (bs=8 avail_mem=19.00 GB):   0%|          | 0/12 [00:00<?, ?it/s]Memory access fault by GPU node-1 (Agent handle: 0x1234) on address 0x7f00. Reason: Page not present or supervisor privilege.',
      ].join('\n'),
    );
    assert.equal(l.failure?.class, 'cuda_error');
    assert.equal(l.phase, 'cuda_graph');
  });

  it('Ctrl-C during loading is a stop', () => {
    const l = last(
      [
        sgl('01', 'Load weight begin. avail mem=60.00 GB'),
        'Traceback (most recent call last):',
        '  File "/x/sglang/launch_server.py", line 14, in <module>',
        'KeyboardInterrupt',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'shutdown');
  });
});

describe('phase order', () => {
  it("TensorRT-LLM's module bar at its total is the weights loaded; vLLM's shard bar is not (its own line follows)", () => {
    const vllm = (msg: string) => `(EngineCore_DP0 pid=51) ${msg}`;
    const start = vllm(
      "INFO 07-30 11:02:30 [core.py:102] Initializing a V1 LLM engine (v0.21.1) with config: model='m/x'",
    );
    const shards = (n: number) =>
      vllm(
        `Loading safetensors checkpoint shards: ${n * 25}% Completed | ${n}/4 [00:${10 + n}<00:30,  7.50s/it]`,
      );
    // vLLM: default_loader.py logs `Loading weights took` after process_weights_after_loading: until then, loading
    assert.equal(last([start, shards(1), shards(4)].join('\n')).phase, 'loading_weights');
    // TensorRT-LLM's PyTorch backend: the files prefetched in parallel, then the modules loaded
    const trt = [
      '[06/17/2026-16:35:04] [TRT-LLM] [RANK 0] [I] Finished prefetching /m/model.safetensors.',
      'Loading safetensors weights in parallel: 100%|██████████| 1/1 [00:00<00:00, 205.99it/s]',
    ];
    assert.equal(last(trt.join('\n')).phase, 'loading_weights');
    assert.equal(
      last([...trt, 'Loading weights: 100%|██████████| 1190/1190 [01:01<00:00, 19.26it/s]'].join('\n')).phase,
      'weights_loaded',
    );
    assert.equal(
      last([...trt, 'Loading weights:  50%|█████     | 595/1190 [00:31<00:31, 19.26it/s]'].join('\n')).phase,
      'loading_weights',
    );
  });
  it("TensorRT-LLM's autotuner: its [Autotuner] tag taken for a module tag still leaves the line read", () => {
    const l = last(
      [
        '[04/02/2026-10:00:01] [TRT-LLM] [RANK 0] [I] Use 12.50 GB for model weights.',
        '[04/02/2026-10:00:30] [TRT-LLM] [RANK 0] [I] Model init total -- 29.10s',
        '[04/02/2026-10:00:31] [TRT-LLM] [RANK 0] [I] [Autotuner] Autotuning process starts ...',
      ].join('\n'),
    );
    assert.equal(l.phase, 'autotune');
  });

  it('vLLM V1 sizes the KV cache after torch.compile', () => {
    const l = last(
      [
        vl('01', 'Loading weights took 10.00 seconds'),
        vl('02', 'torch.compile took 30.12 s in total'),
        vl('03', 'Available KV cache memory: 40.50 GiB'),
      ].join('\n'),
    );
    assert.equal(l.phase, 'kv_cache');
  });
});

describe('probes', () => {
  it('a health, metrics or model-list probe answered after ready is not a request served', () => {
    const up = [
      '[04/02/2026-10:00:30] [TRT-LLM] [RANK 0] [I] Model init total -- 29.10s',
      'INFO:     Application startup complete.',
      'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
    ];
    for (const path of ['/health', '/metrics', '/v1/models', '/health?full=1'])
      assert.equal(
        last([...up, `INFO:     10.0.0.3:51000 - "GET ${path} HTTP/1.1" 200 OK`].join('\n')).phase,
        'ready',
        path,
      );
    const served = last(
      [
        ...up,
        'INFO:     10.0.0.3:51000 - "GET /health HTTP/1.1" 200 OK',
        'INFO:     10.0.0.3:51002 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
      ].join('\n'),
    );
    assert.equal(served.phase, 'serving');
    assert.equal(
      last([...up, 'INFO:     10.0.0.3:51000 - "GET /healthcheck_custom_app HTTP/1.1" 200 OK'].join('\n'))
        .phase,
      'serving',
    );
    const llama = [
      'main: server is listening on http://127.0.0.1:8081 - starting the main loop',
      'srv  update_slots: all slots are idle',
      'srv  log_server_r: request: GET /health 127.0.0.1 200',
    ];
    assert.equal(last(llama.join('\n')).phase, 'ready');
    assert.equal(
      last([...llama, 'srv  log_server_r: request: POST /completion 127.0.0.1 200'].join('\n')).phase,
      'serving',
    );
  });

  it('an inference request answered 4xx or 5xx after ready was refused or failed: ready, not serving', () => {
    const llama = [
      'main: server is listening on http://127.0.0.1:8081 - starting the main loop',
      'srv  update_slots: all slots are idle',
    ];
    for (const status of ['400', '500', '503'])
      assert.equal(
        last(
          [...llama, `srv  log_server_r: done request: POST /v1/chat/completions ::1 ${status}`].join('\n'),
        ).phase,
        'ready',
        status,
      );
    const up = [
      '[04/02/2026-10:00:30] [TRT-LLM] [RANK 0] [I] Model init total -- 29.10s',
      'INFO:     Application startup complete.',
      'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
    ];
    const refused = [
      ...up,
      'INFO:     10.0.0.3:51002 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request',
    ];
    assert.equal(last(refused.join('\n')).phase, 'ready');
    // one answered is serving, and a refusal after it does not undo it
    const served = 'INFO:     10.0.0.3:51004 - "POST /v1/chat/completions HTTP/1.1" 200 OK';
    assert.equal(last([...refused, served].join('\n')).phase, 'serving');
    assert.equal(last([...up, served, refused.at(-1)!].join('\n')).phase, 'serving');
  });
});

describe('llama.cpp', () => {
  it('an idle loop is ready, not serving', () => {
    const l = last(
      [
        'main: server is listening on http://127.0.0.1:8081 - starting the main loop',
        'srv  update_slots: all slots are idle',
      ].join('\n'),
    );
    assert.equal(l.phase, 'ready');
  });

  it('an argument error is a configuration error', () => {
    const l = last(
      ['build: 6000 (abc123) with cc for x86_64-linux-gnu', 'error: invalid argument: --n-gpu-layerz'].join(
        '\n',
      ),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'config_error');
  });
});

describe('argument errors of the servers own parsers', () => {
  it('argparse: the usage line opens a failed launch whose cause is the error line', () => {
    const l = last(
      [
        'usage: launch_server.py [-h] --model-path MODEL_PATH [--port PORT]',
        "launch_server.py: error: argument --port: invalid int value: 'eighty'",
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'args');
    assert.equal(l.failure?.class, 'config_error');
    assert.equal(l.failure?.line, 2);
  });

  it('clap (TGI) and click (trtllm-serve) errors are configuration errors', () => {
    const tgi = last(
      [
        "error: unexpected argument '--num-shardz' found",
        '',
        'Usage: text-generation-launcher [OPTIONS]',
      ].join('\n'),
    );
    assert.equal(tgi.failure?.class, 'config_error');
    const trt = last(
      ['Usage: trtllm-serve serve [OPTIONS] MODEL', 'Error: No such option: --tp_sise'].join('\n'),
    );
    assert.equal(trt.failure?.class, 'config_error');
  });
});

describe('failures raised by the libraries and the environment under the engines', () => {
  it("take Triton's OutOfResources, whose name ends in no Error, as the traceback's exception", () => {
    const l = last(
      [
        sgl('01', 'Capture cuda graph begin. This can take up to several minutes. avail mem=9.10 GB'),
        sgl('03', 'Scheduler hit an exception: Traceback (most recent call last):'),
        '  File "/opt/venv/lib/python3.11/site-packages/triton/compiler/compiler.py", line 400, in _init_handles',
        '    raise OutOfResources(self.metadata.shared, max_shared, "shared memory")',
        'triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 98304, Hardware limit: 65536. Reducing block sizes or `num_stages` may help.',
      ].join('\n'),
    );
    assert.equal(l.failure?.line, 5);
    assert.equal(l.failure?.exceptionType, 'triton.runtime.errors.OutOfResources');
  });
  it('read a missing driver library and a failed NVML check as cuda_error', () => {
    assert.equal(
      classifyFailureText(
        'ImportError: libcuda.so.1: cannot open shared object file: No such file or directory',
      ),
      'cuda_error',
    );
    assert.equal(
      classifyFailureText(
        'RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":838, please report a bug to PyTorch.',
      ),
      'cuda_error',
    );
  });
  it("read bash's report of a script's job killed as killed", () => {
    assert.equal(
      classifyFailureText('./run.sh: line 7:  4411 Killed                  vllm serve m'),
      'killed',
    );
  });
});

describe('a serving server survives one request failing', () => {
  it("SGLang's `Error in request:` traceback is one request's 500, not the server's death", () => {
    const lines = [
      sgl('01', 'The server is fired up and ready to roll!'),
      sgl(
        '02',
        'Decode batch. #running-req: 1, #token: 90, token usage: 0.00, gen throughput (token/s): 20.00, #queue-req: 0',
      ),
      "[2026-03-01 10:00:03] Error in request: 'NoneType' object is not iterable",
      'Traceback (most recent call last):',
      '  File "/sgl-workspace/sglang/python/sglang/srt/entrypoints/openai/serving_base.py", line 107, in handle_request',
      '    return await self._handle_non_streaming_request(',
      '  File "/sgl-workspace/sglang/python/sglang/srt/entrypoints/openai/serving_chat.py", line 811, in _build_chat_response',
      '    for idx, ret_item in enumerate(ret):',
      "TypeError: 'NoneType' object is not iterable",
    ];
    const l = last(lines.join('\n'));
    assert.equal(l.outcome, 'serving');
    assert.equal(l.failure, null);
    // the scheduler's own death after it is still a crash
    const dead = last(
      [
        ...lines,
        sgl('09', 'Scheduler hit an exception: Traceback (most recent call last):'),
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2911, in run_scheduler_process',
        '    scheduler.event_loop_overlap()',
        'RuntimeError: CUDA error: an illegal memory access was encountered',
        '[2026-03-01 10:00:09] Received sigquit from a child process. It usually means the child failed.',
      ].join('\n'),
    );
    assert.equal(dead.outcome, 'crashed');
    assert.equal(dead.failure?.class, 'cuda_error');
  });

  it("an HTTPException (FastAPI/Starlette) is a request's error answer, even in a fragment that starts there", () => {
    const api = (msg: string) => `(APIServer pid=70) ${msg}`;
    const tail = [
      api('  File "/venv/vllm/entrypoints/openai/api_server.py", line 90, in create_chat_completion'),
      api('    raise HTTPException(status_code=500, detail=str(e)) from e'),
      api('fastapi.exceptions.HTTPException: 500: engine step failed'),
    ];
    const alone = last(tail.join('\n'));
    assert.notEqual(alone.outcome, 'crashed');
    assert.equal(alone.failure, null);
    const stopped = last(
      [
        ...tail,
        api('INFO:     Shutting down'),
        api('INFO:     Waiting for application shutdown.'),
        api('INFO:     Application shutdown complete.'),
      ].join('\n'),
    );
    assert.equal(stopped.outcome, 'shutdown');
    assert.equal(stopped.failure, null);
    assert.equal(
      last(
        [
          'Traceback (most recent call last):',
          '  File "/app/x.py", line 3, in f',
          'starlette.exceptions.HTTPException: 404: Not Found',
        ].join('\n'),
      ).failure,
      null,
    );
  });
});
