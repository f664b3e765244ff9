/**
 * The TensorRT-LLM, Triton Inference Server and TGI catalogs (test/fixtures/engine-source/{trtllm,triton,tgi}.json,
 * read from their sources; see the README there) read by the real analyzer, as engine-catalog.test.ts does for
 * SGLang and vLLM: every startup-path template, filled with sample values and framed as the engine prints it, is
 * read at its phase, and every raise a Python traceback shows is classified as the catalog says.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { EngineId } from '../../../src/core/base/types.js';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import type { LaunchBuilder } from '../../../src/core/reading/launch.js';
import { SHARED } from '../../helpers.js';
import { fill, literalLength } from './engine-catalog-fill.js';

interface LogEntry {
  file: string;
  function: string;
  level: string;
  template: string;
  phase: string;
  phase_scope?: string;
  crash?: boolean;
}
interface RaiseEntry {
  file: string;
  function: string;
  exception: string;
  template: string;
  failure_class: string;
}
interface Catalog {
  log_lines: LogEntry[];
  raises: RaiseEntry[];
}

/** Each catalog file and the engine firedup reads its lines as (Triton hosts TensorRT-LLM here). */
const SOURCES: Array<[string, EngineId]> = [
  ['trtllm', 'trtllm'],
  ['triton', 'trtllm'],
  ['tgi', 'tgi'],
];
const STARTUP_LEVELS = new Set(['info', 'warning', 'error', 'exception', 'print', 'table', 'tqdm']);
/** Fewer literal characters than this and the generator skips the template (MIN_LITERAL there). */
const MIN_LITERAL = 10;

function load(source: string): Catalog {
  return JSON.parse(fs.readFileSync(path.join(SHARED, 'engine-source', `${source}.json`), 'utf8'));
}

const TRTLLM_PY = { info: 'I', warning: 'W', error: 'E', exception: 'E' } as Record<string, string>;
const CPP = { info: 'INFO', warning: 'WARNING', error: 'ERROR' } as Record<string, string>;
const GLOG = { info: 'I', warning: 'W', error: 'E' } as Record<string, string>;
const TRACING = { info: ' INFO', warning: ' WARN', error: 'ERROR', exception: 'ERROR' } as Record<
  string,
  string
>;

/** The line the engine prints for this template, with its logger's prefix. */
function frame(source: string, e: LogEntry, msg: string): string {
  const base = e.file.split('/').pop()!;
  if (e.level === 'print' || e.level === 'table') return msg;
  if (e.level === 'tqdm') return `${msg}:  50%|█████     | 1/2 [00:01<00:01,  1.00it/s]`;
  if (source === 'trtllm') {
    // cpp/include/tensorrt_llm/common/logger.h: `[TensorRT-LLM][INFO] `; tensorrt_llm/logger.py:
    // `[%m/%d/%Y-%H:%M:%S] [TRT-LLM] [I] `
    if (e.file.startsWith('cpp/')) return `[TensorRT-LLM][${CPP[e.level] ?? 'INFO'}] ${msg}`;
    return `[03/01/2026-10:00:00] [TRT-LLM] [${TRTLLM_PY[e.level] ?? 'I'}] ${msg}`;
  }
  if (source === 'triton') {
    // Triton's log records (core logging.h): glog's `I0301 10:00:00.123456 1 file.cc:123] `; the Python
    // backend models log through the same logger (pb_utils.Logger) with the model file as the source
    return `${GLOG[e.level] ?? 'I'}0301 10:00:00.123456 1 ${base}:123] ${msg}`;
  }
  // TGI: the launcher and router print tracing's compact format with the target; the shards' loguru records
  // reach the log through the launcher, which prints them under its own target (launcher/src/main.rs log_lines)
  const target = e.file.endsWith('.py')
    ? 'text_generation_launcher'
    : e.file.startsWith('launcher/')
      ? 'text_generation_launcher'
      : e.file.startsWith('backends/v3/')
        ? 'text_generation_router_v3'
        : `text_generation_router::${base.replace(/\.rs$/, '')}`;
  return `2026-03-01T10:00:00.123456Z ${TRACING[e.level] ?? ' INFO'} ${target}: ${msg}`;
}

