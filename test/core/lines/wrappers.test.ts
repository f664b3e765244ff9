import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeLine } from '../../../src/core/lines/clean.js';
import { type PrefixContext, parseLine } from '../../../src/core/lines/prefix.js';
import { prefixShape } from '../../../src/core/lines/wrapper.js';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import { analyzeText } from '../../helpers.js';

/** Reads made-up lines in order through one context, as the analyzer does for a file. */
function read(lines: string[], ctx: PrefixContext = { year: 2026 }) {
  return lines.map((t, i) => parseLine(decodeLine(Buffer.from(t), 0, Buffer.byteLength(t)), i + 1, 0, ctx));
}

describe('wrappers no one listed', () => {
  it("wrappers inside an application logger's message: a Ray/vLLM process prefix, a compose gutter", () => {
    const [a, b] = read([
      '2025-03-04 05:06:07,890 - gateway - INFO - (EngineCore_DP0 pid=77)   File "/x/vllm/v1/engine/core.py", line 1, in run',
      '2025-03-04 05:06:07,890 - gateway - INFO - llm-1  | [gpu_id=1] Load weight end. type=X, avail mem=1.00 GB',
    ]);
    assert.equal(a!.msg, '  File "/x/vllm/v1/engine/core.py", line 1, in run');
    assert.equal(a!.pid, 77);
    assert.equal(b!.msg, 'Load weight end. type=X, avail mem=1.00 GB');
    assert.equal(b!.tags, 'gpu1');
  });

  it('a multi-host collector gutter (`host >> line`) before lines with no frame of their own', () => {
    const [a] = read(['[2025-03-04T05:06:07Z] gpu-node-7 >> Traceback (most recent call last):']);
    assert.equal(a!.msg, 'Traceback (most recent call last):');
    assert.equal(a!.container, 'gpu-node-7');
  });

  it("an application's logger printing a vLLM line as its message", () => {
    const [l] = read([
      '2025-03-04 05:06:07,890 - gateway - INFO - INFO 03-04 05:06:07 [api_server.py:12] Started',
    ]);
    assert.equal(l!.frame, 'vllm');
    assert.equal(l!.msg, 'Started');
    assert.equal(l!.level, 'info');
  });

  it('a container ISO stamp before a vLLM line leaves the vLLM frame to decide (not TGI)', () => {
    const [l] = read([
      '2025-03-04T05:06:07.123456789Z WARNING 03-04 05:06:07 [config.py:40] Casting to float16',
    ]);
    assert.equal(l!.frame, 'vllm');
    assert.equal(l!.level, 'warning');
    assert.equal(l!.msg, 'Casting to float16');
    // TGI's own frame keeps its target.
    const [t] = read(['2025-03-04T05:06:07.123Z  INFO text_generation_launcher: Starting shard rank=0']);
    assert.equal(t!.frame, 'tgi');
  });

  it("a container runtime's log file (`<time> stdout|stderr F|P <line>`) and `kubectl logs --prefix`", () => {
    const [a, b, c, d] = read([
      '2025-03-04T05:06:07.123456789Z stderr F Traceback (most recent call last):',
      '2025-03-04T05:06:08.5+01:00 stdout F INFO 03-04 05:06:08 [core.py:7] Waiting for engine',
      '2025-03-04T05:06:09.000000001Z stdout P [2025-03-04 05:06:09] server_args=ServerArgs(model_path=',
      '[pod/llm-server-7f9c/sglang] torch.OutOfMemoryError: CUDA out of memory.',
    ]);
    assert.equal(a!.msg, 'Traceback (most recent call last):');
    assert.equal(a!.ts, Date.UTC(2025, 2, 4, 5, 6, 7) / 1000);
    assert.equal(b!.frame, 'vllm');
    assert.equal(b!.msg, 'Waiting for engine');
    // A part of a line cut by the runtime is read from its own start as a line, as the line itself would be.
    assert.deepEqual(
      [c!.msg, c!.ts],
      ['server_args=ServerArgs(model_path=', Date.UTC(2025, 2, 4, 5, 6, 9) / 1000],
    );
    assert.equal(d!.msg, 'torch.OutOfMemoryError: CUDA out of memory.');
    assert.equal(d!.container, 'sglang');
  });

  it("Docker's json-file lines: the line as written, its time, without escapes or a progress bar's old states", () => {
    const [a, b, c] = read([
      '{"log":"INFO 03-04 05:06:07 [core.py:7] Waiting for engine\\n","stream":"stdout","time":"2025-03-04T05:06:07.5Z"}',
      '{"log":"\\u001b[31mtorch.OutOfMemoryError\\u001b[0m: CUDA out of memory.\\n","stream":"stderr","time":"2025-03-04T05:06:08Z"}',
      '{"log":"Loading shards:  10% 1/10\\rLoading shards:  20% 2/10\\n","stream":"stderr","time":"2025-03-04T05:06:09Z"}',
    ]);
    assert.equal(a!.frame, 'vllm');
    assert.equal(a!.msg, 'Waiting for engine');
    assert.equal(b!.msg, 'torch.OutOfMemoryError: CUDA out of memory.');
    assert.equal(b!.ts, Date.UTC(2025, 2, 4, 5, 6, 8) / 1000);
    assert.equal(c!.msg, 'Loading shards:  20% 2/10');
    // Other JSON is a line like any other.
    const [d] = read(['{"level":"info","msg":"hello"}']);
    assert.equal(d!.msg, '{"level":"info","msg":"hello"}');
  });

  it('journalctl -o short-iso, srun --label and moreutils ts', () => {
    const [a, b, c] = read([
      '2025-03-04T05:06:07+0100 gpu-node-3 python3[4121]: Traceback (most recent call last):',
      ' 3: [2025-03-04 05:06:08 TP3] Load weight end. type=X, avail mem=1.00 GB',
      'Mar 04 05:06:09 Traceback (most recent call last):',
    ]);
    assert.deepEqual([a!.msg, a!.pid], ['Traceback (most recent call last):', 4121]);
    // argparse's `prog.py: error: …` behind a time stamp is the message, not a host and a process.
    const [p, q] = read([
      'Mar 04 05:06:10 api_server.py: error: unrecognized arguments: --metrics-port 8001',
      '2025-03-04T05:06:10.5Z api_server.py: error: unrecognized arguments: --metrics-port 8001',
    ]);
    assert.equal(p!.msg, 'api_server.py: error: unrecognized arguments: --metrics-port 8001');
    assert.equal(q!.msg, 'api_server.py: error: unrecognized arguments: --metrics-port 8001');
    // journal fields printed without the host: the identifier and its pid in brackets
    const [j, k] = read([
      '2026-02-01T10:00:01+02:00 llm.server[4242]: srv    operator(): operator(): cleaning up before exit...',
      '2026-02-01T10:00:01+02:00 main: loading model',
    ]);
    assert.deepEqual([j!.msg, j!.pid], ['srv    operator(): operator(): cleaning up before exit...', 4242]);
    assert.equal(k!.msg, 'main: loading model');
    // TGI's frame has that shape when its level fills the column: it stays TGI's.
    const [t] = read([
      '2025-03-04T05:06:07.100000Z ERROR text_generation_launcher: Method Warmup encountered an error.',
    ]);
    assert.equal(t!.frame, 'tgi');
    assert.equal(b!.frame, 'sglang');
    assert.equal(b!.msg, 'Load weight end. type=X, avail mem=1.00 GB');
    assert.equal(c!.msg, 'Traceback (most recent call last):');
    // No year in the stamp: the year the file's earlier lines gave.
    assert.equal(c!.ts, Date.UTC(2025, 2, 4, 5, 6, 9) / 1000);
  });

  it('CI gutters: a bracketed ISO stamp and a `  | ` gutter', () => {
    const [a, b] = read([
      '[2025-06-01T10:00:00.123Z] INFO 06-01 10:00:00 [core.py:7] Waiting for engine',
      '  | INFO 06-01 10:00:01 [core.py:8] Engine ready',
    ]);
    assert.equal(a!.frame, 'vllm');
    assert.equal(a!.msg, 'Waiting for engine');
    assert.equal(b!.frame, 'vllm');
    assert.equal(b!.msg, 'Engine ready');
  });

  it('a log collector `[ts] host >> ` before SGLang lines', () => {
    const [l] = read([
      '[2025-06-01 10:00:00] node-7 >> [2025-06-01 10:00:00 TP1] Load weight begin. avail mem=70.1 GB',
    ]);
    assert.equal(l!.frame, 'sglang');
    assert.equal(l!.tags, 'TP1');
    assert.equal(l!.msg, 'Load weight begin. avail mem=70.1 GB');
  });

  it('ANSI escapes printed as text: `^[[0;36m` and bare `[0;36m … [0m` remnants', () => {
    const [a, b] = read([
      '^[[0;36m(VllmWorker rank=1 pid=77)^[[0;0m INFO 06-01 10:00:00 [gpu_worker.py:3] Memory profiling done',
      '[1;36m(EngineCore pid=9)[0m INFO 06-01 10:00:00 [core.py:3] Engine up',
    ]);
    assert.equal(a!.frame, 'vllm');
    assert.equal(a!.pid, 77);
    assert.equal(a!.msg, 'Memory profiling done');
    assert.equal(b!.tags, 'EngineCore');
    assert.equal(b!.msg, 'Engine up');
  });

  it("LocalAI's relay of a backend's output (`DBG GRPC(<model>-<addr>): stderr <line>`): the backend's line is read", () => {
    const [a, b, c] = read([
      'api-1  | 9:15AM DBG GRPC(my-model.gguf-127.0.0.1:40001): stderr runtime.goexit()',
      '11:02PM DBG GRPC(phi-127.0.0.1:35555): stdout llama_model_loader: loaded meta data with 20 key-value pairs',
      'DBG GRPC(phi-127.0.0.1:35555): stderr         /go/src/runtime/asm_amd64.s:1700 +0x1',
    ]);
    assert.equal(a!.msg, 'runtime.goexit()');
    assert.equal(a!.container, 'api-1');
    assert.equal(b!.msg, 'llama_model_loader: loaded meta data with 20 key-value pairs');
    assert.equal(c!.msg, '        /go/src/runtime/asm_amd64.s:1700 +0x1');
  });

  it("LocalAI's relay: a Go crash dump the backend printed is the backend's crash", () => {
    const r = analyzeText(
      [
        '9:15AM DBG Loading model in memory from file: /models/voice.onnx',
        '9:15AM DBG GRPC(voice.onnx-127.0.0.1:40001): stderr main.main()',
        '9:15AM DBG GRPC(voice.onnx-127.0.0.1:40001): stderr runtime.goexit()',
      ].join('\n'),
    );
    assert.equal(r.program, 'localai');
    assert.equal(r.launches.at(-1)?.outcome, 'crashed');
  });

  it('a custom `LEVEL PID [file.py:N]` format', () => {
    const [l] = read(['ERROR 4321 [model_runner.py:88] Weight file missing']);
    assert.equal(l!.framed, true);
    assert.equal(l!.level, 'error');
    assert.equal(l!.pid, 4321);
    assert.equal(l!.msg, 'Weight file missing');
  });

  it('a wrapper learned from the first lines is peeled from traceback continuation lines', () => {
    const ctx: PrefixContext = { year: 2026 };
    const got = read(
      [
        '2025-01-02 03:04:05 | svc-a | INFO 01-02 03:04:05 [core.py:1] Initializing engine',
        '2025-01-02 03:04:06 | svc-a | ERROR 01-02 03:04:06 [core.py:2] EngineCore failed to start.',
        '2025-01-02 03:04:06 | svc-a | Traceback (most recent call last):',
        '2025-01-02 03:04:06 | svc-a |   File "/opt/venv/vllm/v1/engine/core.py", line 10, in run',
        '2025-01-02 03:04:06 | svc-a | RuntimeError: boom',
      ],
      ctx,
    );
    assert.equal(ctx.wrap, prefixShape('2025-01-02 03:04:05 | svc-a | '));
    assert.equal(got[2]!.msg, 'Traceback (most recent call last):');
    assert.equal(got[3]!.msg, '  File "/opt/venv/vllm/v1/engine/core.py", line 10, in run');
    assert.equal(got[4]!.msg, 'RuntimeError: boom');
    assert.equal(got[4]!.ts, Date.UTC(2025, 0, 2, 3, 4, 6) / 1000);
  });

  it('a bare `word: ` prefix is never learned (it would eat `ValueError: `)', () => {
    assert.equal(prefixShape('worker: '), null);
    assert.notEqual(prefixShape('worker >> '), null);
  });

  it('the learned wrapper survives a checkpoint', () => {
    const text = [
      '2025-01-02 03:04:05 | svc-a | INFO 01-02 03:04:05 [core.py:1] Initializing engine',
      '2025-01-02 03:04:06 | svc-a | INFO 01-02 03:04:06 [core.py:2] Loading model',
      '',
    ].join('\n');
    const a = new LogAnalyzer();
    a.push(Buffer.from(text));
    const b = LogAnalyzer.restore(a.checkpoint());
    const ctx = (b as unknown as { ctx: PrefixContext }).ctx;
    assert.equal(ctx.wrap, prefixShape('2025-01-02 03:04:05 | svc-a | '));
  });
});

