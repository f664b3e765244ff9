/**
 * A progress bar refreshed in place for a whole load never ends its line: thousands of `\r` states, far
 * past the longest line kept (issue 15, 12). The latest state must survive, and so must a log line written
 * between two refreshes deep into the run.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';

function bar(i: number, total: number): string {
  const pct = Math.floor((100 * i) / total);
  return `\rLoading safetensors checkpoint shards: ${String(pct).padStart(3)}% Completed | ${i}/${total} [00:${String(i % 60).padStart(2, '0')}<00:10, 30.00it/s]`;
}

function read(text: string, chunk: number, maxLine?: number) {
  const a = new LogAnalyzer(maxLine ? { maxLine } : {});
  const b = Buffer.from(text);
  for (let i = 0; i < b.length; i += chunk) a.push(b.subarray(i, i + chunk));
  return a.end();
}

describe('a `\\r` run longer than the longest line kept', () => {
  const total = 3000;
  let run = '';
  for (let i = 1; i <= total; i++) {
    run += bar(i, total);
    if (i === 2000) run += '\r[2026-03-01 10:00:40 TP0] Prefetching checkpoint files: done';
  }
  const text = `[2026-03-01 10:00:00 TP0] Load weight begin. avail mem=60.00 GB\n${run}\n[2026-03-01 10:01:00 TP0] Load weight begin. avail mem=20.00 GB\n`;

  for (const chunk of [1 << 22, 65536, 4093, 97]) {
    it(`keeps the latest state, read in chunks of ${chunk} bytes`, () => {
      assert.ok(text.length > 4 * 65536);
      const r = read(text, chunk);
      assert.equal(r.lines, 3);
      const l = r.launches[0]!;
      assert.equal(l.progress?.done, total);
      assert.equal(l.progress?.line, 2);
    });
  }

  it('a log line written between two refreshes deep into the run is read', () => {
    const oom = run.replace(
      '\r[2026-03-01 10:00:40 TP0] Prefetching checkpoint files: done',
      '\r[2026-03-01 10:00:40 TP0] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
    );
    const r = read(`[2026-03-01 10:00:00 TP0] Load weight begin. avail mem=60.00 GB\n${oom}\n`, 65536);
    assert.equal(r.launches[0]!.failure?.class, 'oom');
  });

  it('with a small line limit too, and a line with no `\\r` past the limit is cut, not the lines after it', () => {
    const long = `[2026-03-01 10:00:00 TP0] ${'x'.repeat(5000)}\n`;
    const r = read(`${long}${text}`, 1000, 1024);
    assert.equal(r.lines, 4);
    assert.equal(r.launches.at(-1)!.progress?.done, total);
  });
});