function analyze(engine: EngineId, text: string): LaunchBuilder | null {
  const a = new LogAnalyzer({ engine });
  a.push(Buffer.from(`${text}\n`));
  a.end();
  return a.launches[0] ?? null;
}

/**
 * Where the analyzer knowingly reads a line otherwise than the catalog, and why (the log wins).
 * Keyed `source:template`.
 */
const ROUTER_START =
  "the router's start (hub, config and tokenizer reads): router/src/main.rs before 2.x ran it before connecting to the shards and warming them up, so tgi.ts router_hub reads it as weights_loaded; since, backends/v3 warms up first and a phase that only moves forward keeps warmup";
const KNOWN: Record<string, string> = {
  'tgi:Decode cuda graph warmup failed':
    'flash_causal_lm.py/mamba.py warmup catch the OOM and go on without graphs: tgi.ts reads it as a degraded warmup (cuda_graph_warmup_failed), not a capture milestone',
  'tgi:Starting Webserver':
    'launcher/src/main.rs: spawn_webserver runs once every shard is ready and before the router warms them up: tgi.ts webserver_start reads weights_loaded',
  'tgi:Serving revision {sha} of model {}': ROUTER_START,
  'tgi:Using the Hugging Face API': ROUTER_START,
  'tgi:Could not retrieve model info from the Hugging Face hub.': ROUTER_START,
  'tgi:Offline mode active using cache defaults': ROUTER_START,
  'tgi:Using local tokenizer config': ROUTER_START,
  'tgi:Using chat template from chat_template.json': ROUTER_START,
  'tgi:Failed to import python tokenizer {err}': ROUTER_START,
  'tgi:Could not find a fast tokenizer implementation for {tokenizer_name}': ROUTER_START,
  'tgi:no pipeline tag found for model {tokenizer_name}': ROUTER_START,
};

for (const [source, engine] of SOURCES) {
  test(`${source}: startup-path log templates are read at their catalog phase`, () => {
    const cat = load(source);
    // A line the catalog says can come in any phase (`phase_scope: any`) places nothing (analyzer fromCatalog).
    const entries = cat.log_lines.filter(
      (e) =>
        e.phase !== 'serving' &&
        e.phase !== 'shutdown' &&
        e.phase_scope !== 'any' &&
        STARTUP_LEVELS.has(e.level),
    );
    let ok = 0;
    let skipped = 0;
    const misses: string[] = [];
    for (const e of entries) {
      if (literalLength(e.template) < MIN_LITERAL) {
        skipped++;
        continue;
      }
      const launch = analyze(engine, frame(source, e, fill(e.template)));
      // A line that tells a child died says the launch failed, in whatever phase that child was.
      const crash = e.crash === true && (launch?.candidates.length ?? 0) > 0;
      // The analyzer calls autotuning `autotune` (compile's rank, src/core/base/types.ts); the catalog `compile`.
      const same = (p: string) => p === e.phase || (e.phase === 'compile' && p === 'autotune');
      if (crash || launch?.marks.some((m) => same(m.phase))) ok++;
      else if (KNOWN[`${source}:${e.template}`] === undefined)
        misses.push(
          `${e.phase} ${e.level} ${e.file}:${e.function}: ${frame(source, e, fill(e.template)).slice(0, 140)}`,
        );
      else ok++;
    }
    const share = ok / (entries.length - skipped);
    console.log(
      `${source}: ${ok}/${entries.length - skipped} startup templates read at their phase (${(100 * share).toFixed(1)} %), ${skipped} skipped with too little literal text`,
    );
    if (process.env.CATALOG_MISSES) console.log(misses.join('\n'));
    assert.ok(share >= 0.95, `${misses.length} misses:\n${misses.join('\n')}`);
  });

  test(`${source}: raise messages are classified as the catalog says`, () => {
    const cat = load(source);
    // A Python traceback shows a Python raise; C++ and Rust errors surface otherwise (README).
    const raises = cat.raises.filter(
      (r) => r.file.endsWith('.py') && literalLength(r.template) >= MIN_LITERAL,
    );
    let ok = 0;
    const misses: string[] = [];
    for (const r of raises) {
      const msg = fill(r.template).split('\n')[0]!;
      const type = r.exception.split('.').pop()!;
      const text = [
        'Traceback (most recent call last):',
        `  File "/opt/venv/lib/python3.12/site-packages/${r.file.replace(/^(?:server\/|vllm_backend\/src\/)/, '')}", line 10, in ${r.function.split('.').pop()}`,
        `    raise ${type}(msg)`,
        `${type}: ${msg}`,
      ].join('\n');
      const launch = analyze(engine, text);
      const got = launch?.candidates.find((c) => c.line === 4)?.cls ?? null;
      if (got === r.failure_class) ok++;
      else misses.push(`${r.failure_class} got ${got}: ${type}: ${msg.slice(0, 120)}`);
    }
    const share = ok / raises.length;
    console.log(
      `${source}: ${ok}/${raises.length} Python raises classified as the catalog says (${(100 * share).toFixed(1)} %)`,
    );
    if (process.env.CATALOG_MISSES) console.log(misses.join('\n'));
    assert.ok(share >= 0.9, `${misses.length} misses:\n${misses.join('\n')}`);
  });
}

