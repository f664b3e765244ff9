import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { commonSignatures } from '../../../src/core/engines/common.js';
import { genericSignatures } from '../../../src/core/engines/generic.js';
import { ENGINE_MODULES } from '../../../src/core/engines/index.js';
import {
  firstInOrder,
  firstSignature,
  isTried,
  type SignatureHit,
  signatureLiterals,
} from '../../../src/core/engines/signature-index.js';
import type { Signature } from '../../../src/core/engines/types.js';
import { parseLine } from '../../../src/core/lines/prefix.js';
import { realLines } from '../../real-logs.js';

const LISTS: Array<[string, readonly Signature[]]> = [
  ...ENGINE_MODULES.map((e): [string, readonly Signature[]] => [e.id, e.signatures]),
  ['common', commonSignatures],
  ['generic', genericSignatures],
];

const same = (a: SignatureHit | null, b: SignatureHit | null) =>
  a === null || b === null
    ? a === b
    : a.sig === b.sig && a.m.index === b.m.index && a.m.join('\0') === b.m.join('\0');

/** Every list read both ways gives the same first rule and match for `text`. */
function assertSame(text: string): void {
  for (const [name, sigs] of LISTS) {
    const want = firstInOrder(sigs, text);
    const got = firstSignature(sigs, text);
    assert.ok(same(got, want), `${name}: ${JSON.stringify(text)}: ${got?.sig.id} for ${want?.sig.id}`);
  }
}

describe('firstSignature (the rules behind an index of their literals)', () => {
  it('finds the rule trying each in order finds, on every real line and its message', () => {
    const ctx = { year: 2026, wrap: null, wrapSeen: null };
    let hits = 0;
    for (const text of realLines()) {
      const msg = parseLine(text, 0, 0, ctx).msg;
      assertSame(text);
      assertSame(msg);
      if (LISTS.some(([, sigs]) => firstInOrder(sigs, msg) !== null)) hits++;
    }
    assert.ok(hits > 5_000, `${hits} real messages some rule reads`);
  });

  it('tries every rule on a line it reads, and on a line that holds a literal it is keyed by', () => {
    let lines = 0;
    for (const [name, sigs] of LISTS)
      for (const sig of sigs) {
        let samples: string[] = [];
        try {
          samples = fc.sample(fc.stringMatching(new RegExp(sig.re.source)), { numRuns: 40, seed: 23 });
        } catch {
          // a construct the generator has no support for (`\b`, lookarounds): the lines below still hold
        }
        // (a rule reads only lines that hold its `lit`, which some of its pattern's branches do not need)
        const read = (t: string) => sig.re.test(t) && (sig.lit === undefined || t.includes(sig.lit));
        for (const s of samples.filter(read)) {
          assert.ok(isTried(sig, s), `${name}:${sig.id} hidden on ${JSON.stringify(s)}`);
          assertSame(s);
          lines++;
        }
        for (const lit of signatureLiterals(sig) ?? []) {
          const made = `[2026-01-01 00:00:00] x ${lit} y`;
          assert.ok(isTried(sig, made), `${name}:${sig.id} hidden on ${JSON.stringify(made)}`);
        }
      }
    assert.ok(lines > 5_000, `${lines} generated lines`);
  });

  it('reads a made-up line of each kind of rule by the rule it was read by', () => {
    const byId = (list: readonly Signature[], id: string) => list.find((s) => s.id === id)!;
    const sglang = ENGINE_MODULES.find((e) => e.id === 'sglang')!.signatures;
    const vllm = ENGINE_MODULES.find((e) => e.id === 'vllm')!.signatures;
    const cases: Array<[string, readonly Signature[], string, string]> = [
      // keyed by its own literal
      ['its `lit`', sglang, 'Load weight begin. avail mem=78.50 GB', 'load_weight_begin'],
      // no `lit`: keyed by the literals its pattern needs (sglang.ts memory_pool)
      ['its pattern', sglang, 'Memory pool end. avail mem=61.02 GB', 'memory_pool'],
      // a `lit` too short to key on (`e`): its pattern's literals instead (vllm.ts config_notes)
      ['a short `lit`', vllm, 'Resolved architecture: LlamaForCausalLM', 'config_notes'],
      // a case-insensitive pattern, its literal in another case (sglang.ts sigquit)
      ['no case', sglang, 'SIGQUIT received.', 'sigquit'],
      // nothing to key on: always tried (common.ts shell_prompt_back)
      ['always tried', commonSignatures, '$', 'shell_prompt_back'],
    ];
    for (const [kind, list, line, id] of cases) {
      const sig = byId(list, id);
      assert.ok(sig, `${kind}: no rule ${id}`);
      const hit = firstSignature(list, line);
      assert.equal(hit?.sig.id, firstInOrder(list, line)?.sig.id, kind);
      assert.equal(hit?.sig.id, id, `${kind}: ${line}`);
    }
    // what those rules are keyed by
    assert.deepEqual(signatureLiterals(byId(sglang, 'load_weight_begin')), [
      byId(sglang, 'load_weight_begin').lit,
    ]);
    assert.equal(byId(sglang, 'memory_pool').lit, undefined);
    assert.ok(signatureLiterals(byId(sglang, 'memory_pool'))!.includes('Memory pool end.'));
    assert.equal(signatureLiterals(byId(commonSignatures, 'shell_prompt_back')), null);
  });

  it('keeps no rule whose pattern carries state between calls (a skipped call would change it)', () => {
    for (const [name, sigs] of LISTS)
      for (const s of sigs) assert.doesNotMatch(s.re.flags, /[gy]/, `${name}:${s.id}`);
  });
});
