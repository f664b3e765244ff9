/**
 * The live session judges by the whole log: when the server's process is seen gone, the lines it wrote last are
 * read before the next verdict, not at the follower's next poll. A clean shutdown is `exited`, not `dead`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LiveSession } from '../../src/app/live.js';
import type { HttpObservation, ProcessObservation } from '../../src/core/verdict/observations.js';
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

  it('gives no verdict before the log is read to its end: an old launch serving for 60 MB, then a relaunch that crashed', async () => {
    const log = path.join(tmpDir(), 'long.log');
    const fd = fs.openSync(log, 'w');
    fs.writeSync(fd, SERVING);
    const decode = SERVING.split('\n')[4]!;
    const block = `${decode}\n`.repeat(Math.ceil(1_000_000 / decode.length));
    for (let i = 0; i < 60; i++) fs.writeSync(fd, block);
    fs.writeSync(fd, `${SERVING.split('\n')[0]}\n${CRASH}`);
    fs.closeSync(fd);
    // Probes that answer at once, as for a server that is up: the old launch looks alive until the end is read.
    const probes: LiveProbes = {
      process: async (pid) => ({
        pid,
        alive: true,
        exitCode: null,
        signal: null,
        cmdline: null,
        cpuSeconds: null,
        children: [],
        listening: [],
        at: Date.now() / 1000,
      }),
      findPid: async () => ({ pid: 4242, tiedBy: 'test' }),
      http: async (url): Promise<HttpObservation> => ({
        url,
        health: { state: 'http', status: 200, ms: 1, detail: null },
        version: null,
        model: null,
        serverConfig: null,
        at: Date.now() / 1000,
      }),
      gpu: async () => {
        throw new Error('no GPUs here');
      },
    };
    const s = new LiveSession({ log, gpu: false, pollMs: 10, probeMs: 20, probes });
    const states: string[] = [];
    const reading: string[] = [];
    s.on('event', (e) => {
      if (e.type === 'verdict') states.push(e.verdict.state);
      if (e.type === 'reading') reading.push(e.text);
    });
    s.start();
    try {
      // Reading 60 MB takes seconds alone and minutes on a 2-core machine that other test files share: the
      // deadline only stops a hang, the assertions below are about which verdict comes first.
      await waitUntil(() => states.length > 0, 240_000);
      assert.deepEqual(states, ['crashed'], 'the first verdict is the one the end of the file gives');
      assert.ok(
        reading.length === 0 || /reading .*long\.log: [\d.]+ MB of 6\d MB/.test(reading[0]!),
        reading[0],
      );
    } finally {
      s.stop();
    }
  });
});

const CRASH = [
  '[2026-02-19 14:00:09 TP0] Load weight begin. avail mem=78.50 GB',
  '[2026-02-19 14:00:10 TP0] Scheduler hit an exception: Traceback (most recent call last):',
  '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2351, in run_scheduler_process',
  '    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)',
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.11 GiB of which 12.00 MiB is free.',
  '',
  '[2026-02-19 14:00:10] Received sigquit from a child process. It usually means the child failed.',
  '',
].join('\n');

async function waitUntil(ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}
