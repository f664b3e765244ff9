import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bulkInstance } from '../../../src/core/base/bulk-instance.js';
import { TimeSeries } from '../../../src/core/base/stats.js';

/** Seconds of a busy log: several per second, now and then a gap, once out of order. */
function points(n: number): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = [];
  let t = 1_760_000_000;
  for (let i = 0; i < n; i++) {
    t += i % 97 === 0 ? 3600 : i % 5 === 0 ? 1 : 0;
    if (i === n >> 1) t -= 7200;
    out.push([t, (i * 7919) % 100_000, 1 + (i % 3)]);
  }
  return out;
}

describe('TimeSeries.addSums', () => {
  it('leaves the same buckets, widths and order as addSum on each triple', () => {
    for (const n of [0, 1, 2, 511, 513, 5000, 40_000]) {
      for (const max of [8, 512]) {
        const one = new TimeSeries(max);
        const batch = new TimeSeries(max);
        const pts = points(n);
        for (const [t, s, c] of pts) one.addSum(t, s, c);
        // fed in a few batches, as the readers' calls do
        for (let i = 0; i < pts.length; i += 1000)
          batch.addSums(new Float64Array(pts.slice(i, i + 1000).flat()));
        assert.deepEqual(batch.toData(), one.toData(), `n=${n} max=${max}`);
        assert.deepEqual(batch.points(), one.points());
      }
    }
  });

  it('into an empty series, with times in order, ends at the same width as adding them one by one', () => {
    for (const n of [1, 2, 300, 513, 1024, 5000, 16_383]) {
      for (const max of [8, 512]) {
        for (const step of [1, 2, 3600]) {
          const pts: Array<[number, number, number]> = [];
          for (let i = 0; i < n; i++)
            pts.push([1_760_000_000 + Math.floor((i * step) / 3), (i * 31) % 5000, 1]);
          // and with gaps of an hour now and then (a width that fits comes sooner than the span says)
          if (step === 3600) pts.splice(0, pts.length, ...points(n).sort((a, b) => a[0] - b[0]));
          const one = new TimeSeries(max);
          for (const [t, s, c] of pts) one.addSum(t, s, c);
          const batch = new TimeSeries(max);
          batch.addSums(new Float64Array(pts.flat()));
          assert.deepEqual(batch.toData(), one.toData(), `n=${n} max=${max} step=${step}`);
          assert.equal(batch.width, one.width);
        }
      }
    }
  });
});

describe("the bulk reader's seriesFit (assembly/bulk.ts)", () => {
  it('makes the buckets addSums makes in an empty series, to the bit, or declines seconds out of order', () => {
    const x = bulkInstance() as unknown as {
      memory: WebAssembly.Memory;
      seriesFit(n: number, max: number): number;
    };
    const SERIES = 16384;
    // room for 16,384 triples, as the reader has below its chunk
    const need = SERIES + 16_384 * 24 - x.memory.buffer.byteLength;
    if (need > 0) x.memory.grow(Math.ceil(need / 65536));
    for (const n of [0, 1, 2, 513, 5000, 16_383]) {
      for (const max of [8, 512]) {
        const pts = points(n).sort((a, b) => a[0] - b[0]);
        const tri = new Float64Array(pts.flat());
        const want = new TimeSeries(max);
        want.addSums(tri);
        new Float64Array(x.memory.buffer, SERIES, tri.length).set(tri);
        const width = x.seriesFit(n, max);
        const got = new TimeSeries(max);
        const m = new Float64Array(x.memory.buffer, 0, 40)[36]!;
        got.addFitted(width, new Float64Array(x.memory.buffer, SERIES, 3 * m));
        assert.deepEqual(got.toData(), want.toData(), `n=${n} max=${max}`);
      }
    }
    const back = new Float64Array([1_760_000_010, 5, 1, 1_760_000_000, 7, 1]);
    new Float64Array(x.memory.buffer, SERIES, back.length).set(back);
    assert.equal(x.seriesFit(2, 512), -1);
    assert.deepEqual([...new Float64Array(x.memory.buffer, SERIES, 6)], [...back]);
  });
});
