/**
 * `firedup serve`'s HTTP server, on node:http alone. Routing is strict: a fixed table of paths, GET and HEAD
 * only; everything else is a JSON 404 or 405. Every response carries the security headers; every request
 * passes the token check first (auth.ts).
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FleetTarget } from '../app/fleet.js';
import type { LaunchRecord } from '../core/campaign/records.js';
import type { LedgerStore } from '../store/ledger-store.js';
import { Api, HttpError } from './api.js';
import type { LiveSummary, LiveTarget } from './api-types.js';
import { checkAuth } from './auth.js';
import { EventHub, parseWant, type Want } from './events.js';
import { renderMetrics } from './metrics.js';
import { scrub } from './scrub.js';
import { readStatic, type StaticFile, staticTable } from './static.js';

export const SECURITY_HEADERS: Record<string, string> = {
  // The pages are static files with no inline script or style: only this origin's files may run.
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const SUMMARY_MS = 1000;

/** A target's state as its card shows it (web/js/pages/live.js). */
function liveState(t: LiveTarget): string {
  return t.unreachable ? 'unreachable' : (t.verdict?.state ?? 'waiting');
}

export interface ServerOptions {
  ledger: LedgerStore;
  targets: readonly FleetTarget[];
  /** null: no token (loopback bind). */
  token: string | null;
  /** Overrides the repository's web/ (tests). */
  webRoot?: string;
}

export class DashboardServer {
  readonly http: http.Server;
  readonly hub = new EventHub();
  private readonly api: Api;
  private readonly files: Map<string, StaticFile>;

  constructor(private readonly opts: ServerOptions) {
    this.api = new Api(opts.ledger, () => opts.targets.map((t) => t.snapshot()));
    this.files = staticTable(opts.webRoot);
    this.http = http.createServer((req, res) => {
      this.handle(req, res).catch((err) => this.fail(res, req, err));
    });
    // A page left open is an SSE stream held forever; keep-alive sockets must not outlive close().
    this.http.keepAliveTimeout = 5000;
    for (const t of opts.targets) {
      t.on('live', (snap: LiveTarget) => {
        this.noteState(snap);
        // Scrubbing copies the whole launch (its config of hundreds of keys): only for pages that asked for
        // this card. With 50 targets loading, that copy for nobody was most of serve's garbage (bench:fleet).
        if (this.hub.wants(snap.name)) this.hub.send('live', scrub(snap), `live:${snap.name}`, snap.name);
      });
      t.on('launch', (rec: LaunchRecord) => {
        if (this.hub.size === 0) return;
        this.api.summary(rec).then(
          (row) => this.hub.send('launch', row, `launch:${row.id}`),
          // The ledger is busy: the page gets the launch with its next change or reload.
          () => {},
        );
      });
    }
  }

  /** Each target's state, for the summary every client gets (a count per state, not the cards). */
  private readonly states = new Map<string, string>();
  private summaryTimer: NodeJS.Timeout | null = null;

  private noteState(snap: LiveTarget): void {
    const state = liveState(snap);
    if (this.states.get(snap.name) === state) return;
    this.states.set(snap.name, state);
    // Many targets change at once (a fleet starting): one summary a second at most.
    if (this.summaryTimer || this.hub.size === 0) return;
    this.summaryTimer = setTimeout(() => {
      this.summaryTimer = null;
      this.hub.send('summary', this.liveSummary(), 'summary');
    }, SUMMARY_MS);
    this.summaryTimer.unref();
  }

