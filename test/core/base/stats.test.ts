import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
