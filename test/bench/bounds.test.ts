/**
 * `bench run` is bounded in time and memory at every level (issue 25, item 13): against a server that accepts
 * and never answers, `--duration` ends the run on time with the requests counted failed; against one that
 * streams forever, each request is cut once it has streamed far more than it asked for, and memory stays flat.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { spawnCli } from '../helpers.js';

const CHUNK = `data: ${JSON.stringify({ id: 'x', object: 'x', choices: [{ index: 0, text: ' tok' }] })}\n\n`;

function listen(handler: http.RequestListener): Promise<{ url: string; server: http.Server }> {
  const server = http.createServer(handler);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

let silent: { url: string; server: http.Server };
let endless: { url: string; server: http.Server };
/** Chunks the endless server wrote: it must be made to stop, not merely be ignored. */
let written = 0;

before(async () => {
  // Accepts every request (the info probes too) and never answers.
  silent = await listen(() => {});
  endless = await listen((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let open = true;
    res.on('close', () => {
      open = false;
    });
    const pump = () => {
      while (open) {
        written++;
        if (!res.write(CHUNK.repeat(16))) {
          res.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
});
after(() => {
  for (const s of [silent, endless]) {
    s.server.closeAllConnections();
    s.server.close();
  }
});

/** Peak resident memory of a running process, sampled every 100 ms until it exits. */
function peakRss(pid: number): { stop(): number } {
  let peak = 0;
  const t = setInterval(() => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]) * 1024);
    } catch {
      // Exited.
    }
  }, 100);
  return {
    stop() {
      clearInterval(t);
      return peak;
    },
  };
}

describe('bench run: bounded in time and memory', () => {
  it('--duration 3s against a server that never answers ends on time, its requests failed', async () => {
    const run = spawnCli(
      [
        'bench',
        'run',
        '--url',
        silent.url,
        '--model',
        'm',
        '--duration',
        '3s',
        '-c',
        '2',
        '--json',
        '--no-ledger',
      ],
      {},
      60_000,
    );
    const r = await run.done;
    // 3 s for the info probe, 3 s of sending, 3 s more for the answers, and some for a loaded machine.
    assert.ok(r.seconds < 20, `took ${r.seconds} s`);
    assert.notEqual(r.code, null, r.stderr);
    const j = JSON.parse(r.stdout);
    const level = j.levels[0];
    assert.equal(level.completed, 0);
    assert.equal(level.failed, 2, JSON.stringify(level));
    assert.equal(level.errors[0].kind, 'timeout');
    assert.match(
      level.errors[0].message,
      /still unanswered 3 s after the level's 3 s \(--duration\) ended: cut/,
    );
  });

  it('an endless stream: each request is cut past what it asked for, memory stays flat, the run ends on time', async () => {
    const before = written;
    const run = spawnCli(
      [
        'bench',
        'run',
        '--url',
        endless.url,
        '--model',
        'm',
        '--duration',
        '4s',
        '-c',
        '4',
        '--output-len',
        '64',
        '--json',
        '--no-ledger',
      ],
      {},
      60_000,
    );
    const rss = peakRss(run.child.pid!);
    const r = await run.done;
    const peak = rss.stop();
    assert.ok(r.seconds < 20, `took ${r.seconds} s`);
    assert.notEqual(r.code, null, r.stderr);
    const level = JSON.parse(r.stdout).levels[0];
    assert.equal(level.completed, 0);
    assert.ok(level.failed >= 4, JSON.stringify(level));
    assert.equal(level.errors[0].kind, 'stream_error');
    assert.match(level.errors[0].message, /streamed over 2048 chunks for 64 tokens asked: an endless stream/);
    assert.ok(peak < 200 << 20, `peak RSS ${Math.round(peak / 1048576)} MB`);
    // The connections were closed: the server stops writing.
    const after = written;
    await new Promise((res) => setTimeout(res, 500));
    assert.ok(written - after < 100, 'the endless streams were left open');
    assert.ok(after > before);
  });
});
