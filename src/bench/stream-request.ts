/**
 * One streaming request to an OpenAI-compatible server, timed chunk by chunk. node:http rather than fetch: the
 * socket's data events carry no per-chunk promise or web-stream machinery, which keeps the client far from being
 * the bottleneck (npm run bench:loadgen). Every way a request can go wrong ends as a failure with its cause; a
 * request succeeds only when the stream ends with `[DONE]` after at least one generated chunk.
 */
import http from 'node:http';
import https from 'node:https';
import { readEvent } from '../core/campaign/bench/loadgen/chunk.js';
import { SseError, SseReader } from '../core/campaign/bench/loadgen/sse.js';
import type { FailureKind, RequestRecord } from '../core/campaign/bench/loadgen/types.js';

export interface StreamTarget {
  url: URL;
  agent: http.Agent;
  timeoutMs: number;
}

// An error body is for a person to read; a server that streams megabytes of it is cut.
const MAX_ERROR_BODY = 2048;

export function makeAgent(url: URL): http.Agent {
  const opts = { keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, scheduling: 'fifo' as const };
  return url.protocol === 'https:' ? new https.Agent(opts) : new http.Agent(opts);
}

function errorBody(status: number, body: string): string {
  let msg = body.trim();
  try {
    const o = JSON.parse(msg) as Record<string, unknown>;
    const e = o.error ?? o.detail ?? o.message;
    if (typeof e === 'string') msg = e;
    else if (e && typeof (e as Record<string, unknown>).message === 'string')
      msg = (e as Record<string, string>).message!;
  } catch {
    // not JSON: the text as it is
  }
  msg = msg.replace(/\s+/g, ' ').slice(0, 200);
  return `HTTP ${status}${msg ? `: ${msg}` : ''}`;
}

/**
 * A stream that goes on past what was asked is no answer: each generated chunk costs a timestamp kept until
 * the level's metrics, so an endless one grew the run's memory without bound (300 MB in a minute at 4
 * streams). Past this many chunks per token asked, plus some slack (a server may split a token's text), the
 * request fails; with nothing asked, past the hard cap.
 */
export const CHUNKS_PER_TOKEN = 16;
export const CHUNK_SLACK = 1024;
export const MAX_CHUNKS = 1 << 20;

export interface RequestLimits {
  /** The max_tokens the body asks for (bounds the chunks a request may stream). */
  maxTokens?: number;
  /** performance.now() past which the request is cut and fails (the level's time is up), and why. */
  cutAtMs?: number;
  cutWhy?: string;
}

export function maxChunksFor(maxTokens: number | undefined): number {
  return maxTokens === undefined
    ? MAX_CHUNKS
    : Math.min(MAX_CHUNKS, maxTokens * CHUNKS_PER_TOKEN + CHUNK_SLACK);
}

