import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { GRAM, isCandidate, LiteralIndex, nextCandidate } from '../../../src/core/base/literal-index.js';

/** Each character with its 0x20 bit set: what the index compares (ASCII letters without case, and a few pairs). */
const fold = (s: string) => String.fromCharCode(...Array.from(s, (_, i) => s.charCodeAt(i) | 0x20));

/** What the index must answer: entry i is a candidate iff it is always one or one of its literals is in the text. */
function expected(needs: Array<string[] | null>, text: string): boolean[] {
  const t = fold(text);
  return needs.map((lits) => lits === null || lits.some((l) => l.length < GRAM || t.includes(fold(l))));
}

/** What it must at least answer: every entry one of whose literals the text holds (ASCII letters without case). */
function needed(needs: Array<string[] | null>, text: string): boolean[] {
  const lower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const t = lower(text);
  return needs.map((lits) => lits === null || lits.some((l) => l.length < GRAM || t.includes(lower(l))));
}

function answered(idx: LiteralIndex, n: number, text: string): boolean[] {
  const bits = idx.candidates(text);
  return Array.from({ length: n }, (_, i) => isCandidate(bits, i));
}

describe('LiteralIndex (which entries a text may satisfy, from the literals they need)', () => {
  it('makes an entry a candidate where one of its literals is in the text, letters without case', () => {
    const needs = [['Load weight begin'], ['KV cache', 'kv pool'], null, ['ab'], ['Décodé'], ['🚀 fired up']];
    const idx = new LiteralIndex();
    for (const n of needs) idx.add(n);
    const texts = [
      '[2026-01-01] Load weight begin. avail mem=78.50 GB',
      'load WEIGHT BEGIN',
      'Allocating the kv POOL now',
      'KV cach',
      'nothing here',
      'x décodé y',
      'x Décodé y',
      'server 🚀 fired up',
      '',
    ];
    for (const t of texts) assert.deepEqual(answered(idx, needs.length, t), expected(needs, t), t);
    for (const t of texts) assert.deepEqual(answered(idx, needs.length, t), needed(needs, t), t);
  });

  it('answers as `includes` of the folded texts would, for random literals and texts (windows collide)', () => {
    const ch = fc.constantFrom('a', 'b', 'A', 'B', ' ', ':', '@', '`', 'é', '\u0161', '\u0241', '\u0261');
    const str = (min: number, max: number) =>
      fc.array(ch, { minLength: min, maxLength: max }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.array(str(1, 7), { minLength: 1, maxLength: 3 }), { nil: null }), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.array(str(0, 60), { minLength: 1, maxLength: 5 }),
        (needs, texts) => {
          const idx = new LiteralIndex();
          for (const n of needs) idx.add(n);
          for (const t of texts) {
            const got = answered(idx, needs.length, t);
            assert.deepEqual(got, expected(needs, t));
            for (const [i, must] of needed(needs, t).entries())
              assert.ok(!must || got[i], `entry ${i} hidden`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes entries added after a text was read (the catalogs are built on first use)', () => {
    const idx = new LiteralIndex();
    idx.add(['first literal']);
    assert.equal(isCandidate(idx.candidates('a first literal here'), 0), true);
    const second = idx.add(['second literal']);
    const bits = idx.candidates('a first literal here');
    assert.equal(isCandidate(bits, 0), true);
    assert.equal(isCandidate(bits, second), false);
    assert.equal(isCandidate(idx.candidates('a second literal'), second), true);
  });

  it('walks the candidates of a range in order (nextCandidate)', () => {
    const bits = new Uint32Array(4);
    const set = [0, 5, 31, 32, 33, 64, 95, 100];
    for (const i of set) bits[i >> 5]! |= 1 << (i & 31);
    const walk = (from: number, to: number) => {
      const out: number[] = [];
      for (let i = nextCandidate(bits, from, to); i >= 0; i = nextCandidate(bits, i + 1, to)) out.push(i);
      return out;
    };
    assert.deepEqual(walk(0, 128), set);
    assert.deepEqual(walk(1, 64), [5, 31, 32, 33]);
    assert.deepEqual(walk(33, 95), [33, 64]);
    assert.deepEqual(walk(101, 128), []);
  });
});
