/**
 * Which node of a multi-node launch a log belongs to, from the configuration the engine logged. Each rule
 * names where the engine defines the flag:
 *
 * - SGLang: `--nnodes N --node-rank R --dist-init-addr HOST:PORT` (alias `--nccl-init-addr`), the same command
 *   on every node, dumped in `server_args=ServerArgs(...)` (srt/server_args.py ServerArgs; research/sglang.md
 *   §8). Node rank 0 is the head: it alone runs the HTTP server and prints `fired up`.
 * - vLLM, one engine over several nodes: `--nnodes --node-rank --master-addr` (vllm/config/parallel.py
 *   ParallelConfig; logged by v1/executor/multiproc_executor.py MultiprocExecutor._init_executor as
 *   `DP group leader: node_rank=…, master_addr=…`). Node rank 0 is the head; the others run `--headless`.
 * - vLLM data parallel across nodes: `--data-parallel-size N --data-parallel-size-local L
 *   --data-parallel-start-rank S --data-parallel-address A [--headless]` (vllm/engine/arg_utils.py EngineArgs;
 *   `Launching %d data parallel engine(s) in headless mode, with head node address %s.` from
 *   entrypoints/cli/serve.py run_headless). Nodes = N / L, this node = S / L; the head serves the API and is
 *   not headless.
 * vLLM logs only the flags that differ from their defaults (`non-default args: {…}`), so a missing rank is 0.
 * A headless node logs no `non-default args` at all (the API server's setup prints them): its flags come from
 * its own lines (engines/vllm.ts `headless_dp`, `headless_mp`, `dp_group_leader`), and its first DP rank from
 * its engine cores' process names, `EngineCore_DP{rank}` with the global DP rank (v1/engine/utils.py
 * CoreEngineProcManager, start_index + i; the prefix from utils decorate_logs).
 */
import type { LaunchReport } from '../base/report-types.js';
import type { EngineId } from '../base/types.js';

export interface NodeIdentity {
  /** Nodes the launch spans, as this node was told; null when the config does not say. */
  nnodes: number | null;
  nodeRank: number | null;
  /** The rendezvous address every node was given (dist_init_addr, master_addr, data_parallel_address). */
  addr: string | null;
  /** Whether this node is the engine's head: the one that serves HTTP and says ready. */
  head: boolean;
  /** Which flags said so, for the evidence (`nnodes=2 node_rank=1 dist_init_addr=10.0.0.1:5000`). */
  via: string;
}

function int(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' && v !== 'None' ? v : null;
}

function truthy(v: unknown): boolean {
  return v === true || v === 'True' || v === 'true';
}

function sglang(c: Record<string, unknown>): NodeIdentity {
  const nnodes = int(c.nnodes);
  const nodeRank = int(c.node_rank);
  const addr = str(c.dist_init_addr) ?? str(c.nccl_init_addr);
  const via = [
    nnodes !== null ? `nnodes=${nnodes}` : '',
    nodeRank !== null ? `node_rank=${nodeRank}` : '',
    addr ? `dist_init_addr=${addr}` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return { nnodes, nodeRank, addr, head: (nodeRank ?? 0) === 0, via };
}

/** The lowest DP rank among the node's engine-core processes (`EngineCore_DP2`, `EngineCore_DP3` → 2). */
function firstDpRank(ranks: Iterable<string>): number | null {
  let low: number | null = null;
  for (const r of ranks) {
    const m = /^EngineCore_DP(\d+)$/.exec(r);
    if (m && (low === null || Number(m[1]) < low)) low = Number(m[1]);
  }
  return low;
}

function vllm(c: Record<string, unknown>, ranks: Iterable<string>): NodeIdentity {
  const headless = truthy(c.headless);
  const dp = int(c.data_parallel_size);
  const dpLocal = int(c.data_parallel_size_local);
  const nn = int(c.nnodes);
  if (nn !== null && nn > 1) {
    const nodeRank = int(c.node_rank) ?? 0;
    const addr = str(c.master_addr);
    return {
      nnodes: nn,
      nodeRank,
      addr,
      head: nodeRank === 0 && !headless,
      via: `nnodes=${nn} node_rank=${nodeRank}${addr ? ` master_addr=${addr}` : ''}${headless ? ' headless' : ''}`,
    };
  }
  if (dp !== null && dpLocal !== null && dpLocal > 0 && dp > dpLocal) {
    const start =
      int(c.data_parallel_start_rank) ??
      int(c.data_parallel_rank) ??
      (headless ? firstDpRank(ranks) : null) ??
      0;
    const nodeRank = Math.floor(start / dpLocal);
    const addr = str(c.data_parallel_address);
    return {
      nnodes: Math.ceil(dp / dpLocal),
      nodeRank,
      addr,
      head: !headless && nodeRank === 0,
      via: `data_parallel_size=${dp} data_parallel_size_local=${dpLocal} data_parallel_start_rank=${start}${addr ? ` data_parallel_address=${addr}` : ''}${headless ? ' headless' : ''}`,
    };
  }
  return {
    nnodes: nn,
    nodeRank: int(c.node_rank),
    addr: null,
    head: !headless,
    via: headless ? 'headless' : '',
  };
}

/** The node identity a launch's logged config gives; engines without multi-node flags say nothing. */
export function nodeIdentity(l: LaunchReport, engine: EngineId | null): NodeIdentity {
  const c = l.config ?? {};
  const e = l.engine ?? engine;
  if (e === 'sglang') return sglang(c);
  if (e === 'vllm') return vllm(c, l.ranks ?? []);
  return { nnodes: null, nodeRank: null, addr: null, head: true, via: '' };
}
