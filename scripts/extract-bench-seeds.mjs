#!/usr/bin/env node
// Extracts the real lines the serving-shape bench (scripts/gen-shape-logs.mjs) is built from into
// scripts/bench-seeds/<shape>.json, one file per line shape servers print while serving, each line with the
// corpus file and line it came from. The seeds are committed: the corpus is read-only data that a checkout may
// not have, and a shape's lines must not change under the bench when the corpus grows.
//
// usage: node scripts/extract-bench-seeds.mjs [--only SHAPE] [CORPUS_DIR...]
//   (default ../shared/corpus, test/fixtures/corpus and test/fixtures/wild; --only: that shape's seed alone, the
//   others left as they are)
//
// A shape is a regular expression on a whole line; its source is the corpus log with the most lines of it
// (ties: the first path). The seed holds that log's lines before its first line of the shape (the launch, so
// the bench file has a launch that reaches serving) and up to MAX_LINES lines of the shape from it.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SEED_DIR = path.join(REPO, 'scripts/bench-seeds');
const MAX_LINES = 400;
const MAX_LAUNCH = 3000;
/** The line after which an engine's launch is serving: a shape's lines are taken from after it. */
const READY = {
  sglang: /The server is fired up and ready to roll/,
  vllm: /Application startup complete/,
  llamacpp: /server is listening on/,
};

// The SGLang access line is uvicorn's (its `[stamp] ` prefix is SGLang's logger): `"METHOD PATH HTTP/V" NNN`.
const ACCESS = /INFO: {5}\S+ - "(GET|POST) \S+ HTTP\/[\d.]+" \d{3}/;

/**
 * Every serving-time line shape the corpus holds. `engine`: which engine the launch is (what the bench checks);
 * `sample`: its lines report throughput (the report must have a peak).
 */