/** Made-up lines of the shape of catalog templates (not copied from any log). */
function read(lines: string[], engine: EngineId) {
  const a = new LogAnalyzer({ engine });
  a.push(Buffer.from(`${lines.join('\n')}\n`));
  a.end();
  return a.launches;
}

test("TGI: a shard's line relayed under the launcher's target and spans is read from the call's text", () => {
  const [l] = read(
    [
      '2026-03-01T10:00:00.000001Z  INFO text_generation_launcher: Args { model_id: "m", num_shard: Some(2) }',
      '2026-03-01T10:00:05.000001Z  INFO shard-manager: text_generation_launcher: Peft model detected. rank=0',
    ],
    'tgi',
  );
  assert.equal(l!.phase, 'loading_weights');
});

test('TGI: the router prints its source file after the target; the catalog reads past it', () => {
  const [l] = read(
    [
      '2026-03-01T10:00:00.000001Z  INFO text_generation_launcher: Args { model_id: "m" }',
      '2026-03-01T10:01:00.000001Z  WARN text_generation_router::server: router/src/server.rs:1700: Unable to build the Hugging Face API',
    ],
    'tgi',
  );
  assert.equal(l!.phase, 'warmup');
});

test('TGI: warmup sizes the KV cache, then captures CUDA graphs (flash_causal_lm.py FlashCausalLM.warmup)', () => {
  const [l] = read(
    [
      '2026-03-01T10:00:00.000001Z  INFO text_generation_launcher: Args { model_id: "m" }',
      '2026-03-01T10:00:30.000001Z  INFO text_generation_launcher: Using prefill chunking = True',
      '2026-03-01T10:00:40.000001Z  INFO text_generation_launcher: KV-cache blocks: 51234, size: 1',
      '2026-03-01T10:00:41.000001Z  INFO text_generation_launcher: Cuda Graphs are enabled for sizes [1, 2, 4, 8]',
    ],
    'tgi',
  );
  assert.deepEqual(
    l!.marks.map((m) => m.phase),
    ['args', 'loading_weights', 'kv_cache', 'cuda_graph'],
  );
});

