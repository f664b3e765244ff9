import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { GatedPattern, gatedPatterns } from '../../../src/core/base/gated-pattern.js';
import { parseLine } from '../../../src/core/lines/prefix.js';
import { realLines } from '../../real-logs.js';
import { indexedPatterns } from './indexed-patterns.js';

describe('GatedPattern (a pattern skipped on a line without the literals it needs)', () => {
  it('answers as its pattern on every real line and message, for every gated pattern', () => {
    indexedPatterns(); // loads the modules that make them
    const gated = gatedPatterns();
    assert.ok(gated.length >= 15, `${gated.length} gated patterns`);
    const ctx = { year: 2026, wrap: null, wrapSeen: null };
    const lines = realLines();
    const texts = [...new Set([...lines, ...lines.map((t) => parseLine(t, 0, 0, ctx).msg)])];
    let matched = 0;
    for (const g of gated)
      for (const t of texts) {
        const want = g.re.test(t);
        if (want) matched++;
        assert.equal(g.test(t), want, `${g.re.source.slice(0, 60)} on ${JSON.stringify(t)}`);
      }
    assert.ok(matched > 500, `${matched} matches`);
  });

  it('answers as its pattern on generated matches, and on made-up lines of each kind of pattern', () => {
    for (const g of gatedPatterns()) {
      let samples: string[] = [];
      try {
        samples = fc.sample(fc.stringMatching(g.re), { numRuns: 100, seed: 23 });
      } catch {
        // `\b`, lookarounds: the real lines above check those
      }
      for (const s of samples) assert.equal(g.test(s), g.re.test(s), `${g.re.source.slice(0, 60)} on ${s}`);
    }
    // a pattern without case, one whose literals are too short to key on, one that keeps state: as they are
    const noCase = new GatedPattern(/\bfailed to (?:load|start)\b/i);
    assert.equal(noCase.test('Shard FAILED TO START'), true);
    assert.equal(noCase.test('Shard started'), false);
    const short = new GatedPattern(/ab|cd/);
    assert.equal(short.test('xcdx'), true);
    const sticky = new GatedPattern(/Error/g);
    assert.equal(sticky.test('an Error here'), true);
    assert.equal(sticky.re.lastIndex, 8);
    const made = new GatedPattern(/\bfailed to (?:load|start)\b/);
    assert.equal(made.test('the shard failed to start'), true);
    assert.equal(made.test('the shard started'), false);
  });
});
