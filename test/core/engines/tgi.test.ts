/**
 * TGI lines read from the launcher, router and shard sources (launcher/src/main.rs, router/src/server.rs,
 * backends/v3/src/{lib,main}.rs, server/text_generation_server/{server,interceptor}.py), on made-up lines of
 * the shape the launcher's tracing subscriber prints.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const last = (lines: string[]) => {
  const r = analyzeText(lines.join('\n'));
  return { ...r.launches[r.launches.length - 1]!, engine: r.engine };
};
const at = (s: number, level: string, msg: string) =>
  `2025-11-03T09:12:${String(s).padStart(2, '0')}.100000Z ${level.padStart(5)} ${msg}`;
const ARGS = [at(0, 'INFO', 'text_generation_launcher: Args {'), '    model_id: "org/m",', '}'];

describe('TGI', () => {
  // server/text_generation_server/models/flash_causal_lm.py warmup: `except torch.cuda.OutOfMemoryError:
  // logger.exception("Decode cuda graph warmup failed")`, then warmup returns; loguru's traceback under the line
  const CAUGHT = [
    ...ARGS,
    at(1, 'INFO', 'shard-manager: text_generation_launcher: Shard ready in 12.3s rank=0'),
    at(2, 'INFO', 'text_generation_router_v3: backends/v3/src/lib.rs:125: Warming up model'),
    at(3, 'INFO', 'text_generation_launcher: Cuda Graphs are enabled for sizes [32, 16, 8, 4, 2, 1]'),
    at(5, 'ERROR', 'text_generation_launcher: Decode cuda graph warmup failed'),
    'Traceback (most recent call last):',
    '',
    '  File "/opt/conda/bin/text-generation-server", line 8, in <module>',
    '    sys.exit(app())',
    '',
    '> File "/usr/src/server/text_generation_server/models/flash_causal_lm.py", line 1670, in warmup',
    '    self.cuda_graph_warmup(bs, max_total_tokens, max_total_tokens)',
    '',
    'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.25 GiB. GPU 0 has 400.00 MiB free.',
  ];

  it('a CUDA-graph warm-up OOM that TGI catches is a warning, not a crash', () => {
    for (const cut of [0, 1, 3, 6]) {
      const l = last(CAUGHT.slice(0, CAUGHT.length - cut));
      assert.equal(l.outcome, 'in_progress', `cut ${cut}`);
      assert.equal(l.phase, 'warmup');
      assert.equal(l.failure, null);
      assert.equal(l.degraded[0]?.line, 7);
    }
    assert.equal(last(CAUGHT).recoveredFailures[0]?.class, 'oom');
  });

  it('the launch goes on to ready after it; a later error is its own', () => {
    const ready = last([
      ...CAUGHT,
      at(
        9,
        'INFO',
        'text_generation_router_v3: backends/v3/src/lib.rs:137: Setting max batch total tokens to 7000',
      ),
      at(9, 'INFO', 'text_generation_router::server: router/src/server.rs:2000: Connected'),
    ]);
    assert.equal(ready.outcome, 'ready');
    const crashed = last([
      ...CAUGHT,
      at(9, 'ERROR', 'text_generation_launcher: Method Warmup encountered an error.'),
      'Traceback (most recent call last):',
      '  File "/usr/src/server/text_generation_server/interceptor.py", line 21, in intercept',
      'RuntimeError: CUDA error: an illegal memory access was encountered',
    ]);
    assert.equal(crashed.outcome, 'crashed');
    assert.equal(crashed.failure?.class, 'cuda_error');
  });
  it('a shard that answers on its socket has loaded its weights', () => {
    const l = last([
      ...ARGS,
      at(1, 'INFO', 'shard-manager: text_generation_launcher: Starting shard rank=0'),
      at(2, 'INFO', 'text_generation_launcher: Using prefix caching = True'),
      at(3, 'INFO', 'text_generation_launcher: Server started at unix:///tmp/text-generation-server-0'),
      at(4, 'INFO', 'shard-manager: text_generation_launcher: Shard ready in 12.3s rank=0'),
    ]);
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'weights_loaded');
  });

  it('the older download lines place the launch at loading', () => {
    const l = last([
      ...ARGS,
      at(1, 'INFO', 'download: text_generation_launcher: Starting download process.'),
      at(
        2,
        'INFO',
        'text_generation_launcher: Downloaded /data/m/model-00001-of-00002.safetensors in 0:00:09.',
      ),
    ]);
    assert.equal(l.phase, 'loading_weights');
  });

  it("the launcher's and router's exit errors name their cause", () => {
    const arg = last([
      ...ARGS,
      'Error: ArgumentValidation("`max_input_tokens` must be < `max_total_tokens`")',
    ]);
    assert.equal(arg.outcome, 'crashed');
    assert.equal(arg.failure?.class, 'config_error');
    const warm = last([
      ...ARGS,
      at(5, 'INFO', 'text_generation_launcher: Starting Webserver'),
      'Error: Backend(Warmup(Generation("CUDA out of memory. Tried to allocate 2.00 GiB")))',
    ]);
    assert.equal(warm.outcome, 'crashed');
    assert.equal(warm.failure?.class, 'oom');
  });

  it('a shard killed with signal 9 is killed', () => {
    const l = last([
      ...ARGS,
      at(1, 'INFO', 'shard-manager: text_generation_launcher: Starting shard rank=0'),
      at(9, 'ERROR', 'shard-manager: text_generation_launcher: Shard complete standard error output:'),
      ' rank=0',
      at(
        9,
        'ERROR',
        'shard-manager: text_generation_launcher: Shard process was signaled to shutdown with signal 9 rank=0',
      ),
      at(9, 'ERROR', 'text_generation_launcher: Shard 0 failed to start'),
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'killed');
  });

  it('a failed download or a missing binary is a crash', () => {
    const dl = last([
      ...ARGS,
      at(1, 'INFO', 'download: text_generation_launcher: Starting check and download process for org/m'),
      at(2, 'ERROR', 'download: text_generation_launcher: Download encountered an error: '),
    ]);
    assert.equal(dl.outcome, 'crashed');
    const bin = last([
      ...ARGS,
      at(1, 'ERROR', 'text_generation_launcher: text-generation-server not found in PATH'),
    ]);
    assert.equal(bin.outcome, 'crashed');
  });

  it("a request's validation error is a request served, not a crash", () => {
    const l = last([
      ...ARGS,
      at(5, 'INFO', 'text_generation_router::server: router/src/server.rs:2302: Connected'),
      at(
        6,
        'ERROR',
        'chat_completions:generate_stream:generate_stream{parameters=GenerateParameters { best_of: None }}:async_stream:generate_stream: text_generation_router::infer: router/src/infer/mod.rs:126: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 200 `max_new_tokens`',
      ),
    ]);
    assert.equal(l.outcome, 'serving');
  });

  it('a batch that failed, then a request answered: the server lived on; a shard crash after it still kills', () => {
    const failed = [
      ...ARGS,
      at(5, 'INFO', 'text_generation_router::server: router/src/server.rs:2302: Connected'),
      at(
        7,
        'ERROR',
        'batch{batch_size=2}:prefill:prefill{id=9 size=2}:prefill{id=9 size=2}: text_generation_client: router/client/src/lib.rs:46: Server error: CUDA out of memory. Tried to allocate 1.00 GiB.',
      ),
      at(
        7,
        'ERROR',
        'generate_stream{parameters=GenerateParameters { max_new_tokens: Some(64) }}:async_stream:generate_stream:infer:send_error: text_generation_router::infer: router/src/infer/mod.rs:300: Request failed during generation: Server error: CUDA out of memory. Tried to allocate 1.00 GiB.',
      ),
    ];
    // router/src/server.rs generate_stream: `tracing::info!(parent: &span, "Success")` once the stream is done
    const ok = at(
      9,
      'INFO',
      'generate_stream{parameters=GenerateParameters { max_new_tokens: Some(64) } total_time="1.2s" inference_time="1.2s"}: text_generation_router::server: router/src/server.rs:600: Success',
    );
    // the failed batch alone is a failed request of a serving server (request_batch_error): whether the shard died
    // of it (2.4+ interceptor.py) the launcher's `Shard N crashed` says, below
    assert.equal(last(failed).outcome, 'serving');
    const lived = last([...failed, ok]);
    assert.equal(lived.outcome, 'serving');
    assert.equal(lived.failure, null);
    const died = last([
      ...failed,
      ok,
      at(11, 'ERROR', 'text_generation_launcher: Shard 0 crashed'),
      'Error: ShardFailed',
    ]);
    assert.equal(died.outcome, 'crashed');
  });

  it('--json-output: the shard start and the router ready line are read from the JSON events', () => {
    const l = last([
      '{"timestamp":"2024-05-01T10:00:01.000000Z","level":"INFO","fields":{"message":"Starting shard"},"target":"text_generation_launcher","span":{"rank":0,"name":"shard-manager"}}',
      '{"timestamp":"2024-05-01T10:00:30.000000Z","level":"INFO","message":"Connected","target":"text_generation_router","filename":"router/src/main.rs","line_number":300}',
    ]);
    assert.equal(l.engine, 'tgi');
    assert.equal(l.outcome, 'ready');
  });

  it("the launcher's stop of its children is a stop", () => {
    const l = last([
      ...ARGS,
      at(5, 'INFO', 'text_generation_router::server: router/src/server.rs:2302: Connected'),
      at(7, 'INFO', 'shard-manager: text_generation_launcher: Terminating shard rank=0'),
      at(
        7,
        'INFO',
        'shard-manager: text_generation_launcher: Waiting for shard to gracefully shutdown rank=0',
      ),
    ]);
    assert.equal(l.outcome, 'shutdown');
  });
});

describe('TGI: where its errors fall (launcher main.rs, router, interceptor.py)', () => {
  const launcher = (s: number, level: string, msg: string) =>
    at(s, level, `text_generation_launcher: ${msg}`);
  const READY_SHARD = [
    ...ARGS,
    at(1, 'INFO', 'shard-manager: text_generation_launcher: Shard ready in 12.3s rank=0'),
    launcher(2, 'INFO', 'Starting Webserver'),
  ];

  it('a failed gRPC method names the phase: Warmup warms up, Prefill and Decode serve', () => {
    const warm = last([
      ...READY_SHARD,
      launcher(3, 'ERROR', 'Method Warmup encountered an error.'),
      'Traceback (most recent call last):',
    ]);
    assert.equal(warm.outcome, 'crashed');
    assert.equal(warm.phase, 'warmup');
    const prefill = last([
      ...READY_SHARD,
      at(3, 'INFO', 'text_generation_router::server: router/src/server.rs:2402: Connected'),
      launcher(9, 'ERROR', 'Method Prefill encountered an error.'),
      'Traceback (most recent call last):',
    ]);
    assert.equal(prefill.phase, 'serving');
  });

  it("the router's panics: warm-up in main, a worker thread's while serving", () => {
    const warm = last([
      ...READY_SHARD,
      `thread 'main' panicked at 'Unable to warmup model: Generation("Allocation on device 0 would exceed allowed memory. (out of memory)")', router/src/main.rs:216:18`,
      launcher(4, 'ERROR', 'Webserver Crashed'),
    ]);
    assert.equal(warm.phase, 'warmup');
    assert.equal(warm.failure?.class, 'oom');
    const worker = last([
      ...READY_SHARD,
      at(3, 'INFO', 'text_generation_router::server: router/src/server.rs:2402: Connected'),
      "thread 'tokio-runtime-worker' panicked at /usr/src/router/src/server.rs:180:45:",
      'byte index 10 is not a char boundary',
      launcher(5, 'ERROR', 'Webserver Crashed'),
    ]);
    assert.equal(worker.outcome, 'crashed');
    assert.equal(worker.phase, 'serving');
  });

  it("`Error: WebserverFailed` after the launcher stopped its shards is a crash after the shards' load", () => {
    const l = last([
      at(1, 'INFO', 'shard-manager: text_generation_launcher: Terminating shard rank=0'),
      at(
        1,
        'INFO',
        'shard-manager: text_generation_launcher: Waiting for shard to gracefully shutdown rank=0',
      ),
      at(2, 'INFO', 'shard-manager: text_generation_launcher: shard terminated rank=0'),
      'Error: WebserverFailed',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'weights_loaded');
    // without the error line it is a stop
    assert.equal(
      last([at(1, 'INFO', 'shard-manager: text_generation_launcher: shard terminated rank=0')]).outcome,
      'shutdown',
    );
  });

  it("`Error: ShardFailed` after the shards were stopped is a crash after the load (main's loop), not a stop", () => {
    const l = last([
      at(1, 'INFO', 'shard-manager: text_generation_launcher: shard terminated rank=1'),
      at(2, 'INFO', 'shard-manager: text_generation_launcher: shard terminated rank=0'),
      'Error: ShardFailed',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'weights_loaded');
  });

  it('a shard that failed to start was loading; its OOM is the cause', () => {
    const l = last([
      ...ARGS,
      launcher(1, 'INFO', 'Starting download process.'),
      'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 128.00 MiB (GPU 0; 15.77 GiB total capacity)',
      ' rank=0',
      'Error: ShardCannotStart',
      launcher(3, 'ERROR', 'Shard 0 failed to start'),
    ]);
    assert.equal(l.phase, 'loading_weights');
    assert.equal(l.failure?.class, 'oom');
  });

  it('a warm-up that lacks memory for its prefill tokens fails in warm-up', () => {
    const l = last([
      ...READY_SHARD,
      launcher(3, 'ERROR', 'Method Warmup encountered an error.'),
      'RuntimeError: Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`',
    ]);
    assert.equal(l.phase, 'warmup');
    assert.equal(l.failure?.class, 'oom');
  });

  it('GPTQ layers and the model config read in the shard place loading; old c10 NCCL errors are NCCL', () => {
    assert.equal(last([...ARGS, launcher(1, 'INFO', 'Using exllama kernels'), '']).phase, 'loading_weights');
    const nccl = last([
      ...ARGS,
      'You are using a model of type llama to instantiate a model of type . This is not supported for all configurations of models and can yield errors.',
      '[E ProcessGroupNCCL.cpp:828] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, Timeout(ms)=60000) ran for 69027 milliseconds before timing out.',
    ]);
    assert.equal(nccl.phase, 'loading_weights');
    assert.equal(nccl.failure?.class, 'nccl');
  });

  it('a cut pretty-printed Args block is still TGI at args', () => {
    const l = last([
      '2024-11-20T14:37:16.307700574Z     shard_uds_path: "/tmp/text-generation-server",',
      '2024-11-20T14:37:16.307705327Z     master_addr: "localhost",',
      '2024-11-20T14:37:16.307728183Z     disable_custom_kernels: false,',
    ]);
    assert.equal(l.engine, 'tgi');
    assert.equal(l.phase, 'args');
  });

  it("syslog-escaped colours and a console's Markdown auto-links do not hide `Connected`", () => {
    const l = last([
      ...READY_SHARD,
      '#033[2m2024-04-18T22:45:31.006845Z#033[0m #033[32m INFO#033[0m #033[2mtext_generation_router#033[0m#033[2m:#033[0m #033[2mrouter/src/[main.rs#033[0m#033[2m:#033[0m#033[2m329:#033[0m](http://main.rs/#033[0m%23033[2m:%23033[0m) Connected',
    ]);
    assert.equal(l.outcome, 'ready');
  });

  it("more shards than GPUs is a configuration error; the router's client crate names TGI", () => {
    const l = last([
      '  File "/opt/conda/lib/python3.9/site-packages/text_generation_server/utils/dist.py", line 15, in initialize_torch_distributed',
      '    assert world_size <= torch.cuda.device_count(), "Each process is one gpu"',
      'AssertionError: Each process is one gpu',
      ' rank=0',
      'Error: ShardCannotStart',
    ]);
    assert.equal(l.failure?.class, 'config_error');
    const client = last([
      'RuntimeError: CUDA error: out of memory',
      '2024-09-25T15:04:34.598137Z ERROR warmup{max_input_length=500 max_prefill_tokens=550 max_total_tokens=13107 max_batch_size=None}:warmup: text_generation_client: router/client/src/lib.rs:46: Server error: CANCELLED',
    ]);
    assert.equal(client.engine, 'tgi');
  });

  it("a request failing during generation was a user request in a running batch: serving, then the shard's exit is the crash", () => {
    const l = last([
      '2024-05-02T10:00:01.000001Z ERROR batch{batch_size=2}:decode:decode{size=2}:decode{size=2}: text_generation_client: router/client/src/lib.rs:33: Server error: transport error',
      '2024-05-02T10:00:01.000002Z ERROR generate{parameters=GenerateParameters { best_of: None, max_new_tokens: Some(64) }}:generate:infer:send_error: text_generation_router::infer: router/src/infer.rs:866: Request failed during generation: Server error: transport error',
      '2024-05-02T10:00:01.300000Z ERROR shard-manager: text_generation_launcher: Shard complete standard error output:',
    ]);
    assert.equal(l.phase, 'serving');
    assert.equal(l.outcome, 'crashed');
  });
});

describe('TGI (issue 22): the launcher, router and shard lines of real pastes', () => {
  const launcher = (s: number, level: string, msg: string) =>
    at(s, level, `text_generation_launcher: ${msg}`);

  it('`Starting Webserver` and the router asking the hub come after the shards are ready, before warm-up', () => {
    const start = last([
      launcher(1, 'INFO', 'Shard 0 ready in 11.8s'),
      launcher(2, 'INFO', 'Starting Webserver'),
    ]);
    assert.equal(start.phase, 'weights_loaded');
    // launcher/src/main.rs spawn_webserver; router/src/main.rs get_model_info (0.9–1.x)
    const hub = last([
      launcher(2, 'INFO', 'Starting Webserver'),
      at(
        3,
        'INFO',
        'text_generation_router: router/src/main.rs:346: Serving revision 0123abcd of model org/m',
      ),
    ]);
    assert.equal(hub.phase, 'weights_loaded');
    const revision = last([
      launcher(2, 'INFO', 'Starting Webserver'),
      at(3, 'WARN', 'text_generation_router: router/src/main.rs:356: `--revision` is not set'),
      at(
        3,
        'WARN',
        'text_generation_router: router/src/main.rs:357: We strongly advise to set it to a known supported commit.',
      ),
    ]);
    assert.equal(revision.phase, 'weights_loaded');
    const warm = last([
      launcher(2, 'INFO', 'Starting Webserver'),
      at(4, 'INFO', 'text_generation_router: router/src/main.rs:212: Warming up model'),
    ]);
    assert.equal(warm.phase, 'warmup');
  });

  it('a caught CUDA-graph warm-up failure alone is the capture step, still going', () => {
    const l = last([
      launcher(1, 'ERROR', 'Decode cuda graph warmup failed'),
      'Traceback (most recent call last):',
      '  File "/opt/conda/bin/text-generation-server", line 8, in <module>',
      '    sys.exit(app())',
    ]);
    assert.equal(l.outcome, 'in_progress');
    assert.equal(l.phase, 'cuda_graph');
  });

  it("a shard that failed to start takes the phase its own error shows: the torch.distributed store's port", () => {
    const l = last([
      'RuntimeError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).',
      ' rank=0',
      launcher(3, 'ERROR', 'Shard 0 failed to start'),
      launcher(3, 'INFO', 'Shutting down shards'),
      'Error: ShardCannotStart',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'dist_init');
    assert.equal(l.failure?.class, 'port_in_use');
    // without one, `failed to start` says the shard was loading
    assert.equal(last([launcher(3, 'ERROR', 'Shard 0 failed to start')]).phase, 'loading_weights');
  });

  it("a request the router could not send to the shard's socket: the shard is gone, the server died serving", () => {
    const l = last([
      '{"timestamp":"2025-08-29T14:40:17.288163Z","level":"ERROR","message":"Request failed during generation: Server error: error trying to connect: No such file or directory (os error 2)","target":"text_generation_router_v3::backend","filename":"backends/v3/src/backend.rs","line_number":546}',
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
    assert.equal(l.failure?.class, 'other');
  });

  it("the download step's conversion lines, the shard's model-code imports and the router's config reads", () => {
    const dl = last([
      at(
        1,
        'INFO',
        'download: text_generation_launcher: Convert /data/m/pytorch_model-00001-of-00002.bin to /data/m/model-00001-of-00002.safetensors.',
      ),
      at(9, 'INFO', 'download: text_generation_launcher: Convert: [1/2] -- Took: 0:00:40.570538'),
    ]);
    assert.equal(dl.phase, 'loading_weights');
    assert.equal(
      last([
        launcher(1, 'INFO', 'weights_cache_override is set to Some("/data/m").'),
        launcher(1, 'INFO', 'Skipping download.'),
      ]).phase,
      'loading_weights',
    );
    const imports = last([
      ...ARGS,
      launcher(
        2,
        'WARN',
        'Could not import Flash Attention enabled models: Flash Attention V2 is not installed.',
      ),
      at(2, 'WARN', "shard-manager: text_generation_launcher: We're not using custom kernels."),
    ]);
    assert.equal(imports.phase, 'loading_weights');
    const config = [
      launcher(3, 'INFO', 'Starting Webserver'),
      at(4, 'INFO', 'text_generation_router::server: router/src/server.rs:1716: Using config Some(Mistral)'),
    ];
    assert.equal(last(config).phase, 'weights_loaded');
    // its address is read after the warm-up in every era (router/src/main.rs, server.rs start)
    const address = last([
      ...config,
      at(
        4,
        'WARN',
        'text_generation_router::server: router/src/server.rs:1879: Invalid hostname, defaulting to 0.0.0.0',
      ),
    ]);
    assert.equal(address.phase, 'warmup');
  });

  it("the router client's error in the warm-up call: a crash in warm-up, unless the shard's traceback placed it", () => {
    const client = (s: number) =>
      at(
        s,
        'ERROR',
        'warmup{max_input_length=500 max_prefill_tokens=550 max_total_tokens=13107 max_batch_size=None}:warmup: text_generation_client: router/client/src/lib.rs:46: Server error: CANCELLED',
      );
    const warm = last([launcher(2, 'INFO', 'Starting Webserver'), client(5)]);
    assert.equal(warm.outcome, 'crashed');
    assert.equal(warm.phase, 'warmup');
    const capture = last([
      '  File "/opt/conda/lib/python3.10/site-packages/torch/cuda/graphs.py", line 82, in capture_end',
      '    super().capture_end()',
      'RuntimeError: CUDA error: out of memory',
      client(6),
      client(6),
    ]);
    assert.equal(capture.phase, 'cuda_graph');
    assert.equal(capture.failure?.class, 'oom');
  });

  it("the batching task's own report that the shard's socket is gone is a crash while serving", () => {
    const l = last([
      at(
        7,
        'ERROR',
        'batch{batch_size=1}:prefill:clear_cache{batch_id=Some(81)}:clear_cache{batch_id=Some(81)}: text_generation_client: router/client/src/lib.rs:33: Server error: error trying to connect: Connection refused (os error 111)',
      ),
    ]);
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'serving');
  });

  it("a step of the Warmup call's prefill (warmup → generate_token) is warm-up, not a request", () => {
    const l = last([
      launcher(5, 'ERROR', 'Method Warmup encountered an error.'),
      'Traceback (most recent call last):',
      '  File "/opt/conda/lib/python3.9/site-packages/text_generation_server/models/flash_causal_lm.py", line 753, in warmup',
      '    _, batch = self.generate_token(batch)',
      '  File "/opt/conda/lib/python3.9/site-packages/text_generation_server/models/flash_causal_lm.py", line 839, in generate_token',
      '    out = self.forward(',
      'RuntimeError: Not enough memory to handle 4096 prefill tokens. You need to decrease `--max-batch-prefill-tokens`',
    ]);
    assert.equal(l.phase, 'warmup');
    assert.equal(l.failure?.class, 'oom');
  });

  it("a request span pasted without its time is TGI's router serving", () => {
    const l = last([
      'INFO generate{parameters=GenerateParameters { best_of: Some(1), temperature: Some(0.2), max_new_tokens: 48, stop: ["\\n}"] } total_time="667ms"',
    ]);
    assert.equal(l.engine, 'tgi');
    assert.equal(l.phase, 'serving');
  });
});

describe('TGI (issue 22): what names the engine in a paste with no launcher line (synthetic lines)', () => {
  it("transformers' warning about TGI's own config classes, which name no model type, says TGI", () => {
    // custom_modeling/flash_llama_modeling.py LlamaConfig(PretrainedConfig) has no model_type: `… of type .`
    const l = last([
      '2024-01-10T08:00:01.000000001Z You are using a model of type mistral to instantiate a model of type . This is not supported for all configurations of models and can yield errors.',
      '2024-01-10T08:00:59.000000001Z [E ProcessGroupNCCL.cpp:828] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, Timeout(ms)=60000) ran for 60100 milliseconds before timing out.',
    ]);
    assert.equal(l.engine, 'tgi');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.failure?.class, 'nccl');
    // a config class that names its type (vLLM's, transformers' own) says nothing of the engine
    const typed = last([
      'You are using a model of type mistral to instantiate a model of type llama. This is not supported for all configurations of models and can yield errors.',
    ]);
    assert.notEqual(typed.engine, 'tgi');
  });
});

describe('TGI (issue 22): runtime environment and per-request batch errors (synthetic lines)', () => {
  it("the launcher's runtime environment block (launcher/src/env_runtime.rs) says TGI and its argument phase", () => {
    const l = last([
      'Target: x86_64-unknown-linux-gnu',
      'Cargo version: 1.75.0',
      'Commit sha: 0123456789abcdef0123456789abcdef01234567',
      'Docker label: sha-0123456',
      'nvidia-smi:',
    ]);
    assert.equal(l.engine, 'tgi');
    assert.equal(l.phase, 'args');
    assert.equal(l.outcome, 'in_progress');
  });

  it("a batch's `Server error` relayed by the router's client fails that batch, not the server", () => {
    const l = last([
      at(
        1,
        'INFO',
        'generate{parameters=GenerateParameters { best_of: None, max_new_tokens: Some(20) } total_time="1.2s"}: text_generation_router::server: router/src/server.rs:300: Success',
      ),
      at(
        9,
        'ERROR',
        'batch{batch_size=2}:decode:decode{size=2}:decode{size=2}: text_generation_client: router/client/src/lib.rs:33: Server error: CUDA out of memory. Tried to allocate 512.00 MiB.',
      ),
    ]);
    assert.equal(l.engine, 'tgi');
    assert.equal(l.outcome, 'serving');
    assert.equal(l.phase, 'serving');
    // the launcher's word that the shard died still makes it a crash
    const dead = last([
      at(
        1,
        'INFO',
        'generate{parameters=GenerateParameters { best_of: None, max_new_tokens: Some(20) } total_time="1.2s"}: text_generation_router::server: router/src/server.rs:300: Success',
      ),
      at(
        9,
        'ERROR',
        'batch{batch_size=2}:decode:decode{size=2}:decode{size=2}: text_generation_router_v3::client: backends/v3/src/client/mod.rs:45: Server error: CUDA out of memory. Tried to allocate 512.00 MiB.',
      ),
      at(10, 'ERROR', 'shard-manager: text_generation_launcher: Shard 0 crashed'),
      'Error: ShardFailed',
    ]);
    assert.equal(dead.outcome, 'crashed');
  });

  it("an abridged log of the launcher's and router's messages alone names TGI by their words (its catalog)", () => {
    const l = last([
      'Default `max_batch_prefill_tokens` to 8000',
      'Warming up model',
      'Setting max batch total tokens to 20000',
    ]);
    assert.equal(l.engine, 'tgi');
    assert.equal(l.phase, 'warmup');
  });

  it("a line whose stamp the paste cut keeps TGI's frame (level, spans, target)", () => {
    const l = last([
      'ERROR batch{batch_size=2}:prefill:prefill{id=7 size=2}: text_generation_router_v3::client: backends/v3/src/client/mod.rs:54: Server error: something broke',
    ]);
    assert.equal(l.engine, 'tgi');
    assert.equal(l.phase, 'serving');
  });

  it("loguru's `> File` catch-point line is a frame: a shard traceback through the gRPC interceptor is past the load", () => {
    const stamp = (s: string) => `2025-11-03T09:12:40.123456789Z ${s}`;
    const head = [
      '  File "/usr/lib/python3.11/asyncio/events.py", line 84, in _run',
      '    self._context.run(self._callback, *self._args)',
      '  File "/usr/lib/python3.11/site-packages/grpc_interceptor/server.py", line 165, in invoke_intercept_method',
      '    return await self.intercept(',
      '> File "/usr/lib/python3.11/site-packages/text_generation_server/interceptor.py", line 24, in intercept',
      '    return await response',
    ].map(stamp);
    const cut = last(head);
    assert.equal(cut.engine, 'tgi');
    assert.equal(cut.outcome, 'crashed');
    assert.equal(cut.phase, 'warmup');
    // the RPC's own frame under it names the step
    const prefill = last([
      ...head,
      stamp(
        '  File "/usr/lib/python3.11/site-packages/text_generation_server/server.py", line 150, in Prefill',
      ),
      stamp('    generations, next_batch, timings = self.model.generate_token(batch)'),
    ]);
    assert.equal(prefill.phase, 'serving');
  });
});

describe('TGI (issue 22): the model initialisation error', () => {
  it("serve_inner's `Error when initializing model` is a load that failed, even with its traceback cut short", () => {
    const l = last([
      at(1, 'ERROR', 'text_generation_launcher: Error when initializing model'),
      'Traceback (most recent call last):',
      '  File "/usr/bin/text-generation-server", line 8, in <module>',
      '    sys.exit(app())',
      '  File "/usr/lib/python3.11/site-packages/click/core.py", line 1000, in invoke',
    ]);
    assert.equal(l.engine, 'tgi');
    assert.equal(l.outcome, 'crashed');
    assert.equal(l.phase, 'loading_weights');
  });
});
