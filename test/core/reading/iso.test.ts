import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { iso } from '../../../src/core/reading/report.js';

const reference = (ts: number) => new Date(Math.round(ts * 1000)).toISOString().replace('.000Z', 'Z');

describe('iso: the report stamps', () => {
  it('the text toISOString gives (without .000), whatever came before', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.double({ min: 86400 * 2, max: 4e11, noNaN: true }),
            fc.integer({ min: 86400 * 2, max: 253402300799 }),
            fc.constantFrom(
              172800,
              1771506227.5,
              1771506227.001,
              1771506227.0996,
              253402300799.999,
              253402300800,
            ),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        (stamps) => {
          for (const ts of stamps) assert.equal(iso(ts, false), reference(ts), String(ts));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('none for no time, a relative time, or the first two days of 1970 (relative too)', () => {
    assert.equal(iso(null, false), null);
    assert.equal(iso(1771506227, true), null);
    assert.equal(iso(86400 * 2 - 1, false), null);
  });
});