test('Triton: a quoted record (the default log format) and the padded model table are read as Triton prints them', () => {
  const [l] = read(
    [
      '[TensorRT-LLM] TensorRT-LLM version: 0.17.0',
      'I0301 10:00:00.100000 1 model_lifecycle.cc:473] "loading: tensorrt_llm:1"',
      'I0301 10:01:00.100000 1 model_lifecycle.cc:849] "successfully loaded \'tensorrt_llm\'"',
      'I0301 10:01:00.200000 1 server.cc:677] ',
      '+--------------+---------+--------+',
      '| Model        | Version | Status |',
      '+--------------+---------+--------+',
    ],
    'trtllm',
  );
  assert.ok(l!.marks.some((m) => m.phase === 'loading_weights' && m.line === 2));
  // `successfully loaded 'tensorrt_llm'` is the engine's model in (trtllm.ts triton_engine_loaded: the model that
  // holds the engine); the table's header after all loads says the repository was read, no more (a model's own
  // row says how its load ended: an UNAVAILABLE row after a failed load must not read as warmup)
  assert.ok(l!.marks.some((m) => m.phase === 'weights_loaded' && m.line === 3));
  assert.equal(l!.phase, 'weights_loaded');
});

test('Triton: the metrics endpoint starting is a ready line (server main.cc StartEndpoints starts it last)', () => {
  const [l] = read(
    [
      '[TensorRT-LLM] TensorRT-LLM version: 0.17.0',
      'I0301 10:00:00.100000 1 model_lifecycle.cc:473] loading: tensorrt_llm:1',
      'I0301 10:01:00.100000 1 http_server.cc:358] Started Metrics Service at 0.0.0.0:8002',
    ],
    'trtllm',
  );
  assert.equal(l!.phase, 'ready');
});

test('TensorRT-LLM: a message that carries its own bracketed tag is read with the tag or without it', () => {
  for (const msg of [
    '[create_py_executor] Created execution_stream: <Stream 0x1>',
    'Created execution_stream: <Stream 0x1>',
  ]) {
    const [l] = read(
      [
        '[TensorRT-LLM] TensorRT-LLM version: 1.1.0',
        '[03/01/2026-10:00:01] [TRT-LLM] [I] Using LLM with PyTorch backend',
        `[03/01/2026-10:00:09] [TRT-LLM] [I] ${msg}`,
      ],
      'trtllm',
    );
    assert.equal(l!.phase, 'kv_cache', msg);
  }
});

test('TensorRT-LLM: the banner `TensorRT LLM version` (no hyphen from 1.1, tensorrt_llm/__init__.py) names the version, and its repeat by an MPI worker is the same launch', () => {
  const a = new LogAnalyzer({});
  a.push(
    Buffer.from(
      '[TensorRT-LLM] TensorRT LLM version: 1.2.1\n[03/01/2026-10:00:01] [TRT-LLM] [I] Using LLM with PyTorch backend\n[03/01/2026-10:00:02] [TRT-LLM] [I] Generating a new HMAC key for server proxy_request_queue\n[TensorRT-LLM] TensorRT LLM version: 1.2.1\n[TensorRT-LLM][INFO] Refreshed the MPI local session\n',
    ),
  );
  a.end();
  assert.equal(a.launches.length, 1);
  assert.equal(a.launches[0]!.engine, 'trtllm');
  assert.equal(a.launches[0]!.version, '1.2.1');
});

test('TensorRT-LLM: the banner after the launch got past its arguments is a relaunch', () => {
  const launches = read(
    [
      '[TensorRT-LLM] TensorRT LLM version: 1.2.1',
      '[03/01/2026-10:00:01] [TRT-LLM] [I] Using LLM with PyTorch backend',
      '[03/01/2026-10:00:20] [TRT-LLM] [I] Use 12.50 GB for model weights.',
      '[TensorRT-LLM] TensorRT LLM version: 1.2.1',
      '[03/01/2026-10:05:01] [TRT-LLM] [I] Using LLM with PyTorch backend',
    ],
    'trtllm',
  );
  assert.equal(launches.length, 2);
});

