/** Running `firedup serve` in tests: the process, raw HTTP requests, and an SSE reader. */
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import { BIN } from '../helpers.js';

export interface Served {
  child: ChildProcess;
  /** The URLs printed on stdout, one per line. */
  urls: string[];
  /** http://127.0.0.1:PORT (whatever the bind). */
  base: string;
  port: number;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** `opts.gpu`: keep the GPU probe (tests that put a fake nvidia-smi on PATH); off by default. */
export function serve(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  opts: { gpu?: boolean } = {},
): Promise<Served> {
  const gpu = opts.gpu ? [] : ['--no-gpu'];
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...gpu, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  child.stdout!.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const started = Date.now();
    // The URL lines go to stdout, then one summary line (ending "Ctrl-C to stop") to stderr.
    const poll = setInterval(() => {
      if (child.exitCode !== null || Date.now() - started > 30_000) {
        clearInterval(poll);
        child.kill('SIGKILL');
        reject(new Error(`serve did not start (exit ${child.exitCode}); stderr: ${err}`));
        return;
      }
      if (!out.endsWith('\n') || !err.includes('Ctrl-C')) return;
      clearInterval(poll);
      const urls = out.trim().split('\n');
      const port = Number(new URL(urls[0]!).port);
      resolve({
        child,
        urls,
        port,
        base: `http://127.0.0.1:${port}`,
        stderr: () => err,
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
          const code = await exited;
          clearTimeout(t);
          return code;
        },
      });
    }, 20);
  });
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json(): any;
}

/** A request with the path sent exactly as given (no URL normalisation, unlike fetch). */
export function request(
  base: string,
  rawPath: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: rawPath,
        method: opts.method ?? 'GET',
        headers: opts.headers,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (body += d));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body, json: () => JSON.parse(body) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

export interface SseEvent {
  event: string;
  data: any;
}

export interface SseClient {
  status: number;
  headers: http.IncomingHttpHeaders;
  events: SseEvent[];
  /** Resolves with the first event (from index `from`) that matches; rejects after `ms`. */
  waitFor(pred: (e: SseEvent) => boolean, ms?: number, from?: number): Promise<SseEvent>;
  close(): void;
}

export function openEvents(
  base: string,
  rawPath = '/api/events',
  headers: Record<string, string> = {},
): Promise<SseClient> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: u.hostname, port: u.port, path: rawPath, headers, agent: false }, (res) => {
      const events: SseEvent[] = [];
      const waiters = new Set<() => void>();
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const ev = /^event: (.*)$/m.exec(frame)?.[1];
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (ev && data !== undefined) events.push({ event: ev, data: JSON.parse(data) });
        }
        for (const w of waiters) w();
      });
      resolve({
        status: res.statusCode!,
        headers: res.headers,
        events,
        waitFor(pred, ms = 20_000, from = 0) {
          return new Promise((ok, fail) => {
            const check = () => {
              const hit = events.slice(from).find(pred);
              if (hit) {
                waiters.delete(check);
                clearTimeout(timer);
                ok(hit);
              }
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              fail(new Error(`no matching event in ${ms} ms; got ${events.map((e) => e.event).join(' ')}`));
            }, ms);
            waiters.add(check);
            check();
          });
        },
        close() {
          req.destroy();
        },
      });
    });
    req.on('error', reject);
  });
}
