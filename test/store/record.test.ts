import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { configHash, launchId, recordFromReport } from '../../src/store/record.js';
import { analyzeBytes, analyzeText, SCENARIOS } from '../helpers.js';
import { HOST, scenarioRecords } from './fixtures.js';

describe('launchId', () => {
  it('16 hex characters, the same for the same place, different for any other', () => {
    const id = launchId('gpu-a', '/logs/s.log', '2049:77', 0);
    assert.match(id, /^[0-9a-f]{16}$/);
    assert.equal(launchId('gpu-a', '/logs/s.log', '2049:77', 0), id);
    const others = [
      launchId('gpu-b', '/logs/s.log', '2049:77', 0),
      launchId('gpu-a', '/logs/t.log', '2049:77', 0),
      launchId('gpu-a', '/logs/s.log', '2049:78', 0),
      launchId('gpu-a', '/logs/s.log', null, 0),
      launchId('gpu-a', '/logs/s.log', '2049:77', 35777),
      // The same place in the file, another first line: a relaunch written over a truncated log.
      launchId('gpu-a', '/logs/s.log', '2049:77', 0, '[2026-02-20 09:00:00] server_args=ServerArgs('),
      // The parts are separated: moving a character from one to the next is another launch.
      launchId('gpu-a/', 'logs/s.log', '2049:77', 0),
    ];
    assert.equal(new Set([id, ...others]).size, others.length + 1);
  });
});

describe('configHash', () => {
  it('ignores key order, deep, and the volatile keys', () => {
    const a = {
      tp_size: 8,
      model_path: 'm',
      random_seed: 1,
      nccl_port: 1234,
      spec: { b: 1, a: [1, { y: 2, x: 1 }] },
    };
    const b = { spec: { a: [1, { x: 1, y: 2 }], b: 1 }, model_path: 'm', random_seed: 99, tp_size: 8 };
    assert.match(configHash(a)!, /^[0-9a-f]{16}$/);
    assert.equal(configHash(a), configHash(b));
    assert.notEqual(configHash(a), configHash({ ...b, tp_size: 4 }));
    assert.notEqual(
      configHash(a),
      configHash({ ...b, spec: { a: [{ x: 1, y: 2 }, 1], b: 1 } }),
      'array order counts',
    );
  });

  it('is null without a config', () => {
    assert.equal(configHash({}), null);
    assert.equal(configHash({ random_seed: 5 }), null);
  });
});

describe('recordFromReport', () => {
  const recs = scenarioRecords(1_800_000_000);

  it('a launch that got ready and served, then shut down', () => {
    const r = recs.get('glm5-cutlass-bench-then-shutdown.log#1')!;
    assert.equal(
      r.id,
      launchId(
        HOST,
        path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'),
        '2049:1234',
        0,
        r.report.startText,
      ),
    );
    assert.match(r.report.startText, /^\[2026-02-19 13:02:11\] WARNING server_args\.py/);
    assert.deepEqual(
      [r.engine, r.model, r.port, r.outcome, r.phase, r.failureClass, r.startLine, r.startOffset],
      ['sglang', 'lukealonso/GLM-5-NVFP4', 8000, 'shutdown', 'serving', null, 1, 0],
    );
    // "The server is fired up and ready to roll!" at 13:03:46, 95 s after the first line.
    assert.equal(r.loadSeconds, 95);
    assert.ok(r.peakTokS! > r.medianTokS! && r.medianTokS! > 1800, `${r.peakTokS} ${r.medianTokS}`);
    assert.equal(r.configHash, configHash(r.report.config));
    assert.deepEqual([r.firstSeen, r.updatedAt, r.intended], [1_800_000_000, 1_800_000_000, null]);
  });

  it('a crash: its class, no load time, no throughput', () => {
    const r = recs.get('glm5-trtllm-oom-in-cuda-graph.log#1')!;
    assert.deepEqual(
      [r.outcome, r.failureClass, r.loadSeconds, r.peakTokS, r.medianTokS],
      ['crashed', 'oom', null, null, null],
    );
  });

  it('a relaunch into the same file is another launch, with another config hash', () => {
    const a = recs.get('glm5-relaunch-stuck-at-48pct.log#1')!;
    const b = recs.get('glm5-relaunch-stuck-at-48pct.log#2')!;
    assert.notEqual(a.id, b.id);
    assert.ok(b.startOffset > 0);
    assert.notEqual(a.configHash, b.configHash);
    assert.equal(b.loadSeconds, null);
    assert.ok(a.loadSeconds! > 100 && a.loadSeconds! < 130, `${a.loadSeconds}`);
  });

  it('pid: the given one, else the first the log shows, else null', () => {
    const rep = analyzeBytes(fs.readFileSync(path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log')))
      .launches[0]!;
    const ctx = { host: 'localhost', path: '/x.log', fileId: null, now: 1 };
    assert.equal(recordFromReport(rep, { ...ctx, pid: 4242 }).pid, 4242);
    assert.equal(recordFromReport({ ...rep, pids: [77, 78] }, ctx).pid, 77);
    assert.equal(recordFromReport({ ...rep, pids: [] }, ctx).pid, null);
  });

  it('a log that begins mid-launch has no load time', () => {
    const lines = fs
      .readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'), 'utf8')
      .split('\n');
    const rep = analyzeText(lines.slice(100).join('\n')).launches.at(-1)!;
    const r = recordFromReport(rep, { host: 'localhost', path: '/x.log', fileId: null, now: 1 });
    assert.equal(rep.startSeen, false);
    assert.equal(r.loadSeconds, null);
  });
});