  /** How many targets are watched and how many are in each state: bounded by the states, not the targets. */
  liveSummary(): LiveSummary {
    const states: Record<string, number> = {};
    for (const t of this.opts.targets) {
      const snap = t.snapshot();
      const st = this.states.get(snap.name) ?? liveState(snap);
      states[st] = (states[st] ?? 0) + 1;
    }
    return { targets: this.opts.targets.length, states };
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error) => reject(e);
      this.http.once('error', onError);
      this.http.listen(port, host, () => {
        this.http.off('error', onError);
        resolve(this.http.address() as AddressInfo);
      });
    });
  }

  close(): Promise<void> {
    if (this.summaryTimer) clearTimeout(this.summaryTimer);
    this.hub.close();
    return new Promise((resolve) => {
      this.http.close(() => resolve());
      this.http.closeAllConnections();
    });
  }

  private send(
    res: ServerResponse,
    req: IncomingMessage,
    status: number,
    type: string,
    body: string | Buffer,
    extra: Record<string, string> = {},
  ): void {
    const buf = typeof body === 'string' ? Buffer.from(body) : body;
    res.writeHead(status, {
      ...SECURITY_HEADERS,
      'Content-Type': type,
      'Content-Length': String(buf.length),
      'Cache-Control': 'no-store',
      ...extra,
    });
    res.end(req.method === 'HEAD' ? undefined : buf);
  }

  private json(res: ServerResponse, req: IncomingMessage, status: number, body: unknown, extra = {}): void {
    this.send(res, req, status, 'application/json; charset=utf-8', JSON.stringify(body), extra);
  }

  private fail(res: ServerResponse, req: IncomingMessage, err: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof HttpError) this.json(res, req, err.status, { error: err.message });
    else this.json(res, req, 500, { error: `internal error: ${(err as Error)?.message ?? String(err)}` });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    // Only origin-form paths: no absolute URLs, no `*`, no backslashes or encoded dots and slashes to reinterpret.
    let url: URL;
    try {
      if (!raw.startsWith('/') || raw.startsWith('//')) throw new Error('not a path');
      url = new URL(raw, 'http://firedup.invalid');
      // A path the URL parser had to normalise (`..`, `%2e%2e`, `\\`) is no route of ours.
      const q = raw.indexOf('?');
      if ((q < 0 ? raw : raw.slice(0, q)) !== url.pathname) throw new Error('not a canonical path');
    } catch {
      this.json(res, req, 404, { error: 'not found' });
      return;
    }
    const auth = checkAuth(req, url, this.opts.token);
    if (!auth.ok) {
      const msg =
        this.opts.token === null
          ? `forbidden: ${auth.reason}; open the URL printed by firedup serve`
          : `unauthorized (${auth.reason}): open the URL printed by firedup serve (it carries ?token=...), or send Authorization: Bearer <token>`;
      const status = this.opts.token === null ? 403 : 401;
      const extra: Record<string, string> =
        status === 401 ? { 'WWW-Authenticate': 'Bearer realm="firedup"' } : {};
      if (url.pathname.startsWith('/api/') || url.pathname === '/metrics')
        this.json(res, req, status, { error: msg }, extra);
      else this.send(res, req, status, 'text/plain; charset=utf-8', `${msg}\n`, extra);
      return;
    }
    const cookie: Record<string, string> = auth.setCookie ? { 'Set-Cookie': auth.setCookie } : {};
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      this.json(
        res,
        req,
        405,
        { error: `method ${req.method} not allowed: GET or HEAD only` },
        { Allow: 'GET, HEAD' },
      );
      return;
    }
    const p = url.pathname;
    // The page's own URL with the token: set the cookie, then drop the token from the address bar.
    if (p === '/' && auth.fromQuery) {
      res.writeHead(303, { ...SECURITY_HEADERS, ...cookie, Location: '/', 'Cache-Control': 'no-store' });
      res.end();
      return;
    }
    const file = this.files.get(p);
    if (file) {
      const body = await readStatic(file);
      if (!body) {
        this.json(res, req, 404, { error: `${p}: ${file.file} is missing from this installation` });
        return;
      }
      this.send(res, req, 200, file.type, body, { ...cookie, 'Cache-Control': 'no-cache' });
      return;
    }
    if (p === '/metrics') {
      const text = renderMetrics(this.opts.targets.map((t) => t.metrics()));
      this.send(res, req, 200, 'text/plain; version=0.0.4; charset=utf-8', text, cookie);
      return;
    }
    if (p === '/api/events') {
      if (req.method === 'HEAD') {
        this.send(res, req, 200, 'text/event-stream; charset=utf-8', '', cookie);
        return;
      }
      let want: Want;
      try {
        want = parseWant(url.searchParams);
      } catch (e) {
        throw new HttpError(400, (e as Error).message);
      }
      const initial: Array<[string, unknown]> = [['summary', this.liveSummary()]];
      for (const t of this.opts.targets) {
        const snap = t.snapshot();
        if (want === 'all' || want?.has(snap.name)) initial.push(['live', scrub(snap)]);
      }
      this.hub.attach(res, { ...SECURITY_HEADERS, ...cookie }, want, initial);
      return;
    }
    const q = url.searchParams;
    let body: unknown;
    if (p === '/api/launches') body = await this.api.launches(q);
    else if (p === '/api/compare') body = await this.api.compare(q);
    else if (p === '/api/live') body = this.api.liveTargets();
    else if (p === '/api/sweeps') body = await this.api.sweeps();
    else if (p.startsWith('/api/sweeps/')) {
      let name: string;
      try {
        name = decodeURIComponent(p.slice('/api/sweeps/'.length));
      } catch {
        throw new HttpError(404, 'not found: bad sweep name');
      }
      body = await this.api.sweep(name);
    } else {
      const m = /^\/api\/launches\/([^/]+)$/.exec(p);
      if (!m) {
        this.json(res, req, 404, { error: `not found: ${p.slice(0, 200)}` });
        return;
      }
      let ref: string;
      try {
        ref = decodeURIComponent(m[1]!);
      } catch {
        throw new HttpError(404, 'not found: bad launch id');
      }
      body = await this.api.launch(ref);
    }
    this.json(res, req, 200, body, cookie);
  }
}
