/**
 * llama.cpp's own log calls and failure sites (test/fixtures/engine-source/llamacpp.json, read from the
 * server, common/ and src/llama*.cpp of four trees, 2023-10 to 2026-08; see the README there) read by the real
 * analyzer with the `llamacpp` engine: every startup-path template, filled with sample values and printed as
 * the server prints it, must be read at its phase, and every failure site classified as the catalog says.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { catalogLine } from '../../../src/core/engines/catalog-match.js';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import type { LaunchBuilder } from '../../../src/core/reading/launch.js';
import {
  fill,
  literalLength,
  loadSource,
  MIN_LITERAL,
  type SourceLog,
  type SourceRaise,
} from './catalog-samples.js';

function analyze(text: string): LaunchBuilder | null {
  const a = new LogAnalyzer({ engine: 'llamacpp' });
  a.push(Buffer.from(`${text}\n`));
  a.end();
  return a.launches[0] ?? null;
}

/**
 * The line as the server prints it. server_log (examples/server, before 2024-10) wrote JSON by default: 2023
 * with a `message` key (b1448), 2024 with `tid` and `msg` (utils.hpp server_log); everything else is printed
 * bare on stderr (LLAMA_LOG_*, LOG_INF, the SRV_/SLT_ macros' prefix is in the template already).
 */
function frame(e: SourceLog, msg: string): string {
  if (e.format !== 'server_log') return msg;
  const level = { info: 'INFO', warning: 'WARNING', error: 'ERROR' }[e.level] ?? 'INFO';
  const fn = e.function || 'main';
  if (e.versions.length === 1 && e.versions[0] === 'b1448')
    return `{"timestamp":1698700000,"level":"${level}","function":"${fn}","line":123,"message":${JSON.stringify(msg)}}`;
  return `{"tid":"140123","timestamp":1720000000,"level":"${level}","function":"${fn}","line":123,"msg":${JSON.stringify(msg)}}`;
}

/**
 * Where the analyzer knowingly reads a line otherwise than the catalog, and why (the log wins), keyed by
 * template. Filled below where a hand-written signature places a catalog line elsewhere on purpose.
 */
const KNOWN: Record<string, string> = {};

const BUILD = 'build: 4000 (c02e5ab2) with cc (GCC) 13.2.0 for x86_64-linux-gnu';

test('llamacpp: startup-path log templates are read at their catalog phase', () => {
  const cat = loadSource('llamacpp');
  const entries = cat.log_lines.filter(
    (e) => e.phase !== 'serving' && e.phase !== 'shutdown' && e.phase_scope !== 'any',
  );
  let ok = 0;
  let skipped = 0;
  const misses: string[] = [];
  for (const e of entries) {
    if (literalLength(e.template) < MIN_LITERAL) {
      skipped++;
      continue;
    }
    // after the build banner every llama.cpp program prints first (common.cpp print_build_info), as in a real log
    const launch = analyze(`${BUILD}\n${frame(e, fill(e.template))}`);
    // An error line that the reader takes for the launch's failure (or its consequence) says the launch failed
    // in whatever phase it was: it places nothing.
    const failed =
      e.level !== 'info' &&
      (launch?.candidates.some((c) => c.line === 2) || launch?.consequences.some((c) => c.line === 2));
    if (failed || launch?.marks.some((m) => m.phase === e.phase) || KNOWN[e.template] !== undefined) ok++;
    else
      misses.push(
        `${e.phase} (got ${launch?.phase ?? 'no launch'}) ${e.file}:${e.function}: ${fill(e.template).slice(0, 120)}`,
      );
  }
  const read = entries.length - skipped;
  console.log(
    `llamacpp: ${ok}/${read} startup templates read at their phase (${((100 * ok) / read).toFixed(1)} %), ${skipped} skipped (too little literal text)`,
  );
  if (process.env.CATALOG_MISSES) console.log(misses.join('\n'));
  assert.ok(ok / read >= 0.95, `${misses.length} misses:\n${misses.slice(0, 60).join('\n')}`);
});

/**
 * How a failure site reaches the log. The loader's throws are caught by llama_model_load (src/llama.cpp):
 * `llama_model_load: error loading model: <what()>`; common/arg.cpp's by common_params_parse: `error while
 * handling argument "<arg>": <what()>`; GGML_ASSERT/GGML_ABORT print `<file>:<line>: <message>` (ggml.c
 * ggml_abort); any other throw that nothing catches ends in libstdc++'s `what():` line.
 */
function frameRaise(r: SourceRaise, msg: string): string[] {
  const base = r.file.split('/').pop()!;
  if (r.exception === 'GGML_ASSERT' || r.exception === 'GGML_ABORT')
    return [`/build/llama.cpp/${r.file}:123: ${msg}`];
  if (
    /^llama-(?:model-loader|model|vocab|adapter|mmap)\.cpp$/.test(base) ||
    (base === 'llama.cpp' && r.phase === 'loading_weights')
  )
    return [`llama_model_load: error loading model: ${msg}`];
  if (base === 'arg.cpp') return [`error while handling argument "--sample": ${msg}`];
  return [`terminate called after throwing an instance of '${r.exception}'`, `  what():  ${msg}`];
}

