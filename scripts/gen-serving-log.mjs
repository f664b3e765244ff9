#!/usr/bin/env node
// Writes a large, realistic SGLang v0.5.9 serving log for `npm run bench`.
//
// usage: node scripts/gen-serving-log.mjs OUT [--bytes N] [--seed S]
//
// The file is exactly N bytes: a real launch header, then hours/days of a busy TP=8 server
// (Decode batch ~70 %, Prefill batch ~15 %, HTTP access ~15 %), then a few health-probe access
// lines whose lengths are chosen so the total lands on N exactly (a cache can check the size).
// Output is a pure function of (N, seed, header), so two runs give the same bytes.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the output changes, so a cached bench file from an older generator is not reused. */
export const GENERATOR_VERSION = 1;

const SCENARIO_HEADER = '/work/shared/scenarios/glm5-cutlass-bench-then-shutdown.log';
const READY = 'The server is fired up and ready to roll!';

// Used only when the scenario file is not there (another checkout, CI): same shape as a real
// SGLang v0.5.9 TP=8 launch, with CUDA graphs on.
const FALLBACK_HEADER = [
  "[2026-02-19 13:02:12] server_args=ServerArgs(model_path='zai-org/GLM-4.6-FP8', tokenizer_path='zai-org/GLM-4.6-FP8', trust_remote_code=True, host='0.0.0.0', port=8000, dtype='auto', quantization=None, kv_cache_dtype='auto', mem_fraction_static=0.88, max_running_requests=256, chunked_prefill_size=8192, max_prefill_tokens=16384, page_size=1, device='cuda', tp_size=8, pp_size=1, dp_size=1, ep_size=1, random_seed=1234, watchdog_timeout=300, log_level='info', attention_backend='fa3', disable_cuda_graph=False, cuda_graph_max_bs=256, enable_dp_attention=False, decode_log_interval=40)",
  '[2026-02-19 13:02:18] Using default HuggingFace chat template with detected content format: string',
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((t) => `[2026-02-19 13:02:20 TP${t}] Init torch distributed begin.`),
  ...[0, 1, 2, 3, 4, 5, 6, 7].map(
    (t) => `[2026-02-19 13:02:24 TP${t}] Init torch distributed ends. elapsed=3.4${t} s, mem usage=0.71 GB`,
  ),
  '[2026-02-19 13:02:25 TP0] Load weight begin. avail mem=93.12 GB',
  'Loading safetensors checkpoint shards:   0% Completed | 0/93 [00:00<?, ?it/s]',
  'Loading safetensors checkpoint shards:  50% Completed | 47/93 [00:15<00:14,  3.10it/s]',
  'Loading safetensors checkpoint shards: 100% Completed | 93/93 [00:30<00:00,  3.08it/s]',
  'Loading safetensors checkpoint shards: 100% Completed | 93/93 [00:30<00:00,  3.08it/s]',
  ...[0, 1, 2, 3, 4, 5, 6, 7].map(
    (t) =>
      `[2026-02-19 13:03:01 TP${t}] Load weight end. elapsed=36.20 s, type=Glm4MoeForCausalLM, dtype=torch.bfloat16, avail mem=50.31 GB, mem usage=42.81 GB.`,
  ),
  ...[0, 1, 2, 3, 4, 5, 6, 7].map(
    (t) =>
      `[2026-02-19 13:03:03 TP${t}] KV Cache is allocated. #tokens: 412800, K size: 9.45 GB, V size: 9.45 GB`,
  ),
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((t) => `[2026-02-19 13:03:03 TP${t}] Memory pool end. avail mem=29.80 GB`),
  '[2026-02-19 13:03:04 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=29.62 GB',
  '[2026-02-19 13:03:31 TP0] Capture cuda graph end. Time elapsed: 27.14 s. mem usage=1.92 GB. avail mem=27.70 GB.',
  '[2026-02-19 13:03:32 TP0] max_total_num_tokens=412800, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=256, context_len=202752, available_gpu_mem=27.51 GB',
  '[2026-02-19 13:03:33] INFO:     Started server process [67396]',
  '[2026-02-19 13:03:33] INFO:     Waiting for application startup.',
  '[2026-02-19 13:03:33] INFO:     Application startup complete.',
  '[2026-02-19 13:03:33] INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)',
  '[2026-02-19 13:03:34] INFO:     127.0.0.1:58503 - "GET /get_model_info HTTP/1.1" 200 OK',
  '[2026-02-19 13:03:34 TP0] Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, input throughput (token/s): 0.00, cuda graph: False',
  '[2026-02-19 13:03:36] INFO:     127.0.0.1:37305 - "POST /generate HTTP/1.1" 200 OK',
  `[2026-02-19 13:03:36] ${READY}`,
  '',
].join('\n');