export const SHAPES = [
  {
    name: 'sglang-decode-dot',
    label: "SGLang 0.2-0.3 'Decode batch.'",
    engine: 'sglang',
    sample: true,
    re: /\] Decode batch\. #running-req: \d+, #token: \d+, token usage: [\d.]+, gen throughput \(token\/s\): [\d.]+, (largest-len: \d+, )?#queue-req: \d+(, )?$/,
  },
  {
    name: 'sglang-decode-dot-cache-miss',
    label: "SGLang 0.3 'Decode batch.' #cache_miss",
    engine: 'sglang',
    sample: true,
    re: /\] Decode batch\. .*#cache_miss: \d+$/,
  },
  {
    name: 'sglang-decode-dot-cuda-graph',
    label: "SGLang 0.4 'Decode batch.', TP, cuda graph, trailing ', '",
    engine: 'sglang',
    sample: true,
    re: /^\[[\d-]+ [\d:]+ TP\d+\] Decode batch\. #running-req: \d+, #token: \d+, token usage: [\d.]+, cuda graph: (True|False), gen throughput \(token\/s\): [\d.]+, #queue-req: \d+, $/,
  },
  {
    name: 'sglang-decode-cuda-graph-trailing',
    label: "SGLang 0.4 decode, cuda graph, trailing ', '",
    engine: 'sglang',
    sample: true,
    re: /\] Decode batch, #running-req: \d+, #token: \d+, token usage: [\d.]+, cuda graph: (True|False), gen throughput \(token\/s\): [\d.]+, #queue-req: \d+, $/,
  },
  {
    name: 'sglang-decode-tp-cuda-graph',
    label: 'SGLang 0.4 decode, TP prefix, cuda graph',
    engine: 'sglang',
    sample: true,
    re: /^\[[\d-]+ [\d:]+ TP\d+\] Decode batch, #running-req: \d+, #token: \d+, token usage: [\d.]+, cuda graph: (True|False), gen throughput \(token\/s\): [\d.]+, #queue-req: \d+$/,
  },
  {
    name: 'sglang-decode-dp-tp-ep-spec',
    label: 'SGLang 0.5 decode, DP/TP/EP, accept len, npu graph',
    engine: 'sglang',
    sample: true,
    re: /^\[[\d-]+ [\d:]+ DP\d+ TP\d+ EP\d+\] Decode batch, .*accept len: .*graph: (True|False), gen throughput \(token\/s\): [\d.]+, #queue-req: \d+, $/,
  },
  {
    name: 'sglang-decode-dp-tp-spec',
    label: 'SGLang 0.5 decode, DP/TP, accept len, cpu graph',
    engine: 'sglang',
    sample: true,
    re: /^\[[\d-]+ [\d:]+ DP\d+ TP\d+\] Decode batch, .*accept len: .*graph: (True|False), gen throughput \(token\/s\): [\d.]+, #queue-req: \d+, $/,
  },
  {
    name: 'sglang-decode-swa',
    label: 'SGLang 0.5 decode, full/swa token, accept len',
    engine: 'sglang',
    sample: true,
    re: /\] Decode batch, #running-req: \d+, #full token: \d+, full token usage: [\d.]+, #swa token: .*gen throughput \(token\/s\): [\d.]+, #queue-req: \d+$/,
  },
  {
    name: 'sglang-prefill-dot',
    label: "SGLang 0.3 'Prefill batch.'",
    engine: 'sglang',
    sample: false,
    re: /\] Prefill batch\. #new-seq: \d+, #new-token: \d+, #cached-token: \d+, (cache hit rate: [\d.]+%, )?token usage: [\d.]+, #running-req: \d+, #queue-req: \d+(, )?$/,
  },
  {
    name: 'sglang-prefill-dp-tp-trailing',
    label: "SGLang 0.4 prefill, DP/TP, trailing ', '",
    engine: 'sglang',
    sample: false,
    re: /^\[[\d-]+ [\d:]+ DP\d+ TP\d+( EP\d+)?\] Prefill batch, #new-seq: \d+, #new-token: \d+, #cached-token: \d+, token usage: [\d.]+, #running-req: \d+, #queue-req: \d+, $/,
  },
  {
    name: 'sglang-prefill-input-throughput',
    label: 'SGLang 0.5 prefill, cuda graph, input throughput',
    engine: 'sglang',
    // its throughput is the prompt's; the report's peak is generation's
    sample: false,
    re: /\] Prefill batch, #new-seq: \d+, .*#pending-token: \d+, cuda graph: (True|False), input throughput \(token\/s\): [\d.]+$/,
  },
  {
    name: 'sglang-access',
    label: 'SGLang uvicorn access',
    engine: 'sglang',
    sample: false,
    re: new RegExp(`^\\[[\\d-]+ [\\d:]+\\] ${ACCESS.source}`),
  },
  {
    name: 'vllm-v0-metrics',
    label: 'vLLM V0 Avg prompt throughput',
    engine: 'vllm',
    sample: true,
    re: /^INFO [\d-]+ [\d:]+ metrics\.py:\d+\] Avg prompt throughput: .*Swapped: \d+ reqs/,
  },
  {
    name: 'vllm-v1-engine',
    label: 'vLLM V1 Engine 000:',
    engine: 'vllm',
    sample: true,
    re: /^\(APIServer pid=\d+\) INFO [\d-]+ [\d:]+ \[loggers\.py:\d+\] Engine \d+: Avg prompt throughput: /,
  },
  {
    name: 'vllm-v1-engine-sgr',
    label: 'vLLM V1 Engine 000:, colored prefix',
    engine: 'vllm',
    sample: true,
    re: /^\x1b\[[\d;]+m\(APIServer pid=\d+\)\x1b\[[\d;]+m INFO [\d-]+ [\d:]+ \[loggers\.py:\d+\] Engine \d+: Avg prompt throughput: /,
  },
  {
    name: 'vllm-access',
    label: 'vLLM uvicorn access',
    engine: 'vllm',
    sample: false,
    re: new RegExp(`^\\(APIServer pid=\\d+\\) ${ACCESS.source}`),
  },
  {
    name: 'llamacpp-slots',
    label: 'llama-server slots and timings',
    engine: 'llamacpp',
    sample: true,
    re: /^(slot +\w+: id +\d+ \| task -?\d+ \| |prompt eval time =| {7}eval time =| {6}total time =|srv +(log_server_r|params_from_|update_slots|get_availabl|prompt_save|update): )/,
  },
  {
    // The corpus's only real TGI serving lines: the router's per-request line, under docker compose's prefix.
    name: 'tgi-router',
    label: 'TGI router request lines (compose)',
    engine: 'tgi',
    sample: false,
    re: /text_generation_router::server: router\/src\/server\.rs:\d+: Success$/,
  },
  {
    name: 'unknown-gin',
    label: 'unknown engine (Ollama GIN access)',
    engine: null,
    sample: false,
    re: /^\[GIN\] \d{4}\/\d\d\/\d\d - [\d:]+ \|/,
  },
];

/** The mixed file: one real SGLang log's serving section, its decode, prefill and access lines in their order. */
const MIXED = {
  name: 'mixed',
  label: 'mixed: SGLang decode, prefill, access',
  engine: 'sglang',
  sample: true,
  re: /(\] Decode batch[.,] |\] Prefill batch[.,] |^\[[\d-]+ [\d:]+\] INFO: {5}\S+ - ")/,
  needs: [/Decode batch/, /Prefill batch/, /INFO: {5}/],
};

