#!/usr/bin/env node
/**
 * Writes the Ray two-node scenario logs of test/fixtures/multinode/ (see its README for the expected readings):
 * ONE log per scenario, the Ray driver's, into which Ray forwards the workers' lines of both nodes.
 *
 * Layout: vLLM 0.7.2 (V0 engine), meta-llama/Llama-3.1-70B-Instruct with `--tensor-parallel-size 4
 * --pipeline-parallel-size 2` on a Ray cluster of two nodes with 4 GPUs each (head 10.0.0.1, worker 10.0.0.2).
 * World size 8 is more than the driver's node has GPUs, so vLLM picks Ray itself (`Defaulting to use ray for
 * distributed inference`). Rank 0 is the driver worker inside the engine process: its lines have no prefix.
 * Ranks 1–3 are Ray actors on the driver's node: `(RayWorkerWrapper pid=N) `; ranks 4–7 are actors on 10.0.0.2:
 * `(RayWorkerWrapper pid=N, ip=10.0.0.2) `. Deterministic: run it again and the files are byte-identical.
 *
 * Where each line shape comes from:
 * - Ray's forwarding prefix `(RayWorkerWrapper pid=N, ip=IP) ` before the worker's own vLLM line: corpus
 *   vllm/007.log and vllm/052.log (two-node Ray deployments); the no-ip form for an actor on the driver's node
 *   and `[repeated Nx across cluster]`: Ray's print_worker_logs / log deduplication (ray/_private/worker.py,
 *   ray/_private/ray_logging.py; no corpus log shows them, read from Ray's source as described there).
 * - Ray's own connect lines (`… INFO worker.py:1654 -- Connecting to existing Ray cluster at address: …`, a tab
 *   after the stamp's milliseconds) and vLLM's `ray_utils.py` placement-group line: corpus recent/060.log.
 * - The V0 engine's startup lines (platform, API server banner, `args: Namespace(…)`, `Started engine process`,
 *   `Initializing a V0 LLM engine (v0.7.2) with config:`, nccl, `Starting to load model`, the shard bar,
 *   `Loading model weights took`, memory profiling, `# CUDA blocks`, graph capture, `init engine … took`,
 *   routes, uvicorn, metrics): corpus full/028.log (vLLM 0.7.2, TP 2 with mp workers `(VllmWorkerProcess
 *   pid=N)`, here Ray's prefix instead); `Defaulting to use %s for distributed inference`: research
 *   engine-source vllm.json (config.py ParallelConfig.__post_init__, v0.6.6).
 * - A worker's failure: `ERROR … worker_base.py:148] Error executing method 'determine_num_available_blocks'.
 *   This might cause deadlock in distributed execution.` and its traceback line by line behind Ray's prefix:
 *   corpus vllm/007.log (and vllm.json worker_base.py WorkerWrapperBase.execute_method); the OOM text is
 *   torch's `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate …` as the corpus prints it.
 * - The driver's consequence: c10d's watchdog line `[rank0]:[E… ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog
 *   caught collective operation timeout: WorkNCCL(… Timeout(ms)=600000) …` as gen-multinode-vllm-logs.mjs writes
 *   it and the C++ runtime's `terminate called after throwing an instance of '…'` (the corpus's shape, with
 *   the exception torch's NCCL watchdog throws, c10::DistBackendError), then the API server's `RuntimeError: Engine process failed to start. See
 *   stack trace for the root cause.` (vllm.json api_server.py build_async_engine_client_from_engine_args,
 *   v0.6.6). The driver prints no vLLM-stamped line after the worker's failure: which node failed first is read
 *   from the order of the lines in the one log, not from stamps.
 * - Line numbers inside `file.py:N]` are 0.7.2's where the corpus shows them, illustrative elsewhere.
 *
 *   node scripts/gen-multinode-ray-logs.mjs [outdir]
 */
import fs from 'node:fs';
import path from 'node:path';

const out = process.argv[2] ?? path.join(import.meta.dirname, '..', 'test', 'fixtures', 'multinode');
fs.mkdirSync(out, { recursive: true });

const MODEL = 'meta-llama/Llama-3.1-70B-Instruct';
const WORKER_IP = '10.0.0.2';
/** 2025-06-25 15:20:00 UTC. */
const BASE = Date.UTC(2025, 5, 25, 15, 20, 0) / 1000;