function loadHeader() {
  let text;
  try {
    text = fs.readFileSync(SCENARIO_HEADER, 'utf8');
  } catch {
    return FALLBACK_HEADER;
  }
  const at = text.indexOf(READY);
  if (at < 0) return FALLBACK_HEADER;
  const eol = text.indexOf('\n', at);
  return eol < 0 ? `${text}\n` : text.slice(0, eol + 1);
}

// mulberry32: tiny, fast, and good enough for noise; Math.random can't be seeded.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const PAD2 = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : `${i}`));

// toFixed(2) dominates the profile at ~7 M lines per GB; integer hundredths + a table is several times faster.
function fix2(hundredths) {
  return `${Math.floor(hundredths / 100)}.${PAD2[hundredths % 100]}`;
}

const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));

/** `[YYYY-MM-DD HH:MM:SS` for a time read as UTC (the log has no zone; firedup reads it as UTC too). */
function stampPrefix(epochSec) {
  const d = new Date(epochSec * 1000);
  return `[${d.getUTCFullYear()}-${PAD2[d.getUTCMonth() + 1]}-${PAD2[d.getUTCDate()]} ${PAD2[d.getUTCHours()]}:${PAD2[d.getUTCMinutes()]}:`;
}

// Health-probe access lines (a load balancer or k8s probe on the pod network) pad the file to
// its exact size. Their length varies with the prober's address (10.b.c.d: 8-14 chars) and the
// path probed; together these cover 16 consecutive lengths, so any remainder worth >= 5 probes
// can be hit exactly.
const PROBE_MIN = '[2026-02-19 13:03:46] INFO:     10.0.0.1:40000 - "GET /health HTTP/1.1" 200 OK\n'.length;
const PROBE_SPAN = 15;
// [extra length over /health, path]
const PROBE_PATHS = [
  [9, '/health_generate'],
  [8, '/get_model_info'],
  [3, '/v1/models'],
  [0, '/health'],
];
function probeLine(stamp, extra, r) {
  const [pathExtra, pathName] = PROBE_PATHS.find(([n]) => extra - n >= 0 && extra - n <= 6);
  let ipExtra = extra - pathExtra;
  const octets = [10];
  for (let i = 0; i < 3; i++) {
    const n = Math.min(2, ipExtra);
    ipExtra -= n;
    octets.push(
      n === 0 ? 1 + Math.floor(r() * 9) : n === 1 ? 10 + Math.floor(r() * 90) : 100 + Math.floor(r() * 155),
    );
  }
  const port = 32768 + Math.floor(r() * 28232);
  return `${stamp}] INFO:     ${octets.join('.')}:${port} - "GET ${pathName} HTTP/1.1" 200 OK\n`;
}

/**
 * Write an SGLang serving log of exactly `bytes` bytes to `outPath` (via `outPath.tmp` and a rename,
 * so a killed run never leaves a short file under the real name).
 */
