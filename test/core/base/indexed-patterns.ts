import { gatedPatterns } from '../../../src/core/base/gated-pattern.js';
import { commonSignatures } from '../../../src/core/engines/common.js';
import { genericSignatures } from '../../../src/core/engines/generic.js';
import { ENGINE_MODULES } from '../../../src/core/engines/index.js';
// the modules whose patterns are gated (their GatedPatterns are made as they load)
import '../../../src/core/lines/prefix.js';

/**
 * Every pattern that is skipped on a line holding none of the literals its source needs (regex-literals.ts): the
 * rules (signature-index.ts) and the gated patterns (gated-pattern.ts).
 */
export function indexedPatterns(): Array<{ name: string; re: RegExp }> {
  const out: Array<{ name: string; re: RegExp }> = [];
  for (const e of ENGINE_MODULES)
    for (const s of e.signatures) out.push({ name: `${e.id}:${s.id}`, re: s.re });
  for (const s of commonSignatures) out.push({ name: `common:${s.id}`, re: s.re });
  for (const s of genericSignatures) out.push({ name: `generic:${s.id}`, re: s.re });
  for (const g of gatedPatterns()) out.push({ name: `gated:${g.re.source.slice(0, 40)}`, re: g.re });
  return out;
}
