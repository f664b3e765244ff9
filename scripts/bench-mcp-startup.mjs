#!/usr/bin/env node
// `npm run bench:mcp`: how long `firedup mcp` takes to start, next to `firedup --help` in the same run.
// `firedup mcp` is timed from its spawn to its answer to `initialize` (what an agent waits for before its first
// call); `firedup --help` from its spawn to its exit. Rounds interleave the two; the medians are compared.
// Goal (issue: firedup for coding agents): mcp <= 1.5x --help.
// For reference, in the same rounds: the time to the answer to the first `tools/list` (sent after
// `initialized`: the whole server loaded), and `initialize` answered by the SDK's server itself, without the
// front that answers it before the SDK is loaded (FIREDUP_MCP_FRONT=off, src/mcp/front.ts).
//
// usage: node scripts/bench-mcp-startup.mjs [--runs N] [--bin PATH]
// Exits 0 whatever the timings say; 1 when it cannot produce a measurement.

import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GOAL = 1.5;
const argv = process.argv.slice(2);
const opt = (name, def) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : def;
};
const runs = Number(opt('--runs', '21'));
const bin = path.resolve(opt('--bin', path.join(REPO, 'bin', 'firedup.js')));
const env = { ...process.env, FIREDUP_LEDGER: 'off', NO_COLOR: '1' };
// As bench:startup: Node parses NODE_EXTRA_CA_CERTS at every start, which pads both sides alike.
delete env.NODE_EXTRA_CA_CERTS;

const INIT = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
})}\n`;

const LIST = `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n${JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/list',
})}\n`;

/** ms from spawn to the answer to initialize, and (with `list`) to the answer to tools/list. */
function mcpStart({ list = false, front = true } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const c = spawn(process.execPath, [bin, 'mcp'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: front ? env : { ...env, FIREDUP_MCP_FRONT: 'off' },
    });
    let out = '';
    let init = null;
    const timer = setTimeout(() => {
      c.kill('SIGKILL');
      reject(new Error('firedup mcp did not answer within 30 s'));
    }, 30_000);
    const done = (t) => {
      clearTimeout(timer);
      c.stdin.end();
      c.on('close', () => resolve(t));
    };
    c.stdout.on('data', (d) => {
      out += d;
      const lines = out.split('\n');
      if (init === null && lines.length > 1) {
        init = performance.now() - t0;
        if (!/"serverInfo"/.test(lines[0]))
          return reject(new Error(`unexpected answer: ${out.slice(0, 200)}`));
        if (!list) return done({ init });
        c.stdin.write(LIST);
      }
      if (list && lines.length > 2) {
        if (!/"tools"/.test(lines[1]))
          return reject(new Error(`unexpected answer: ${lines[1].slice(0, 200)}`));
        done({ init, list: performance.now() - t0 });
      }
    });
    c.on('error', reject);
    c.stdin.write(INIT);
  });
}

function help() {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bin, '--help'], { env, stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`firedup --help exited ${r.status}`);
  return performance.now() - t0;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
};

async function main() {
  // one of each first: the code caches exist, as after first use
  await mcpStart({ list: true });
  help();
  const m = [];
  const h = [];
  const l = [];
  const off = [];
  for (let i = 0; i < runs; i++) {
    const r = await mcpStart({ list: true });
    m.push(r.init);
    l.push(r.list);
    h.push(help());
    off.push((await mcpStart({ front: false })).init);
  }
  const ratio = median(m) / median(h);
  const x = (xs) => `${median(xs).toFixed(1)} ms  ${(median(xs) / median(h)).toFixed(2)}x --help`;
  process.stdout.write(
    [
      `firedup mcp startup (${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}): medians of ${runs} interleaved rounds`,
      `  firedup --help (to exit)              ${median(h).toFixed(1)} ms`,
      `  firedup mcp (to initialize answered)  ${x(m)}  goal <= ${GOAL}x: ${ratio <= GOAL ? 'PASS' : 'FAIL'}`,
      `    to tools/list answered              ${x(l)}`,
      `    initialize, FIREDUP_MCP_FRONT=off   ${x(off)}`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`bench: FAILED: ${err.message}\n`);
  process.exitCode = 1;
});