test('TensorRT-LLM: `trtllm-serve --grpc` is ready when its gRPC server starts (commands/serve.py)', () => {
  const [l] = read(
    [
      '[TensorRT-LLM] TensorRT-LLM version: 1.2.0',
      '[03/01/2026-10:00:01] [TRT-LLM] [I] Initializing TensorRT-LLM gRPC server...',
      '[03/01/2026-10:05:00] [TRT-LLM] [I] TensorRT-LLM gRPC server started on 0.0.0.0:50051',
    ],
    'trtllm',
  );
  assert.equal(l!.phase, 'ready');
});

test("TensorRT-LLM: a traceback's frames place the failure by the catalog's frame table (_util.py KV estimation)", () => {
  const [l] = read(
    [
      '[TensorRT-LLM] TensorRT-LLM version: 1.1.0',
      '[03/01/2026-10:00:01] [TRT-LLM] [I] Using LLM with PyTorch backend',
      'Traceback (most recent call last):',
      '  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/py_executor_creator.py", line 9, in create_py_executor',
      '    kv_cache_creator.configure_kv_cache_capacity(py_executor)',
      '  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/_util.py", line 9, in configure_kv_cache_capacity',
      '    raise ValueError(msg)',
      'ValueError: made-up failure',
    ],
    'trtllm',
  );
  assert.equal(l!.phase, 'kv_cache');
});

test('TGI: a shard traceback inside the Warmup RPC is a warmup failure (server.py Warmup, flash_causal_lm.py warmup)', () => {
  const [l] = read(
    [
      '2026-03-01T10:00:00.000001Z  INFO text_generation_launcher: Args { model_id: "m" }',
      '2026-03-01T10:00:30.000001Z  INFO text_generation_launcher: Server started at unix:///tmp/text-generation-server-0',
      'Traceback (most recent call last):',
      '  File "/opt/conda/lib/python3.11/site-packages/text_generation_server/server.py", line 9, in Warmup',
      '    batch_tokens = self.model.warmup(batch)',
      '  File "/opt/conda/lib/python3.11/site-packages/text_generation_server/models/flash_causal_lm.py", line 9, in warmup',
      '    raise RuntimeError(msg)',
      'RuntimeError: made-up failure',
    ],
    'tgi',
  );
  assert.equal(l!.phase, 'warmup');
});

test('TensorRT-LLM: a module tag with a colon (`[Autotuner]: …`, mid-2025 autotuner.py) is still the tag', () => {
  const [l] = read(
    [
      '[TensorRT-LLM] TensorRT-LLM version: 1.0.0rc0',
      '[06/21/2025-01:30:00] [TRT-LLM] [RANK 0] [I] Using LLM with PyTorch backend',
      '[06/21/2025-01:30:42] [TRT-LLM] [RANK 0] [I] [Autotuner]: Autotuning process ends',
    ],
    'trtllm',
  );
  assert.equal(l!.phase, 'autotune');
});

test("Triton: the hosted engine's own start line after Triton's model-load lines is that load, not a relaunch", () => {
  const launches = read(
    [
      'I0301 10:00:00.100000 1 pinned_memory_manager.cc:277] "Pinned memory pool is created at \'0x7f00\' with size 268435456"',
      'I0301 10:00:00.200000 1 model_lifecycle.cc:472] "loading: tensorrt_llm:1"',
      'I0301 10:00:01.100000 1 python_be.cc:2289] "TRITONBACKEND_ModelInstanceInitialize: tensorrt_llm_0_0 (GPU device 0)"',
      '[TensorRT-LLM] TensorRT LLM version: 1.2.0',
      '[03/01/2026-10:00:05] [TRT-LLM] [I] Using LLM with PyTorch backend',
      '[03/01/2026-10:00:30] [TRT-LLM] [I] Use 12.50 GB for model weights.',
    ],
    'trtllm',
  );
  assert.equal(launches.length, 1);
  assert.equal(launches[0]!.phase, 'loading_weights');
});
