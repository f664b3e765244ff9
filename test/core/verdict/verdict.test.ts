import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { GpuObservation, ProcessObservation } from '../../../src/core/verdict/observations.js';
import { liveVerdict, ProgressClock, progressAt, waitExitCode } from '../../../src/core/verdict/verdict.js';
import { analyzeText, SCENARIOS } from '../../helpers.js';

const T0 = 1_800_000_000;
const scenario = (name: string) => fs.readFileSync(path.join(SCENARIOS, name), 'utf8');
const gpu = (util: number, memMiB: number): GpuObservation => ({
  gpus: [
    {
      index: 0,
      uuid: 'GPU-0',
      name: 'NVIDIA H200',
      memUsedMiB: memMiB,
      memTotalMiB: 143771,
      utilPct: util,
      powerW: 78,
      powerLimitW: 700,
    },
  ],
  apps: [],
  error: null,
  at: T0,
});
const proc = (alive: boolean, cpu = 10): ProcessObservation => ({
  pid: 4242,
  alive,
  exitCode: null,
  signal: null,
  cmdline: 'python -m sglang.launch_server',
  cpuSeconds: cpu,
  children: [],
  listening: [],
  at: T0,
});

/** The verdict `seconds` after the log (as given) last moved. */
function verdictAfter(text: string, seconds: number, obs = {}) {
  const report = analyzeText(text);
  const clock = new ProgressClock();
  clock.observe(report, T0);
  return liveVerdict({ report, obs, now: T0 + seconds, progressAt: clock.at, logExists: true });
}

describe('live verdict on the seed scenarios', () => {
  it('stuck at 48%: loading while shards tick, stalled in loading_weights well within a minute of the last one', () => {
    const log = scenario('glm5-relaunch-stuck-at-48pct.log');
    const early = verdictAfter(log, 5);
    assert.equal(early.state, 'loading');
    assert.equal(early.launch, 2);
    assert.deepEqual([early.progress!.done, early.progress!.total], [40, 83]);
    const late = verdictAfter(log, 45);
    assert.equal(late.state, 'stalled');
    assert.equal(late.stalledIn, 'loading_weights');
    assert.ok(late.budget! <= 30, `budget ${late.budget}`);
    assert.match(late.why, /3\.03\/s/);
    assert.ok(late.next);
    assert.equal(waitExitCode(late), 4);
  });

  it('silent after Load weight end: stalled after weights_loaded long before an autotune budget', () => {
    const log = scenario('glm5-silent-after-load-weight-end.log');
    assert.equal(verdictAfter(log, 20).state, 'weights_loaded');
    const v = verdictAfter(log, 120);
    assert.equal(v.state, 'stalled');
    assert.equal(v.stalledIn, 'weights_loaded');
  });

  it('cutlass bench then shutdown, process gone, GPUs empty: exited, not crashed', () => {
    const v = verdictAfter(scenario('glm5-cutlass-bench-then-shutdown.log'), 30, {
      process: proc(false),
      gpu: gpu(0, 0),
    });
    assert.equal(v.state, 'exited');
    assert.equal(waitExitCode(v), 5);
  });

  it('OOM in CUDA-graph capture: crashed with the cause', () => {
    const v = verdictAfter(scenario('glm5-trtllm-oom-in-cuda-graph.log'), 5);
    assert.equal(v.state, 'crashed');
    assert.equal(v.failure!.class, 'oom');
    assert.equal(waitExitCode(v), 2);
  });

  it('a serving server whose process vanished without a word is dead', () => {
    const log = scenario('glm5-relaunch-stuck-at-48pct.log').split('\n').slice(0, 321).join('\n');
    assert.equal(verdictAfter(log, 5, { process: proc(true) }).state, 'serving');
    const v = verdictAfter(log, 5, { process: proc(false), gpu: gpu(0, 0) });
    assert.equal(v.state, 'dead');
    assert.match(v.why, /GPUs hold no memory/);
    assert.equal(waitExitCode(v), 5);
  });

  it('a 5-minute silent autotune is not a stall while the GPU is busy; with idle GPUs and still CPU it is, past its budget', () => {
    const lines = scenario('glm5-trtllm-oom-in-cuda-graph.log').split('\n');
    const at = lines.findIndex((l) => l.includes('Running FlashInfer autotune'));
    const log = lines.slice(0, at + 1).join('\n');
    const busy = verdictAfter(log, 300, { gpu: gpu(100, 90_000), gpuBefore: gpu(100, 90_000) });
    assert.equal(busy.state, 'autotune');
    const stillBusy = verdictAfter(log, 2000, { gpu: gpu(100, 90_000), gpuBefore: gpu(100, 90_000) });
    assert.equal(stillBusy.state, 'autotune');
    const idle = verdictAfter(log, 2000, {
      gpu: gpu(0, 90_000),
      gpuBefore: gpu(0, 90_000),
      process: proc(true, 50),
      processBefore: proc(true, 50),
    });
    assert.equal(idle.state, 'stalled');
    assert.match(idle.why, /GPUs idle/);
  });

  it('an idle H200 at 78 W is idle: wattage is not activity', () => {
    const lines = scenario('glm5-trtllm-oom-in-cuda-graph.log').split('\n');
    const at = lines.findIndex((l) => l.includes('Running FlashInfer autotune'));
    const v = verdictAfter(lines.slice(0, at + 1).join('\n'), 2000, {
      gpu: gpu(0, 90_000),
      gpuBefore: gpu(0, 90_000),
    });
    assert.equal(v.state, 'stalled');
  });

  it('waiting before any launch; the progress clock moves only when the launch does', () => {
    assert.equal(
      liveVerdict({ report: null, obs: {}, now: T0, progressAt: null, logExists: false }).state,
      'waiting',
    );
    const report = analyzeText(scenario('glm5-silent-after-load-weight-end.log'));
    const c = new ProgressClock();
    c.observe(report, T0);
    c.observe(report, T0 + 50);
    assert.equal(c.at, T0);
  });
});

