import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ingestLocal } from '../../src/app/ingest.js';
import { analyzeFile } from '../../src/sources/file.js';
import { SCENARIOS, tmpDir } from '../helpers.js';

/** Reading the second half on a worker thread must give the report a single straight read gives. */
describe('parallel read of a large log', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function same(file: string) {
    const straight = analyzeFile(file, { bulk: false, year: 2026 }).report;
    const parallel = (await ingestLocal(null, file, { parallelMinBytes: 1, year: 2026 })).report;
    assert.deepEqual(parallel, straight);
    return parallel;
  }

  async function serving(name: string, bytes: number, inject: (lines: string[]) => void) {
    const { generateServingLog } = await import(
      path.join('..', '..', '..', 'scripts', 'gen-serving-log.mjs') as string
    );
    const file = path.join(dir, name);
    await generateServingLog(file, { bytes, seed: 11 });
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    inject(lines);
    fs.writeFileSync(file, lines.join('\n'));
    return file;
  }

  it('a plain busy serving log', async () => {
    const r = await same(await serving('plain.log', 3_000_000, () => {}));
    assert.ok(r.launches[0]!.throughput!.samples > 5000);
  });

  it('with a request error, a warning and a long line in the second half', async () => {
    const file = await serving('noisy.log', 3_000_000, (lines) => {
      const at = Math.floor(lines.length * 0.7);
      lines.splice(
        at,
        0,
        '[2026-02-19 14:00:00] ERROR:    Exception in ASGI application',
        'Traceback (most recent call last):',
        '  File "/x/starlette/routing.py", line 1, in app',
        'ValueError: bad request',
        `[2026-02-19 14:00:00] ${'x'.repeat(100_000)}`,
      );
      lines.splice(
        at + 500,
        0,
        '[2026-02-19 14:00:05 TP0] KV cache pool is full. Retract requests. #retracted_reqs: 3, #new_tokens_gained: 100',
      );
    });
    await same(file);
  });

  it('with a crash and a relaunch in the second half', async () => {
    const relaunch = fs
      .readFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), 'utf8')
      .split('\n')
      .slice(321);
    const file = await serving('relaunch.log', 3_000_000, (lines) => {
      const at = Math.floor(lines.length * 0.8);
      lines.splice(
        at,
        lines.length - at,
        '[2026-02-19 14:00:00 TP3] Scheduler hit an exception: Traceback (most recent call last):',
        'torch.OutOfMemoryError: CUDA out of memory.',
        '[2026-02-19 14:00:01] Received sigquit from a child process. It usually means the child failed.',
        ...relaunch,
      );
    });
    const r = await same(file);
    assert.equal(r.launches.length, 2);
    assert.equal(r.launches[0]!.failure!.class, 'oom');
  });

  async function llama(name: string, bytes: number, inject: (lines: string[]) => void) {
    const { generateFormatLog } = await import(
      path.join('..', '..', '..', 'scripts', 'gen-format-logs.mjs') as string
    );
    const file = path.join(dir, name);
    generateFormatLog('llamacpp', file, { bytes, seed: 7 });
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    inject(lines);
    fs.writeFileSync(file, lines.join('\n'));
    return file;
  }

  // llama-server's serving lines are read on the worker by its shape scanner, with the shapes learned here.
  it('a busy llama-server log', async () => {
    const r = await same(await llama('llama.log', 3_000_000, () => {}));
    assert.ok(r.launches[0]!.throughput!.samples > 1000);
  });

  it('a llama-server log with new shapes, a stamped line, an error and a relaunch in the second half', async () => {
    let head: string[] = [];
    const file = await llama('llama-noisy.log', 3_000_000, (lines) => {
      head = lines.slice(0, lines.findIndex((l) => l.includes('server is listening on')) + 1);
      const at = Math.floor(lines.length * 0.6);
      lines.splice(
        at,
        0,
        'srv  operator(): a line of a shape not seen before, 12345 ms',
        'slot update_slots: id  1 | task 999999 | n_past = 12, memory_seq_rm [12, end)',
        '[2026-02-19 14:00:00] a stamped line from a wrapper',
        'srv  log_server_r: done request: POST /v1/chat/completions 10.0.0.1 500',
      );
      const end = Math.floor(lines.length * 0.85);
      lines.splice(end, lines.length - end, 'CUDA error: out of memory', ...head, ...lines.slice(1000, 3000));
    });
    const r = await same(file);
    assert.equal(r.launches.length, 2);
  });

  // The shapes are learned in the first 8 MB; a relaunch after them and before the middle makes them another
  // launch's: the worker's runs are not joined to the new launch, this thread reads the rest itself.
  it('a llama-server relaunch between the learned part and the middle', async () => {
    let head: string[] = [];
    const file = await llama('llama-relaunch.log', 20_000_000, (lines) => {
      head = lines.slice(0, lines.findIndex((l) => l.includes('server is listening on')) + 1);
      const at = Math.floor(lines.length * 0.45);
      lines.splice(at, 0, 'CUDA error: out of memory', ...head);
    });
    const r = await same(file);
    assert.equal(r.launches.length, 2);
  });

  it('a log of another engine, and a file without a final newline', async () => {
    const vllm = path.join(dir, 'vllm.log');
    const line =
      '(APIServer pid=1) INFO 11-29 14:05:12 [loggers.py:272] Engine 000: Avg prompt throughput: 18543.2 tokens/s, Avg generation throughput: 2211.7 tokens/s, Running: 64 reqs, Waiting: 12 reqs, GPU KV cache usage: 87.4%, Prefix cache hit rate: 41.0%\n';
    fs.writeFileSync(
      vllm,
      `(APIServer pid=1) INFO:     Application startup complete.\n${line.repeat(20_000)}tail without newline`,
    );
    await same(vllm);
  });
});
