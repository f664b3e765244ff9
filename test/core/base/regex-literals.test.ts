import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { requiredLiterals } from '../../../src/core/base/regex-literals.js';
import { parseLine } from '../../../src/core/lines/prefix.js';
import { realLines } from '../../real-logs.js';
import { indexedPatterns } from './indexed-patterns.js';

/** Whether `text` holds one of the literals `re` needs (without case under `i`, as the index compares). */
function holdsOne(re: RegExp, lits: readonly string[], text: string): boolean {
  const t = re.flags.includes('i') ? text.replace(/[A-Z]/g, (c) => c.toLowerCase()) : text;
  return lits.some((l) => t.includes(l));
}

/**
 * The pattern without what fast-check's generator cannot follow (`\b`, lookarounds): it matches more texts than
 * the pattern, and only the texts the pattern itself matches are kept.
 */
function generable(re: RegExp): RegExp | null {
  let src = re.source.replace(/\\b/g, '');
  for (;;) {
    const at = src.search(/\(\?<?[=!]/);
    if (at < 0) break;
    let depth = 0;
    let i = at;
    for (; i < src.length; i++) {
      if (src[i] === '\\') i++;
      else if (src[i] === '(') depth++;
      else if (src[i] === ')' && --depth === 0) break;
    }
    src = src.slice(0, at) + src.slice(i + 1);
  }
  try {
    return new RegExp(src);
  } catch {
    return null;
  }
}

describe('requiredLiterals (what a pattern needs, read from its source)', () => {
  it('reads plain runs, alternations, groups repeated at least once; gives nothing where it cannot show it', () => {
    const cases: Array<[RegExp, string[] | null]> = [
      [/^Load weight begin\. avail mem=/, ['Load weight begin. avail mem=']],
      [/^Decode batch[.,] #running-req: \d+/, [' #running-req: ']],
      [/^(?:Resolved architecture:|Using max model len)/, ['Resolved architecture:', 'Using max model len']],
      [/foo|ba/, null], // a branch that needs nothing a window can key on
      [/^Capture (?:cuda|cpu) graph begin/, [' graph begin']],
      [/xa+bcde/, ['abcde']], // the last `a` of `a+` starts the next run
      [/colou?r scheme/, ['r scheme']],
      [/ab{2}cd/, ['abbcd']],
      [/(?:Error|Exception)s?:/, ['Error', 'Exception']],
      [/(?:KV cache)?tokens: \d+/, ['tokens: ']],
      [/(?<![\w-])--api-key\b/, ['--api-key']],
      [/Received SIGQUIT/i, ['received sigquit']],
      [/Décodé/i, null], // case folding outside ASCII is the regex engine's
      [/Décodé/, ['Décodé']],
      [/abcd/g, null], // state between calls
      [/(ab)cd\1/, null], // a reference: not followed
      [/[abc]{2,}defg\s+hijk/, ['defg']], // one need of a sequence is enough: its best
    ];
    for (const [re, want] of cases) assert.deepEqual(requiredLiterals(re), want, String(re));
  });

  it("gives each indexed pattern's literals only where every generated match holds one", () => {
    let checked = 0;
    for (const { name, re } of indexedPatterns()) {
      const lits = requiredLiterals(re);
      if (lits === null) continue;
      const gen = generable(re);
      if (gen === null) continue;
      let samples: string[];
      try {
        samples = fc.sample(fc.stringMatching(gen), { numRuns: 150, seed: 23 });
      } catch {
        continue; // a construct the generator has no support for: the real lines below still check it
      }
      for (const s of samples) {
        // under `i`, the same match with its letters' case flipped
        const texts = re.flags.includes('i') ? [s, s.toUpperCase(), s.toLowerCase()] : [s];
        for (const t of texts)
          if (re.test(t))
            assert.ok(holdsOne(re, lits, t), `${name}: ${JSON.stringify(t)} needs one of ${lits}`);
      }
      checked++;
    }
    assert.ok(checked > 350, `${checked} patterns checked`);
  });

  it('gives literals every real line a pattern matches holds (whole line and message)', () => {
    const ctx = { year: 2026, wrap: null, wrapSeen: null };
    const lines = realLines();
    assert.ok(lines.length > 10_000, `${lines.length} real lines`);
    const texts = [...new Set([...lines, ...lines.map((t) => parseLine(t, 0, 0, ctx).msg)])];
    let matched = 0;
    for (const { name, re } of indexedPatterns()) {
      const lits = requiredLiterals(re);
      if (lits === null) continue;
      for (const t of texts) {
        if (!re.test(t)) continue;
        matched++;
        assert.ok(holdsOne(re, lits, t), `${name}: ${JSON.stringify(t)} needs one of ${lits}`);
      }
    }
    assert.ok(matched > 10_000, `${matched} matches`);
  });
});
