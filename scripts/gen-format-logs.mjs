#!/usr/bin/env node
// Large logs of each engine's serving lines for `npm run bench`, from line templates that real logs have
// (test/fixtures/corpus): a real launch header up to the ready line, then a busy server's serving lines.
//
// usage: node scripts/gen-format-logs.mjs FORMAT OUT [--bytes N] [--seed S]
//   FORMAT: sglang-dot | vllm-v1 | tgi | llamacpp | launches | random
//   (launches: --launches N short launches, 100k by default; --bytes does not apply)
//
// Output is a pure function of (format, N, seed). The file is about N bytes (whole lines; `random` is exact).

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAD2, rng } from './gen-serving-log.mjs';

export const FORMAT_GENERATOR_VERSION = 1;
export const FORMATS = ['sglang-dot', 'vllm-v1', 'tgi', 'llamacpp', 'launches', 'random'];

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CORPUS = path.join(REPO, 'test/fixtures/corpus');

const fix = (hundredths) => `${Math.floor(hundredths / 100)}.${PAD2[hundredths % 100]}`;
const fix1 = (tenths) => `${Math.floor(tenths / 10)}.${tenths % 10}`;
const int = (r, lo, hi) => lo + Math.floor(r() * (hi - lo + 1));

/** The lines of a corpus log up to and including the first that contains `until`. */
function corpusHeader(file, until) {
  const text = fs.readFileSync(path.join(CORPUS, file), 'utf8');
  const at = text.indexOf(until);
  if (at < 0) throw new Error(`${file}: no ${JSON.stringify(until)}`);
  return text.slice(0, text.indexOf('\n', at) + 1);
}

const SGLANG_DOT_HEADER = [
  "[2025-03-14 02:10:01] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-V3', tokenizer_path='deepseek-ai/DeepSeek-V3', trust_remote_code=True, host='0.0.0.0', port=30000, mem_fraction_static=0.87, max_running_requests=512, chunked_prefill_size=8192, tp_size=8, dp_size=1, log_level='info', disable_cuda_graph=False)",
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((t) => `[2025-03-14 02:10:09 TP${t}] Init torch distributed begin.`),
  '[2025-03-14 02:10:12 TP0] Load weight begin. avail mem=78.50 GB',
  ...[0, 1, 2, 3, 4, 5, 6, 7].map(
    (t) =>
      `[2025-03-14 02:12:40 TP${t}] Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=2.57 GB`,
  ),
  '[2025-03-14 02:12:42 TP0] Memory pool end. avail mem=8.12 GB',
  '[2025-03-14 02:12:43 TP0] Capture cuda graph begin. This can take up to several minutes.',
  '[2025-03-14 02:13:20 TP0] Capture cuda graph end. Time elapsed: 37.02 s',
  '[2025-03-14 02:13:21 TP0] max_total_num_tokens=420000, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=512, context_len=163840',
  '[2025-03-14 02:13:22] INFO:     Started server process [1]',
  '[2025-03-14 02:13:22] INFO:     Waiting for application startup.',
  '[2025-03-14 02:13:22] INFO:     Application startup complete.',
  '[2025-03-14 02:13:22] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)',
  '[2025-03-14 02:13:23] INFO:     127.0.0.1:40928 - "GET /get_model_info HTTP/1.1" 200 OK',
  '[2025-03-14 02:13:23 TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, cache hit rate: 0.00%, token usage: 0.00, #running-req: 0, #queue-req: 0',
  '[2025-03-14 02:13:25] INFO:     127.0.0.1:40934 - "POST /generate HTTP/1.1" 200 OK',
  '[2025-03-14 02:13:25] The server is fired up and ready to roll!',
  '',
].join('\n');

/** A clock of whole seconds that moves a few lines at a time. */
function clock(r, startSec, perSecond) {
  let sec = startSec;
  let left = 0;
  return () => {
    if (left-- <= 0) {
      sec += 1 + (r() < 0.02 ? int(r, 1, 4) : 0);
      left = perSecond();
    }
    return new Date(sec * 1000);
  };
}

const ymdhms = (d) =>
  `${d.getUTCFullYear()}-${PAD2[d.getUTCMonth() + 1]}-${PAD2[d.getUTCDate()]} ${PAD2[d.getUTCHours()]}:${PAD2[d.getUTCMinutes()]}:${PAD2[d.getUTCSeconds()]}`;
const mdhms = (d) =>
  `${PAD2[d.getUTCMonth() + 1]}-${PAD2[d.getUTCDate()]} ${PAD2[d.getUTCHours()]}:${PAD2[d.getUTCMinutes()]}:${PAD2[d.getUTCSeconds()]}`;

