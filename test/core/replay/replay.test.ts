import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { planReplay, replayPhases } from '../../../src/core/replay/replay.js';
import { analyzeText, SCENARIOS } from '../../helpers.js';

const read = (name: string) => fs.readFileSync(path.join(SCENARIOS, name), 'utf8');
const close = (a: number, b: number, tol: number, what: string) =>
  assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} is not within ${tol} of ${b}`);

describe('planReplay', () => {
  it('every scenario: the lines give back the text, at monotonic times', () => {
    for (const name of fs.readdirSync(SCENARIOS)) {
      const text = read(name);
      const plan = planReplay(text, { speed: 20 });
      assert.equal(plan.map((s) => s.line).join(''), text, name);
      assert.equal(plan.length, analyzeText(text).lines, name);
      for (let i = 1; i < plan.length; i++)
        assert.ok(plan[i]!.at >= plan[i - 1]!.at, `${name} line ${i + 1}`);
      assert.equal(plan[0]!.at, 0);
    }
  });

  it('a relaunch 1.5 h later: the pause between launches becomes maxGap, the rest keeps its timing', () => {
    const text = read('glm5-relaunch-stuck-at-48pct.log');
    const [l1, l2] = analyzeText(text).launches;
    const plan = planReplay(text, { speed: 20 });
    const uncapped = planReplay(text, { speed: 20, maxGap: Number.POSITIVE_INFINITY });
    // Uncapped, the replay lasts as long as the log, divided by the speed.
    const logSpan = (l2!.endTs! - l1!.startTs!) / 20;
    close(uncapped.at(-1)!.at, logSpan, 0.1, 'uncapped duration');
    // Capped, the relaunch comes maxGap (30 s of log time) after launch 1's last line.
    const gap = plan[l2!.startLine - 1]!.at - plan[l1!.endLine - 1]!.at;
    close(gap, 30 / 20, 1e-9, 'gap between launches');
    // Launch 2 keeps its own 28 s, up to its last progress-bar state.
    close(plan.at(-1)!.at - plan[l2!.startLine - 1]!.at, l2!.duration! / 20, 0.1, 'launch 2');
    assert.ok(plan.at(-1)!.at < logSpan / 10, 'the hours between launches are gone');
  });

  it('scales with speed', () => {
    const text = read('glm5-silent-after-load-weight-end.log');
    const a = planReplay(text, { speed: 10 });
    const b = planReplay(text, { speed: 100 });
    for (let i = 0; i < a.length; i++) close(a[i]!.at, b[i]!.at * 10, 1e-9, `line ${i + 1}`);
  });

  it('progress bars without stamps are timed by their elapsed field, and the pause after them measured from their end', () => {
    const text = [
      '[2026-02-19 04:10:00 TP0] Load weight begin. avail mem=93.12 GB',
      'Loading safetensors checkpoint shards:   0% Completed | 0/4 [00:00<?, ?it/s]',
      'Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:10<00:10,  0.20it/s]',
      'Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:20<00:00,  0.20it/s]',
      '[2026-02-19 04:10:25 TP0] Load weight end. elapsed=25.00 s',
      '',
    ].join('\n');
    const at = planReplay(text, { speed: 1, maxGap: 30 }).map((s) => s.at);
    assert.deepEqual(at, [0, 0, 10, 20, 25]);
    // With maxGap 3, each pause is cut: bar steps of 10 s become 3, the 5 s after the bar becomes 3.
    assert.deepEqual(
      planReplay(text, { speed: 1, maxGap: 3 }).map((s) => s.at),
      [0, 0, 3, 6, 9],
    );
  });

  it('tqdm refreshes inside one line: kept byte for byte, timed by the last state', () => {
    const text = [
      '[2026-02-19 04:11:30 TP0] Capture cuda graph bs [1, 2, 4]',
      'Capturing batches (bs=4 avail_mem=22.10 GB):   0%|          | 0/3 [00:00<?, ?it/s]\rCapturing batches (bs=2 avail_mem=22.05 GB):  33%|###       | 1/3 [00:02<00:04,  2.00s/it]\rCapturing batches (bs=1 avail_mem=22.00 GB): 100%|##########| 3/3 [00:06<00:00,  2.00s/it]',
      '[2026-02-19 04:11:37 TP0] Capture cuda graph end. Time elapsed: 7.00 s.',
    ].join('\n');
    const plan = planReplay(text, { speed: 2 });
    assert.equal(plan[1]!.line.split('\r').length, 3);
    assert.equal(plan.map((s) => s.line).join(''), text);
    assert.deepEqual(
      plan.map((s) => s.at),
      [0, 3, 3.5],
    );
  });

  it('a clock that restarts (llama.cpp relative stamps of a relaunch) starts again right after', () => {
    const text = [
      '0.00.000.100 I main: HTTP server is listening, hostname: 127.0.0.1, port: 8080, http threads: 15',
      '0.00.005.000 I main: loading model',
      '0.20.000.000 I main: model loaded',
      '0.00.000.100 I main: HTTP server is listening, hostname: 127.0.0.1, port: 8080, http threads: 15',
      '0.00.004.000 I main: loading model',
    ].join('\n');
    const at = planReplay(text, { speed: 1 }).map((s) => Math.round(s.at * 1000) / 1000);
    assert.deepEqual(at, [0, 0.005, 20, 20, 20.004]);
  });

  it('rejects a speed that is not positive', () => {
    assert.throws(() => planReplay('x\n', { speed: 0 }), RangeError);
    assert.throws(() => planReplay('x\n', { speed: Number.NaN }), RangeError);
  });
});

describe('replayPhases', () => {
  it('SGLang: listens at uvicorn start, ready at "fired up", gone at shutdown', () => {
    const text = read('glm5-cutlass-bench-then-shutdown.log');
    const [l] = replayPhases(text);
    const lines = text.split('\n');
    assert.equal(l!.engine, 'sglang');
    assert.match(lines[l!.listen!.line - 1]!, /Started server process/);
    assert.match(lines[l!.ready!.line - 1]!, /fired up and ready to roll/);
    // The port closes as the shutdown starts: before its first line, so a probe and the log agree.
    assert.match(lines[l!.down!.line - 1]!, /Shutting down|shutdown/i);
    assert.equal(l!.downBefore, true);
    assert.ok(l!.down!.line <= lines.length - 1);
    assert.equal(
      Buffer.from(text).subarray(l!.ready!.offset).toString().split('\n')[0],
      lines[l!.ready!.line - 1],
    );
    assert.equal(l!.config.tp_size, 8);
  });

  it('a relaunch: the first server goes down at its last line; the stuck launch never listens', () => {
    const [l1, l2] = replayPhases(read('glm5-relaunch-stuck-at-48pct.log'));
    assert.equal(l1!.down!.line, l1!.endLine);
    assert.equal(l1!.downBefore, false, 'no shutdown line: gone after its last line');
    assert.equal(l2!.listen, null);
    assert.equal(l2!.ready, null);
    assert.equal(l2!.down, null);
  });

  it('llama.cpp: listens before loading the model, ready when it listens "on"', () => {
    const text = [
      '0.00.000.100 I build: 6000 (abcdef12) with cc for x86_64-linux-gnu',
      '0.00.000.200 I system info: n_threads = 16 | CUDA : ARCHS = 900 |',
      '0.00.000.300 I main: HTTP server is listening, hostname: 127.0.0.1, port: 8080, http threads: 15',
      '0.00.000.400 I main: loading model',
      '0.00.001.000 I llama_model_loader: loaded meta data with 30 key-value pairs and 291 tensors from model.gguf',
      '0.02.000.000 I load_tensors:        CUDA0 model buffer size =  4403.49 MiB',
      '0.03.000.000 I main: model loaded',
      '0.03.000.100 I main: server is listening on http://127.0.0.1:8080 - starting the main loop',
      '0.03.000.200 I srv  update_slots: all slots are idle',
      '',
    ].join('\n');
    const [l] = replayPhases(text);
    assert.equal(l!.engine, 'llamacpp');
    assert.equal(l!.listen!.line, 3);
    assert.equal(l!.ready!.line, 8);
    assert.equal(l!.down, null);
  });
});
