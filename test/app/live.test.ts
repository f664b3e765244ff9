/**
 * The live session judges by the whole log: when the server's process is seen gone, the lines it wrote last are
 * read before the next verdict, not at the follower's next poll. A clean shutdown is `exited`, not `dead`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LiveSession } from '../../src/app/live.js';
import type { HttpObservation, ProcessObservation } from '../../src/core/observations.js';
import type { LiveProbes } from '../../src/probes/types.js';
import { tmpDir } from '../helpers.js';

const SERVING = [
  "[2026-02-19 13:02:11] server_args=ServerArgs(model_path='org/model', tp_size=1, port=30000)",
  '[2026-02-19 13:02:20] Load weight begin. avail mem=78.50 GB',
  '[2026-02-19 13:03:20] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=63.21 GB',
  '[2026-02-19 13:04:00] The server is fired up and ready to roll!',
  '[2026-02-19 13:04:05] Decode batch, #running-req: 3, #token: 900, token usage: 0.02, cuda graph: True, gen throughput (token/s): 812.50, #queue-req: 0',
  '',
].join('\n');
const SHUTDOWN = [
  '[2026-02-19 13:07:15] INFO:     Shutting down',
  '[2026-02-19 13:07:15] INFO:     Waiting for application shutdown.',
  '[2026-02-19 13:07:15] INFO:     Application shutdown complete.',
  '[2026-02-19 13:07:15] INFO:     Finished server process [4242]',
  '',
].join('\n');

describe('LiveSession', () => {
  it("reads the log to its end when the server's process is seen gone: a clean shutdown is exited", async () => {
    const log = path.join(tmpDir(), 'server.log');
    fs.writeFileSync(log, SERVING);
    let alive = true;
    let sawGone!: () => void;
    const gone = new Promise<void>((resolve) => {
      sawGone = resolve;
    });
    const proc = (pid: number): ProcessObservation => ({
      pid,
      alive,
      exitCode: null,
      signal: null,
      cmdline: null,
      cpuSeconds: null,
      children: [],
      listening: [],
      at: Date.now() / 1000,
    });
    const probes: LiveProbes = {
      process: async (pid) => {
        const o = proc(pid);
        if (!o.alive) setImmediate(sawGone);
        return o;
      },
      findPid: async () => ({ pid: 4242, tiedBy: 'test' }),
      http: async (url): Promise<HttpObservation> => ({
        url,
        health: { state: 'refused', status: null, ms: null, detail: null },
        version: null,
        model: null,
        serverConfig: null,
        at: Date.now() / 1000,
      }),
      gpu: async () => {
        throw new Error('no GPUs here');
      },
    };
    // The follower polls once a minute: only a read on the process's going can bring the last lines in time.
    const s = new LiveSession({ log, pid: 4242, gpu: false, pollMs: 60_000, probeMs: 50, probes });
    s.start();
    try {
      await waitUntil(() => s.tick().state === 'serving');
      fs.appendFileSync(log, SHUTDOWN);
      alive = false;
      await gone;
      const v = s.tick();
      assert.equal(v.state, 'exited', v.why);
    } finally {
      s.stop();
    }
  });
});

async function waitUntil(ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
