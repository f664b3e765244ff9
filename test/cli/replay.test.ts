import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { replayCommand } from '../../src/cli/replay.js';
import { BIN, runCli, SCENARIOS, tmpDir } from '../helpers.js';

async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** One request: status and body, or the connection error's code (ECONNREFUSED). */
async function get(port: number, p: string): Promise<{ status: number; body: string } | string> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

/** Polls until `ok` holds for a response, recording every distinct answer on the way. */
async function pollUntil(port: number, p: string, ok: (r: Awaited<ReturnType<typeof get>>) => boolean) {
  const seen: string[] = [];
  const end = Date.now() + 5000;
  for (;;) {
    const r = await get(port, p);
    const key = typeof r === 'string' ? r : `${r.status} ${r.body}`;
    if (seen.at(-1) !== key) seen.push(key);
    if (ok(r)) return { last: r, seen };
    if (Date.now() > end) assert.fail(`no answer as expected on ${p}; seen: ${JSON.stringify(seen)}`);
    await new Promise((res) => setTimeout(res, 10));
  }
}

describe('firedup replay', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('appends the recorded log to the output, byte for byte', async () => {
    const src = path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log');
    const out = path.join(dir, 'live.log');
    fs.writeFileSync(out, 'a previous launch\n');
    const t0 = Date.now();
    assert.equal(await replayCommand([src, '--speed', '100', '--out', out]), 0);
    const took = (Date.now() - t0) / 1000;
    assert.deepEqual(
      fs.readFileSync(out),
      Buffer.concat([Buffer.from('a previous launch\n'), fs.readFileSync(src)]),
    );
    // 82 s of log with a 37 s pause cut to 30: about 0.72 s at speed 100.
    assert.ok(took > 0.6 && took < 2, `took ${took}s`);
  });

  it('--serve: refused before uvicorn starts, 200 after "fired up", closed after the shutdown', async () => {
    const src = path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log');
    const out = path.join(dir, 'serve.log');
    const port = await freePort();
    const done = replayCommand([src, '--speed', '200', '--out', out, '--serve', String(port)]);
    // uvicorn starts 92 s into the log: 0.4 s into the replay.
    assert.equal(await get(port, '/health'), 'ECONNREFUSED');
    const { seen } = await pollUntil(port, '/health', (r) => typeof r !== 'string' && r.status === 200);
    assert.equal(seen[0], 'ECONNREFUSED');
    assert.ok(fs.readFileSync(out, 'utf8').includes('The server is fired up and ready to roll!'));
    const models = await get(port, '/v1/models');
    assert.ok(typeof models !== 'string');
    assert.equal(JSON.parse(models.body).data[0].id, 'lukealonso/GLM-5-NVFP4');
    const info = await get(port, '/server_info');
    assert.ok(typeof info !== 'string');
    assert.equal(JSON.parse(info.body).tp_size, 8);
    assert.equal(await done, 0);
    assert.equal(await get(port, '/health'), 'ECONNREFUSED');
    assert.deepEqual(fs.readFileSync(out), fs.readFileSync(src));
  });

  it('--serve with llama.cpp: 503 "Loading model" while it loads, then 200', async () => {
    const src = path.join(dir, 'llama.log');
    fs.writeFileSync(
      src,
      [
        '0.00.000.100 I build: 6000 (abcdef12) with cc for x86_64-linux-gnu',
        '0.00.000.200 I system info: n_threads = 16 | CUDA : ARCHS = 900 |',
        '0.00.200.000 I main: HTTP server is listening, hostname: 127.0.0.1, port: 8080, http threads: 15',
        '0.00.200.100 I main: loading model',
        '0.00.300.000 I llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from model.gguf',
        '0.00.700.000 I load_tensors:        CUDA0 model buffer size =  4403.49 MiB',
        '0.00.800.000 I main: model loaded',
        '0.00.800.100 I main: server is listening on http://127.0.0.1:8080 - starting the main loop',
        '0.01.000.000 I srv  update_slots: all slots are idle',
        '',
      ].join('\n'),
    );
    const port = await freePort();
    const done = replayCommand([
      src,
      '--speed',
      '1',
      '--out',
      path.join(dir, 'llama-live.log'),
      '--serve',
      String(port),
    ]);
    const { seen } = await pollUntil(port, '/health', (r) => typeof r !== 'string' && r.status === 200);
    assert.deepEqual(seen, [
      'ECONNREFUSED',
      '503 {"error":{"message":"Loading model","type":"unavailable_error","code":503}}',
      '200 {"status":"ok"}',
    ]);
    assert.equal(await done, 0);
  });

  it('SIGTERM stops it cleanly: a prefix of whole lines written, the port released', async () => {
    const src = path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log');
    const out = path.join(dir, 'term.log');
    const port = await freePort();
    const child = spawn(process.execPath, [
      BIN,
      'replay',
      src,
      '--speed',
      '100',
      '--out',
      out,
      '--serve',
      String(port),
    ]);
    const code = new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    await pollUntil(port, '/health', (r) => typeof r !== 'string');
    child.kill('SIGTERM');
    assert.equal(await code, 143);
    const written = fs.readFileSync(out, 'utf8');
    assert.ok(written.endsWith('\n') && fs.readFileSync(src, 'utf8').startsWith(written));
    assert.equal(await get(port, '/health'), 'ECONNREFUSED');
  });

  it('mistakes get one line and exit 1', async () => {
    const src = path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log');
    const cases: Array<[string[], RegExp]> = [
      [[path.join(dir, 'nope.log'), '--out', path.join(dir, 'x.log')], /nope\.log: no such file/],
      [[dir, '--out', path.join(dir, 'x.log')], /is a directory/],
      [[src, '--speed', 'fast'], /--speed fast: needs a number above 0/],
      [[src, '--max-gap', '-1'], /--max-gap -1: needs seconds/],
      [[src, '--serve', '0'], /--serve 0: needs a port/],
      [[src, '--bogus'], /unknown option --bogus/],
      [[], /name one recorded log/],
      [[src, '--out', path.join(dir, 'no', 'such', 'dir.log')], /--out .*dir\.log: cannot write \(ENOENT\)/],
    ];
    for (const [args, re] of cases) {
      const r = runCli(['replay', ...args]);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^firedup: [^\n]*\n$/);
      assert.match(r.stderr, re);
    }
  });

  it('a port in use is named before anything is written', async () => {
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    const { port } = s.address() as AddressInfo;
    const out = path.join(dir, 'busy.log');
    try {
      const src = path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log');
      const r = runCli(['replay', src, '--out', out, '--serve', String(port)]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`--serve ${port}: port already in use`));
      assert.equal(fs.existsSync(out), false);
    } finally {
      await new Promise<void>((r) => s.close(() => r()));
    }
  });
});
