/**
 * `firedup mcp --http`: the Streamable HTTP transport, one MCP session per client (Mcp-Session-Id), at /mcp.
 * Who may talk to it is the dashboard's rule (web/auth.ts): on loopback anyone on this machine under a
 * loopback Host name (no DNS rebinding); on any other address every request carries the token.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { checkAuth } from '../web/auth.js';

// The token's rules, for `firedup mcp --http`'s flags (cli/mcp.ts), which takes them from here rather than the web face.
export { generateToken, isLoopbackHost, TOKEN_RE } from '../web/auth.js';

import type { McpContext } from './context.js';
import { createMcpServer } from './server.js';

/** Sessions one server keeps at once; the oldest idle one goes first past this. */
const MAX_SESSIONS = 64;
/** A request body larger than this is refused (a tool call is a few hundred bytes). */
const MAX_BODY = 1024 * 1024;

export interface HttpOptions {
  host: string;
  port: number;
  token: string | null;
}

function reply(res: http.ServerResponse, status: number, message: string, code = -32000): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new Error(`request body over ${MAX_BODY} bytes`);
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export class McpHttpServer {
  private readonly sessions = new Map<string, { transport: StreamableHTTPServerTransport; used: number }>();
  private readonly server: http.Server;

  constructor(
    private readonly ctx: McpContext,
    private readonly version: string,
    private readonly opts: HttpOptions,
  ) {
    this.server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: Error) => reply(res, 500, `firedup mcp: ${err.message}`, -32603));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port, this.opts.host, () => resolve());
    });
    const a = this.server.address() as AddressInfo;
    const host = a.family === 'IPv6' ? `[${a.address}]` : a.address;
    return `http://${host}:${a.port}/mcp`;
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) await s.transport.close().catch(() => {});
    this.sessions.clear();
    await new Promise<void>((r) => this.server.close(() => r()));
    this.server.closeAllConnections?.();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = checkAuth(req, url, this.opts.token);
    if (!auth.ok) return reply(res, 401, `unauthorized: ${auth.reason}`);
    if (url.pathname !== '/mcp') return reply(res, 404, `no ${url.pathname} here: the MCP endpoint is /mcp`);
    const sid = req.headers['mcp-session-id'];
    const id = Array.isArray(sid) ? sid[0] : sid;
    let body: unknown;
    if (req.method === 'POST') {
      try {
        body = await readBody(req);
      } catch (err) {
        return reply(res, 400, `bad request body: ${(err as Error).message}`, -32700);
      }
    }
    if (id !== undefined) {
      const s = this.sessions.get(id);
      if (!s) return reply(res, 404, `no session ${id}: initialize a new one`);
      s.used = Date.now();
      return s.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body))
      return reply(res, 400, 'no Mcp-Session-Id: the first request of a session is initialize');
    if (this.sessions.size >= MAX_SESSIONS) this.dropOldest();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (newId) => {
        this.sessions.set(newId, { transport, used: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    const server = createMcpServer(this.ctx, this.version);
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  private dropOldest(): void {
    let oldest: string | null = null;
    let at = Number.POSITIVE_INFINITY;
    for (const [k, v] of this.sessions)
      if (v.used < at) {
        at = v.used;
        oldest = k;
      }
    if (oldest) {
      this.sessions
        .get(oldest)
        ?.transport.close()
        .catch(() => {});
      this.sessions.delete(oldest);
    }
  }
}
