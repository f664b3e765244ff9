#!/usr/bin/env node
// `npm run bench:loadgen`: is firedup's load generator (`firedup bench run`) ever the bottleneck?
//
//   1. Ceiling: the generator against a zero-latency OpenAI-compatible streaming server (a child process that
//      streams max_tokens tokens as fast as it can write them), at --concurrency C for --requests N of
//      --tokens T tokens each. Prints streamed tokens/s and the client's CPU (this process, user+system, as a
//      share of one core). Goal: >= 60,000 tok/s on one core (ten times the best campaign figure, 5,816 tok/s).
//      Baseline, same run: a bare node:http loop over the same streams that counts bytes and parses nothing;
//      the ratio says what SSE parsing and timing cost.
//   2. TTFT error: concurrency 1, the server waits --delay ms before the first token and stamps when it got
//      the request and wrote the token; the error is the client's TTFT minus the server's. Goal: <= 1 ms.
//
// usage: node scripts/bench-loadgen.mjs [--concurrency C] [--requests N] [--tokens T] [--delay MS]
// Build first (npm run build). Exits 0 whatever the figures say (a bench reports, it does not gate).

import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const REPO = path.resolve(path.dirname(SELF), '..');
const GOAL_TOKS = 60_000;
const GOAL_TTFT_MS = 1;

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

// ---------------------------------------------------------------------------------------------------
// The server (child process): zero latency, its own stamps.

function serve(delayMs) {
  const stamps = [];
  const ev = (i) =>
    `data: {"id":"c","object":"text_completion","choices":[{"index":0,"text":" tok${i}"}]}\n\n`;
  const srv = http.createServer((req, res) => {
    const receivedMs = performance.now();
    if (req.url === '/v1/models') {
      res.end('{"data":[{"id":"zero"}]}');
      return;
    }
    if (req.url === '/stamps') {
      res.end(JSON.stringify(stamps.splice(0)));
      return;
    }
    const body = [];
    req.on('data', (d) => body.push(d));
    req.on('end', () => {
      const n = JSON.parse(Buffer.concat(body).toString()).max_tokens;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const stream = () => {
        const firstMs = performance.now();
        stamps.push({ receivedMs, firstMs });
        // As fast as possible: tokens go out in writes of 64 events (one write per token would make the server,
        // not the client, the bottleneck); each write is a separate socket read for the client.
        let i = 0;
        const more = () => {
          while (i < n) {
            let s = '';
            for (let k = 0; k < 64 && i < n; k++) s += ev(i++);
            if (!res.write(s)) return res.once('drain', more);
          }
          res.end(
            `data: {"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":${n}}}\n\ndata: [DONE]\n\n`,
          );
        };
        more();
      };
      if (delayMs > 0) setTimeout(stream, delayMs);
      else stream();
    });
  });
  srv.listen(0, '127.0.0.1', () => process.stdout.write(`${srv.address().port}\n`));
}

if (process.argv[2] === '--serve') {
  serve(Number(process.argv[3] ?? 0));
} else {
  await main();
}

function startServer(delayMs) {
  const child = spawn(process.execPath, [SELF, '--serve', String(delayMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({ child, url: `http://127.0.0.1:${String(d).trim()}` }));
    child.once('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
}

/** The baseline: the same streams read by a bare keep-alive node:http loop that only counts bytes. */
async function bareLoop(url, concurrency, requests, tokens) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const body = JSON.stringify({ model: 'zero', prompt: 'a b c d', max_tokens: tokens, stream: true });
  let left = requests;
  let bytes = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const req = http.request(
        `${url}/v1/completions`,
        { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (res) => {
          res.on('data', (d) => (bytes += d.length));
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await one();
    }),
  );
  const s = (performance.now() - t0) / 1000;
  agent.destroy();
  return { tokS: (requests * tokens) / s, bytes };
}

function cpuShare(fn) {
  return async (...a) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const r = await fn(...a);
    const c = process.cpuUsage(c0);
    return { r, cpu: (c.user + c.system) / 1000 / (performance.now() - t0) };
  };
}

async function main() {
  const { runBench } = await import(path.join(REPO, 'dist/src/bench/run.js'));
  const concurrency = arg('concurrency', 32);
  const requests = arg('requests', 128);
  const tokens = arg('tokens', 2000);
  const delay = arg('delay', 20);
  const plan = (over) => ({
    endpoint: 'completions',
    model: 'zero',
    prompts: [{ text: 'a b c d', maxTokens: tokens }],
    levels: [{ concurrency, rate: null }],
    arrival: 'poisson',
    requests,
    durationS: null,
    warmup: 0,
    timeoutS: 120,
    ignoreEos: true,
    slo: null,
    seed: 0,
    ...over,
  });

  const fast = await startServer(0);
  // one short pass of each to warm up both processes (JIT), then the measured ones
  await runBench(fast.url, plan({ requests: concurrency, prompts: [{ text: 'a', maxTokens: 200 }] }));
  await bareLoop(fast.url, concurrency, concurrency, 200);
  const base = await cpuShare(bareLoop)(fast.url, concurrency, requests, tokens);
  const gen = await cpuShare(runBench)(fast.url, plan({}));
  fast.child.kill();
  const m = gen.r.levels[0].metrics;

  const slow = await startServer(delay);
  const ttftRequests = 200;
  const t = await runBench(
    slow.url,
    plan({
      levels: [{ concurrency: 1, rate: null }],
      requests: ttftRequests,
      warmup: 5,
      prompts: [{ text: 'a', maxTokens: 16 }],
    }),
    { keepRecords: true },
  );
  const stamps = await (await fetch(`${slow.url}/stamps`)).json();
  slow.child.kill();
  const measured = stamps.slice(-ttftRequests); // after the warmup requests
  const errs = t.levels[0].records
    .map((r, i) => r.chunkMs[0] - r.startMs - (measured[i].firstMs - measured[i].receivedMs))
    .sort((a, b) => a - b);
  const q = (p) => errs[Math.min(errs.length - 1, Math.floor((errs.length * p) / 100))];

  const ok = (v, good) => (good ? `${v}  ✓` : `${v}  ✗`);
  console.log(
    `load generator ceiling: ${requests} requests × ${tokens} tokens at concurrency ${concurrency}, zero-latency server`,
  );
  console.log(
    `  firedup bench run      ${ok(`${Math.round(m.outputTokS).toLocaleString('en')} tok/s`, m.outputTokS >= GOAL_TOKS)} (goal ≥ ${GOAL_TOKS.toLocaleString('en')}), client CPU ${(gen.cpu * 100).toFixed(0)}% of one core, ${m.failed} failed, ${m.outputTokens} tokens (${m.tokenSource})`,
  );
  console.log(
    `  baseline: bare node:http loop, no parsing  ${Math.round(base.r.tokS).toLocaleString('en')} tok/s, client CPU ${(base.cpu * 100).toFixed(0)}%`,
  );
  console.log(`  ratio generator / baseline: ${(m.outputTokS / base.r.tokS).toFixed(2)}×`);
  console.log(
    `TTFT error (client TTFT − server's own, ${ttftRequests} requests at concurrency 1, first token after ${delay} ms):`,
  );
  console.log(
    `  median ${ok(`${q(50).toFixed(3)} ms`, Math.abs(q(50)) <= GOAL_TTFT_MS)}, p90 ${q(90).toFixed(3)} ms, p99 ${q(99).toFixed(3)} ms, max ${errs[errs.length - 1].toFixed(3)} ms (goal ≤ ${GOAL_TTFT_MS} ms)`,
  );
}
