import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { probeHttp } from '../../src/probes/http.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
const servers: http.Server[] = [];

async function serve(handler: Handler): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

after(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Routes by path; anything else is a 404, as on a server without that endpoint. */
function routes(table: Record<string, Handler>): Handler {
  return (req, res) => (table[req.url ?? ''] ?? ((_, r) => json(r, 404, { detail: 'Not Found' })))(req, res);
}

const SERVER_INFO = {
  model_path: '/models/GLM-5-NVFP4',
  tp_size: 8,
  api_key: 'sk-live-abcdefghijklmnopqrstuvwxyz',
  admin_api_key: null,
  mem_fraction_static: 0.85,
  version: '0.5.4',
};

describe('probeHttp', () => {
  it('sglang: 503 while starting, then 200 with server_info redacted', async () => {
    let ready = false;
    const url = await serve(
      routes({
        '/health': (_, res) => res.writeHead(ready ? 200 : 503).end(),
        '/server_info': (_, res) => json(res, 200, SERVER_INFO),
        '/model_info': (_, res) => json(res, 200, { model_path: '/models/GLM-5-NVFP4', is_generation: true }),
      }),
    );
    const starting = await probeHttp(url, 'sglang');
    assert.deepEqual([starting.health.state, starting.health.status], ['http', 503]);
    assert.deepEqual([starting.version, starting.model, starting.serverConfig], [null, null, null]);
    assert.equal(typeof starting.health.ms, 'number');

    ready = true;
    const o = await probeHttp(`${url}/`, 'sglang');
    assert.deepEqual([o.health.state, o.health.status], ['http', 200]);
    assert.equal(o.version, '0.5.4');
    assert.equal(o.model, '/models/GLM-5-NVFP4');
    assert.equal(o.serverConfig?.api_key, '<redacted>');
    assert.equal(o.serverConfig?.admin_api_key, null);
    assert.equal(o.serverConfig?.tp_size, 8);
    assert.equal(o.url, `${url}/`);
    assert.doesNotMatch(JSON.stringify(o), /sk-live/);
  });

  it('sglang before 0.4: falls back to /get_server_info and /get_model_info', async () => {
    const url = await serve(
      routes({
        '/health': (_, res) => res.writeHead(200).end(),
        '/get_server_info': (_, res) =>
          json(res, 200, { ...SERVER_INFO, model_path: undefined, version: '0.3.6' }),
        '/get_model_info': (_, res) => json(res, 200, { model_path: '/models/old' }),
      }),
    );
    const o = await probeHttp(url, 'sglang');
    assert.equal(o.version, '0.3.6');
    assert.equal(o.model, '/models/old');
    assert.equal(o.serverConfig?.api_key, '<redacted>');
  });

  it('vllm: /version and /v1/models', async () => {
    const url = await serve(
      routes({
        '/health': (_, res) => res.writeHead(200).end(),
        '/version': (_, res) => json(res, 200, { version: '0.11.0' }),
        '/v1/models': (_, res) =>
          json(res, 200, { object: 'list', data: [{ id: 'meta-llama/Llama-3.1-8B' }] }),
      }),
    );
    const o = await probeHttp(url, 'vllm');
    assert.deepEqual([o.version, o.model, o.serverConfig], ['0.11.0', 'meta-llama/Llama-3.1-8B', null]);
  });

  it('llama.cpp: 503 "Loading model", then /props', async () => {
    let ready = false;
    const url = await serve(
      routes({
        '/health': (_, res) =>
          ready
            ? json(res, 200, { status: 'ok' })
            : json(res, 503, { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } }),
        '/props': (_, res) =>
          json(res, 200, {
            model_path: '/models/qwen.gguf',
            build_info: 'b6123-abcdef0',
            total_slots: 4,
            chat_template: '{% for m in messages %}...',
          }),
      }),
    );
    const loading = await probeHttp(url, 'llamacpp');
    assert.deepEqual([loading.health.status, loading.health.detail], [503, 'Loading model']);
    ready = true;
    const o = await probeHttp(url, 'llamacpp');
    assert.deepEqual([o.health.status, o.health.detail], [200, 'ok']);
    assert.deepEqual([o.version, o.model], ['b6123-abcdef0', '/models/qwen.gguf']);
    assert.equal(o.serverConfig?.total_slots, 4);
    assert.equal(o.serverConfig && 'chat_template' in o.serverConfig, false);
  });

  it('healthy server whose info endpoints hang: still healthy, info left null, within the timeouts', async () => {
    const url = await serve(
      routes({
        '/health': (_, res) => res.writeHead(200).end(),
        '/server_info': () => {},
        '/model_info': () => {},
      }),
    );
    const t0 = performance.now();
    const o = await probeHttp(url, 'sglang', { timeoutMs: 200 });
    assert.ok(performance.now() - t0 < 1500);
    assert.deepEqual([o.health.status, o.version, o.model, o.serverConfig], [200, null, null, null]);
  });

  it('nothing listening: refused', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const o = await probeHttp(`http://127.0.0.1:${port}`, 'sglang');
    assert.deepEqual([o.health.state, o.health.status, o.health.detail], ['refused', null, 'ECONNREFUSED']);
  });

  it('a server that never answers: timeout, within about timeoutMs', async () => {
    const url = await serve(() => {});
    const t0 = performance.now();
    const o = await probeHttp(url, 'vllm', { timeoutMs: 300 });
    const took = performance.now() - t0;
    assert.equal(o.health.state, 'timeout');
    assert.ok(took >= 250 && took < 1000, `took ${took} ms`);
  });

  it('a connection dropped before any answer: error with the code', async () => {
    const sockets = net.createServer((s) => s.destroy());
    await new Promise<void>((r) => sockets.listen(0, '127.0.0.1', r));
    try {
      const o = await probeHttp(`http://127.0.0.1:${(sockets.address() as net.AddressInfo).port}`, null);
      assert.equal(o.health.state, 'error');
      assert.ok(o.health.detail, 'detail names the failure');
    } finally {
      await new Promise((r) => sockets.close(r));
    }
  });

  it('unknown engine: /health, then the OpenAI model list', async () => {
    const url = await serve(
      routes({
        '/health': (_, res) => res.writeHead(200).end(),
        '/v1/models': (_, res) => json(res, 200, { data: [{ id: 'some-model' }] }),
      }),
    );
    const o = await probeHttp(url, null);
    assert.deepEqual([o.health.status, o.model, o.version], [200, 'some-model', null]);
  });
});
