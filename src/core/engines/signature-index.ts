/**
 * The rules' lists (each engine's signatures, common.ts's, generic.ts's) behind the line index (lineLiterals), so that a
 * message is tested only against the rules whose literal it may hold (issue 23): one pass over the message
 * instead of a literal test per rule, hundreds per line. A rule is keyed by its `lit`, or, where that is shorter
 * than a window or absent, by the literals its pattern needs (base/regex-literals.ts); a rule with neither is
 * always tried. The lists are walked in their order, so the first rule that takes a line is the one it was.
 */
import { GRAM, isCandidate, lineLiterals, nextCandidate } from '../base/literal-index.js';
import { requiredLiterals } from '../base/regex-literals.js';
import { commonSignatures } from './common.js';
import { genericSignatures } from './generic.js';
import { ENGINE_MODULES } from './index.js';
import type { Signature } from './types.js';

/** What a rule's test of a message gave: the rule and its match. */
export interface SignatureHit {
  sig: Signature;
  m: RegExpExecArray;
}

/** Every rule, in the lists' order: rule i is the index's entry first + i. */
const all: Signature[] = [];
let first = 0;
/** Where each list's rules lie among the index's entries: [from, to). */
const ranges = new Map<readonly Signature[], { from: number; to: number }>();

/** The literals a rule is keyed by: its `lit` when long enough to key on, else what its pattern needs. */
export function signatureLiterals(sig: Signature): readonly string[] | null {
  if (sig.lit !== undefined && sig.lit.length >= GRAM) return [sig.lit];
  return requiredLiterals(sig.re);
}

/**
 * Calls answered rule by rule before the index is made (about 50 lines: an engine's list and the common one per
 * line). Making it takes a few milliseconds at a command's start, where the code is not yet compiled: a paste
 * of a few hundred lines is read faster without it, a longer log pays it back within a thousand lines.
 */
const CALLS_BEFORE_INDEX = 300;
let calls = 0;

/** Made once the reading has gone on long enough to pay for it (CALLS_BEFORE_INDEX), never at load. */
function indexed(): void {
  if (all.length > 0) return;
  const lists = [...ENGINE_MODULES.map((e) => e.signatures), commonSignatures, genericSignatures];
  for (const sigs of lists) all.push(...sigs);
  first = lineLiterals.addAll(all.map(signatureLiterals));
  let from = first;
  for (const sigs of lists) {
    ranges.set(sigs, { from, to: from + sigs.length });
    from += sigs.length;
  }
}

/**
 * The first rule of `sigs` that takes `msg` (its literal in the message, its pattern matching), as trying each
 * in order would find it. `sigs` is one of the lists indexed here; another list is tried rule by rule.
 */
export function firstSignature(sigs: readonly Signature[], msg: string): SignatureHit | null {
  if (all.length === 0) {
    if (++calls < CALLS_BEFORE_INDEX) return firstInOrder(sigs, msg);
    indexed();
  }
  const r = ranges.get(sigs);
  if (r === undefined) return firstInOrder(sigs, msg);
  const { from, to } = r;
  const bits = lineLiterals.candidates(msg);
  for (let i = nextCandidate(bits, from, to); i >= 0; i = nextCandidate(bits, i + 1, to)) {
    const sig = all[i - first]!;
    if (sig.lit !== undefined && !msg.includes(sig.lit)) continue;
    const m = sig.re.exec(msg);
    if (m) return { sig, m };
  }
  return null;
}

/** Whether the index lets `sig` (a rule of an indexed list) be tried on `msg`: what tests check it never hides. */
export function isTried(sig: Signature, msg: string): boolean {
  indexed();
  const i = all.indexOf(sig);
  return i >= 0 && isCandidate(lineLiterals.candidates(msg), first + i);
}

/** Each rule in turn: the reading the index must give the same answer as (tests compare the two). */
export function firstInOrder(sigs: readonly Signature[], msg: string): SignatureHit | null {
  for (const sig of sigs) {
    if (sig.lit !== undefined && !msg.includes(sig.lit)) continue;
    const m = sig.re.exec(msg);
    if (m) return { sig, m };
  }
  return null;
}
