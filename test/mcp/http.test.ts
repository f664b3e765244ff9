/**
 * `firedup mcp --http`: the Streamable HTTP transport on a real process, driven by the SDK's client: the same
 * tools on loopback without a token, and off loopback only with the token (the dashboard's rule).
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SCENARIOS, tmpDir } from '../helpers.js';
import { call, FIREDUP, text } from './client.js';

/** Starts `firedup mcp --http ARGS` and resolves with the URL it prints. */
function startHttp(args: string[]): Promise<{ child: ChildProcess; url: string; line: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIREDUP, 'mcp', '--http', '--port', '0', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /(http:\/\/\S+\/mcp)/.exec(out);
      if (m && out.includes('\n')) resolve({ child, url: m[1]!, line: out.trim() });
    });
    child.stderr!.on('data', (d) => {
      err += d;
    });
    child.on('exit', (code) => reject(new Error(`mcp --http exited ${code}: ${err}`)));
  });
}

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'firedup-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  await client.connect(transport);
  return client;
}

describe('firedup mcp --http', () => {
  const children: ChildProcess[] = [];
  const dir = tmpDir();
  after(() => {
    for (const c of children) c.kill('SIGTERM');
  });

  it('serves the tools on loopback without a token', async () => {
    const s = await startHttp(['--ledger', path.join(dir, 'l.db')]);
    children.push(s.child);
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.doesNotMatch(s.line, /Bearer/);
    const client = await connect(s.url);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes('status') && names.includes('wait'));
      const r = await call(client, 'status', {
        target: path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'),
      });
      assert.equal((r.structuredContent!.live as Record<string, unknown>).state, 'crashed', text(r));
      const missing = await call(client, 'status', { target: path.join(dir, 'none.log') });
      assert.equal(missing.isError, true);
      assert.match(text(missing), /none\.log: no such file/);
    } finally {
      await client.close();
    }
    // a request under a name that is not loopback (DNS rebinding) is refused
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        s.url,
        {
          method: 'POST',
          headers: {
            host: 'evil.example',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          },
        }),
      );
    });
    assert.equal(status, 401);
  });

  it('off loopback, every request needs the token', async () => {
    const token = 'test-token-0123456789abcdef';
    const s = await startHttp(['--host', '0.0.0.0', '--token', token, '--no-ledger']);
    children.push(s.child);
    const url = s.url.replace('0.0.0.0', '127.0.0.1');
    await assert.rejects(connect(url), /401|unauthorized/i);
    await assert.rejects(connect(url, 'wrong-token-0123456789abcdef'), /401|unauthorized/i);
    const client = await connect(url, token);
    try {
      const r = await call(client, 'runs', {
        target: path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'),
      });
      assert.ok(!r.isError, text(r));
    } finally {
      await client.close();
    }
  });

  it('a bound address without a token given gets a generated one, printed', async () => {
    const s = await startHttp(['--host', '0.0.0.0', '--no-ledger']);
    children.push(s.child);
    const m = /Authorization: Bearer (\S+)\)/.exec(s.line);
    assert.ok(m, s.line);
    const client = await connect(s.url.replace('0.0.0.0', '127.0.0.1'), m![1]!);
    await client.close();
  });
});