const iso = (t) => new Date(Math.round(t) * 1000).toISOString();
/** vLLM V0's stamp: `INFO 06-25 15:20:01 file.py:N] msg` (no year, no brackets before 0.8). */
const stamp = (t) => `${iso(t).slice(5, 7)}-${iso(t).slice(8, 10)} ${iso(t).slice(11, 19)}`;
const vline = (level, t, src, msg) => `${level} ${stamp(t)} ${src}] ${msg}`;
/** Rank r's prefix as Ray forwards it: none for the driver worker (rank 0), no ip on the driver's node. */
const who = (r) =>
  r === 0
    ? ''
    : r < 4
      ? `(RayWorkerWrapper pid=${4310 + r}) `
      : `(RayWorkerWrapper pid=${5300 + r}, ip=${WORKER_IP}) `;
const ranks = [0, 1, 2, 3, 4, 5, 6, 7];

const ARGS = `Namespace(host=None, port=8000, uvicorn_log_level='info', allow_credentials=False, allowed_origins=['*'], allowed_methods=['*'], allowed_headers=['*'], api_key=None, lora_modules=None, prompt_adapters=None, chat_template=None, response_role='assistant', ssl_keyfile=None, ssl_certfile=None, model='${MODEL}', task='auto', tokenizer=None, skip_tokenizer_init=False, revision=None, trust_remote_code=False, download_dir=None, load_format='auto', dtype='auto', kv_cache_dtype='auto', max_model_len=32768, distributed_executor_backend=None, pipeline_parallel_size=2, tensor_parallel_size=4, max_parallel_loading_workers=None, block_size=None, enable_prefix_caching=None, swap_space=4, gpu_memory_utilization=0.9, max_num_seqs=None, quantization=None, enforce_eager=False, disable_log_requests=False, disable_log_stats=False)`;
const CONFIG = `model='${MODEL}', speculative_config=None, tokenizer='${MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, override_neuron_config=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir=None, load_format=LoadFormat.AUTO, tensor_parallel_size=4, pipeline_parallel_size=2, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=${MODEL}, num_scheduler_steps=1, enable_prefix_caching=False, use_async_output_proc=True`;

/**
 * One scenario's log. `oom`: the rank (on 10.0.0.2) that runs out of memory in the profiling run; `stuck`: the
 * worker node never finishes loading its weights (its ranks print `Starting to load model` and nothing more).
 */
