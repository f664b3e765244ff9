import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeIdentity } from '../../../src/core/multinode/identity.js';
import { analyzeText } from '../../helpers.js';
import { sglangNode } from './fixtures.js';

const latest = (text: string) => {
  const r = analyzeText(text);
  return { l: r.launches.at(-1)!, engine: r.engine };
};

describe('node identity from the logged config', () => {
  it('SGLang (server_args.py ServerArgs): nnodes, node_rank, dist_init_addr; node 0 is the head', () => {
    const a = latest(sglangNode({ rank: 0 }));
    const b = latest(sglangNode({ rank: 1 }));
    assert.deepEqual(nodeIdentity(a.l, a.engine), {
      nnodes: 2,
      nodeRank: 0,
      addr: '10.1.1.1:5000',
      head: true,
      via: 'nnodes=2 node_rank=0 dist_init_addr=10.1.1.1:5000',
    });
    assert.equal(nodeIdentity(b.l, b.engine).head, false);
    assert.equal(nodeIdentity(b.l, b.engine).nodeRank, 1);
  });

  it('SGLang: the --nccl-init-addr alias gives the address too', () => {
    const { l, engine } = latest(
      "[2026-03-01 10:00:00] server_args=ServerArgs(model_path='m', nnodes=2, node_rank=1, nccl_init_addr='10.2.2.2:7000', dist_init_addr=None)\n[2026-03-01 10:00:02 TP2] Init torch distributed begin.\n",
    );
    assert.equal(nodeIdentity(l, engine).addr, '10.2.2.2:7000');
  });

  it('vLLM data parallel across nodes (arg_utils.py EngineArgs): start rank / local size, --headless is a worker', () => {
    const head = latest(
      "INFO 03-01 10:00:00 [utils.py:253] non-default args: {'model': 'org/M', 'data_parallel_size': 4, 'data_parallel_size_local': 2, 'data_parallel_address': '10.3.3.3'}\n",
    );
    const worker = latest(
      "INFO 03-01 10:00:00 [utils.py:253] non-default args: {'model': 'org/M', 'headless': True, 'data_parallel_size': 4, 'data_parallel_size_local': 2, 'data_parallel_start_rank': 2, 'data_parallel_address': '10.3.3.3'}\n",
    );
    const h = nodeIdentity(head.l, head.engine);
    const w = nodeIdentity(worker.l, worker.engine);
    assert.deepEqual([h.nnodes, h.nodeRank, h.head, h.addr], [2, 0, true, '10.3.3.3']);
    assert.deepEqual([w.nnodes, w.nodeRank, w.head], [2, 1, false]);
    assert.match(w.via, /headless/);
  });

  it('vLLM one engine over nodes (config/parallel.py ParallelConfig): --nnodes --node-rank --master-addr', () => {
    const w = latest(
      "INFO 03-01 10:00:00 [utils.py:253] non-default args: {'model': 'org/M', 'tensor_parallel_size': 16, 'nnodes': 2, 'node_rank': 1, 'master_addr': '10.4.4.4', 'headless': True}\n",
    );
    const id = nodeIdentity(w.l, w.engine);
    assert.deepEqual([id.nnodes, id.nodeRank, id.head, id.addr], [2, 1, false, '10.4.4.4']);
  });

  it("vLLM --headless DP node (cli/serve.py run_headless): no args logged; its line and its engines' DP ranks place it", () => {
    // Made up in vLLM 0.11's shapes: the headless node prints no `non-default args` (the API server's setup does).
    const w = latest(
      [
        'INFO 03-01 10:00:00 [__init__.py:216] Automatically detected platform cuda.',
        'INFO 03-01 10:00:05 [serve.py:225] Launching 2 data parallel engine(s) in headless mode, with head node address tcp://10.5.5.5:13345.',
        "(EngineCore_DP2 pid=31) INFO 03-01 10:00:09 [core.py:93] Initializing a V1 LLM engine (v0.11.0) with config: model='org/M', tensor_parallel_size=1, data_parallel_size=4",
        "(EngineCore_DP3 pid=32) INFO 03-01 10:00:09 [core.py:93] Initializing a V1 LLM engine (v0.11.0) with config: model='org/M', tensor_parallel_size=1, data_parallel_size=4",
        '',
      ].join('\n'),
    );
    assert.equal(w.l.index, 0, 'the second engine core is the same launch');
    const id = nodeIdentity(w.l, w.engine);
    assert.deepEqual([id.nnodes, id.nodeRank, id.head, id.addr], [2, 1, false, '10.5.5.5']);
    assert.match(id.via, /data_parallel_start_rank=2 .*headless/);
  });

  it('vLLM --nnodes headless (run_headless; multiproc_executor.py DP group leader): rank and nodes from its lines', () => {
    const w = latest(
      [
        'INFO 03-01 10:00:05 [serve.py:243] Launching vLLM (v0.12.0) headless multiproc executor, with head node address tcp://10.6.6.6:29501 for torch.distributed process group.',
        '(EngineCore_DP0 pid=41) INFO 03-01 10:00:09 [multiproc_executor.py:130] DP group leader: node_rank=1, node_rank_within_dp=1, master_addr=10.6.6.6, mq_connect_ip=10.6.6.7 (local), world_size=16, local_world_size=8',
        '',
      ].join('\n'),
    );
    const id = nodeIdentity(w.l, w.engine);
    assert.equal(w.engine, 'vllm');
    assert.deepEqual([id.nnodes, id.nodeRank, id.head, id.addr], [2, 1, false, '10.6.6.6']);
  });

  it('a single-node launch says nothing about nodes', () => {
    const { l, engine } = latest(
      "[2026-03-01 10:00:00] server_args=ServerArgs(model_path='m', tp_size=8, nnodes=1, node_rank=0)\n[2026-03-01 10:00:02 TP0] Init torch distributed begin.\n",
    );
    assert.equal(nodeIdentity(l, engine).nnodes, 1);
    assert.equal(nodeIdentity(l, engine).head, true);
  });
});
