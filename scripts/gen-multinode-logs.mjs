#!/usr/bin/env node
/**
 * Writes the two-node SGLang scenario logs of test/fixtures/multinode/ (see its README for the expected
 * readings). Line shapes are SGLang v0.5.9's, as in ../shared/scenarios and research/sglang.md §8: both nodes
 * run the same command with `--nnodes 2 --node-rank R --dist-init-addr 10.0.0.1:5000`, TP 16 split TP0–7 on
 * node 0 and TP8–15 on node 1; only node 0 loads with a shard bar and prints `fired up`; node 1 ends its
 * startup with the dummy health-check server (utils/common.py launch_dummy_health_check_server).
 * Deterministic: run it again and the files are byte-identical.
 *
 *   node scripts/gen-multinode-logs.mjs [outdir]
 */
import fs from 'node:fs';
import path from 'node:path';

const out = process.argv[2] ?? path.join(import.meta.dirname, '..', 'test', 'fixtures', 'multinode');
fs.mkdirSync(out, { recursive: true });

/** Each scenario starts at its own time: the ledger tells launches apart by their start and first line. */
const BASES = {
  clean: Date.UTC(2026, 1, 21, 9, 0, 0) / 1000,
  oom: Date.UTC(2026, 1, 21, 11, 30, 0) / 1000,
  nccl: Date.UTC(2026, 1, 21, 14, 0, 0) / 1000,
  skew: Date.UTC(2026, 1, 21, 16, 0, 0) / 1000,
};
let BASE = BASES.clean;

function stamp(t, rank) {
  const d = new Date(Math.round(t) * 1000).toISOString().replace('T', ' ').slice(0, 19);
  return rank === undefined ? `[${d}]` : `[${d} TP${rank}]`;
}

function serverArgs(nodeRank, extra = '') {
  return `server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tokenizer_path='deepseek-ai/DeepSeek-V3', tokenizer_mode='auto', load_format='auto', trust_remote_code=True, context_length=None, host='0.0.0.0', port=30000, nccl_port=None, dtype='auto', quantization='fp8', kv_cache_dtype='auto', mem_fraction_static=0.85, max_running_requests=512, chunked_prefill_size=8192, page_size=1, device='cuda', tp_size=16, pp_size=1, dp_size=1, ep_size=1, random_seed=${1000 + nodeRank}, watchdog_timeout=300, dist_timeout=30, log_level='info', api_key=None, served_model_name='deepseek-ai/DeepSeek-V3', attention_backend='flashinfer', moe_runner_backend='auto', disable_cuda_graph=False, cuda_graph_max_bs=64, enable_torch_compile=False, enable_dp_attention=False, dist_init_addr='10.0.0.1:5000', nnodes=2, node_rank=${nodeRank}${extra})`;
}

/**
 * One node's startup, up to `until` (a phase name) or to its end. `skew` shifts every stamp (the node's clock
 * disagrees); `delay` starts the node later (it was launched later).
 */
function node(nodeRank, { skew = 0, delay = 0, until = 'end', serve = true } = {}) {
  const lines = [];
  const first = nodeRank * 8;
  const ranks = Array.from({ length: 8 }, (_, i) => first + i);
  let t = BASE + delay + skew;
  const at = (dt) => {
    t += dt;
    return t;
  };
  const each = (dt, text) => {
    for (const [i, r] of ranks.entries()) lines.push(`${stamp(at(i === 0 ? dt : 0), r)} ${text}`);
  };
  lines.push(`${stamp(t)} ${serverArgs(nodeRank)}`);
  if (nodeRank === 0)
    lines.push(
      `${stamp(at(4))} Using default HuggingFace chat template with detected content format: string`,
    );
  each(nodeRank === 0 ? 3 : 7, 'Init torch distributed begin.');
  if (until === 'dist_init') return { lines, t };
  // The rendezvous ends on every node at the same moment: the marker that aligns the nodes' clocks.
  t = BASE + 18 + skew;
  each(0, 'Init torch distributed ends. elapsed=9.21 s, mem usage=1.02 GB');
  each(0, 'Custom allreduce is disabled because this process group spans across nodes.');
  each(1, 'Load weight begin. avail mem=78.50 GB');
  if (nodeRank === 0) {
    lines.push(`${stamp(at(0), 0)} Using model weights format ['*.safetensors']`);
    const n = 163;
    for (let i = 0; i <= n; i++) {
      const el = i / 2.4;
      const left = (n - i) / 2.4;
      const mmss = (s) =>
        `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
      lines.push(
        `Loading safetensors checkpoint shards: ${String(Math.floor((i * 100) / n)).padStart(3)}% Completed | ${i}/${n} [${mmss(el)}<${i ? mmss(left) : '?'}, ${i ? '2.40it/s' : '?it/s'}]`,
      );
    }
  }
  t = BASE + 88 + skew;
  each(
    0,
    'Load weight end. elapsed=69.40 s, type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=37.10 GB, mem usage=41.40 GB.',
  );
  each(2, 'KV Cache is allocated. #tokens: 301056, KV size: 19.72 GB');
  each(1, 'Memory pool end. avail mem=16.20 GB');
  if (until === 'kv_cache') return { lines, t };
  each(1, 'Capture cuda graph begin. This can take up to several minutes. avail mem=16.05 GB');
  if (until === 'cuda_graph') return { lines, t };
  each(41, 'Capture cuda graph end. Time elapsed: 41.22 s. mem usage=1.31 GB. avail mem=14.74 GB.');
  if (nodeRank === 0) {
    lines.push(
      `${stamp(at(1), 0)} max_total_num_tokens=301056, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=512, context_len=163840, available_gpu_mem=14.70 GB`,
    );
    lines.push(`${stamp(at(2))} INFO:     Started server process [41877]`);
    lines.push(`${stamp(at(0))} INFO:     Waiting for application startup.`);
    lines.push(`${stamp(at(0))} INFO:     Application startup complete.`);
    lines.push(`${stamp(at(0))} INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)`);
    lines.push(`${stamp(at(1))} INFO:     127.0.0.1:40512 - "GET /get_model_info HTTP/1.1" 200 OK`);
    lines.push(
      `${stamp(at(0), 0)} Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, input throughput (token/s): 0.00, cuda graph: False`,
    );
    lines.push(`${stamp(at(2))} INFO:     127.0.0.1:40520 - "POST /generate HTTP/1.1" 200 OK`);
    lines.push(`${stamp(at(0))} The server is fired up and ready to roll!`);
    if (serve)
      for (let i = 0; i < 6; i++)
        lines.push(
          `${stamp(at(2), 0)} Decode batch, #running-req: ${60 + i * 7}, #token: ${90000 + i * 5000}, token usage: 0.${30 + i}, cuda graph: True, gen throughput (token/s): ${(1480 + i * 37.5).toFixed(2)}, #queue-req: 0`,
        );
  } else {
    // research/sglang.md §8: nodes ≥ 1 start a silent dummy server on --port and block.
    lines.push(`${stamp(at(2))} Dummy health check server started in background thread at 0.0.0.0:30000`);
  }
  return { lines, t };
}