/** Body line makers: each returns one line (with its newline) from the random source. */
const BODIES = {
  // SGLang before 0.4.10: `Decode batch.` with largest-len, TP-tagged, and the access lines between.
  'sglang-dot': (r) => {
    const now = clock(r, Date.UTC(2025, 2, 14, 2, 13, 26) / 1000, () => int(r, 2, 8));
    let running = 400;
    return () => {
      const d = now();
      const p = r();
      if (p < 0.8) {
        running = Math.max(1, Math.min(512, running + int(r, -20, 20)));
        const tokens = running * int(r, 300, 420);
        return `[${ymdhms(d)} TP0] Decode batch. #running-req: ${running}, #token: ${tokens}, token usage: ${fix(Math.min(99, Math.round(tokens / 4200)))}, gen throughput (token/s): ${fix(int(r, 500000, 950000))}, largest-len: 0, #queue-req: ${int(r, 0, 40)}, \n`;
      }
      if (p < 0.9)
        return `[${ymdhms(d)} TP0] Prefill batch. #new-seq: ${int(r, 1, 8)}, #new-token: ${int(r, 100, 8192)}, #cached-token: ${int(r, 0, 4000)}, cache hit rate: ${fix(int(r, 0, 9000))}%, token usage: ${fix(int(r, 10, 90))}, #running-req: ${running}, #queue-req: ${int(r, 0, 40)}\n`;
      return `[${ymdhms(d)}] INFO:     127.0.0.1:${int(r, 32768, 60999)} - "POST /v1/chat/completions HTTP/1.1" 200 OK\n`;
    };
  },
  // vLLM V1 (0.11): loggers.py throughput every 10 s and uvicorn access lines, all with the APIServer prefix.
  'vllm-v1': (r) => {
    const now = clock(r, Date.UTC(2026, 10, 28, 15, 28, 16) / 1000, () => int(r, 5, 20));
    let n = 0;
    return () => {
      const d = now();
      if (n++ % 12 === 0)
        return `\x1b[1;36m(APIServer pid=155)\x1b[0;0m INFO ${mdhms(d)} [loggers.py:236] Engine 000: Avg prompt throughput: ${fix1(int(r, 0, 200000))} tokens/s, Avg generation throughput: ${fix1(int(r, 0, 30000))} tokens/s, Running: ${int(r, 0, 64)} reqs, Waiting: ${int(r, 0, 50)} reqs, GPU KV cache usage: ${fix1(int(r, 0, 1000))}%, Prefix cache hit rate: ${fix1(int(r, 0, 1000))}%\n`;
      return `\x1b[1;36m(APIServer pid=155)\x1b[0;0m INFO:     10.0.0.${int(r, 2, 250)}:${int(r, 32768, 60999)} - "POST /v1/completions HTTP/1.1" 200 OK\n`;
    };
  },
  // TGI (router): one Success line per request with its timing fields.
  tgi: (r) => {
    let us = Date.UTC(2025, 3, 14, 15, 52, 3) * 1000;
    const routes = ['generate', 'generate_stream', 'chat_completions', 'completions'];
    return () => {
      us += int(r, 1000, 400000);
      const d = new Date(us / 1000);
      const stamp = `${ymdhms(d).replace(' ', 'T')}.${String(us % 1000000).padStart(6, '0')}Z`;
      const total = int(r, 100, 9000);
      return `${stamp}  INFO ${routes[int(r, 0, 3)]}{total_time="${total}.${int(r, 100, 999)}ms" validation_time="${int(r, 100, 999)}µs" queue_time="${int(r, 10, 999)}µs" inference_time="${total - 1}.${int(r, 100, 999)}ms" time_per_token="${int(r, 10, 60)}.${int(r, 100, 999)}ms" seed="None"}: text_generation_router::server: router/src/server.rs:637: Success\n`;
    };
  },
  // llama-server (b8680): per request, the slot lines, the access line and the timings.
  llamacpp: (r) => {
    let task = 100;
    const queue = [];
    return () => {
      if (queue.length === 0) {
        task += int(r, 1, 70);
        const id = `id  ${int(r, 0, 3)} | task ${task} |`;
        const prompt = int(r, 20, 8000);
        const gen = int(r, 10, 900);
        const pms = int(r, 10000, 900000);
        const gms = int(r, 100000, 9000000);
        queue.push(
          'srv  params_from_: Chat format: peg-gemma4\n',
          `slot get_availabl: ${id.replace(/task \d+/, 'task -1')} selected slot by LRU, t_last = -1\n`,
          `slot launch_slot_: ${id} processing task, is_child = 0\n`,
          `slot update_slots: ${id} new prompt, n_ctx_slot = 65536, n_keep = 0, task.n_tokens = ${prompt}\n`,
          `slot update_slots: ${id} prompt processing done, n_tokens = ${prompt}, batch.n_tokens = ${int(r, 1, 512)}\n`,
          'srv  log_server_r: done request: POST /v1/chat/completions 10.0.0.1 200\n',
          `slot print_timing: ${id} \n`,
          `prompt eval time = ${fix(pms).padStart(10)} ms / ${String(prompt).padStart(5)} tokens (${fix(Math.round(pms / prompt)).padStart(8)} ms per token, ${fix(Math.round((prompt * 1e7) / pms)).padStart(10)} tokens per second)\n`,
          `       eval time = ${fix(gms).padStart(10)} ms / ${String(gen).padStart(5)} tokens (${fix(Math.round(gms / gen)).padStart(8)} ms per token, ${fix(Math.round((gen * 1e7) / gms)).padStart(10)} tokens per second)\n`,
          `      total time = ${fix(pms + gms).padStart(10)} ms / ${String(prompt + gen).padStart(5)} tokens\n`,
          `slot      release: ${id} stop processing: n_tokens = ${prompt + gen}, truncated = 0\n`,
          'srv  update_slots: all slots are idle\n',
        );
      }
      return queue.shift();
    };
  },
  // A log of many short launches (a crash-looping server under a supervisor): each is an SGLang start that
  // loads, sometimes serves a little, and crashes or is restarted.
  launches: (r) => {
    const now = clock(r, Date.UTC(2026, 0, 1) / 1000, () => 3);
    const queue = [];
    return () => {
      if (queue.length === 0) {
        const t = () => ymdhms(now());
        queue.push(
          `[${t()}] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B', tp_size=1, port=30000)\n`,
          `[${t()}] Load weight begin. avail mem=78.50 GB\n`,
        );
        if (r() < 0.5) {
          queue.push(
            `[${t()}] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=63.21 GB\n`,
            `[${t()}] The server is fired up and ready to roll!\n`,
            `[${t()}] Decode batch, #running-req: ${int(r, 1, 60)}, #token: 9000, token usage: 0.02, cuda graph: True, gen throughput (token/s): ${fix(int(r, 1000, 900000))}, #queue-req: 0, \n`,
          );
        } else
          queue.push(`[${t()}] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n`);
      }
      return queue.shift();
    };
  },
};

