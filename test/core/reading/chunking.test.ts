import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { analyzeBytes, ROOT, SHARED } from '../../helpers.js';

/** Reports must not depend on how the bytes were chunked (SSH, tail -f and fs reads all chunk differently). */
function corpusFiles(): string[] {
  const out: string[] = [];
  for (const dir of ['scenarios', 'corpus/sglang', 'corpus/vllm', 'corpus/extra']) {
    const d = path.join(SHARED, dir);
    if (!fs.existsSync(d)) continue;
    for (const f of fs.readdirSync(d)) if (f.endsWith('.log')) out.push(path.join(d, f));
  }
  return out;
}

function feedInPieces(data: Buffer, cuts: number[], bulk = true) {
  const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    pieces.push(data.subarray(prev, p));
    prev = p;
  }
  pieces.push(data.subarray(prev));
  return analyzeChunks(pieces, bulk);
}

import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';

function analyzeChunks(pieces: Buffer[], bulk = true) {
  const a = new LogAnalyzer({ year: 2026, bulk });
  for (const p of pieces) a.push(p);
  return a.end();
}

describe('chunking never changes the answer', () => {
  const files = corpusFiles();

  it('finds the real logs', () => {
    assert.ok(files.length >= 40, `only ${files.length} logs under ${SHARED}`);
  });

  it('random cuts of real logs, in random chunk sizes, give the whole-file result', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: files.length - 1 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (i, cuts) => {
          const data = fs.readFileSync(files[i]!);
          const whole = analyzeBytes(data, data.length + 1);
          assert.deepEqual(feedInPieces(data, cuts), whole);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('one byte at a time gives the whole-file result', () => {
    const data = fs.readFileSync(path.join(SHARED, 'scenarios', 'glm5-trtllm-oom-in-cuda-graph.log'));
    const pieces: Buffer[] = [];
    for (let i = 0; i < data.length; i++) pieces.push(data.subarray(i, i + 1));
    assert.deepEqual(analyzeChunks(pieces), analyzeBytes(data, data.length));
  });

  it('random bytes never throw and chunk the same way', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 4000 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (bytes, cuts) => {
          const data = Buffer.from(bytes);
          const whole = analyzeBytes(data, data.length + 1);
          assert.deepEqual(feedInPieces(data, cuts), whole);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('log-shaped random lines (prefixes, \\r, ANSI, NUL, tracebacks) never throw and chunk the same way', () => {
    const piece = fc.constantFrom(
      '[2026-02-19 04:10:11 TP0] ',
      '(APIServer pid=1) INFO 11-29 14:01:58 [utils.py:306] ',
      'app  | ',
      'Traceback (most recent call last):\n',
      '  File "/x/sglang/srt/model_executor/cuda_graph_runner.py", line 3, in capture\n',
      'RuntimeError: CUDA error: out of memory\n',
      'Decode batch, #running-req: 61, #token: 57889, token usage: 0.47, cuda graph: True, gen throughput (token/s): 843.68, #queue-req: 225\n',
      'Loading safetensors checkpoint shards:  48% Completed | 40/83 [00:13<00:14,  2.93it/s]\r',
      "server_args=ServerArgs(model_path='m', tp_size=8, api_key='sk-abcdefghijklmnopqrstuv')\n",
      'The server is fired up and ready to roll!\n',
      '\x1b[1;36m',
      '\0',
      '\r\n',
      '\n',
      'é█',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 60 }),
        fc.array(fc.nat(), { maxLength: 10 }),
        (parts, cuts) => {
          const data = Buffer.from(parts.join(''));
          const whole = analyzeBytes(data, data.length + 1);
          assert.ok(!JSON.stringify(whole).includes('sk-abcdefghijklmnopqrstuv'));
          assert.deepEqual(feedInPieces(data, cuts), whole);
          assert.deepEqual(analyzeChunks([data], false), analyzeChunks([data], true));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('the byte-level fast path agrees with the general path', () => {
  it('on every real log', () => {
    for (const f of corpusFiles()) {
      const data = fs.readFileSync(f);
      assert.deepEqual(analyzeChunks([data], true), analyzeChunks([data], false), f);
    }
  });

  it('on a generated busy serving log', async () => {
    const { generateServingLog } = await import(
      pathToFileURL(path.join(ROOT, 'scripts', 'gen-serving-log.mjs')).href
    );
    const dir = fs.mkdtempSync('/tmp/firedup-fast-');
    const file = path.join(dir, 'serving.log');
    await generateServingLog(file, { bytes: 3_000_000, seed: 7 });
    const data = fs.readFileSync(file);
    fs.rmSync(dir, { recursive: true });
    const fast = analyzeChunks([data], true);
    assert.deepEqual(fast, analyzeChunks([data], false));
    assert.ok(fast.launches[0]!.throughput!.samples > 1000);
  });
});

describe('every serving format: bulk reading on and off give the same report', () => {
  // Each engine's serving lines as real logs have them (scripts/gen-format-logs.mjs, from the corpus), read
  // whole, in 64 KiB chunks and in random chunks, with the bulk reader and without.
  for (const format of ['sglang-dot', 'vllm-v1', 'tgi', 'llamacpp']) {
    it(format, async () => {
      const { generateFormatLog } = await import(
        pathToFileURL(path.join(ROOT, 'scripts', 'gen-format-logs.mjs')).href
      );
      const dir = fs.mkdtempSync('/tmp/firedup-fast-');
      const file = path.join(dir, `${format}.log`);
      generateFormatLog(format, file, { bytes: 1_500_000, seed: 11 });
      const data = fs.readFileSync(file);
      fs.rmSync(dir, { recursive: true });
      const general = analyzeChunks([data], false);
      assert.equal(general.launches.length, 1);
      assert.equal(general.launches[0]!.outcome, 'serving');
      assert.deepEqual(analyzeChunks([data], true), general);
      const pieces: Buffer[] = [];
      for (let at = 0; at < data.length; at += 65536) pieces.push(data.subarray(at, at + 65536));
      assert.deepEqual(analyzeChunks(pieces, true), general);
      const cuts = Array.from({ length: 40 }, (_, i) => (i * 2654435761) % data.length);
      assert.deepEqual(feedInPieces(data, cuts, true), general);
    });
  }

  it('older SGLang decode lines are read in bulk', async () => {
    // The fast path must take them (not only agree): a bulk read of them reads a run, not line by line.
    const { generateFormatLog } = await import(
      pathToFileURL(path.join(ROOT, 'scripts', 'gen-format-logs.mjs')).href
    );
    const dir = fs.mkdtempSync('/tmp/firedup-fast-');
    const file = path.join(dir, 'dot.log');
    generateFormatLog('sglang-dot', file, { bytes: 2_000_000, seed: 3 });
    const data = fs.readFileSync(file);
    fs.rmSync(dir, { recursive: true });
    const a = new LogAnalyzer({ year: 2026 });
    let runs = 0;
    const apply = a.applyRun.bind(a);
    a.applyRun = (r) => {
      runs += r.lines;
      apply(r);
    };
    a.push(data);
    const rep = a.end();
    assert.ok(runs > rep.lines * 0.9, `${runs} of ${rep.lines} lines read in bulk`);
    assert.ok(rep.launches[0]!.throughput!.samples > 1000);
  });
});

describe('made-up serving lines of each engine: bulk on and off, whole and in small chunks', () => {
  const corpusHead = (file: string, until: string) => {
    const text = fs.readFileSync(path.join('test', 'fixtures', 'corpus', file), 'utf8');
    const at = text.indexOf(until);
    return text.slice(0, text.indexOf('\n', at) + 1);
  };
  const check = (data: Buffer, minBulk: number) => {
    const general = analyzeChunks([data], false);
    const a = new LogAnalyzer({ year: 2026 });
    let bulk = 0;
    const apply = a.applyRun.bind(a);
    a.applyRun = (r) => {
      bulk += r.lines;
      apply(r);
    };
    a.push(data);
    assert.deepEqual(a.end(), general);
    for (const size of [1, 7, 61, 4096]) {
      const pieces: Buffer[] = [];
      for (let at = 0; at < data.length; at += size) pieces.push(data.subarray(at, at + size));
      assert.deepEqual(analyzeChunks(pieces, true), general, `chunks of ${size}`);
    }
    assert.ok(bulk >= minBulk, `${bulk} lines read in bulk, want >= ${minBulk}`);
    return general;
  };

  it('vLLM stats and access lines', () => {
    const E = '\x1b[1;36m(APIServer pid=155)\x1b[0;0m ';
    const stats = (p: string, tail: string) =>
      `${p}INFO 11-28 15:30:0${tail.length % 10} [loggers.py:236] Engine 000: Avg prompt throughput: 12.5 tokens/s, Avg generation throughput: 1673.25 tokens/s, Running: 9 reqs, Waiting: 3 reqs${tail}`;
    const lines = [
      stats(E, ', GPU KV cache usage: 11.7%, Prefix cache hit rate: 69.7%'),
      stats(E, ', GPU KV cache usage: 0.1%'),
      stats(E, ''),
      stats('(APIServer pid=7) ', ', GPU KV cache usage: 100.0%, Prefix cache hit rate: 0.0%'),
      stats('', ', GPU KV cache usage: 11.7%, Prefix cache hit rate: 69.7%, MM cache hit rate: 3.0%'),
      `${E}INFO 11-28 15:31:00 [metrics.py:455] Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 9999.9 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: 1.2%, CPU KV cache usage: 0.0%.`,
      `INFO 11-28 15:31:01 [metrics.py:455] Avg prompt throughput: 5 tokens/s, Avg generation throughput: 77 tokens/s, Running: 2 reqs, Swapped: 1 reqs, Pending: 4 reqs, GPU KV cache usage: 2.5%`,
      `${E}INFO:     10.0.0.5:40000 - "POST /v1/completions HTTP/1.1" 200 OK`,
      `${E}INFO:     10.0.0.5:40001 - "GET /tokenize HTTP/1.1" 200 OK`,
      `${E}INFO:     10.0.0.5:40001 - "GET /v1/models?api_key=abcdefgh12345678 HTTP/1.1" 200 OK`,
      `${E}INFO:     10.0.0.5:40002 - "POST /v1/chat/completions HTTP/1.1" 404 Not Found`,
      `${E}INFO:     10.0.0.5:40002 - "POST /v1/chat/completions HTTP/1.1" 401 Unauthorized`,
      `${E}INFO:     10.0.0.5:40003 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error`,
      // digit counts a rule reads (`\d{3}`): other shapes than the three-digit status
      `${E}INFO:     10.0.0.5:40003 - "POST /v1/completions HTTP/1.1" 20 OK`,
      `${E}INFO:     10.0.0.5:40003 - "POST /v1/completions HTTP/1.1" 2000 OK`,
      `(APIServer pid=155) INFO:     127.0.0.1:5000 - "POST /v1/completions HTTP/2" 200`,
      `${E}INFO:     10.0.0.5:40004 - "POST /v1/completions HTTP/1.1" 200 OK `,
      `${E}INFO:     10.0.0.5:40004 - "POST /v1/completions HTTP/1.1" 200 OK\r`,
      `${E}INFO:     [::1]:40004 - "POST /v1/completions HTTP/1.1" 200 OK`,
      `${E}WARNING 11-28 15:31:02 [protocol.py:93] The following fields were present in the request but ignored: {'x'}`,
      `(APIServer pid=155) INFO 12-31 23:59:59 [loggers.py:236] Engine 001: Avg prompt throughput: 1.0 tokens/s, Avg generation throughput: 2.0 tokens/s, Running: 3 reqs, Waiting: 4 reqs, GPU KV cache usage: 5.0%`,
    ];
    const body: string[] = [];
    for (let i = 0; i < 400; i++)
      body.push(lines[(i * 7) % lines.length]!, lines[0]!.replace('1673.25', `${i}.5`));
    body.splice(
      300,
      0,
      `${E}ERROR 11-28 15:31:03 [serving_chat.py:200] Error in preprocessing prompt inputs`,
    );
    const data = Buffer.from(
      `${corpusHead('full/003.log', 'Application startup complete.') + body.join('\n')}\n`,
    );
    const rep = check(data, 400);
    assert.equal(rep.launches[0]!.outcome, 'serving');
  });

  it('SGLang lines stamped with a time of day alone, and rank tags that change on every line', () => {
    // SGLang before 0.3.4 printed `[HH:MM:SS TP0]` (src/core/lines/prefix.ts readFrame: the time of day is the
    // line's time, the year stays); DP attention prints its ranks in turn, more changes than one call's room.
    const tags = (i: number) => (i % 3 === 0 ? ' TP0' : ` DP${i % 5} TP${i % 7}${i % 2 ? ' EP3' : ''}`);
    const lines: string[] = [];
    for (let i = 0; i < 600; i++) {
      const t = `${String(10 + (i % 14)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:0${i % 10}`;
      const stamp = i % 4 === 3 ? `2026-08-02 ${t}` : t;
      lines.push(
        i % 5 === 1
          ? `[${stamp}${tags(i)}] Prefill batch. #new-seq: ${i % 9}, #new-token: ${i * 7}, #cached-token: ${i}, cache hit rate: ${i % 100}.25%, token usage: 0.${i % 10}1, #running-req: ${i % 30}, #queue-req: ${i % 4}`
          : `[${stamp}${tags(i)}] Decode batch. #running-req: ${i % 40}, #token: ${i * 13}, token usage: 0.${i % 9}3, gen throughput (token/s): ${i}.${i % 10}7, #queue-req: ${i % 6}`,
      );
    }
    const data = Buffer.from(
      `${corpusHead('full/015.log', 'fired up and ready to roll') + lines.join('\n')}\n`,
    );
    const rep = check(data, 590);
    assert.ok(rep.launches[0]!.throughput!.samples >= 480);
  });

  it('llama-server slot, timing, request and idle lines', () => {
    const id = (t: number) => `id  ${t % 4} | task ${t} |`;
    const req = (t: number) => [
      'srv  params_from_: Chat format: peg-gemma4',
      `slot get_availabl: ${id(t).replace(/task \d+/, 'task -1')} selected slot by LRU, t_last = -1`,
      `slot get_availabl: id  2 | task -1 | selected slot by LCP similarity, sim_best = 0.${t % 10}00 (> 0.100 thold), f_keep = 0.5`,
      `slot launch_slot_: ${id(t)} processing task, is_child = 0`,
      `slot update_slots: ${id(t)} new prompt, n_ctx_slot = 65536, n_keep = 0, task.n_tokens = ${t * 3}`,
      `slot update_slots: ${id(t)} n_tokens = ${t}, memory_seq_rm [${t}, end)`,
      `slot update_slots: ${id(t)} prompt processing progress, n_tokens = ${t}, batch.n_tokens = 512, progress = 0.${t % 97}`,
      `slot update_slots: ${id(t)} prompt processing done, n_tokens = ${t * 3}, batch.n_tokens = ${t % 512}`,
      `srv  log_server_r: done request: POST /v1/chat/completions 10.0.0.1 ${t % 7 ? 200 : t % 3 ? 500 : 20}`,
      `slot print_timing: ${id(t)} `,
      `prompt eval time =    ${t}.69 ms /  ${t % 900} tokens (    0.80 ms per token,    ${(t * 7) % 5000}.90 tokens per second)`,
      `       eval time =   ${t * 3}.55 ms /   596 tokens (  149.47 ms per token,       ${t % 300}.${t % 10}9 tokens per second)`,
      `      total time =   93270.24 ms /  5857 tokens`,
      `slot      release: ${id(t)} stop processing: n_tokens = ${t * 4}, truncated = 0`,
      t % 5 === 0 ? 'srv  update_slots: all slots are idle' : 'srv  update_slots: all slots are idle ',
      t % 11 === 0
        ? 'slot update_slots: id  0 | task 9 | 50% done, api_key = abcdef0123456789'
        : 'srv        update:    - prompt 0x7f00:    12 tokens, checkpoints:  1,   3.5 MiB',
      t % 13 === 0
        ? 'srv    operator(): operator(): cleaning up before exit...'
        : 'srv  get_availabl: updating prompt cache',
      // an engine frame inside a line, where the numbers before it push it along (late: a wrapper learned from
      // it ends bulk reading)
      t < 390
        ? 'srv  get_availabl: updating prompt cache'
        : `slot update_slots: ${id(t)} ${'x'.repeat(t % 90)} got WARNING 11-28 15:30:0${t % 10} [x.py:${t}] late`,
    ];
    const body: string[] = [];
    for (let t = 100; t < 400; t++) body.push(...req(t));
    const data = Buffer.from(`${corpusHead('full/009.log', 'server is listening on') + body.join('\n')}\n`);
    const rep = check(data, 3000);
    assert.ok(
      rep.launches.length >= 1,
      JSON.stringify(rep.launches.map((l) => [l.outcome, l.throughput?.samples])),
    );
  });

  it('TGI request lines', () => {
    const lines: string[] = [];
    const routes = ['generate', 'generate_stream', 'chat_completions', 'completions', 'vertex_compatibility'];
    for (let i = 0; i < 600; i++) {
      const us = String((i * 7919) % 1000000).padStart(6, '0');
      const stamp = `2025-04-${String(14 + Math.floor(i / 200)).padStart(2, '0')}T15:${String(10 + (i % 50)).padStart(2, '0')}:0${i % 10}.${us}Z`;
      const route = routes[i % routes.length]!;
      lines.push(
        `${stamp}  INFO ${route}{total_time="${i}.5ms" validation_time="${i % 9}µs" queue_time="1µs" inference_time="${i}.1ms" time_per_token="2.${i}ms" seed="${i % 3 ? 'None' : i}"}: text_generation_router::server: router/src/server.rs:637: Success`,
      );
      if (i % 50 === 7)
        lines.push(
          `${stamp}  INFO text_generation_router::server: router/src/server.rs:1700: Shutting down? no`,
        );
      if (i % 50 === 9)
        lines.push(
          `${stamp} INFO ${route}{total_time="${i}ms"}: text_generation_router::server: router/src/server.rs:637: Success`,
        );
      if (i % 50 === 11)
        lines.push(
          `${stamp}  WARN ${route}{x="1"}: text_generation_router::infer: router/src/infer/mod.rs:1: slow`,
        );
      if (i % 97 === 13)
        lines.push(
          `${stamp}  ERROR ${route}{x="1"}: text_generation_router::infer: router/src/infer/mod.rs:1: Request failed during generation: Server error: CUDA out of memory`,
        );
    }
    const data = Buffer.from(`${corpusHead('full/007.log', ' Connected') + lines.join('\n')}\n`);
    check(data, 300);
  });

  it('lines of many shapes with runs of digits anywhere (the shape table and its templates)', () => {
    // A seeded mix: shapes that differ only in where their digits are, share long prefixes, or end early.
    let seed = 7;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
      return seed % n;
    };
    const bits = ['a', '0', '12', ' ', 'x9', '.', '123456789012', 'ab', '9a9', ', n = ', '|', 'tokens'];
    const shapes = Array.from({ length: 40 }, () =>
      Array.from({ length: 2 + rnd(12) }, () => bits[rnd(bits.length)]!).join(''),
    );
    const body: string[] = [];
    for (let i = 0; i < 6000; i++) {
      const sh = shapes[rnd(i < 3000 ? 8 : shapes.length)]!;
      body.push(
        `slot update_slots: id  ${rnd(4)} | task ${rnd(100000)} | ${sh.replace(/\d+/g, () => String(rnd(10 ** (1 + rnd(9)))))}`,
      );
    }
    const data = Buffer.from(`${corpusHead('full/009.log', 'server is listening on')}${body.join('\n')}\n`);
    check(data, 3500);
  });
});

describe('the bench logs built from real lines (scripts/bench-seeds/): bulk on and off give the same report', () => {
  // Every serving-time line shape the corpus holds has a seed of real lines for `npm run bench`
  // (scripts/extract-bench-seeds.mjs): a shape whose seed went missing would drop out of the bench silently.
  const SHAPES = [
    'sglang-decode-dot',
    'sglang-decode-dot-cache-miss',
    'sglang-decode-dot-cuda-graph',
    'sglang-decode-cuda-graph-trailing',
    'sglang-decode-tp-cuda-graph',
    'sglang-decode-dp-tp-ep-spec',
    'sglang-decode-dp-tp-spec',
    'sglang-decode-swa',
    'sglang-prefill-dot',
    'sglang-prefill-dp-tp-trailing',
    'sglang-prefill-input-throughput',
    'sglang-access',
    'vllm-v0-metrics',
    'vllm-v1-engine',
    'vllm-v1-engine-sgr',
    'vllm-access',
    'llamacpp-slots',
    'tgi-router',
    'unknown-gin',
    'unknown-text',
    'mixed',
  ];
  const gen = async () =>
    (await import(pathToFileURL(path.join(ROOT, 'scripts', 'gen-shape-logs.mjs')).href)) as {
      shapeNames(): string[];
      readSeed(name: string): {
        engine: string | null;
        source: string;
        launch: { lines: string[] };
        serving: { line: number; text: string }[];
      };
      generateShapeLog(name: string, out: string, opts: { bytes: number; seed: number }): void;
    };

  /**
   * Real shapes the fast path does not read (at least 95 % of their lines), and why: the test fails once one is
   * read (take it off then). Plain text (the corpus README): 4 lines in 26 are read by the general path (2 name
   * an engine, each a vote the detector counts; 2 are the hard-wrap column's piece and the line joined to it),
   * generic-scan.ts takes the others (lines with `--` or `://` too, where no credential can follow: flagSafe).
   */
  const OFF_FAST_PATH = new Set(['unknown-text']);

  it('every shape has its seed of real lines, each line with its source', async () => {
    const g = await gen();
    const have = g.shapeNames();
    // every shape the extractor looks for in the corpora, and every one this test names, has its bench file
    const { SHAPES: extracted } = (await import(
      pathToFileURL(path.join(ROOT, 'scripts', 'extract-bench-seeds.mjs')).href
    )) as { SHAPES: { name: string }[] };
    for (const s of [...new Set([...SHAPES, ...extracted.map((x) => x.name)])]) {
      assert.ok(
        have.includes(s),
        `scripts/bench-seeds/${s}.json is missing: run scripts/extract-bench-seeds.mjs`,
      );
      const seed = g.readSeed(s);
      assert.ok(seed.serving.length > 0, `${s}: no lines`);
      assert.match(seed.source, /(corpus|wild)\/.+\.log$|README\.md$/, `${s}: no source`);
    }
  });

  for (const name of SHAPES) {
    it(name, async () => {
      const g = await gen();
      const dir = fs.mkdtempSync('/tmp/firedup-shape-');
      const file = path.join(dir, `${name}.log`);
      g.generateShapeLog(name, file, { bytes: 400_000, seed: 5 });
      const data = fs.readFileSync(file);
      fs.rmSync(dir, { recursive: true });
      const general = analyzeChunks([data], false);
      const a = new LogAnalyzer({ year: 2026 });
      let bulk = 0;
      const apply = a.applyRun.bind(a);
      a.applyRun = (r) => {
        bulk += r.lines;
        apply(r);
      };
      a.push(data);
      assert.deepEqual(a.end(), general);
      const pieces: Buffer[] = [];
      for (let at = 0; at < data.length; at += 4093) pieces.push(data.subarray(at, at + 4093));
      assert.deepEqual(analyzeChunks(pieces, true), general, 'in chunks');
      // An engine's serving lines are read on the fast path, not only read alike: a shape that falls off it is
      // tens of times slower (issue 23). The lines after the seed's launch are serving lines.
      const seed = g.readSeed(name);
      const serving = general.lines - seed.launch.lines.length;
      // A log no engine rule knows too (the generic reader, generic-scan.ts), after its first 400 lines: kept by
      // the analyzer while no engine has locked, to be read again (LogAnalyzer.prefix, PREFIX_LINES).
      {
        const after = seed.engine === null ? serving - 400 : serving;
        assert.equal(
          bulk >= after * 0.95,
          !OFF_FAST_PATH.has(name),
          `${name}: ${bulk} of ${serving} serving lines read in bulk`,
        );
      }
    });
  }
});
