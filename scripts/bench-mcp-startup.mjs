#!/usr/bin/env node
// `npm run bench:mcp`: how long `firedup mcp` takes to start, next to `firedup --help` in the same run.
// `firedup mcp` is timed from its spawn to its answer to `initialize` (what an agent waits for before its first
// call); `firedup --help` from its spawn to its exit. Rounds interleave the two; the medians are compared.
// Goal (issue: firedup for coding agents): mcp <= 1.5x --help.
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

function mcpStart() {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const c = spawn(process.execPath, [bin, 'mcp'], { stdio: ['pipe', 'pipe', 'pipe'], env });
    let out = '';
    const timer = setTimeout(() => {
      c.kill('SIGKILL');
      reject(new Error('firedup mcp did not answer initialize within 30 s'));
    }, 30_000);
    c.stdout.on('data', (d) => {
      out += d;
      if (!out.includes('\n')) return;
      const t = performance.now() - t0;
      clearTimeout(timer);
      if (!/"serverInfo"/.test(out)) reject(new Error(`unexpected answer: ${out.slice(0, 200)}`));
      c.stdin.end();
      c.on('close', () => resolve(t));
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
  await mcpStart();
  help();
  const m = [];
  const h = [];
  for (let i = 0; i < runs; i++) {
    m.push(await mcpStart());
    h.push(help());
  }
  const ratio = median(m) / median(h);
  process.stdout.write(
    [
      `firedup mcp startup (${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}): medians of ${runs} interleaved rounds`,
      `  firedup --help (to exit)              ${median(h).toFixed(1)} ms`,
      `  firedup mcp (to initialize answered)  ${median(m).toFixed(1)} ms  ${ratio.toFixed(2)}x --help  goal <= ${GOAL}x: ${ratio <= GOAL ? 'PASS' : 'FAIL'}`,
      '',
    ].join('\n'),
  );
}

main().catch((err) => {
  process.stderr.write(`bench: FAILED: ${err.message}\n`);
  process.exitCode = 1;
});