function scenario({ oom = null, stuck = false } = {}) {
  const L = [];
  let t = BASE;
  const all = (src, msg, level = 'INFO', only = ranks) => {
    for (const r of only) L.push(`${who(r)}${vline(level, t, src, msg)}`);
  };
  L.push(vline('INFO', t, '__init__.py:190', 'Automatically detected platform cuda.'));
  t += 3;
  L.push(vline('INFO', t, 'api_server.py:840', 'vLLM API server version 0.7.2'));
  L.push(vline('INFO', t, 'api_server.py:841', `args: ${ARGS}`));
  L.push(vline('INFO', t, 'api_server.py:206', 'Started engine process with PID 4100'));
  t += 5;
  L.push(vline('INFO', t, '__init__.py:190', 'Automatically detected platform cuda.'));
  t += 4;
  L.push(
    vline(
      'INFO',
      t,
      'config.py:542',
      "This model supports multiple tasks: {'generate', 'embed', 'reward', 'score', 'classify'}. Defaulting to 'generate'.",
    ),
  );
  L.push(vline('INFO', t, 'config.py:1401', 'Defaulting to use ray for distributed inference'));
  L.push(
    vline('INFO', t, 'llm_engine.py:234', `Initializing a V0 LLM engine (v0.7.2) with config: ${CONFIG}`),
  );
  const ms = (t) => `${iso(t).slice(0, 10)} ${iso(t).slice(11, 19)},218`;
  L.push(
    `${ms(t + 1)}\tINFO worker.py:1654 -- Connecting to existing Ray cluster at address: 10.0.0.1:6379...`,
  );
  L.push(
    `${ms(t + 1)}\tINFO worker.py:1832 -- Connected to Ray cluster. View the dashboard at 127.0.0.1:8265 `,
  );
  t += 2;
  L.push(vline('INFO', t, 'ray_utils.py:314', 'Using the existing placement group'));
  t += 6;
  // Ray names an actor only once it is created: the worker's first lines come with a bare pid.
  L.push(
    `(pid=${5304}, ip=${WORKER_IP}) ${vline('INFO', t - 2, '__init__.py:190', 'Automatically detected platform cuda.')}`,
  );
  L.push(
    `(pid=${5305}, ip=${WORKER_IP}) ${vline('INFO', t - 2, '__init__.py:190', 'Automatically detected platform cuda.')} [repeated 6x across cluster]`,
  );
  all('cuda.py:230', 'Using Flash Attention backend.');
  t += 3;
  all('utils.py:950', 'Found nccl from library libnccl.so.2');
  all('pynccl.py:69', 'vLLM is using nccl==2.21.5');
  t += 2;
  L.push(
    vline(
      'INFO',
      t,
      'shm_broadcast.py:258',
      "vLLM message queue communication handle: Handle(connect_ip='127.0.0.1', local_reader_ranks=[1, 2, 3], buffer_handle=(3, 4194304, 6, 'psm_5a1c0e2f'), local_subscribe_port=40409, remote_subscribe_port=None)",
    ),
  );
  L.push(
    `${who(4)}${vline('INFO', t, 'shm_broadcast.py:258', "vLLM message queue communication handle: Handle(connect_ip='127.0.0.1', local_reader_ranks=[1, 2, 3], buffer_handle=(3, 4194304, 6, 'psm_77d0b3a1'), local_subscribe_port=51523, remote_subscribe_port=None)")}`,
  );
  // The distributed rendezvous ends on every rank of both nodes at once: the next line is the same instant.
  t += 1;
  all('model_runner.py:1110', `Starting to load model ${MODEL}...`);
  t += 2;
  all(
    'weight_utils.py:252',
    "Using model weights format ['*.safetensors']",
    'INFO',
    stuck ? [0, 1, 2, 3] : ranks,
  );
  // Only rank 0 draws the shard bar (vLLM disables tqdm on the other ranks).
  const shards = 30;
  L.push(`Loading safetensors checkpoint shards:   0% Completed | 0/${shards} [00:00<?, ?it/s]`);
  for (let i = 5; i <= shards; i += 5) {
    const pct = String(Math.floor((100 * i) / shards)).padStart(3);
    const el = Math.round(i * 1.5);
    const left = Math.round((shards - i) * 1.5);
    const mmss = (s) => `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
    L.push(
      `Loading safetensors checkpoint shards: ${pct}% Completed | ${i}/${shards} [${mmss(el)}<${mmss(left)},  1.50s/it]`,
    );
  }
  L.push('');
  t += 47;
  all('model_runner.py:1115', 'Loading model weights took 16.4213 GB', 'INFO', stuck ? [0, 1, 2, 3] : ranks);
  if (stuck) {
    // 10.0.0.2's ranks read their shards from a network share that stopped answering: the driver waits in
    // ray.get for their load_model, and nothing more is written.
    return L;
  }
  t += 28;
  if (oom !== null) {
    const w = who(oom);
    const e = (msg) => `${w}${vline('ERROR', t, 'worker_base.py:148', msg)}`;
    const frames = [
      'Traceback (most recent call last):',
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker_base.py", line 140, in execute_method',
      '    return executor(*args, **kwargs)',
      '           ^^^^^^^^^^^^^^^^^^^^^^^^^',
      '  File "/usr/local/lib/python3.12/dist-packages/torch/utils/_contextlib.py", line 116, in decorate_context',
      '    return func(*args, **kwargs)',
      '           ^^^^^^^^^^^^^^^^^^^^^',
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/worker.py", line 229, in determine_num_available_blocks',
      '    self.model_runner.profile_run()',
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/worker/model_runner.py", line 1243, in profile_run',
      '    self.execute_model(model_input, kv_caches, intermediate_tensors)',
      `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 2 has a total capacity of 79.19 GiB of which 1.87 GiB is free. Process 5306 has 77.31 GiB memory in use. Of the allocated memory 74.52 GiB is allocated by PyTorch, and 1.12 GiB is reserved by PyTorch but unallocated.`,
    ];
    L.push(
      e(
        "Error executing method 'determine_num_available_blocks'. This might cause deadlock in distributed execution.",
      ),
    );
    for (const f of frames) L.push(e(f));
    // The other ranks wait for it in the profiling run's collectives until NCCL's watchdog gives up (600 s).
    const tw = t + 600;
    const d = iso(tw);
    const hms = `${d.slice(5, 7)}${d.slice(8, 10)} ${d.slice(11, 19)}`;
    L.push(
      `[rank0]:[E${hms}.412040118 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=41, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.`,
    );
    L.push("terminate called after throwing an instance of 'c10::DistBackendError'");
    L.push(
      'Traceback (most recent call last):',
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/api_server.py", line 230, in build_async_engine_client_from_engine_args',
      '    raise RuntimeError(',
      'RuntimeError: Engine process failed to start. See stack trace for the root cause.',
    );
    return L;
  }
  all('worker.py:267', 'Memory profiling takes 28.41 seconds');
  all(
    'worker.py:267',
    'the current vLLM instance can use total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.90) = 71.27GiB',
    'INFO',
    [0, 4],
  );
  all(
    'worker.py:267',
    'model weights take 16.42GiB; non_torch_memory takes 2.61GiB; PyTorch activation peak memory takes 4.34GiB; the rest of the memory reserved for KV Cache is 47.90GiB.',
    'INFO',
    [0, 4],
  );
  L.push(vline('INFO', t, 'executor_base.py:110', '# CUDA blocks: 39245, # CPU blocks: 3276'));
  L.push(
    vline('INFO', t, 'executor_base.py:115', 'Maximum concurrency for 32768 tokens per request: 19.16x'),
  );
  t += 2;
  all(
    'model_runner.py:1434',
    "Capturing cudagraphs for decoding. This may lead to unexpected consequences if the model is not static. To run the model in eager mode, set 'enforce_eager=True' or use '--enforce-eager' in the CLI. If out-of-memory error occurs during cudagraph capture, consider decreasing `gpu_memory_utilization` or switching to eager mode. You can also reduce the `max_num_seqs` as needed to decrease memory usage.",
  );
  L.push('Capturing CUDA graph shapes: 100%|██████████| 35/35 [00:21<00:00,  1.62it/s]');
  t += 22;
  all('custom_all_reduce.py:226', 'Registering 5635 cuda graph addresses');
  all('model_runner.py:1562', 'Graph capturing finished in 22 secs, took 0.35 GiB');
  L.push(
    vline(
      'INFO',
      t,
      'llm_engine.py:431',
      'init engine (profile, create kv cache, warmup model) took 54.12 seconds',
    ),
  );
  t += 1;
  L.push(vline('INFO', t, 'api_server.py:756', 'Using supplied chat template:'));
  L.push(vline('INFO', t, 'api_server.py:756', 'None'));
  L.push(vline('INFO', t, 'launcher.py:21', 'Available routes are:'));
  for (const [r, m] of [
    ['/health', 'GET'],
    ['/v1/models', 'GET'],
    ['/v1/chat/completions', 'POST'],
    ['/v1/completions', 'POST'],
  ])
    L.push(vline('INFO', t, 'launcher.py:29', `Route: ${r}, Methods: ${m}`));
  L.push(
    'INFO:     Started server process [4000]',
    'INFO:     Waiting for application startup.',
    'INFO:     Application startup complete.',
    'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
  );
  t += 9;
  for (let i = 0; i < 3; i++) {
    L.push(vline('INFO', t, 'engine.py:275', `Added request chatcmpl-${String(i).padStart(32, '7')}.`));
    t += 5;
    L.push(
      vline(
        'INFO',
        t,
        'metrics.py:455',
        `Avg prompt throughput: ${(40.1 + i).toFixed(1)} tokens/s, Avg generation throughput: ${(28.4 + i).toFixed(1)} tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 0.1%, CPU KV cache usage: 0.0%.`,
      ),
    );
    L.push('INFO:     10.0.0.9:45176 - "POST /v1/chat/completions HTTP/1.1" 200 OK');
  }
  return L;
}

const files = {
  'vllm-ray-2node-clean.log': scenario(),
  'vllm-ray-2node-oom.log': scenario({ oom: 6 }),
  'vllm-ray-2node-stuck.log': scenario({ stuck: true }),
};
for (const [name, lines] of Object.entries(files))
  fs.writeFileSync(path.join(out, name), `${lines.join('\n')}\n`);
console.log(`wrote ${Object.keys(files).join(', ')} to ${out}`);