/** Sends `body` (JSON text) and resolves with the request's record; never rejects. */
export function streamRequest(
  t: StreamTarget,
  body: string,
  signal?: AbortSignal,
  limits: RequestLimits = {},
): Promise<RequestRecord> {
  const maxChunks = maxChunksFor(limits.maxTokens);
  const rec: RequestRecord = {
    ok: false,
    failure: null,
    startMs: performance.now(),
    endMs: 0,
    chunkMs: [],
    promptTokens: null,
    completionTokens: null,
  };
  return new Promise((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (kind: FailureKind | null, message = '') => {
      if (settled) return;
      settled = true;
      if (kind !== null || rec.endMs === 0) rec.endMs = performance.now();
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (kind === null && rec.chunkMs.length === 0) {
        kind = 'empty';
        message = 'the stream ended with [DONE] but no generated text';
      }
      rec.ok = kind === null;
      rec.failure = kind === null ? null : { kind, message };
      resolve(rec);
    };
    let res: http.IncomingMessage | null = null;
    const mod = t.url.protocol === 'https:' ? https : http;
    let req: http.ClientRequest;
    const onAbort = () => {
      finish('dropped', 'cancelled (the benchmark was interrupted)');
      req.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // Whichever comes first: the request's own timeout, or the end of the level's time.
    const ownEnd = rec.startMs + t.timeoutMs;
    const cut = limits.cutAtMs !== undefined && limits.cutAtMs < ownEnd;
    timer = setTimeout(
      () => {
        finish(
          'timeout',
          cut
            ? `${limits.cutWhy ?? 'cut at the end of the level'} (${rec.chunkMs.length} chunks received)`
            : `no complete answer within ${t.timeoutMs / 1000} s (${rec.chunkMs.length} chunks received)`,
        );
        req.destroy();
      },
      Math.max(0, (cut ? limits.cutAtMs! : ownEnd) - performance.now()),
    );
    const attempt = (retry: boolean) => {
      req = mod.request(t.url, {
        method: 'POST',
        // The one resend goes on a connection of its own: the pool may hold more sockets the server closed.
        agent: retry ? false : t.agent,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'content-length': Buffer.byteLength(body),
        },
      });
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (settled) return;
        // A kept-alive socket the server had already closed (llama-server closes after each stream): the request
        // never reached it, so it is sent again once on a fresh connection, timed from then (Node's documented fix).
        if (!retry && res === null && req.reusedSocket && e.code === 'ECONNRESET') {
          rec.startMs = performance.now();
          attempt(true);
          return;
        }
        // Before the response: could not connect or send. After: the connection broke mid-stream.
        const midStream = rec.chunkMs.length > 0 || res !== null;
        finish(
          midStream ? 'dropped' : 'connect',
          midStream
            ? `connection lost mid-stream after ${rec.chunkMs.length} chunks (${e.code ?? e.message})`
            : `${e.code ?? 'error'}: ${e.message}`,
        );
      });
      req.on('response', (r) => {
        res = r;
        r.setEncoding('utf8');
        if (r.statusCode !== 200) {
          let text = '';
          r.on('data', (d: string) => {
            if (text.length < MAX_ERROR_BODY) text += d;
          });
          r.on('end', () => finish('http', errorBody(r.statusCode ?? 0, text)));
          r.on('error', () => finish('http', errorBody(r.statusCode ?? 0, text)));
          return;
        }
        // The request is finished when the response ends, not at [DONE]: only then does the agent take the
        // socket back, and a next request sent earlier would open a new connection (about 1 ms more TTFT).
        // E2E still stops at [DONE].
        const sse = new SseReader();
        let done = false;
        let now = 0;
        // One clock read per socket read: every event in it arrived at the same moment.
        const onData = (payload: string) => {
          if (settled || done) return;
          const ev = readEvent(payload);
          if (ev.kind === 'done') {
            done = true;
            rec.endMs = now;
            return;
          }
          if (ev.kind === 'error') {
            finish('stream_error', `the server sent an error in the stream: ${ev.message.slice(0, 200)}`);
            req.destroy();
            return;
          }
          if (ev.text) {
            if (rec.chunkMs.length >= maxChunks) {
              finish(
                'stream_error',
                `the server streamed over ${maxChunks} chunks${limits.maxTokens === undefined ? '' : ` for ${limits.maxTokens} tokens asked`}: an endless stream, cut`,
              );
              req.destroy();
              return;
            }
            rec.chunkMs.push(now);
          }
          if (ev.usage) {
            if (ev.usage.promptTokens !== null) rec.promptTokens = ev.usage.promptTokens;
            if (ev.usage.completionTokens !== null) rec.completionTokens = ev.usage.completionTokens;
          }
        };
        r.on('data', (d: string) => {
          now = performance.now();
          try {
            sse.push(d, onData);
          } catch (e) {
            // a stream no OpenAI server sends (an endless line or event): this request failed, the run goes on
            if (!(e instanceof SseError)) throw e;
            finish('stream_error', e.message);
            req.destroy();
          }
        });
        r.on('end', () => {
          try {
            sse.end(onData);
          } catch (e) {
            if (!(e instanceof SseError)) throw e;
            finish('stream_error', e.message);
            return;
          }
          if (done) finish(null);
          else finish('dropped', `the stream closed before [DONE] after ${rec.chunkMs.length} chunks`);
        });
        // After [DONE] the answer is complete: a connection that breaks then costs nothing.
        r.on('aborted', () =>
          done
            ? finish(null)
            : finish(
                'dropped',
                `the server closed the connection mid-stream after ${rec.chunkMs.length} chunks`,
              ),
        );
        r.on('error', (e: NodeJS.ErrnoException) =>
          done
            ? finish(null)
            : finish(
                'dropped',
                `connection lost mid-stream after ${rec.chunkMs.length} chunks (${e.code ?? e.message})`,
              ),
        );
      });
      req.end(body);
    };
    attempt(false);
  });
}