test('llamacpp: failure sites are classified as the catalog says', () => {
  const cat = loadSource('llamacpp');
  let ok = 0;
  let skipped = 0;
  const misses: string[] = [];
  for (const r of cat.raises) {
    if (literalLength(r.template) < MIN_LITERAL) {
      skipped++;
      continue;
    }
    const lines = frameRaise(r, fill(r.template));
    const launch = analyze(lines.join('\n'));
    const got = launch?.candidates.find((c) => c.line === lines.length)?.cls ?? null;
    if (got === r.failure_class) ok++;
    else
      misses.push(`${r.failure_class} got ${got}: ${r.exception} ${r.file}: ${lines.at(-1)!.slice(0, 140)}`);
  }
  const read = cat.raises.length - skipped;
  console.log(
    `llamacpp: ${ok}/${read} failure sites classified as the catalog says (${((100 * ok) / read).toFixed(1)} %), ${skipped} skipped`,
  );
  if (process.env.CATALOG_MISSES) console.log(misses.join('\n'));
  assert.ok(ok / read >= 0.9, `${misses.length} misses:\n${misses.slice(0, 60).join('\n')}`);
});

test('llamacpp: the catalog is reached through the server_log frames and the common log prefix', () => {
  // b3498 server.cpp main: LOG_INFO("model loaded", {}) with --log-format json and text
  assert.equal(
    catalogLine(
      'llamacpp',
      '{"tid":"1","timestamp":1,"level":"INFO","function":"main","line":3,"msg":"model loaded"}',
    )?.phase,
    'warmup',
  );
  assert.equal(
    catalogLine('llamacpp', 'INFO [                    main] model loaded | tid="1" timestamp=1')?.phase,
    'warmup',
  );
  // common/log.cpp with --log-prefix --log-timestamps
  assert.equal(
    catalogLine('llamacpp', '0.00.035.060 I llama_context: n_ctx                 = 4096')?.phase,
    'kv_cache',
  );
});

/** Made-up lines of the shape of llama.cpp's own (not copied from any log). */
function launchOf(lines: string[]): LaunchBuilder {
  const l = analyze([BUILD, ...lines].join('\n'));
  assert.ok(l);
  return l;
}

test("llamacpp: load_tensors' buffer-size lines are still loading (load_all_data reads the weights after them)", () => {
  const l = launchOf([
    'llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from /m/q.gguf (version GGUF V3 (latest))',
    'load_tensors: offloaded 33/33 layers to GPU',
    'load_tensors:        CUDA0 model buffer size =  4168.09 MiB',
  ]);
  assert.equal(l.phase, 'loading_weights');
  assert.ok(!l.marks.some((m) => m.phase === 'weights_loaded'));
});

test('llamacpp: an uncaught exception is classed by its raise site (what():)', () => {
  const l = launchOf([
    "terminate called after throwing an instance of 'std::runtime_error'",
    "  what():  failed to open GGUF file '/m/missing.gguf' (No such file or directory)",
  ]);
  assert.equal(l.candidates.find((c) => c.line === 3)?.cls, 'model_not_found');
});

test('llamacpp: a GGML_ABORT with free text is a failure, classed by its site', () => {
  const l = launchOf([
    '/src/llama.cpp/src/llama-kv-cache.cpp:1234: The current KV cache / model configuration does not support K-shift',
  ]);
  assert.equal(l.candidates.find((c) => c.line === 2)?.cls, 'unsupported');
  // a compiler diagnostic (file:line:column) is not one
  const c = analyze(
    [BUILD, '/src/llama.cpp/src/llama-model.cpp:12:5: warning: unused variable x'].join('\n'),
  );
  assert.equal(c?.candidates.length ?? 0, 0);
});

test('llamacpp: an argument naming a missing file is model_not_found, a bad value config_error', () => {
  const missing = launchOf([
    'error while handling argument "-f": error: failed to open file \'/p/prompt.txt\'',
  ]);
  assert.equal(missing.candidates.find((c) => c.line === 2)?.cls, 'model_not_found');
  const bad = launchOf([
    'error while handling argument "--repeat-penalty": error: repeat-penalty must be finite and greater than 0',
  ]);
  assert.equal(bad.candidates.find((c) => c.line === 2)?.cls, 'config_error');
});

test('llamacpp: the 2023 server says it is idle without a function prefix (b1448 LOG_TEE)', () => {
  const l = launchOf([
    'llama server listening at http://127.0.0.1:8080',
    'all slots are idle and system prompt is empty, clear the KV cache',
  ]);
  assert.equal(l.phase, 'ready');
});

test('catalog messages come out of the frames the programs print', () => {
  assert.equal(
    catalogLine(
      'lmdeploy',
      '2026-08-21 10:00:00,123 - lmdeploy - \x1b[32mINFO\x1b[0m - [pid=12 ppid=1] - agent.py:88 - Starting engine warmup. This may take a while...',
    )?.phase,
    'warmup',
  );
  assert.equal(
    catalogLine('lmdeploy', '[TM][INFO] [BlockManager] max_block_count = 1234')?.phase,
    'kv_cache',
  );
  assert.equal(
    catalogLine(
      'ollama',
      'time=2025-09-18T10:00:00.000Z level=INFO source=server.go:1300 msg="llama runner started in 12.34 seconds"',
    )?.phase,
    'ready',
  );
});
