import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLine } from '../../../src/core/lines/prefix.js';
import type { MultiNodeReport } from '../../../src/core/multinode/combine.js';
import type { NodeVerdict } from '../../../src/core/multinode/live.js';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import type { LaunchReport } from '../../../src/core/reading/report.js';
import { liveVerdict } from '../../../src/core/verdict/verdict.js';

/**
 * One log, several nodes (Ray): made-up lines in the shapes Ray's log_to_driver prints (the corpus's
 * `(RayWorkerWrapper pid=N, ip=IP) ` before the worker's vLLM line; ray/_private/worker.py print_worker_logs
 * for the other forms) and vLLM V0's own lines behind them.
 */
const line = (t: string) => parseLine(t, 1, 0, { year: 2026 });

describe("Ray's forwarding prefix", () => {
  it('keeps the ip of the node a line came from, and the actor and pid, for every form Ray prints', () => {
    const cases: Array<[string, string | null, string | null, number | null, string]> = [
      [
        '(RayWorkerWrapper pid=164587, ip=10.0.0.6) ERROR 06-21 03:49:38 worker_base.py:148] raise HFValidationError(',
        '10.0.0.6',
        'RayWorkerWrapper',
        164587,
        'raise HFValidationError(',
      ],
      // An actor on the driver's own node: Ray names no ip.
      [
        '(RayWorkerWrapper pid=4311) INFO 06-25 15:20:20 cuda.py:230] Using Flash Attention backend.',
        null,
        'RayWorkerWrapper',
        4311,
        'Using Flash Attention backend.',
      ],
      // Before the actor has a name: the bare pid.
      [
        '(pid=5304, ip=10.0.0.2) INFO 06-25 15:20:18 __init__.py:190] Automatically detected platform cuda.',
        '10.0.0.2',
        null,
        5304,
        'Automatically detected platform cuda.',
      ],
      // Actor and task names with underscores and digits; an IPv6 node.
      [
        '(DP_EngineCore_Actor2 pid=77, ip=fd00:1::2) INFO 06-25 15:20:18 core.py:58] Initializing an engine',
        'fd00:1::2',
        'DP_EngineCore_Actor2',
        77,
        'Initializing an engine',
      ],
      // vLLM V1: the engine core is the Ray driver, its own prefix around Ray's.
      [
        '(EngineCore_0 pid=100) (RayWorkerWrapper pid=200, ip=192.168.1.12) INFO 08-06 10:00:00 [gpu_model_runner.py:1770] Starting to load model m...',
        '192.168.1.12',
        'RayWorkerWrapper',
        200,
        'Starting to load model m...',
      ],
      // The raylet's own lines.
      [
        '(raylet, ip=10.0.0.2) [2025-06-25 15:30:00,001 E 901 901] worker_pool.cc:587: Some workers of the worker process(5306) have not registered within the timeout.',
        '10.0.0.2',
        'raylet',
        null,
        'worker_pool.cc:587: Some workers of the worker process(5306) have not registered within the timeout.',
      ],
      // The driver's own line: no prefix, no node.
      [
        'INFO 06-25 15:20:12 config.py:1401] Defaulting to use ray for distributed inference',
        null,
        null,
        null,
        'Defaulting to use ray for distributed inference',
      ],
      // vLLM's own process prefix: the engine's, no node.
      [
        '(EngineCore_DP0 pid=4201) INFO 10-20 09:00:13 [core.py:93] Initializing a V1 LLM engine',
        null,
        'EngineCore_DP0',
        4201,
        'Initializing a V1 LLM engine',
      ],
    ];
    for (const [text, ip, tags, pid, msg] of cases) {
      const l = line(text);
      assert.equal(l.ip ?? null, ip, text);
      assert.equal(l.pid, pid, text);
      assert.equal(l.tags, tags, text);
      assert.ok(l.msg.endsWith(msg), `${text}\n→ ${l.msg}`);
    }
  });

  it("takes Ray's `[repeated Nx across cluster]` off the message, so the engine's rules read it whole", () => {
    const l = line(
      '(RayWorkerWrapper pid=5305, ip=10.0.0.2) INFO 06-25 15:21:10 model_runner.py:1115] Loading model weights took 16.4213 GB [repeated 6x across cluster]',
    );
    assert.equal(l.msg, 'Loading model weights took 16.4213 GB');
    assert.equal(l.ts, Date.UTC(2026, 5, 25, 15, 21, 10) / 1000);
    // Only behind a process prefix: a line of another program keeps its text.
    assert.match(line('something [repeated 6x across cluster]').msg, /repeated 6x/);
  });
});

