/**
 * SGLang rules found by reading real issue-thread logs (test/fixtures/wild/sglang), each tested on made-up
 * lines of the shape SGLang prints, with the SGLang source it rests on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyFailureText } from '../../../src/core/base/failure-class.js';
import { analyzeText } from '../../helpers.js';

const last = (text: string) => {
  const r = analyzeText(text);
  return { ...r.launches[r.launches.length - 1]!, engine: r.engine };
};

const sgl = (msg: string, tags = 'TP0') => `[2026-03-01 10:00:07 ${tags}] ${msg}`;
const pkg = '/usr/local/lib/python3.12/dist-packages/sglang/srt';

describe('SGLang: the KV pool out of slots for a batch (mem_cache/allocation.py)', () => {
  it('a decode or prefill out of memory with no phase line before it is an OOM while serving batches', () => {
    for (const kind of ['Decode', 'Prefill']) {
      const l = last(
        [
          sgl('Scheduler hit an exception: Traceback (most recent call last):'),
          `  File "${pkg}/managers/scheduler.py", line 100, in some_helper`,
          `RuntimeError: ${kind} out of memory. Try to lower your batch size.`,
          'Try to allocate 300 tokens.',
        ].join('\n'),
      );
      assert.equal(l.phase, 'serving', kind);
      assert.equal(l.failure?.class, 'oom', kind);
    }
  });
});

describe("SGLang: the engine's start-up timings (entrypoints/engine.py Engine._set_startup_time)", () => {
  it('is logged once the schedulers captured their graphs, before the HTTP server: past cuda_graph', () => {
    const l = last(
      `[2026-03-01 10:00:07] Engine startup timings (s): load_weight=12.02, kv_cache_allocation=0.02, scheduler_e2e=52.09, cuda_graph={prefill=22.96, decode=12.26}, tokenizer_e2e=65.82`,
    );
    assert.equal(l.phase, 'cuda_graph');
  });
});

describe('SGLang: the scheduler watchdog', () => {
  it('a watchdog timeout with no phase line before it is a timeout while serving batches', () => {
    const l = last(
      [
        sgl('Watchdog timeout (self.watchdog_timeout=300)', 'TP3'),
        sgl('Watchdog timeout (self.watchdog_timeout=300)', 'TP1'),
        '[2026-03-01 10:00:09] Received sigquit from a child process. It usually means the child failed.',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
    assert.equal(l.failure?.class, 'timeout');
  });

  it("the watchdog's debug dump (utils/watchdog.py) already says it fired, even cut before the timeout line", () => {
    const l = last(
      [
        sgl('Scheduler debug info:', 'PP1 TP0'),
        'scheduler.cur_batch.batch_size()=1',
        'scheduler.cur_batch.reqs=[Req(rid=ab12, input_ids=[1, 2], output_ids=[])]',
        'self.max_total_num_tokens=1000, available_size=990, evictable_size=0, protected_size=0',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
    assert.equal(l.failure?.class, 'timeout');
    assert.equal(l.failure?.line, 1);
  });
});

describe('SGLang: the v0.4 watchdog dump', () => {
  it("Scheduler.watchdog_thread's `self.cur_batch.batch_size()=…` dump says the watchdog fired, cut before its timeout line", () => {
    const l = last(
      [
        sgl(
          'self.cur_batch.batch_size()=1, self.cur_batch.reqs=[Req(rid=ab12, input_ids=[1, 2], output_ids=[3])], self.token_to_kv_pool_allocator.available_size()=1000, self.tree_cache.evictable_size()=0,',
          'DP3 TP7',
        ),
        sgl('Pyspy dump for PID 1234:', 'DP1 TP3'),
        'Process 1234: sglang::scheduler_DP1_TP3',
        'Thread 1234 (active): "MainThread"',
        '    run_batch (scheduler.py:1573)',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
    assert.equal(l.failure?.class, 'timeout');
    assert.equal(l.failure?.line, 1);
  });
});

describe('SGLang: the barrier after loading', () => {
  it('"TP rank N could finish the model loading" (model_runner.py load_model), cut mid-sentence, is a timeout after loading', () => {
    const l = last(
      [
        sgl('Load weight begin. avail mem=70.00 GB', 'TP1'),
        sgl('Scheduler hit an exception: Traceback (most recent call last):', 'TP1'),
        `  File "${pkg}/model_executor/model_runner.py", line 417, in load_model`,
        '    raise ValueError(',
        'ValueError: TP rank 1 could finish the model loading, but there are other ranks th',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'weights_loaded');
    assert.equal(l.failure?.class, 'timeout');
  });
});

describe('SGLang: frames of older versions and of the request path', () => {
  it('0.1.x router: ModelRpcServer.forward_step frames (managers/router/model_rpc.py) are serving', () => {
    const l = last(
      [
        'Exception in ModelRpcClient:',
        'Traceback (most recent call last):',
        '  File "/w/sglang/python/sglang/srt/managers/router/model_rpc.py", line 170, in exposed_step',
        '    self.forward_step()',
        '  File "/w/sglang/python/sglang/srt/managers/router/model_rpc.py", line 185, in forward_step',
        '    self.forward_fill_batch(new_batch)',
        "AttributeError: 'NoneType' object has no attribute 'cpu'",
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
  });

  it('0.2.x controller: ControllerSingle.loop_for_forward and ModelTpServer.forward_decode_batch are serving', () => {
    const l = last(
      [
        'Exception in ControllerSingle:',
        'Traceback (most recent call last):',
        '  File "/w/sglang/srt/managers/controller_single.py", line 103, in loop_for_forward',
        '    out_pyobjs = self.tp_server.exposed_step(recv_reqs)',
        '  File "/w/sglang/srt/managers/tp_worker.py", line 251, in forward_step',
        '    self.forward_decode_batch(self.running_batch)',
        '  File "/w/sglang/srt/managers/tp_worker.py", line 612, in forward_decode_batch',
        '    next_token_ids = batch.sample(output.next_token_logits)',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
  });

  // (a fragment that starts mid-traceback: after a startup phase line, a serving loop's frames read as warm-up)
  it("the overlap scheduler's forward thread and a batch's model-worker batch are serving", () => {
    for (const frame of [
      `  File "${pkg}/managers/tp_worker_overlap_thread.py", line 111, in forward_thread_func`,
      `  File "${pkg}/managers/schedule_batch.py", line 1602, in get_model_worker_batch`,
      `  File "${pkg}/managers/tokenizer_manager.py", line 2055, in convert_logprob_style`,
    ]) {
      const l = last(
        [
          sgl('Scheduler hit an exception: Traceback (most recent call last):'),
          frame,
          '    x = y()',
          'RuntimeError: something broke',
        ].join('\n'),
      );
      assert.equal(l.phase, 'serving', frame);
    }
  });

  it("faulthandler's dump (no comma before `in`) is read frame by frame", () => {
    const l = last(
      [
        `  File "${pkg}/managers/scheduler.py", line 1257 in process_batch_result_decode`,
        `  File "${pkg}/managers/scheduler.py", line 1116 in process_batch_result`,
        `  File "${pkg}/managers/scheduler.py", line 519 in event_loop_overlap`,
        '',
        'Extension modules: numpy.core._multiarray_umath, torch._C (total: 2)',
      ].join('\n'),
    );
    assert.equal(l.phase, 'serving');
  });
});

describe('SGLang: the diffusion server and other startup lines', () => {
  it("the diffusion logger's year-less stamp (multimodal_gen logging_utils.py) is read: a SIGKILLed scheduler is killed", () => {
    const l = last(
      [
        '[12-11 17:47:40] Loading FluxTransformer2DModel, default_dtype: torch.bfloat16',
        '[12-11 17:52:52] Rank 0 scheduler is dead. Please check if there are relevant logs.',
        '[12-11 17:52:54] Exit code: -9',
        'Traceback (most recent call last):',
        '  File "/usr/local/bin/sglang", line 10, in <module>',
        '    sys.exit(main())',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'killed');
    assert.equal(l.failure?.line, 3);
  });

  it('host memory for V4 paged pools and PD KV registration are the KV-cache step', () => {
    for (const msg of [
      "Allocating 0.55 GB host memory for V4 paged pool 'swa' (layers=61, pages=60, item_bytes=149760).",
      'Register kv tensors, len(kv_addr)= 56',
    ])
      assert.equal(last(sgl(msg)).phase, 'kv_cache', msg);
  });

  it('a failed warm-up request (http_server.py _execute_server_warmup) is a crash in warm-up', () => {
    const l = last(
      [
        '[2026-03-01 10:00:01] Initialization failed. warmup error: Traceback (most recent call last):',
        '  File "/usr/lib/python3.10/socket.py", line 705, in readinto',
        '    return self._sock.recv_into(b)',
        'TimeoutError: timed out',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'warmup');
  });

  it('a failed /health_generate (http_server.py health_generate) shows the HTTP server up', () => {
    const l = last(
      [
        "[2026-03-01 10:00:01] Health check failed. Server couldn't get a response from detokenizer for last 20 seconds. tic start time: 10:00:00",
        '[2026-03-01 10:00:02] SIGTERM received. signum=None frame=None. Draining requests and shutting down...',
      ].join('\n'),
    );
    assert.equal(l.phase, 'warmup');
    assert.equal(l.outcome, 'shutdown');
  });
});

describe('SGLang 0.1.x-0.2.x start-up lines', () => {
  it("`Rank N: load weight end.` and `Rank N: max_total_num_token=` (router/model_runner.py, model_rpc.py) are SGLang's", () => {
    const r = analyzeText(
      [
        "INFO 03-27 19:02:43 weight_utils.py:163] Using model weights format ['*.bin']",
        "INFO 03-27 19:02:43 weight_utils.py:163] Using model weights format ['*.bin']",
        'Rank 0: load weight end.',
        'Rank 1: load weight end.',
        'Rank 1: max_total_num_token=52656, max_prefill_num_token=8776, context_len=4096, model_mode=[]',
      ].join('\n'),
    );
    assert.equal(r.engine, 'sglang');
    assert.equal(r.launches[r.launches.length - 1]!.phase, 'kv_cache');
  });

  it("argparse's usage line for launch_server.py names SGLang", () => {
    const r = analyzeText(
      [
        'INFO 03-06 10:05:08 __init__.py:190] Automatically detected platform cuda.',
        'usage: launch_server.py [-h] --model-path MODEL_PATH [--tokenizer-path TOKENIZER_PATH] [--host HOST]',
      ].join('\n'),
    );
    assert.equal(r.engine, 'sglang');
  });
});

describe('failure classes', () => {
  it("torch's collective-mismatch check is a distributed (nccl) failure; a gated Hub repo's 401 is model_not_found", () => {
    assert.equal(
      classifyFailureText(
        'Exception: Capture cuda graph failed: Detected mismatch between collectives on ranks. Rank 3 is running collective: CollectiveFingerPrint(SequenceNumber=17OpType=BARRIER)',
      ),
      'nccl',
    );
    assert.equal(
      classifyFailureText(
        'requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://huggingface.co/org/model/resolve/main/config.json',
      ),
      'model_not_found',
    );
  });

  it("CPython's comparison TypeError is a Python exception, not an unsupported feature", () => {
    assert.equal(
      classifyFailureText("TypeError: '>' not supported between instances of 'NoneType' and 'int'"),
      null,
    );
    assert.equal(classifyFailureText('ValueError: fp8 KV cache is not supported on this GPU'), 'unsupported');
  });
});

describe('SGLang: lines of other builds and front-ends', () => {
  it("pynccl's `sglang is using nccl==` and the v0.4 bar `Capturing batches (avail_mem=…)` say SGLang by themselves", () => {
    const nccl = last(
      [
        'sglang is using nccl==2.25.1',
        'Custom allreduce is disabled because this process group spans across nodes.',
      ].join('\n'),
    );
    assert.equal(nccl.engine, 'sglang');
    assert.equal(nccl.phase, 'dist_init');
    const bar = last('Capturing batches (avail_mem=7.08 GB):   0%|          | 0/17 [00:00<?, ?it/s]');
    assert.equal(bar.engine, 'sglang');
    assert.equal(bar.phase, 'cuda_graph');
  });

  it('the launch command pasted without a shell prompt opens the launch at args', () => {
    const l = last(
      [
        'python3 -m sglang.launch_server --model-path org/model-0.5b --host 0.0.0.0',
        '2025-11-14 12:47:54.547347: I tensorflow/core/util/port.cc:113] oneDNN custom operations are on.',
      ].join('\n'),
    );
    assert.equal(l.engine, 'sglang');
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'args');
    const serve = analyzeText('sglang serve --model-path org/model\n');
    assert.equal(serve.launches[0]!.phase, 'args');
  });

  it("sglang-jax's precompile lines (tp_worker.py precompile_extend/decode) are compile", () => {
    const l = last(
      [
        "[2025-09-03 04:38:50] server_args=ServerArgs(model_path='org/m', device='tpu')",
        '[2025-09-03 04:38:57] [EXTEND] begin to precompile',
        '[2025-09-03 04:38:57] [EXTEND] precompile (bs=1, num_tokens=64)',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'compile');
  });

  it("the diffusion loader's `Loading model from N safetensors files` is loading the weights", () => {
    const l = last(
      [
        "[12-11 17:47:40] Loading model from 2 safetensors files: ['/models/flux/transformer/a.safetensors', '/models/flux/transformer/b.safetensors']",
        '[12-11 17:47:40] Loading FluxTransformer2DModel, default_dtype: torch.bfloat16',
        '[12-11 17:52:52] Rank 0 scheduler is dead. Please check if there are relevant logs.',
        '[12-11 17:52:54] Exit code: -9',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
    assert.equal(l.failure?.class, 'killed');
  });

  it("a PD request's failed KV transfer (prefill.py/decode.py, then a 500 to that request) is serving, not a crash", () => {
    const l = last(
      [
        'E0612 14:05:26.176716 1192408 tcp_transport.cpp:136] Session::writeBody failed. Error: Bad address (value: 14)',
        sgl(
          "Prefill transfer failed for request rank=0 req.rid='e3485' req.bootstrap_room=880423 with exception KVTransferError(bootstrap_room=880423): Decode instance could be dead",
        ),
      ].join('\n'),
    );
    assert.equal(l.engine, 'sglang');
    assert.equal(l.outcome, 'serving');
    assert.equal(l.phase, 'serving');
  });
});

describe('SGLang: the router, torch.compile and the diffusion server', () => {
  it('sgl-router waiting for its workers (src/router.rs) shows a launch begun, nothing further', () => {
    const l = last(
      [
        '2025-07-08 19:58:04  INFO sglang_router_rs::router: src/router.rs:354: Worker is not ready yet',
        '2025-07-08 19:58:04  INFO sglang_router_rs::router: src/router.rs:365: Initializing workers:',
        '2025-07-08 19:58:04  INFO sglang_router_rs::router: src/router.rs:367:   http://0.0.0.0:31000 - Worker is not ready yet',
      ].join('\n'),
    );
    assert.equal(l.engine, 'sglang');
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'args');
  });

  it('the model gateway starting (server.rs: `Starting router on …`, `Initializing workers for routing mode`) is args', () => {
    const l = last(
      [
        '2025-11-01 10:00:00  INFO sglang_router_rs::server: src/server.rs:800: Starting router on 0.0.0.0:30000 | mode: Regular { worker_urls: [] } | policy: Random | max_payload: 256MB',
        '2025-11-01 10:00:00 DEBUG sglang_router_rs::core::job_queue: src/core/job_queue.rs:100: Initializing worker job queue: capacity=10, workers=2',
        '2025-11-01 10:00:00  INFO sglang_router_rs::server: src/server.rs:900: Initializing workers for routing mode: Regular { worker_urls: [] }',
      ].join('\n'),
    );
    assert.equal(l.engine, 'sglang');
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'args');
  });

  it("Inductor's max-autotune benchmarks are compiling, whatever the router says meanwhile", () => {
    const l = last(
      [
        'SingleProcess AUTOTUNE benchmarking takes 1.3427 seconds and 8.8429 seconds precompiling',
        'AUTOTUNE mm(4x4096, 4096x8)',
        '  mm 0.0134 ms 100.0%',
        '[Router (Rust)] 2025-03-08 02:33:09 - INFO - Worker http://0.0.0.0:31000 health check is pending with error: error sending request for url (http://0.0.0.0:31000/health)',
      ].join('\n'),
    );
    assert.equal(l.engine, 'sglang');
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'compile');
  });

  it("the diffusion server's failed warm-up (http_server.py) is a crash in warm-up, its shutdown lines the cleanup", () => {
    const l = last(
      [
        '[06-17 13:46:56] Server warmup failed; aborting startup: HTTP server did not become ready at http://[::1]:10454/health',
        'Traceback (most recent call last):',
        '  File "/usr/local/lib/python3.11/dist-packages/sglang/multimodal_gen/runtime/entrypoints/http_server.py", line 105, in _run_server_warmup_after_http_ready',
        '    await _wait_until_http_ready(server_args)',
        '  File "/usr/local/lib/python3.11/dist-packages/sglang/multimodal_gen/runtime/entrypoints/http_server.py", line 73, in _wait_until_http_ready',
        '    raise RuntimeError(f"HTTP server did not become ready at {health_url}")',
        'RuntimeError: HTTP server did not become ready at http://[::1]:10454/health',
        '[2026-06-17 13:46:57] INFO:     Shutting down',
        '[2026-06-17 13:46:57] INFO:     Finished server process [5698]',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'warmup');
  });

  it("DiffGenerator.from_pretrained starts the scheduler and waits on it: a child's death under it shows no loading", () => {
    const gen = '/usr/local/lib/python3.12/dist-packages/sglang/multimodal_gen/runtime/entrypoints';
    const l = last(
      [
        '[12-16 14:27:08] Rank 0 scheduler is dead. Please check if there are relevant logs.',
        '[12-16 14:27:10] Exit code: -9',
        'Traceback (most recent call last):',
        `  File "${gen}/cli/generate.py", line 98, in generate_cmd`,
        '    generator = DiffGenerator.from_pretrained(',
        `  File "${gen}/diffusion_generator.py", line 115, in from_pretrained`,
        '    return cls.from_server_args(server_args)',
        `  File "${gen}/diffusion_generator.py", line 134, in from_server_args`,
        '    instance.local_scheduler_process = instance._start_local_server_if_needed()',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'killed');
    assert.notEqual(l.phase, 'loading_weights');
  });
});

describe('SGLang: the KV pool does not fit', () => {
  it("kv_cache_configurator.py's raise, cut after its first sentence, is an OOM while sizing the KV cache", () => {
    const l = last(
      [
        sgl('Load weight end. quant=fp8, avail mem=12.25 GB, mem usage=125.65 GB.'),
        'ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.9.',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'kv_cache');
    assert.equal(l.failure?.class, 'oom');
  });
});

describe('SGLang: graph capture and GPU faults', () => {
  it('a piecewise CUDA graph failure before the server is up is the startup capture; its init traceback keeps it', () => {
    const l = last(
      [
        sgl('Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=60.00 GB'),
        sgl("Piecewise CUDA Graph failed with error: 'Ctx' object has no attribute 'n'", 'TP1'),
        sgl('Scheduler hit an exception: Traceback (most recent call last):', 'TP1'),
        `  File "${pkg}/managers/scheduler.py", line 700, in init_tp_model_worker`,
        '    self.tp_worker = TpModelWorker(**worker_kwargs)',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'cuda_graph');
  });

  it("the failure line's quoted str(e) in CPython's own words is the code's exception (issue 22: an excerpt of it)", () => {
    const cls = (err: string) =>
      last(sgl(`Piecewise CUDA Graph failed with error: ${err}`, 'TP1')).failure?.class;
    assert.equal(cls("'Ctx' object has no attribute 'n'"), 'python_exception');
    assert.equal(cls("forward() got an unexpected keyword argument 'k'"), 'python_exception');
    assert.equal(cls('CUDA out of memory. Tried to allocate 2.00 GiB'), 'oom');
    // words that name no cause point at one printed elsewhere
    assert.equal(cls('Tensor match failed'), 'other');
  });

  it("a traceback cut at the model worker's construction shows only its first step begun (dist_init)", () => {
    const l = last(
      [
        sgl('Scheduler hit an exception: Traceback (most recent call last):'),
        `  File "${pkg}/managers/scheduler.py", line 700, in init_tp_model_worker`,
        '    self.tp_worker = TpModelWorker(**worker_kwargs)',
        `  File "${pkg}/managers/tp_worker.py", line 262, in __init__`,
        '    self._init_model_runner()',
      ].join('\n'),
    );
    assert.equal(l.phase, 'dist_init');
  });

  it("the CUDA driver starting a GPU coredump is a kernel fault: cuda_error over the scheduler's cut traceback", () => {
    const l = last(
      [
        sgl(
          'Decode batch, #running-req: 3, #token: 900, token usage: 0.01, gen throughput (token/s): 80.00, #queue-req: 0',
        ),
        'Starting GPU coredump generation, set the CUDA_COREDUMP_SHOW_PROGRESS environment variable to 1 to enable more detailed output',
        sgl('Scheduler hit an exception: Traceback (most recent call last):'),
        `  File "${pkg}/managers/scheduler.py", line 2353, in run_scheduler_process`,
        '    scheduler.event_loop_overlap()',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'cuda_error');
  });
});

describe('SGLang: requests before the ready line', () => {
  it("a client's POST to the OpenAI API answered is a request served, not the warm-up (which posts to /generate)", () => {
    const l = last(
      [
        '[2026-03-01 10:00:01] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)',
        '[2026-03-01 10:00:02] INFO:     10.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
      ].join('\n'),
    );
    assert.equal(l.phase, 'serving');
    const w = last(
      [
        '[2026-03-01 10:00:01] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)',
        '[2026-03-01 10:00:02] INFO:     127.0.0.1:5000 - "POST /generate HTTP/1.1" 200 OK',
      ].join('\n'),
    );
    assert.equal(w.phase, 'warmup');
  });

  it('a fragment of metrics scrapes only shows the server up and answering: ready, not serving', () => {
    const l = last(
      [
        '[2026-03-01 10:00:02] INFO:     10.0.0.4:41646 - "GET /metrics HTTP/1.1" 200 OK',
        '[2026-03-01 10:00:17] INFO:     10.0.0.4:41647 - "GET /metrics HTTP/1.1" 200 OK',
      ].join('\n'),
    );
    assert.equal(l.phase, 'ready');
  });

  it("a piecewise graph failure that opens the fragment, then the event loop's traceback: a crash while serving", () => {
    const l = last(
      [
        sgl('Piecewise CUDA Graph failed with error: Tensor match failed', 'TP6'),
        sgl('Scheduler hit an exception: Traceback (most recent call last):', 'TP6'),
        `  File "${pkg}/managers/scheduler.py", line 3811, in run_scheduler_process`,
        '    scheduler.run_event_loop()',
        `  File "${pkg}/managers/scheduler.py", line 1567, in event_loop_overlap`,
        '    batch_result = self.run_batch(batch)',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
  });
});

describe('SGLang: a request refused for its length', () => {
  it("validate_input_length's error shows a request reached the scheduler: serving, whatever a cut traceback after it shows", () => {
    const l = last(
      [
        sgl(
          'Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens). Use a shorter input or enable --allow-auto-truncate.',
          'TP5',
        ),
        sgl('Scheduler hit an exception: Traceback (most recent call last):', 'TP5'),
        `  File "${pkg}/managers/scheduler.py", line 1796, in run_scheduler_process`,
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
  });
});

describe('SGLang: a PD prefill server', () => {
  it('its prefill batch line (#unbootstrapped-req / #transferring-req) is a batch served', () => {
    const l = last(
      [
        sgl(
          'Prefill batch. #new-seq: 1, #new-token: 1, #cached-token: 0, token usage: 0.00, #unbootstrapped-req: 0, #queue-req: 0, #transferring-req: 0, input throughput (token/s): 0.10',
        ),
        '[2026-03-01 10:00:08] INFO:     10.0.0.1:29496 - "GET /health HTTP/1.1" 200 OK',
      ].join('\n'),
    );
    assert.equal(l.phase, 'serving');
  });
});

describe('SGLang: ranks that load at their own pace', () => {
  const bar = (n: number) =>
    `Loading safetensors checkpoint shards:  ${Math.round((n / 10) * 100)}% Completed | ${n}/10 [00:0${n}<00:01,  2.00it/s]`;
  it("one rank's Load weight end while another rank's shard bar is short of its total: still loading", () => {
    const l = last(
      [bar(6), sgl('Load weight end. type=X, dtype=torch.bfloat16, avail mem=58.12 GB', 'TP7'), bar(7)].join(
        '\n',
      ),
    );
    assert.equal(l.phase, 'loading_weights');
  });
  it('once that bar completes the weights are in', () => {
    const l = last(
      [
        bar(6),
        sgl('Load weight end. type=X, dtype=torch.bfloat16, avail mem=58.12 GB', 'TP7'),
        bar(9),
        bar(10),
      ].join('\n'),
    );
    assert.equal(l.phase, 'weights_loaded');
  });
});

describe('SGLang: an error raised inside a graph capture', () => {
  it("PyTorch's `during CUDA graph capture` places the crash in cuda_graph, whatever cut frames follow", () => {
    const l = last(
      [
        'torch._dynamo.exc.InternalTorchDynamoError: RuntimeError: Cannot call CUDAGeneratorImpl::current_seed during CUDA graph capture. Current cudaStreamCaptureStatus: cudaStreamCaptureStatusActive',
        '',
        'During handling of the above exception, another exception occurred:',
        '',
        'Traceback (most recent call last):',
        `  File "${pkg}/managers/scheduler.py", line 2255, in run_scheduler_process`,
        '    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, pp_rank, dp_rank)',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'cuda_graph');
  });
});

describe('SGLang: its OpenAI layer as the HTTP server starts and takes requests', () => {
  it("OpenAIServingChat's start-up line names SGLang (vLLM says `from model: {`) and the HTTP server starting", () => {
    const r = analyzeText(
      [
        '[2026-03-01 10:00:01] INFO:     Waiting for application startup.',
        "[2026-03-01 10:00:01] Using default chat sampling params from model generation config: {'temperature': 0.6, 'top_p': 0.9}",
        '[2026-03-01 10:00:01] INFO:     Application startup complete.',
        '[2026-03-01 10:00:01] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)',
        '[2026-03-01 10:00:02] INFO:     127.0.0.1:5001 - "GET /model_info HTTP/1.1" 200 OK',
      ].join('\n'),
    );
    assert.equal(r.engine, 'sglang');
    const l = r.launches[r.launches.length - 1]!;
    // the warm-up's own poll of /model_info: not ready yet
    assert.equal(l.phase, 'warmup');
    assert.equal(l.outcome, 'in_progress');
  });

  it("a chat request's max_tokens deprecation warning is a client's request taken in: ready, none answered", () => {
    const l = last(
      [
        '[2026-03-01 10:00:01] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)',
        '[2026-03-01 10:00:02] INFO:     127.0.0.1:5001 - "GET /model_info HTTP/1.1" 200 OK',
        `${pkg}/entrypoints/openai/serving_chat.py:610: DeprecationWarning: max_tokens is deprecated in favor of the max_completion_tokens field`,
        '  max_output_tokens = request.max_completion_tokens or request.max_tokens',
      ].join('\n'),
    );
    assert.equal(l.outcome, 'ready');
    assert.equal(l.phase, 'ready');
  });

  it("Dynamo's SGLang worker registering the model after the engine is built is the worker ready", () => {
    for (const msg of [
      'Model registration succeeded; processing queued requests',
      'Successfully registered LLM with runtime config',
    ]) {
      const l = last(
        [
          '2026-05-01T10:00:00.100000Z  INFO dynamo_runtime::component::endpoint: Registering endpoint endpoint_name=generate',
          `[2026-05-01 10:00:00.200] ${msg}`,
        ].join('\n'),
      );
      assert.equal(l.engine, 'sglang', msg);
      assert.equal(l.phase, 'ready', msg);
      const crashed = last(
        [
          `[2026-05-01 10:00:00.200] ${msg}`,
          '[2026-05-01 10:03:00.100 DP0 TP0 EP0] Scheduler hit an exception: Traceback (most recent call last):',
        ].join('\n'),
      );
      assert.equal(crashed.outcome, 'crashed', msg);
      assert.equal(crashed.phase, 'ready', msg);
    }
  });
});
