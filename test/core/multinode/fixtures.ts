/**
 * Made-up node logs for the multi-node rules, in the line shapes the rules name: SGLang's `server_args=` dump
 * and per-rank lines (v0.5.9), vLLM's `non-default args:` line.
 */
import type { NodeLog } from '../../../src/core/multinode/match.js';
import { analyzeText } from '../../helpers.js';

const stamp = (t: number, rank?: number) =>
  `[${new Date(t * 1000).toISOString().replace('T', ' ').slice(0, 19)}${rank === undefined ? '' : ` TP${rank}`}]`;

export const T0 = Date.UTC(2026, 2, 1, 10, 0, 0) / 1000;

export interface NodeSpec {
  rank: number;
  nnodes?: number;
  addr?: string;
  model?: string;
  /** Seconds this node's clock runs ahead. */
  skew?: number;
  /** Seconds after T0 the node was started. */
  delay?: number;
  /** Where its log stops. */
  until?: 'dist_init' | 'loading' | 'ready' | 'oom' | 'nccl_timeout';
  /** Seconds after T0 (true time) the node crashes, for oom and nccl_timeout. */
  crashAt?: number;
}

/** One SGLang node's log: 2 ranks per node, rendezvous ends at T0+20 on every node (true time). */
export function sglangNode(s: NodeSpec): string {
  const skew = s.skew ?? 0;
  const at = (t: number) => T0 + t + skew;
  const r0 = s.rank * 2;
  const lines = [
    `${stamp(at(s.delay ?? 0))} server_args=ServerArgs(model_path='${s.model ?? 'org/Model-X'}', tp_size=4, nnodes=${s.nnodes ?? 2}, node_rank=${s.rank}, dist_init_addr='${s.addr ?? '10.1.1.1:5000'}', port=30000)`,
    `${stamp(at((s.delay ?? 0) + 2), r0)} Init torch distributed begin.`,
    `${stamp(at((s.delay ?? 0) + 2), r0 + 1)} Init torch distributed begin.`,
  ];
  if (s.until === 'dist_init') return `${lines.join('\n')}\n`;
  lines.push(
    `${stamp(at(20), r0)} Init torch distributed ends. elapsed=18.00 s, mem usage=1.00 GB`,
    `${stamp(at(21), r0)} Load weight begin. avail mem=70.00 GB`,
  );
  if (s.until === 'loading') return `${lines.join('\n')}\n`;
  lines.push(
    `${stamp(at(60), r0)} Load weight end. elapsed=39.00 s, type=X, dtype=torch.bfloat16, avail mem=30.00 GB, mem usage=40.00 GB.`,
    `${stamp(at(62), r0)} KV Cache is allocated. #tokens: 1000, KV size: 1.00 GB`,
    `${stamp(at(63), r0)} Capture cuda graph begin. This can take up to several minutes. avail mem=20.00 GB`,
  );
  if (s.until === 'oom') {
    lines.push(
      `${stamp(at(s.crashAt ?? 70), r0 + 1)} Scheduler hit an exception: Traceback (most recent call last):`,
      '  File "/x/sglang/srt/model_executor/cuda_graph_runner.py", line 397, in __init__',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.',
      `${stamp(at((s.crashAt ?? 70) + 1))} Received sigquit from a child process. It usually means the child failed.`,
    );
    return `${lines.join('\n')}\n`;
  }
  if (s.until === 'nccl_timeout') {
    const hms = new Date(at(s.crashAt ?? 100) * 1000).toISOString().slice(11, 19);
    lines.push(
      `[rank0]:[E301 ${hms}.000000001 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=30000) ran for 30001 milliseconds before timing out.`,
      `${stamp(at((s.crashAt ?? 100) + 1))} Received sigquit from a child process. It usually means the child failed.`,
    );
    return `${lines.join('\n')}\n`;
  }
  lines.push(
    `${stamp(at(90), r0)} Capture cuda graph end. Time elapsed: 27.00 s. mem usage=1.00 GB. avail mem=19.00 GB.`,
  );
  if (s.rank === 0) lines.push(`${stamp(at(95))} The server is fired up and ready to roll!`);
  else lines.push(`${stamp(at(93))} Dummy health check server started in background thread at 0.0.0.0:30000`);
  return `${lines.join('\n')}\n`;
}

export function nodeLog(name: string, text: string): NodeLog {
  const r = analyzeText(text);
  return { name, engine: r.engine, launches: r.launches };
}
