import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeLine, logicalSegments } from '../../../src/core/lines/clean.js';
import { parseLine } from '../../../src/core/lines/prefix.js';
import { LineSplitter } from '../../../src/core/lines/splitter.js';
import { parseBar } from '../../../src/core/reading/tqdm.js';
import { analyzeText, readShared } from '../../helpers.js';

const line = (t: string) => parseLine(t, 1, 0, { year: 2026 });

describe('line splitting and cleaning', () => {
  it('splits on \\n, counts physical lines, keeps a bounded prefix of a huge line', () => {
    const got: Array<[number, string, boolean]> = [];
    const sp = new LineSplitter((b, s, e, no, _o, tr) => got.push([no, b.toString('utf8', s, e), tr]), 8);
    sp.push(Buffer.from('ab\ncdefghijklmnop\nq'));
    sp.push(Buffer.from('r\n'));
    sp.push(Buffer.from('tail'));
    sp.end();
    assert.deepEqual(got, [
      [1, 'ab', false],
      [2, 'cdefghij', true],
      [3, 'qr', false],
      [4, 'tail', false],
    ]);
  });

  it("drops cat -v's `^M` (a CRLF line's CR) from the end of a line, with its `^[[…m` remnants", () => {
    const t =
      '^[[1;36m(Worker_TP1 pid=9)^[[0;0m ERROR 09-17 10:00:00 [x.py:1]   File "/a/b.py", line 3, in warmup_model^M';
    assert.equal(
      decodeLine(Buffer.from(t), 0, Buffer.byteLength(t)),
      '(Worker_TP1 pid=9) ERROR 09-17 10:00:00 [x.py:1]   File "/a/b.py", line 3, in warmup_model',
    );
  });

  it('keeps the last state of a tqdm bar and the log lines between refreshes', () => {
    const t =
      'Loading safetensors checkpoint shards:  1% Completed | 1/83 [00:00<00:21,  3.77it/s]\rLoading safetensors checkpoint shards:  2% Completed | 2/83 [00:00<00:21,  3.80it/s]\r[2026-02-19 04:10:17 TP3] Load weight begin. avail mem=93.12 GB\r\n';
    assert.deepEqual(logicalSegments(t), [
      'Loading safetensors checkpoint shards:  2% Completed | 2/83 [00:00<00:21,  3.80it/s]',
      '[2026-02-19 04:10:17 TP3] Load weight begin. avail mem=93.12 GB',
    ]);
  });

  it('cuts a paste whose lines were joined by spaces where the same process prefix recurs', () => {
    const w = '(RolloutWorker pid=42)';
    const t = `> Capturing batches (bs=8 avail_mem=10.00 GB): 0%| | 0/4 [00:00<?, ?it/s] ${w} [2026-01-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last): ${w} File "/x/sglang/srt/managers/scheduler.py", line 10, in run ${w} RuntimeError: boom`;
    assert.deepEqual(logicalSegments(t), [
      'Capturing batches (bs=8 avail_mem=10.00 GB): 0%| | 0/4 [00:00<?, ?it/s]',
      `${w} [2026-01-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):`,
      `${w} File "/x/sglang/srt/managers/scheduler.py", line 10, in run`,
      `${w} RuntimeError: boom`,
    ]);
    // a prefix named twice inside a line's text (a message quoting another process) is no joined paste
    const one = `(EngineCore pid=7) ERROR 01-01 10:00:00 [core.py:1] worker (Worker pid=8) died; see the log of (Worker pid=8) for ${'x'.repeat(200)}`;
    assert.deepEqual(logicalSegments(one), [one]);
  });

  it("splits llama.cpp's load dots from the failure line written right after them", () => {
    assert.deepEqual(logicalSegments('..........ROCm error: out of memory'), [
      '..........',
      'ROCm error: out of memory',
    ]);
    // Python's elided frames and an ellipsis are lines of their own
    assert.deepEqual(logicalSegments('    ...<2 lines>...'), ['    ...<2 lines>...']);
    assert.deepEqual(logicalSegments('...<2 lines>...'), ['...<2 lines>...']);
    assert.deepEqual(logicalSegments('... (truncated)'), ['... (truncated)']);
  });

  it("splits KoboldCpp's request progress from the failure line written right after it", () => {
    assert.deepEqual(
      logicalSegments('Processing Prompt [BLAS] (512 / 9000 tokens)CUDA error: out of memory'),
      ['Processing Prompt [BLAS] (512 / 9000 tokens)', 'CUDA error: out of memory'],
    );
    assert.deepEqual(logicalSegments('Generating (12 / 512 tokens)'), ['Generating (12 / 512 tokens)']);
  });

  it("keeps a vLLM process prefix printed before the bar's \\r", () => {
    assert.deepEqual(
      logicalSegments(
        '(Worker_TP0 pid=4) \rLoading safetensors checkpoint shards:   6% Completed | 1/17 [00:00<00:12,  1.30it/s]',
      ),
      [
        '(Worker_TP0 pid=4) Loading safetensors checkpoint shards:   6% Completed | 1/17 [00:00<00:12,  1.30it/s]',
      ],
    );
  });

  it('strips ANSI colours, escape remnants and NULs, and survives invalid UTF-8', () => {
    const b = Buffer.concat([
      Buffer.from('\x1b[1;36m(APIServer pid=1)\x1b[0;0m INFO: ok\0 '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(' [1;36mx'),
    ]);
    const t = decodeLine(b, 0, b.length);
    assert.equal(t.includes('\x1b'), false);
    assert.equal(t.includes('\0'), false);
    assert.ok(t.startsWith('(APIServer pid=1) INFO: ok'));
    assert.ok(t.endsWith(' x'));
  });

  it("undoes GitHub's phone-number links in a pasted stamp (`[[2026-01-02 03](tel:2026-01-02 03):04:05]`)", () => {
    const b = Buffer.from(
      '[[2026-01-02 03](tel:2026-01-02 03):04:05 TP0] Load weight begin. avail mem=70.00 GB',
    );
    const t = decodeLine(b, 0, b.length);
    assert.equal(t, '[2026-01-02 03:04:05 TP0] Load weight begin. avail mem=70.00 GB');
    const l = line(t);
    assert.equal(l.tags, 'TP0');
    assert.equal(l.msg, 'Load weight begin. avail mem=70.00 GB');
  });
});

describe('prefixes', () => {
  it('SGLang stamp and rank tags', () => {
    const l = line('[2026-02-19 05:48:17 DP1 TP3 EP3] Load weight begin. avail mem=138.51 GB');
    assert.equal(l.tags, 'DP1 TP3 EP3');
    assert.equal(l.ts, Date.UTC(2026, 1, 19, 5, 48, 17) / 1000);
    assert.equal(l.msg, 'Load weight begin. avail mem=138.51 GB');
  });

  it('vLLM process prefix, level and file:line', () => {
    const l = line(
      '(Worker_TP0 pid=48390) INFO 11-29 14:02:31 [default_loader.py:397] Loading weights took 12.84 seconds',
    );
    assert.equal(l.tags, 'Worker_TP0');
    assert.equal(l.pid, 48390);
    assert.equal(l.level, 'info');
    assert.equal(l.msg, 'Loading weights took 12.84 seconds');
    assert.equal(l.ts, Date.UTC(2026, 10, 29, 14, 2, 31) / 1000);
  });

  it("a first line cut mid-word in its level keeps vLLM's frame: the tail of one level word is that word", () => {
    const cut = line('NING 04-01 02:45:50 ray_utils.py:320] The number of required GPUs exceeds the total.');
    assert.equal(cut.level, 'warning');
    assert.equal(cut.msg, 'The number of required GPUs exceeds the total.');
    assert.equal(
      cut.text,
      'NING 04-01 02:45:50 ray_utils.py:320] The number of required GPUs exceeds the total.',
    );
    assert.equal(line('RROR 04-01 02:45:50 [core.py:9] x').level, 'error');
    // a later line is no cut paste's head; a tail that ends two words (`G`: DEBUG, WARNING) is not guessed
    assert.equal(parseLine('NING 04-01 02:45:50 [core.py:9] x', 2, 0, { year: 2026 }).framed, false);
    assert.equal(line('G 04-01 02:45:50 [core.py:9] x').framed, false);
    assert.equal(line('OK 04-01 02:45:50 all good').framed, false);
  });

  it('docker compose gutter, journald and CI stamps', () => {
    assert.equal(
      line('deepseek-v32-exp  | [2025-10-04 02:29:36 DP7 TP7] Scheduler hit an exception:').container,
      'deepseek-v32-exp',
    );
    const j = line(
      'Nov 29 14:02:31 host bash[1234]: (APIServer pid=1) INFO 11-29 14:02:31 [loggers.py:1] Avg prompt throughput: 1.0 tokens/s',
    );
    assert.equal(j.pid, 1);
    assert.match(j.msg, /^Avg prompt throughput/);
    const ci = line('2023-12-28T13:17:07.318704498Z [2026-02-19 04:10:11 TP0] Init torch distributed begin.');
    assert.equal(ci.msg, 'Init torch distributed begin.');
    assert.equal(ci.tags, 'TP0');
  });

  it('infers the level where the engine prints none', () => {
    assert.equal(line('[2026-02-19 05:48:17 TP0] Load weight begin. avail mem=138.51 GB').level, 'info');
    assert.equal(line('torch.OutOfMemoryError: CUDA out of memory.').level, 'error');
    assert.equal(
      line('[2026-02-19 05:48:17] Scheduler hit an exception: Traceback (most recent call last):').level,
      'error',
    );
  });

  it('llama.cpp relative stamps and TRT-LLM frames', () => {
    const l = line('0.03.811.509 I srv  llama_server: listening on http://127.0.0.1:18081');
    assert.equal(l.rel, 3.811509);
    const t = line('[09/17/2025-21:24:18] [TRT-LLM] [RANK 7] [E] Error executing');
    assert.equal(t.tags, 'rank 7');
    assert.equal(t.level, 'error');
  });
});

describe('tqdm bars', () => {
  it('reads SGLang/vLLM and default bars, with rate and remaining time', () => {
    assert.deepEqual(
      parseBar('Loading safetensors checkpoint shards:  48% Completed | 40/83 [00:13<00:14,  2.93it/s]'),
      {
        desc: 'Loading safetensors checkpoint shards',
        done: 40,
        total: 83,
        elapsed: 13,
        remaining: 14,
        rate: 2.93,
      },
    );
    const b = parseBar(
      'Capturing CUDA graphs (decode, FULL): 100%|██████████| 35/35 [00:01<00:00, 21.37it/s]',
    )!;
    assert.equal(b.done, 35);
    assert.equal(
      parseBar('Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:09<00:28,  9.50s/it]')!.rate,
      1 / 9.5,
    );
  });
});

describe('segmentation and failures on small logs', () => {
  it('a relaunch appended to the same file is a second launch', () => {
    const r = analyzeText(
      [
        "[2026-01-01 00:00:00] server_args=ServerArgs(model_path='a', tp_size=1)",
        '[2026-01-01 00:00:05] The server is fired up and ready to roll!',
        "[2026-01-01 01:00:00] server_args=ServerArgs(model_path='a', tp_size=2)",
        '[2026-01-01 01:00:02] Init torch distributed begin.',
      ].join('\n'),
    );
    assert.equal(r.launches.length, 2);
    // Superseded by the relaunch with no exit line of its own: it ended, it is not still ready.
    assert.equal(r.launches[0]!.outcome, 'ended');
    assert.equal(r.launches[1]!.phase, 'dist_init');
    assert.equal(r.launches[1]!.startLine, 3);
  });

  it('an OOM is the root cause; sigquit and Killed are consequences', () => {
    const r = analyzeText(
      [
        '[2026-01-01 00:00:00 TP1] Scheduler hit an exception: Traceback (most recent call last):',
        '  File "/x/sglang/srt/model_executor/model_runner.py", line 1, in init_memory_pool',
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
        '[2026-01-01 00:00:01] Received sigquit from a child process. It usually means the child failed.',
        'Killed',
      ].join('\n'),
    );
    const f = r.launches[0]!.failure!;
    assert.equal(f.class, 'oom');
    assert.equal(f.line, 3);
    assert.equal(f.rank, 'TP1');
    assert.equal(r.launches[0]!.phase, 'kv_cache');
  });

  it('a client error while serving is not a crash', () => {
    const r = analyzeText(
      [
        '(APIServer pid=1) INFO 11-29 14:03:26 [api_server.py:1] Starting vLLM server on http://0.0.0.0:8000',
        '(APIServer pid=1) INFO:     Application startup complete.',
        "(APIServer pid=1) ERROR 11-29 14:03:30 [serving_chat.py:1] Error with model object='error' message='The model `x` does not exist.'",
        '(APIServer pid=1) INFO:     127.0.0.1:1 - "POST /v1/chat/completions HTTP/1.1" 404 Not Found',
        '(APIServer pid=1) INFO 11-29 14:03:40 [loggers.py:1] Engine 000: Avg prompt throughput: 10.0 tokens/s, Avg generation throughput: 55.5 tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.0%, Prefix cache hit rate: 0.0%',
      ].join('\n'),
    );
    const l = r.launches[0]!;
    assert.equal(r.engine, 'vllm');
    assert.equal(l.outcome, 'serving');
    assert.equal(l.throughput!.last, 55.5);
  });
});

describe('TGI', () => {
  it('parses the multi-line Args dump into the config, secrets redacted', () => {
    const r = analyzeText(readShared('logs/tgi-args.log').toString('utf8'));
    const l = r.launches[0]!;
    assert.equal(r.engine, 'tgi');
    assert.equal(l.model, 'meta-llama/Llama-2-13b-chat-hf');
    assert.equal(l.configSummary.tp, 2);
    assert.equal(l.configSummary.quantization, 'BitsandbytesNF4');
    assert.equal(l.config.api_key, '<redacted>');
    assert.ok(!JSON.stringify(r).includes('hf_abcdefghijklmnopqrstuvwxyz'));
  });
});

describe('engine frames whose stamp the paste took out', () => {
  // vllm/logger.py `%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s` (`file.py:N]` before 0.8);
  // SGLang `[%(asctime)s TP0] %(message)s`; TensorRT-LLM logger.py `[%m/%d/%Y-%H:%M:%S] [TRT-LLM] [I] …`
  it('keep their level, tags and message', () => {
    const v = line('(EngineCore pid=7) ERROR [core.py:58] EngineCore failed to start.');
    assert.equal(v.frame, 'vllm');
    assert.equal(v.level, 'error');
    assert.equal(v.msg, 'EngineCore failed to start.');
    assert.equal(
      line('ERROR worker_base.py:148] Traceback (most recent call last):').msg,
      'Traceback (most recent call last):',
    );
    const s = line('[TP3] Load weight end. elapsed=1.20 s');
    assert.equal(s.frame, 'sglang');
    assert.equal(s.tags, 'TP3');
    assert.equal(s.msg, 'Load weight end. elapsed=1.20 s');
    const t = line('[TRT-LLM] [RANK 0] [E] Failed to initialize executor on rank 0: boom');
    assert.equal(t.frame, 'trtllm');
    assert.equal(t.ts, null);
    assert.equal(t.msg, 'Failed to initialize executor on rank 0: boom');
  });

  it('read the same as with the stamp', () => {
    const stamped = [
      "INFO 03-01 10:00:01 [utils.py:2] non-default args: {'model': 'org/m'}",
      'INFO 03-01 10:00:03 [gpu_model_runner.py:4] Starting to load model org/m...',
      'ERROR 03-01 10:00:09 [core.py:5] EngineCore failed to start.',
    ];
    const bare = stamped.map((l) => l.replace(/ \d\d-\d\d \d\d:\d\d:\d\d/, ''));
    const read = (ls: string[]) => {
      const l = analyzeText(ls.join('\n')).launches.at(-1)!;
      return [l.outcome, l.phase, l.failure?.class ?? null];
    };
    assert.deepEqual(read(bare), read(stamped));
  });
});

describe('glog records', () => {
  it('read the same with the year glog 0.6+ writes (`I20240227 …`): level, time, message', () => {
    const old = line(
      'I0227 08:25:18.989490 35588 grpc_server.cc:2495] Started GRPCInferenceService at 0.0.0.0:8001',
    );
    const year = parseLine(
      'I20240227 08:25:18.989490 35588 grpc_server.cc:2495] Started GRPCInferenceService at 0.0.0.0:8001',
      1,
      0,
      { year: 2026 },
    );
    assert.equal(year.frame, 'glog');
    assert.equal(year.msg, old.msg);
    assert.equal(year.level, 'info');
    assert.equal(year.ts, Date.UTC(2024, 1, 27, 8, 25, 18) / 1000);
  });
});