describe("a container runtime's parts of one line (`P` records, then `F`)", () => {
  // A made-up SGLang start whose long server_args line the runtime cut into records of 1,000 characters.
  const args = Array.from({ length: 300 }, (_, i) => `arg_${i}=${i}`).join(', ');
  const long = `[2025-03-04 05:06:09] server_args=ServerArgs(model_path='m', ${args}, tp_size=4, dp_size=1)`;
  const pieces: string[] = [];
  for (let i = 0; i < long.length; i += 1000) pieces.push(long.slice(i, i + 1000));
  const record = (t: string, stream: string, tag: string, text: string) =>
    `2025-03-04T05:06:${t}Z ${stream} ${tag} ${text}`;
  const parts = pieces.map((p, i) => record(`09.00${i}`, 'stdout', i === pieces.length - 1 ? 'F' : 'P', p));
  const tail = [
    record('10.0', 'stdout', 'F', '[2025-03-04 05:06:10 TP0] Load weight begin. avail mem=78.00 GB'),
    record(
      '20.0',
      'stdout',
      'F',
      '[2025-03-04 05:06:20 TP0] Load weight end. type=Q, dtype=torch.bfloat16, avail mem=60.00 GB, mem usage=16.00 GB.',
    ),
  ];
  const start = record('08.0', 'stdout', 'F', '[2025-03-04 05:06:08] Starting the server');

  it("are read as the one line the engine wrote, at the first part's line number", () => {
    assert.ok(pieces.length >= 4);
    const r = analyzeText([start, ...parts, ...tail, ''].join('\n'));
    const l = r.launches.at(-1)!;
    assert.equal(l.config.tp_size, 4); // in the last part only
    assert.equal(l.phase, 'weights_loaded');
  });

  it('are joined the same across checkpoints taken between the parts', () => {
    const text = [start, ...parts, ...tail, ''].join('\n');
    const whole = analyzeText(text);
    const lines = text.split('\n');
    for (let cut = 1; cut < lines.length - 1; cut++) {
      const a = new LogAnalyzer({ year: 2026 });
      a.push(Buffer.from(`${lines.slice(0, cut).join('\n')}\n`));
      const b = LogAnalyzer.restore(a.checkpoint());
      b.push(Buffer.from(lines.slice(cut).join('\n')));
      assert.deepEqual(b.end().launches.at(-1)!.config, whole.launches.at(-1)!.config, `cut at ${cut}`);
    }
  });

  it('a part the next record does not go on (another stream, or the file ends) is read as it stands', () => {
    const r = analyzeText(
      [
        start,
        parts[0]!,
        record('09.5', 'stderr', 'F', 'torch.OutOfMemoryError: CUDA out of memory.'),
        '',
      ].join('\n'),
    );
    const l = r.launches.at(-1)!;
    assert.equal(l.config.tp_size, undefined);
    assert.equal(l.failure?.class, 'oom');
    const end = analyzeText([start, parts[0]!].join('\n'));
    assert.equal(end.launches.length, 1);
  });
});