const W = (ip: string | null, pid: number, t: string, src: string, msg: string, level = 'INFO') =>
  `${ip === null ? `(RayWorkerWrapper pid=${pid}) ` : `(RayWorkerWrapper pid=${pid}, ip=${ip}) `}${level} 03-01 ${t} ${src}] ${msg}`;
const D = (t: string, src: string, msg: string, level = 'INFO') => `${level} 03-01 ${t} ${src}] ${msg}`;

/** A vLLM V0 start under Ray; `nodes`: the ips of the worker actors (null: on the driver's node). */
function rayLog(
  nodes: Array<string | null>,
  opts: { driverLoads?: boolean; skew?: number; stopAt?: 'load' } = {},
) {
  const skew = opts.skew ?? 0;
  const at = (s: number, ip: string | null) => {
    const t = new Date(Date.UTC(2026, 2, 1, 10, 0, s + (ip ? skew : 0)));
    return t.toISOString().slice(11, 19);
  };
  const L = [
    D(at(0, null), 'api_server.py:840', 'vLLM API server version 0.7.2'),
    D(
      at(1, null),
      'llm_engine.py:234',
      "Initializing a V0 LLM engine (v0.7.2) with config: model='org/M', tensor_parallel_size=4",
    ),
  ];
  nodes.forEach((ip, i) => {
    L.push(W(ip, 100 + i, at(5, ip), 'cuda.py:230', 'Using Flash Attention backend.'));
  });
  if (opts.driverLoads !== false)
    L.push(D(at(8, null), 'model_runner.py:1110', 'Starting to load model org/M...'));
  nodes.forEach((ip, i) => {
    L.push(W(ip, 100 + i, at(8, ip), 'model_runner.py:1110', 'Starting to load model org/M...'));
  });
  // `Loading model weights took` ends the loading (V0 model_runner.py load_model): a driver stopped mid-load has not
  // printed it
  if (opts.driverLoads !== false && opts.stopAt !== 'load')
    L.push(D(at(30, null), 'model_runner.py:1115', 'Loading model weights took 4.1 GB'));
  if (opts.stopAt === 'load') {
    L.push(D(at(50, null), 'custom_all_reduce_utils.py:244', 'reading GPU P2P access cache'));
    return `${L.join('\n')}\n`;
  }
  nodes.forEach((ip, i) => {
    L.push(W(ip, 100 + i, at(31, ip), 'model_runner.py:1115', 'Loading model weights took 4.1 GB'));
  });
  L.push(D(at(40, null), 'executor_base.py:110', '# CUDA blocks: 39245, # CPU blocks: 3276'));
  L.push(
    D(
      at(60, null),
      'llm_engine.py:431',
      'init engine (profile, create kv cache, warmup model) took 20.00 seconds',
    ),
  );
  L.push(
    'INFO:     Application startup complete.',
    'INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
  );
  return `${L.join('\n')}\n`;
}

function read(text: string): LaunchReport {
  const a = new LogAnalyzer({ year: 2026 });
  a.push(Buffer.from(text));
  const r = a.end();
  assert.equal(r.launches.length, 1);
  return r.launches[0]!;
}