describe('live verdict while serving', () => {
  it('a serving launch with no batch for over a minute is idle, not stalled', () => {
    const log = scenario('glm5-cutlass-bench-then-shutdown.log').split('\n').slice(0, 382).join('\n');
    assert.equal(verdictAfter(log, 10).state, 'serving');
    const v = verdictAfter(log, 600, { process: proc(true) });
    assert.equal(v.state, 'idle');
    assert.equal(waitExitCode(v), 0);
  });
});

describe('one clock, readiness, probes that end', () => {
  const servingLog = () =>
    scenario('glm5-cutlass-bench-then-shutdown.log').split('\n').slice(0, 382).join('\n');
  const httpObs = (state: 'refused' | 'timeout' | 'http') => ({
    url: 'http://127.0.0.1:30000',
    health: { state, status: state === 'http' ? 200 : null, ms: 1, detail: null },
    version: null,
    model: null,
    serverConfig: null,
    at: T0,
  });

  it('progressAt: the last line arrived at the mtime, the last progress quietFor log-seconds before it', () => {
    const report = analyzeText(scenario('glm5-relaunch-stuck-at-48pct.log'));
    const l = report.launches.at(-1)!;
    assert.equal(progressAt(l, T0), T0 - (l.quietFor ?? 0));
    const c = new ProgressClock();
    c.observe(report, T0 + 100, T0);
    assert.equal(c.at, progressAt(l, T0), 'the same clock as status');
  });

  it('a named --url that refuses or times out on a ready launch is not ready; a guessed one is only evidence', () => {
    const report = analyzeText(servingLog());
    const at = (obs: object, urlNamed: boolean) =>
      liveVerdict({ report, obs, now: T0 + 5, progressAt: T0, logExists: true, urlNamed });
    assert.equal(at({ http: httpObs('refused') }, true).state, 'dead');
    assert.equal(at({ http: httpObs('timeout') }, true).state, 'stalled');
    assert.equal(at({ http: httpObs('http') }, true).state, 'serving');
    assert.equal(at({ http: httpObs('refused') }, false).state, 'serving');
  });

  it('after the log says shut down, HTTP 200 and pid alive are no longer evidence; not-probed is said', () => {
    const report = analyzeText(scenario('glm5-cutlass-bench-then-shutdown.log'));
    const v = liveVerdict({
      report,
      obs: { http: httpObs('http'), process: proc(true) },
      now: T0,
      progressAt: T0,
      logExists: true,
      notProbed: [{ source: 'gpu', why: 'nvidia-smi not found' }],
    });
    assert.equal(v.state, 'exited');
    assert.ok(!v.evidence.some((e) => /HTTP 200|alive/.test(e.text)));
    assert.ok(v.evidence.some((e) => e.text === 'not probed (nvidia-smi not found)'));
  });
});