function write(name, lines) {
  fs.writeFileSync(path.join(out, name), `${lines.join('\n')}\n`);
}

BASE = BASES.clean;
// 1. Clean start: node 0 serves, node 1 holds its ranks and its dummy health server.
write('sglang-2node-clean-node0.log', node(0).lines);
write('sglang-2node-clean-node1.log', node(1).lines);

BASE = BASES.oom;
// 2. Node 1 runs out of memory capturing CUDA graphs (TP11); node 0's ranks wait in the next collective
//    until the NCCL watchdog gives up 30 s later (dist_timeout=30), then node 0 dies of the consequence.
{
  const n1 = node(1, { until: 'cuda_graph' });
  const tc = n1.t + 3;
  n1.lines.push(
    `${stamp(tc, 11)} Scheduler hit an exception: Traceback (most recent call last):`,
    '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/managers/scheduler.py", line 2790, in run_scheduler_process',
    '    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, moe_ep_rank, pp_rank, dp_rank)',
    '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/model_executor/cuda_graph_runner.py", line 397, in __init__',
    '    raise Exception(',
    'Exception: Capture cuda graph failed: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.11 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.08 GiB memory in use.',
    'Possible solutions:',
    '1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)',
    '2. set --cuda-graph-max-bs to a smaller value (e.g., 16)',
    '3. disable torch compile by not using --enable-torch-compile',
    '4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge performance loss)',
    'Open an issue on GitHub https://github.com/sgl-project/sglang/issues/new/choose ',
    '',
    `${stamp(tc + 1)} Received sigquit from a child process. It usually means the child failed.`,
    'Killed',
  );
  write('sglang-2node-oom-node1.log', n1.lines);
  const n0 = node(0, { until: 'cuda_graph' });
  const tw = tc + 30;
  const hms = new Date(tw * 1000).toISOString().slice(11, 19);
  n0.lines.push(
    `[rank3]:[E221 ${hms}.512040118 ProcessGroupNCCL.cpp:632] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=212, OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, Timeout(ms)=30000) ran for 30041 milliseconds before timing out.`,
    `[rank3]:[E221 ${hms}.512204873 ProcessGroupNCCL.cpp:2168] [PG ID 2 PG GUID 3 Rank 3]  failure detected by watchdog at work sequence id: 212 PG status: last enqueued work: 212, last completed work: 211`,
    `${stamp(tw + 1)} Received sigquit from a child process. It usually means the child failed.`,
    'Killed',
  );
  write('sglang-2node-oom-node0.log', n0.lines);
}

BASE = BASES.nccl;
// 3. Node 1 stuck in NCCL init: launched 40 s late, its ranks reach the rendezvous and NCCL's bootstrap,
//    then nothing; node 0 has waited in `Init torch distributed begin.` since its own start.
{
  write('sglang-2node-nccl-stuck-node0.log', node(0, { until: 'dist_init' }).lines);
  const n1 = node(1, { until: 'dist_init', delay: 40 });
  const t = n1.t + 1;
  const s = new Date(Math.round(t) * 1000).toISOString().replace('T', ' ').slice(0, 19);
  n1.lines.push(
    `[${s} TP8] node-b:52311:52311 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>`,
    `[${s} TP8] node-b:52311:52311 [0] NCCL INFO NET/IB : No device found.`,
    `[${s} TP8] node-b:52311:52311 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.2<0>`,
    `[${s} TP8] node-b:52311:52311 [0] NCCL INFO Using network Socket`,
  );
  write('sglang-2node-nccl-stuck-node1.log', n1.lines);
}

BASE = BASES.skew;
// 4. Clock skew: the clean start, but node 1's clock runs 7 min 17 s ahead of node 0's.
write('sglang-2node-skew-node0.log', node(0).lines);
write('sglang-2node-skew-node1.log', node(1, { skew: 437 }).lines);
