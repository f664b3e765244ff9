#!/usr/bin/env node
/**
 * Writes the two-node vLLM scenario logs of test/fixtures/multinode/ (see its README for the expected readings).
 * Line shapes are vLLM 0.11's, copied from the corpus's V1 logs (`(APIServer pid=N)`, `(EngineCore_DP0 pid=N)`
 * prefixes, the `[file.py:N]` logger format) and research/vllm-and-peers.md §1.2–1.3; the multi-node lines from
 * research/engine-source/vllm.json (entrypoints/cli/serve.py run_headless, v1/engine/utils.py).
 *
 * Layout: data parallel over two nodes, Qwen3-30B-A3B with `--data-parallel-size 4 --data-parallel-size-local 2
 * --data-parallel-address 10.0.0.1 --data-parallel-rpc-port 13345 --enable-expert-parallel`. Node 0 is the head:
 * its API server prints the banner and `non-default args`, and runs engines DP0 and DP1. Node 1 runs the same
 * command with `--headless --data-parallel-start-rank 2`: no API server, so no banner nor args, only `Launching 2
 * data parallel engine(s) in headless mode, …` and engines DP2 and DP3 (named with the global DP rank). Only
 * global rank 0 (node 0's DP0) draws the shard bar. Deterministic: run it again and the files are byte-identical.
 *
 *   node scripts/gen-multinode-vllm-logs.mjs [outdir]
 */
import fs from 'node:fs';
import path from 'node:path';

const out = process.argv[2] ?? path.join(import.meta.dirname, '..', 'test', 'fixtures', 'multinode');
fs.mkdirSync(out, { recursive: true });

const MODEL = 'Qwen/Qwen3-30B-A3B';
/** vLLM's stamp has no year: `INFO 10-20 09:00:00`. */
function stamp(t) {
  const d = new Date(Math.round(t) * 1000).toISOString();
  return `${d.slice(5, 7)}-${d.slice(8, 10)} ${d.slice(11, 19)}`;
}
const info = (who, t, src, msg) => `${who ? `(${who}) ` : ''}INFO ${stamp(t)} [${src}] ${msg}`;

const ENGINE_CONFIG = `model='${MODEL}', speculative_config=None, tokenizer='${MODEL}', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=40960, download_dir=None, load_format=auto, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=4, disable_custom_all_reduce=False, quantization=None, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=${MODEL}, enable_prefix_caching=True, enable_chunked_prefill=True`;

/**
 * One node's log. `base` is the node's clock at launch; `oom`: the engine (global DP rank) that runs out of
 * memory in its profiling run; `waitsFor`: a peer's death, after which this node's engines hit NCCL's watchdog.
 */