const HEADERS = {
  'sglang-dot': () => SGLANG_DOT_HEADER,
  'vllm-v1': () => corpusHeader('full/003.log', 'Application startup complete.'),
  tgi: () => corpusHeader('full/007.log', ' Connected'),
  llamacpp: () => corpusHeader('full/009.log', 'server is listening on'),
  launches: () => '',
};

/** Writes about `bytes` bytes of FORMAT to `outPath` (via a .tmp file and a rename). */
export function generateFormatLog(format, outPath, { bytes = 1e9, seed = 1, launches = 100000 } = {}) {
  const tmp = `${outPath}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    if (format === 'random') {
      // Seeded: a counter-mode hash, so the same (N, seed) gives the same bytes.
      let done = 0;
      let block = 0;
      while (done < bytes) {
        const n = Math.min(1 << 20, bytes - done);
        const buf = Buffer.alloc(n);
        for (let at = 0; at < n; at += 64) {
          crypto
            .createHash('sha512')
            .update(`${seed}:${block++}`)
            .digest()
            .copy(buf, at, 0, Math.min(64, n - at));
        }
        fs.writeSync(fd, buf);
        done += n;
      }
    } else {
      if (!(format in BODIES)) throw new Error(`unknown format ${format} (one of ${FORMATS.join(', ')})`);
      const header = HEADERS[format]();
      fs.writeSync(fd, header);
      let written = Buffer.byteLength(header);
      const next = BODIES[format](rng(Number(seed) || 0));
      if (format === 'launches') {
        // A count of launches, not a size: each starts with its server_args line.
        let left = launches;
        while (left > 0) {
          let chunk = '';
          while (chunk.length < 1 << 16 && left > 0) {
            const line = next();
            if (line.includes('server_args=')) {
              if (left === 0) break;
              left--;
            }
            chunk += line;
          }
          fs.writeSync(fd, chunk);
        }
        // the last launch's remaining lines
        let tail = '';
        for (let line = next(); !line.includes('server_args='); line = next()) tail += line;
        fs.writeSync(fd, tail);
        bytes = 0;
      }
      while (written < bytes) {
        let chunk = '';
        while (chunk.length < 1 << 16) chunk += next();
        const buf = Buffer.from(chunk.length > bytes - written ? cut(chunk, bytes - written) : chunk);
        fs.writeSync(fd, buf);
        written += buf.length;
        if (buf.length === 0) break;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, outPath);
}

/** The whole lines of `chunk` that fit in about n bytes (at least one). */
function cut(chunk, n) {
  const at = chunk.lastIndexOf('\n', n);
  return chunk.slice(0, at < 0 ? chunk.indexOf('\n') + 1 : at + 1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [format, out, ...rest] = process.argv.slice(2);
  const opt = { bytes: 1e9, seed: 1 };
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--bytes') opt.bytes = Math.floor(Number(rest[++i]));
    else if (rest[i] === '--launches') opt.launches = Math.floor(Number(rest[++i]));
    else if (rest[i] === '--seed') opt.seed = Number(rest[++i]);
  }
  if (!format || !out) {
    process.stderr.write(
      `usage: gen-format-logs.mjs FORMAT OUT [--bytes N] [--seed S]\n  FORMAT: ${FORMATS.join(' | ')}\n`,
    );
    process.exit(2);
  }
  generateFormatLog(format, out, opt);
}