export function generateServingLog(outPath, { bytes = 1e9, seed = 1 } = {}) {
  bytes = Math.floor(Number(bytes));
  const header = loadHeader();
  const headerBytes = Buffer.byteLength(header);
  if (!Number.isFinite(bytes) || bytes < headerBytes + 4096) {
    throw new Error(
      `--bytes must be at least ${headerBytes + 4096} (the launch header is ${headerBytes} bytes)`,
    );
  }

  // Keep the body consistent with the header it follows: same KV pool, same CUDA-graph setting.
  const maxTokens = Number(/max_total_num_tokens=(\d+)/.exec(header)?.[1] ?? 412800);
  const graph = /disable_cuda_graph=True/.test(header) ? 'False' : 'True';
  const stamps = header.match(/^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/gm);
  const lastStamp = stamps ? stamps[stamps.length - 1].slice(1) : '2026-02-19 13:03:46';
  let sec = Date.parse(`${lastStamp.replace(' ', 'T')}Z`) / 1000 + 1;

  const r = rng(Number(seed) || 0);
  const tmp = `${outPath}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, header);
    let remaining = bytes - headerBytes;

    let running = 60;
    let target = 64; // offered load; running chases it as requests finish and get admitted
    let queue = 220;
    let ctx = 950; // mean tokens held per running request
    let minuteOf = -1;
    let minutePrefix = '';
    let stamp = '';
    let tpStamp = '';
    let linesLeftThisSecond = 0;

    const advance = () => {
      if (linesLeftThisSecond > 0) return;
      sec += 1;
      // A busy server still has gaps (a long prefill, a GC pause): now and then skip a few seconds.
      if (r() < 0.02) sec += 1 + Math.floor(r() * 4);
      linesLeftThisSecond = 3 + Math.floor(r() * 8);
      const m = Math.floor(sec / 60);
      if (m !== minuteOf) {
        minuteOf = m;
        minutePrefix = stampPrefix(m * 60);
      }
      stamp = minutePrefix + PAD2[sec - m * 60];
      tpStamp = `${stamp} TP0]`;
    };

    // Stop the random body while there is still room for at least 5 probe lines plus one full
    // body line, so the padding step below always has a reachable target.
    const reserve = 6 * (PROBE_MIN + PROBE_SPAN) + 512;
    // Small batches on purpose: the line strings of a batch stay alive (as a rope) until it is
    // written, and past ~64 KB they outlive the young generation and GC cost doubles the run time.
    const BATCH = 1 << 16;
    while (remaining > reserve) {
      let chunk = '';
      let len = 0; // ASCII only, so string length == byte length
      const budget = Math.min(BATCH, remaining - reserve);
      while (len < budget) {
        advance();
        linesLeftThisSecond--;
        const p = r();
        let line;
        if (p < 0.7) {
          // The offered load wanders slowly and the batch follows it, so highs and lows come in long runs like real traffic.
          target = clamp(target + (r() - 0.5) * 3 + (128 - target) * 0.0001, 4, 250);
          running = clamp(running + Math.round((r() - 0.5) * 6 + (target - running) * 0.05), 1, 256);
          queue = clamp(queue + Math.round((r() - 0.5) * 12 + (150 - queue) * 0.003), 0, 400);
          ctx = clamp(ctx + (r() - 0.5) * 20, 300, 1500);
          const tokens = Math.min(maxTokens, Math.round(running * ctx * (0.9 + r() * 0.2)));
          const usage = Math.round((tokens * 100) / maxTokens);
          const tput = clamp(Math.round((200 + running * 7.2) * (0.9 + r() * 0.2) * 100), 20000, 210000);
          line = `${tpStamp} Decode batch, #running-req: ${running}, #token: ${tokens}, token usage: ${fix2(usage)}, cuda graph: ${graph}, gen throughput (token/s): ${fix2(tput)}, #queue-req: ${queue}\n`;
        } else if (p < 0.85) {
          const seqs = 1 + Math.floor(r() * r() * 8);
          const newTok = Math.min(8192, seqs * (64 + Math.floor(r() * 2000)));
          const cached = r() < 0.4 ? 0 : Math.floor(r() * seqs * 1500);
          running = clamp(running + seqs, 1, 256);
          queue = clamp(queue - seqs, 0, 400);
          const usage = Math.round((Math.min(maxTokens, running * ctx) * 100) / maxTokens);
          const inTput = Math.floor((1500 + r() * 30000) * 100);
          line = `${tpStamp} Prefill batch, #new-seq: ${seqs}, #new-token: ${newTok}, #cached-token: ${cached}, token usage: ${fix2(usage)}, #running-req: ${running}, #queue-req: ${queue}, input throughput (token/s): ${fix2(inTput)}, cuda graph: False\n`;
        } else {
          line = `${stamp}] INFO:     127.0.0.1:${30000 + Math.floor(r() * 31000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK\n`;
        }
        chunk += line;
        len += line.length;
      }
      fs.writeSync(fd, chunk);
      remaining -= len;
    }

    // Pad to the exact size: k probes of PROBE_MIN..PROBE_MIN+SPAN bytes each, k as small as fits.
    const k = Math.ceil(remaining / (PROBE_MIN + PROBE_SPAN));
    let extra = remaining - k * PROBE_MIN;
    if (extra < 0) throw new Error(`internal: cannot pad ${remaining} bytes with probe lines`);
    let tail = '';
    for (let i = 0; i < k; i++) {
      const e = Math.min(PROBE_SPAN, extra);
      extra -= e;
      linesLeftThisSecond = 0;
      advance();
      tail += probeLine(stamp, e, r);
    }
    fs.writeSync(fd, tail);
    remaining -= tail.length;
    if (remaining !== 0) throw new Error(`internal: size off by ${remaining} bytes`);
  } catch (err) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, outPath);
}

function parseCli(argv) {
  const opts = { out: null, bytes: 1e9, seed: 1 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--bytes' || a === '--seed') {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v)) throw new Error(`${a} needs a number`);
      opts[a.slice(2)] = v;
    } else if (a.startsWith('-')) {
      throw new Error(`unknown option ${a}`);
    } else if (opts.out === null) {
      opts.out = a;
    } else {
      throw new Error(`unexpected argument ${a}`);
    }
  }
  if (!opts.out) throw new Error('usage: gen-serving-log.mjs OUT [--bytes N] [--seed S]');
  return opts;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { out, bytes, seed } = parseCli(process.argv.slice(2));
    const t0 = performance.now();
    generateServingLog(out, { bytes, seed });
    const s = (performance.now() - t0) / 1000;
    const size = fs.statSync(out).size;
    process.stdout.write(`${out}\t${size} bytes\t${s.toFixed(1)} s\n`);
  } catch (err) {
    process.stderr.write(`gen-serving-log: ${err.message}\n`);
    process.exitCode = 1;
  }
}