function node(rank, base, { oom = null, peerDiedAt = null } = {}) {
  const head = rank === 0;
  const api = 'APIServer pid=4100';
  const dps = head ? [0, 1] : [2, 3];
  const pid = (dp) => `EngineCore_DP${dp} pid=${head ? 4201 + dp : 5301 + dp - 2}`;
  const L = [];
  let t = base;
  if (head) {
    L.push(info(api, t, 'api_server.py:1977', 'vLLM API server version 0.11.0'));
    L.push(
      info(
        api,
        t,
        'utils.py:253',
        `non-default args: {'model_tag': '${MODEL}', 'model': '${MODEL}', 'data_parallel_size': 4, 'data_parallel_size_local': 2, 'data_parallel_address': '10.0.0.1', 'data_parallel_rpc_port': 13345, 'enable_expert_parallel': True}`,
      ),
    );
    t += 6;
    L.push(info(api, t, 'model.py:631', 'Resolved architecture: Qwen3MoeForCausalLM'));
    L.push(info(api, t, 'model.py:1745', 'Using max model len 40960'));
    L.push(info(api, t, 'scheduler.py:216', 'Chunked prefill is enabled with max_num_batched_tokens=8192.'));
    t += 2;
    L.push(info(api, t, 'utils.py:862', 'Started DP Coordinator process (PID: 4190)'));
  } else {
    // Printed before the process prefix is installed (research/vllm-and-peers.md §1.2: no prefix).
    L.push(info('', t, '__init__.py:216', 'Automatically detected platform cuda.'));
    t += 7;
    L.push(
      info(
        '',
        t,
        'serve.py:225',
        'Launching 2 data parallel engine(s) in headless mode, with head node address tcp://10.0.0.1:13345.',
      ),
    );
    t += 1;
  }
  t += 5;
  for (const dp of dps)
    L.push(
      info(pid(dp), t, 'core.py:93', `Initializing a V1 LLM engine (v0.11.0) with config: ${ENGINE_CONFIG}`),
    );
  // The DP rendezvous (init_distributed_environment) ends on every node at once: stamp base + 16.
  t = base + 16;
  for (const dp of dps)
    L.push(
      info(
        pid(dp),
        t,
        'parallel_state.py:1208',
        `world_size=4 rank=${dp} local_rank=${dp % 2} distributed_init_method=tcp://10.0.0.1:13346 backend=nccl`,
      ),
    );
  for (const dp of dps)
    L.push(
      info(
        pid(dp),
        t,
        'parallel_state.py:1394',
        `rank ${dp} in world size 4 is assigned as DP rank ${dp}, PP rank 0, TP rank 0, EP rank ${dp}`,
      ),
    );
  t += 1;
  for (const dp of dps)
    L.push(info(pid(dp), t, 'gpu_model_runner.py:3259', `Starting to load model ${MODEL}...`));
  for (const dp of dps) L.push(info(pid(dp), t, 'cuda.py:427', 'Using FLASH_ATTN backend.'));
  if (head) {
    const n = 16;
    for (let i = 0; i <= n; i++) {
      const el = Math.floor(i * 0.85);
      const left = Math.floor((n - i) * 0.85);
      const mmss = (s) => `00:${String(s).padStart(2, '0')}`;
      L.push(
        `(${pid(0)}) Loading safetensors checkpoint shards: ${String(Math.floor((i * 100) / n)).padStart(3)}% Completed | ${i}/${n} [${mmss(el)}<${i ? mmss(left) : '?'}, ${i ? ' 1.18it/s' : '?it/s'}]`,
      );
    }
    L.push(`(${pid(0)}) `);
  }
  t += 14;
  for (const dp of dps)
    L.push(info(pid(dp), t, 'default_loader.py:314', 'Loading weights took 13.42 seconds'));
  for (const dp of dps)
    L.push(
      info(
        pid(dp),
        t,
        'gpu_model_runner.py:3338',
        'Model loading took 14.2531 GiB memory and 14.905130 seconds',
      ),
    );
  t += 4;
  for (const dp of dps)
    L.push(
      info(
        pid(dp),
        t,
        'backends.py:631',
        `Using cache directory: /root/.cache/vllm/torch_compile_cache/4c1a0b9e5e/rank_${dp}_0/backbone for vLLM's torch.compile`,
      ),
    );
  for (const dp of dps) L.push(info(pid(dp), t, 'backends.py:647', 'Dynamo bytecode transform time: 6.12 s'));
  if (oom !== null && dps.includes(oom)) {
    // Inductor's autotuning, in the profiling run (gpu_worker.py determine_available_memory → profile_run →
    // torch.compile), runs out of memory on one engine while the other node is still compiling: the message
    // and the traceback's shape are the corpus's (EngineCore failed to start, then the process's own).
    t += 12;
    const who = pid(oom);
    const err = (s) => `(${who}) ERROR ${stamp(t)} [core.py:708] ${s}`;
    const frames = [
      ['vllm/v1/engine/core.py', 699, 'run_engine_core', 'engine_core = DPEngineCoreProc(*args, **kwargs)'],
      ['vllm/v1/engine/core.py', 83, '__init__', 'self._initialize_kv_caches(vllm_config)'],
      [
        'vllm/v1/engine/core.py',
        190,
        '_initialize_kv_caches',
        'available_gpu_memory = self.model_executor.determine_available_memory()',
      ],
      ['vllm/v1/worker/gpu_worker.py', 263, 'determine_available_memory', 'self.model_runner.profile_run()'],
      [
        'vllm/v1/worker/gpu_model_runner.py',
        3064,
        'profile_run',
        'hidden_states, last_hidden_states = self._dummy_run(',
      ],
    ];
    const oomMsg =
      'torch._inductor.exc.InductorError: RuntimeError: Failed to run autotuning code block: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 1 has a total capacity of 79.19 GiB of which 2.91 GiB is free. Including non-PyTorch memory, this process has 76.27 GiB memory in use.';
    L.push(err('EngineCore failed to start.'), err('Traceback (most recent call last):'));
    for (const [f, n, fn, code] of frames)
      L.push(
        err(`  File "/usr/local/lib/python3.12/dist-packages/${f}", line ${n}, in ${fn}`),
        err(`    ${code}`),
      );
    L.push(err(oomMsg), `(${who}) Process EngineCore_DP${oom}:`);
    L.push(`(${who}) Traceback (most recent call last):`, `(${who}) ${oomMsg}`);
    return L;
  }
  t += 22;
  for (const dp of dps)
    L.push(info(pid(dp), t, 'backends.py:282', 'Compiling a graph for dynamic shape takes 21.87 s'));
  for (const dp of dps) L.push(info(pid(dp), t, 'monitor.py:34', 'torch.compile takes 28.43 s in total'));
  t += 3;
  if (peerDiedAt !== null) {
    // This node's engines wait in the DP group's collective until NCCL's watchdog gives up (600 s default).
    const tw = peerDiedAt + 600;
    const d = new Date(tw * 1000).toISOString();
    const hms = `${d.slice(5, 7)}${d.slice(8, 10)} ${d.slice(11, 19)}`;
    for (const dp of dps)
      L.push(
        `[rank${dp}]:[E${hms}.412040118 ProcessGroupNCCL.cpp:632] [Rank ${dp}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=37, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.`,
      );
    L.push(
      `(${api}) ERROR ${stamp(tw + 2)} [core_client.py:564] Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.`,
    );
    return L;
  }
  for (const dp of dps) L.push(info(pid(dp), t, 'gpu_worker.py:359', 'Available KV cache memory: 52.13 GiB'));
  for (const dp of dps)
    L.push(info(pid(dp), t, 'kv_cache_utils.py:1229', 'GPU KV cache size: 569,424 tokens'));
  for (const dp of dps)
    L.push(
      info(pid(dp), t, 'kv_cache_utils.py:1234', 'Maximum concurrency for 40,960 tokens per request: 13.90x'),
    );
  if (head)
    L.push(
      `(${pid(0)}) Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|██████████| 67/67 [00:05<00:00, 12.62it/s]`,
      `(${pid(0)}) Capturing CUDA graphs (decode, FULL): 100%|██████████| 35/35 [00:02<00:00, 14.71it/s]`,
    );
  t += 8;
  for (const dp of dps)
    L.push(info(pid(dp), t, 'gpu_model_runner.py:4244', 'Graph capturing finished in 8 secs, took 0.92 GiB'));
  t += 1;
  for (const dp of dps)
    L.push(
      info(
        pid(dp),
        t,
        'core.py:250',
        'init engine (profile, create kv cache, warmup model) took 62.87 seconds',
      ),
    );
  if (!head) return L;
  t += 2;
  L.push(info(api, t, 'api_server.py:1725', "Supported tasks: ['generate']"));
  L.push(info(api, t, 'api_server.py:2052', 'Starting vLLM API server 0 on http://0.0.0.0:8000'));
  L.push(info(api, t, 'launcher.py:38', 'Available routes are:'));
  L.push(info(api, t, 'launcher.py:46', 'Route: /health, Methods: GET'));
  L.push(info(api, t, 'launcher.py:46', 'Route: /v1/completions, Methods: POST'));
  L.push(`(${api}) INFO:     Started server process [4100]`);
  L.push(`(${api}) INFO:     Waiting for application startup.`);
  L.push(`(${api}) INFO:     Application startup complete.`);
  for (let i = 0; i < 4; i++) {
    t += 10;
    L.push(`(${api}) INFO:     10.0.0.9:${41200 + i} - "POST /v1/completions HTTP/1.1" 200 OK`);
    L.push(
      info(
        api,
        t,
        'loggers.py:236',
        `Engine 000: Avg prompt throughput: ${(512.3 + i * 20).toFixed(1)} tokens/s, Avg generation throughput: ${(1893.4 + i * 41).toFixed(1)} tokens/s, Running: ${40 + i * 4} reqs, Waiting: 0 reqs, GPU KV cache usage: ${(12.1 + i).toFixed(1)}%, Prefix cache hit rate: 0.0%`,
      ),
    );
  }
  return L;
}

function write(name, lines) {
  fs.writeFileSync(path.join(out, name), `${lines.join('\n')}\n`);
}

// 1. Clean start: node 0 serves the API over all four engines; node 1's engines are up and silent.
{
  const base = Date.UTC(2026, 9, 20, 9, 0, 0) / 1000;
  write('vllm-2node-dp-clean-node0.log', node(0, base));
  write('vllm-2node-dp-clean-node1.log', node(1, base));
}
// 2. One node fails: node 1's DP3 runs out of memory autotuning in its profiling run's compile; node 0 finishes
//    compiling, then its engines wait in the DP group's collective until NCCL's watchdog gives up ten minutes
//    later, a consequence.
{
  const base = Date.UTC(2026, 9, 20, 11, 30, 0) / 1000;
  const diedAt = base + 16 + 1 + 14 + 4 + 12;
  write('vllm-2node-dp-oom-node1.log', node(1, base, { oom: 3 }));
  write('vllm-2node-dp-oom-node0.log', node(0, base, { peerDiedAt: diedAt }));
}
