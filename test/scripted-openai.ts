/**
 * A deterministic OpenAI-compatible streaming server for the load generator's tests: each request follows a
 * script (time to first token, gap between tokens, token count, or a failure), and the server keeps its own
 * timestamps of when it received each request and wrote each token, to hold the client's figures against.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Script =
  | { kind: 'ok'; ttftMs: number; itlMs: number; tokens: number; usage?: boolean; chat?: boolean }
  | { kind: 'http500' }
  | { kind: 'hang' }
  /** Writes `after` tokens, then destroys the socket (a crashed server). */
  | { kind: 'drop'; after: number }
  /** Writes `after` tokens, then ends the response cleanly but without [DONE]. */
  | { kind: 'close'; after: number }
  | { kind: 'stream_error'; after: number }
  /** Writes `tokens` chunks with no blank line between the events (a non-conforming server), then [DONE]. */
  | { kind: 'no_blank'; tokens: number }
  /** Writes one `data:` event of `mb` megabytes that never ends, then closes. */
  | { kind: 'endless'; mb: number };

export interface Served {
  receivedMs: number;
  tokenMs: number[];
  body: Record<string, unknown>;
}

export interface ScriptedServer {
  url: string;
  served: Served[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until `t` with timers only: a busy-wait would block the client sharing this process. Timers wake a little
 * late, so tests hold the client against the times recorded in `served`, which are when tokens were really written.
 */
async function until(t: number): Promise<void> {
  const left = t - performance.now();
  if (left > 0) await sleep(left);
}

function chunk(i: number, chat: boolean): string {
  const text = ` t${i}`;
  const choice = chat ? { index: 0, delta: { content: text } } : { index: 0, text };
  return `data: ${JSON.stringify({ id: 'x', object: 'x', choices: [choice] })}\n\n`;
}

export function startScripted(
  script: (i: number, body: Record<string, unknown>) => Script,
): Promise<ScriptedServer> {
  const served: Served[] = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    // Receipt is when the request's headers are in: the body (a few hundred bytes) comes in the same packet.
    const receivedMs = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (d) => chunks.push(d));
    req.on('end', async () => {
      if (req.url === '/ping') {
        res.end('pong');
        return;
      }
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ object: 'list', data: [{ id: 'scripted-model', object: 'model' }] }));
        return;
      }
      if (req.method !== 'POST') {
        res.writeHead(404);
        res.end('not found');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      const s = script(n++, body);
      const rec: Served = { receivedMs, tokenMs: [], body };
      served.push(rec);
      if (s.kind === 'http500') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'scripted internal error' } }));
        return;
      }
      if (s.kind === 'hang') return; // never answers; the client's timeout ends it
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chat = s.kind === 'ok' && s.chat === true;
      if (chat)
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant' } }] })}\n\n`);
      if (s.kind === 'no_blank') {
        for (let i = 0; i < s.tokens; i++) res.write(chunk(i, false).replace(/\n\n$/, '\n'));
        res.end('data: [DONE]\n');
        return;
      }
      if (s.kind === 'endless') {
        res.write('data: {"choices":[{"text":"');
        const piece = 'x'.repeat(1 << 20);
        for (let i = 0; i < s.mb && !res.destroyed; i++) {
          if (!res.write(piece)) await new Promise((r) => res.once('drain', r));
        }
        res.end();
        return;
      }
      if (s.kind === 'ok') {
        let t = receivedMs + s.ttftMs;
        for (let i = 0; i < s.tokens; i++) {
          await until(t);
          rec.tokenMs.push(performance.now());
          res.write(chunk(i, chat));
          t += s.itlMs;
        }
        if (s.usage !== false) {
          const prompt = String(body.prompt ?? '');
          const usage = {
            prompt_tokens: prompt.split(' ').length,
            completion_tokens: s.tokens,
            total_tokens: 0,
          };
          res.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`);
        }
        res.end('data: [DONE]\n\n');
        return;
      }
      for (let i = 0; i < s.after; i++) {
        rec.tokenMs.push(performance.now());
        res.write(chunk(i, false));
        await sleep(2);
      }
      if (s.kind === 'drop') res.socket?.destroy();
      else if (s.kind === 'close') res.end();
      else {
        res.write(
          `data: ${JSON.stringify({ error: { message: 'scripted engine failure', code: 500 } })}\n\n`,
        );
        res.end();
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({
        url: `http://127.0.0.1:${port}`,
        served,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

/**
 * The median round trip of a bare node:http POST to the server: what the machine's loopback and scheduler add
 * to any client's view of the server's stamps (about 0.1 ms on an idle machine, near 1 ms on a loaded one).
 */
export async function loopbackRttMs(url: string, n = 30): Promise<number> {
  const agent = new http.Agent({ keepAlive: true });
  const rtt: number[] = [];
  for (let i = 0; i < n; i++) {
    // After an idle pause, as a token after a scripted wait: waking an idle process is most of the cost.
    await sleep(10);
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${url}/ping`, { method: 'POST', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end('{}');
    });
    rtt.push(performance.now() - t0);
  }
  agent.destroy();
  return rtt.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}
