/**
 * What hardening round 3 (issue 25) found held, kept held: a 2 GB line is read past, in bounded memory, and
 * the lines after it count; a log growing at 50 MB/s under `watch` is followed in bounded memory to its
 * end. Behaviour, not speed: the bounds are on memory (the peak resident set, read from /proc while the
 * process runs), and the verdicts must be the log's.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { spawnCli, tmpDir } from '../helpers.js';

/** The highest VmHWM (peak resident set, kB) seen while `pid` runs, read every 50 ms. */
function peakRss(pid: number): { stop(): number } {
  let peak = 0;
  const look = () => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peak = Math.max(peak, Number(m[1]));
    } catch {
      // Gone: the last look stands.
    }
  };
  const t = setInterval(look, 50);
  look();
  return {
    stop() {
      clearInterval(t);
      return peak * 1024;
    },
  };
}

const MB = 1 << 20;

describe('held since hardening round 3', () => {
  it('a 2 GB line between a launch start and its next lines: the lines after it count, memory stays bounded', async () => {
    const dir = tmpDir();
    const f = path.join(dir, 'huge.log');
    const fd = fs.openSync(f, 'w');
    const block = Buffer.alloc(8 * MB, 'x');
    // SGLang's shapes: server_args.py's server_args=ServerArgs(...) (its repr can be long), then
    // parallel_state's and model_runner.py's lines.
    fs.writeSync(fd, "[2026-02-19 04:10:03] server_args=ServerArgs(model_path='m', tp_size=2, ");
    for (let i = 0; i < 256; i++) fs.writeSync(fd, block);
    fs.writeSync(
      fd,
      ')\n[2026-02-19 04:10:11 TP0] Init torch distributed begin.\n[2026-02-19 04:10:16 TP0] Load weight begin. avail mem=93.12 GB\n',
    );
    fs.closeSync(fd);
    try {
      assert.ok(fs.statSync(f).size > 2 * 1024 * MB);
      const run = spawnCli(['status', '--json', '--no-ledger', f], {}, 300_000);
      const rss = peakRss(run.child.pid!);
      const r = await run.done;
      const peak = rss.stop();
      assert.equal(r.code, 3, r.stderr);
      const l = JSON.parse(r.stdout);
      assert.equal(l.phase, 'loading_weights');
      assert.equal(l.endLine, 3);
      assert.ok(r.stdout.length < 1_000_000, 'the huge line was kept whole');
      assert.ok(peak < 400 * MB, `peak RSS ${Math.round(peak / MB)} MB`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a log growing at 50 MB/s under watch: followed to its end, memory stays bounded', async () => {
    const dir = tmpDir();
    const log = path.join(dir, 'server.log');
    // SGLang: server_args.py, model_runner.py's load_model, http_server.py's ready line, the scheduler's
    // decode batch line (scheduler_metrics_mixin.py), then its "Scheduler hit an exception" and the OOM.
    fs.writeFileSync(
      log,
      [
        "[2026-02-19 13:02:11] server_args=ServerArgs(model_path='org/model', tp_size=1, port=30000)",
        '[2026-02-19 13:02:20] Load weight begin. avail mem=78.50 GB',
        '[2026-02-19 13:03:20] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=63.21 GB',
        '[2026-02-19 13:04:00] The server is fired up and ready to roll!',
        '',
      ].join('\n'),
    );
    const decode =
      '[2026-02-19 13:04:05] Decode batch, #running-req: 3, #token: 900, token usage: 0.02, cuda graph: True, gen throughput (token/s): 812.50, #queue-req: 0\n';
    const piece = Buffer.from(decode.repeat(Math.ceil((5 * MB) / decode.length)));
    const run = spawnCli(
      ['watch', '--json', '--no-gpu', '--no-ledger', '--timeout', '10m', log],
      {},
      600_000,
    );
    const rss = peakRss(run.child.pid!);
    // 5 MB every 100 ms for 3 s: 150 MB at 50 MB/s (the writer waits for its own writes, no faster).
    const started = Date.now();
    let written = 0;
    for (let i = 0; i < 30; i++) {
      fs.appendFileSync(log, piece);
      written += piece.length;
      const next = started + (i + 1) * 100;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    fs.appendFileSync(
      log,
      [
        '[2026-02-19 13:09:00 TP0] Scheduler hit an exception: Traceback (most recent call last):',
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2351, in run_scheduler_process',
        '    scheduler.event_loop_overlap()',
        'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.11 GiB of which 12.00 MiB is free.',
        '',
        '[2026-02-19 13:09:00] Received sigquit from a child process. It usually means the child failed.',
        '',
      ].join('\n'),
    );
    const r = await run.done;
    const peak = rss.stop();
    try {
      assert.ok(written >= 150 * MB);
      // The crash at the end of 150 MB is read: the watch ends on it.
      assert.equal(r.code, 2, `${r.stdout.slice(-2000)}\n${r.stderr}`);
      const last = r.events.at(-1) as { type: string; state: string };
      assert.equal(last.type, 'exit');
      assert.equal(last.state, 'crashed');
      assert.ok(peak < 300 * MB, `peak RSS ${Math.round(peak / MB)} MB`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