/** Plain text that no engine rule knows: the corpus README's prose, line by line. */
const PLAIN = { name: 'unknown-text', label: 'unknown: plain text', engine: null, sample: false };

function listLogs(dirs) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.log')) out.push(p);
    }
  };
  for (const d of dirs) if (fs.existsSync(d)) walk(d);
  return out;
}

const rel = (p) => path.relative(REPO, p);

function seedFor(shape, logs) {
  let best = null;
  for (const file of logs) {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const hits = [];
    const ready = READY[shape.engine];
    // a fragment that does not show the ready line: all its lines of the shape
    const from = ready ? lines.findIndex((l) => ready.test(l)) : -1;
    lines.forEach((l, i) => {
      if (i > from && shape.re.test(l)) hits.push(i);
    });
    if (shape.needs && !shape.needs.every((n) => hits.some((i) => n.test(lines[i])))) continue;
    if (hits.length > 0 && (best === null || hits.length > best.hits.length)) best = { file, lines, hits };
  }
  if (best === null) throw new Error(`no corpus log has a line of shape ${shape.name}`);
  const first = best.hits[0];
  // A log no engine rule knows has no launch to reach: its lines alone.
  const launchFrom = shape.engine === null ? first : Math.max(0, first - MAX_LAUNCH);
  return {
    shape: shape.name,
    label: shape.label,
    engine: shape.engine,
    sample: shape.sample,
    source: rel(best.file),
    pattern: shape.re.source,
    launch: { from: launchFrom + 1, lines: best.lines.slice(launchFrom, first) },
    serving: best.hits.slice(0, MAX_LINES).map((i) => ({ line: i + 1, text: best.lines[i] })),
  };
}

function main() {
  const args = process.argv.slice(2);
  const o = args.indexOf('--only');
  const only = o >= 0 ? args.splice(o, 2)[1] : null;
  const dirs = args.length
    ? args
    : [
        path.join(REPO, '../shared/corpus'),
        path.join(REPO, 'test/fixtures/corpus'),
        path.join(REPO, 'test/fixtures/wild'),
      ];
  const logs = listLogs(dirs);
  fs.mkdirSync(SEED_DIR, { recursive: true });
  for (const shape of [...SHAPES, MIXED]) {
    if (only !== null && shape.name !== only) continue;
    const seed = seedFor(shape, logs);
    fs.writeFileSync(path.join(SEED_DIR, `${shape.name}.json`), `${JSON.stringify(seed, null, 1)}\n`);
    process.stderr.write(`${shape.name}: ${seed.serving.length} lines from ${seed.source}\n`);
  }
  if (only !== null && only !== PLAIN.name) return;
  const readme = dirs.map((d) => path.join(d, 'README.md')).find((p) => fs.existsSync(p));
  const prose = fs.readFileSync(readme, 'utf8').split('\n');
  const serving = prose.map((text, i) => ({ line: i + 1, text })).filter((l) => l.text.trim() !== '');
  fs.writeFileSync(
    path.join(SEED_DIR, `${PLAIN.name}.json`),
    `${JSON.stringify({ shape: PLAIN.name, label: PLAIN.label, engine: null, sample: false, source: rel(readme), launch: { from: 1, lines: [] }, serving }, null, 1)}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