describe('one log, several nodes: a Ray launch read as a multi-node one', () => {
  it('two nodes at work (an actor on the driver node, others on 10.0.0.2): the driver is the head', () => {
    const l = read(rayLog([null, '10.0.0.2', '10.0.0.2']));
    const m = l.nodes!;
    assert.equal(m.layout, 'ray');
    assert.equal(l.outcome, 'ready');
    assert.deepEqual(
      m.nodes.map((n) => [n.name, n.head, n.nodeRank, n.outcome, n.done]),
      [
        ['driver', true, 0, 'ready', false],
        ['10.0.0.2', false, 1, 'ready', true],
      ],
    );
    assert.match(m.nodes[1]!.via, /^ray ip=10\.0\.0\.2 \(RayWorkerWrapper\)$/);
    assert.equal(m.culprit, null);
  });

  it('three nodes: every ip is a node, in the order they first logged', () => {
    const l = read(rayLog(['10.0.0.3', '10.0.0.2', '10.0.0.3'], { driverLoads: false }));
    assert.deepEqual(
      l.nodes!.nodes.map((n) => n.name),
      ['driver', '10.0.0.3', '10.0.0.2'],
    );
  });

  it('stays a one-node launch: Ray on one machine (no ip), an excerpt of one node, a CPU-only head', () => {
    // Tensor parallel on the driver's node: Ray prints no ip at all.
    assert.equal(read(rayLog([null, null, null])).nodes, undefined);
    // Only one node's forwarded lines (corpus vllm/052.log, 007.log are such excerpts).
    const one = rayLog(['10.0.0.6', '10.0.0.6'])
      .split('\n')
      .filter((x) => x.startsWith('('))
      .join('\n');
    assert.equal(read(`${one}\n`).nodes, undefined);
    // The driver on a node with no GPU work of its own (V1's engine core as a CPU-only Ray head): one GPU node.
    assert.equal(read(rayLog(['10.0.0.2', '10.0.0.2'], { driverLoads: false })).nodes, undefined);
  });

  it("a node's clock is measured from the order its lines arrived in, and corrected", () => {
    const l = read(rayLog([null, '10.0.0.2'], { skew: 300 }));
    const m = l.nodes!;
    assert.deepEqual(
      m.nodes.map((n) => n.skew),
      [0, 300],
    );
    assert.match(
      m.skewNote!,
      /10\.0\.0\.2's clock runs 5 min 0 s ahead of driver's \(measured from the order Ray forwarded/,
    );
    assert.equal(read(rayLog([null, '10.0.0.2'], { skew: 1 })).nodes!.nodes[1]!.skew, 0);
  });

  it('a node that went silent while the driver went on in the same phase holds the launch back', () => {
    const text = rayLog([null, '10.0.0.2'], { stopAt: 'load' });
    const l = read(text);
    const m = l.nodes!;
    assert.equal(l.outcome, 'in_progress');
    assert.equal(m.culprit?.name, '10.0.0.2');
    assert.match(
      m.culprit!.why,
      /logged nothing since 10:00:08 in loading_weights, while driver went on for 42 s/,
    );
    // Live, long after: stalled, named after the silent node; each node told apart.
    const report = {
      engine: 'vllm' as const,
      engineScores: {} as never,
      lines: 0,
      bytes: 0,
      truncatedLines: 0,
      launches: [l],
    };
    const v = liveVerdict({
      report,
      obs: {},
      now: 1e9,
      progressAt: 1e9 - 3600,
      logExists: true,
    }) as ReturnType<typeof liveVerdict> & { nodes: NodeVerdict[] };
    assert.equal(v.state, 'stalled');
    assert.match(v.why, /^10\.0\.0\.2 holds the launch back \(it has logged nothing since/);
    assert.deepEqual(
      v.nodes.map((n) => [n.name, n.state]),
      [
        ['driver', 'loading'],
        ['10.0.0.2', 'stalled'],
      ],
    );
  });

  it("a worker node's failure is the root cause; the driver's later failure its consequence", () => {
    const text = `${rayLog([null, '10.0.0.2'], { stopAt: 'load' }).trimEnd()}
${W('10.0.0.2', 101, '10:00:55', 'worker_base.py:148', 'Traceback (most recent call last):', 'ERROR')}
${W('10.0.0.2', 101, '10:00:55', 'worker_base.py:148', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.', 'ERROR')}
[rank0]:[E301 10:10:55.412040118 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=41, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600043 milliseconds before timing out.
`;
    const l = read(text);
    const m: MultiNodeReport = l.nodes!;
    assert.equal(l.outcome, 'crashed');
    assert.equal(m.culprit?.name, '10.0.0.2');
    assert.equal(l.failure?.class, 'oom');
    assert.match(
      m.verdict,
      /^crashed: 10\.0\.0\.2 died first: oom .*; driver's nccl 10 min 0 s later is its consequence$/,
    );
  });

  it('a worker node whose actor died without a word: the driver names its node, the root cause is that node', () => {
    const died = [
      "ERROR 03-01 10:01:10 worker_base.py:148] Error executing method 'determine_num_available_blocks'. This might cause deadlock in distributed execution.",
      'Traceback (most recent call last):',
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/executor/ray_gpu_executor.py", line 418, in _run_workers',
      '    ray_worker_outputs = ray.get(ray_worker_outputs)',
      'ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.',
      '\tclass_name: RayWorkerWrapper',
      '\tactor_id: 7c9a61e2b3d4',
      '\tpid: 101',
      '\tnamespace: 1b2e',
      '\tip: 10.0.0.2',
      'The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.',
    ];
    const base = rayLog([null, '10.0.0.2'], { stopAt: 'load' }).trimEnd();
    const l = read(`${base}\n${died.join('\n')}\n`);
    const m = l.nodes!;
    assert.equal(l.outcome, 'crashed');
    assert.equal(m.culprit?.name, '10.0.0.2');
    assert.match(
      m.verdict,
      /^crashed: 10\.0\.0\.2 died first: killed in loading_weights: its Ray worker died or failed, as the driver's log says at line \d+; driver's \w+ is its consequence$/,
    );
    // The failure shown stays the driver's own exception, which quotes the death.
    assert.match(l.failure!.message, /ActorDiedError: The actor died unexpectedly/);
    // Ray's memory monitor names the node and the cause; the node need not have logged anything itself.
    const oom = [
      'Traceback (most recent call last):',
      '  File "/usr/local/lib/python3.12/dist-packages/vllm/executor/ray_gpu_executor.py", line 418, in _run_workers',
      'ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.',
      'Memory on the node (IP: 10.0.0.3, ID: 5d1e) where the task (actor ID: 7c9a, name=RayWorkerWrapper.__init__, pid=101, memory used=120.50GB) was running was 121.02GB / 125.00GB (0.968), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: 0a0b) because it was the most recently scheduled task.',
    ];
    const o = read(`${rayLog([null, '10.0.0.2'], { stopAt: 'load' }).trimEnd()}\n${oom.join('\n')}\n`).nodes!;
    assert.equal(o.culprit?.name, '10.0.0.3');
    assert.equal(o.nodes.find((n) => n.name === '10.0.0.3')?.failure?.class, 'oom');
  });

  it("vLLM V1: the engine core is Ray's driver, its own prefix around Ray's; its workers on two nodes", () => {
    const ec = '(EngineCore_0 pid=100) ';
    const at = (ip: string | null, pid: number) =>
      `${ec}${ip === null ? `(RayWorkerWrapper pid=${pid}) ` : `(RayWorkerWrapper pid=${pid}, ip=${ip}) `}`;
    const text = [
      '(APIServer pid=9) INFO 08-06 10:00:00 [api_server.py:1805] vLLM API server version 0.10.0',
      `${ec}INFO 08-06 10:00:05 [core.py:71] Initializing a V1 LLM engine (v0.10.0) with config: model='org/M', tensor_parallel_size=2, pipeline_parallel_size=2`,
      `${ec}INFO 08-06 10:00:06 [ray_utils.py:334] No current placement group found. Creating a new placement group.`,
      `${at(null, 200)}INFO 08-06 10:00:12 [gpu_model_runner.py:1770] Starting to load model org/M...`,
      `${at('10.0.0.2', 300)}INFO 08-06 10:00:12 [gpu_model_runner.py:1770] Starting to load model org/M...`,
      `${at(null, 200)}INFO 08-06 10:00:40 [gpu_model_runner.py:1801] Model loading took 30.2 GiB and 27.5 seconds`,
      `${at('10.0.0.2', 300)}INFO 08-06 10:00:41 [gpu_model_runner.py:1801] Model loading took 30.2 GiB and 28.1 seconds`,
      `${ec}INFO 08-06 10:01:20 [core.py:193] init engine (profile, create kv cache, warmup model) took 60.10 seconds`,
      '(APIServer pid=9) INFO 08-06 10:01:22 [api_server.py:1870] Starting vLLM API server 0 on http://0.0.0.0:8000',
      '(APIServer pid=9) INFO:     Application startup complete.',
    ].join('\n');
    const l = read(`${text}\n`);
    const m = l.nodes!;
    assert.deepEqual(
      m.nodes.map((n) => [n.name, n.head, n.outcome]),
      [
        ['driver', true, 'ready'],
        ['10.0.0.2', false, 'ready'],
      ],
    );
    assert.match(m.nodes[0]!.via, /^ray driver \(RayWorkerWrapper\)$/);
  });
});
