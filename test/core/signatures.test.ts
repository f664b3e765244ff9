import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { commonSignatures } from '../../src/core/engines/common.js';
import { ENGINE_MODULES } from '../../src/core/engines/index.js';
import { parseLine } from '../../src/core/lines/prefix.js';
import { SHARED } from '../helpers.js';

/** The example lines of research/*-signatures.json (copied into test/fixtures). */
function examples(): string[] {
  const out: string[] = [];
  for (const f of ['sglang-signatures.json', 'vllm-signatures.json']) {
    for (const e of JSON.parse(fs.readFileSync(path.join(SHARED, f), 'utf8')) as Array<{ example: string }>)
      out.push(e.example);
  }
  return out;
}

describe('engine signatures', () => {
  const sigs = [...ENGINE_MODULES.flatMap((e) => e.signatures), ...commonSignatures];

  it('never let their quick-reject substring hide a line their regex matches', () => {
    for (const ex of examples()) {
      for (const seg of ex.split(/\r|\n/)) {
        const msg = parseLine(seg, 1, 0, { year: 2026 }).msg;
        for (const sig of sigs) {
          if (sig.lit !== undefined && sig.re.test(msg))
            assert.ok(msg.includes(sig.lit), `${sig.id}: lit '${sig.lit}' hides ${JSON.stringify(msg)}`);
        }
      }
    }
  });

  it('have unique ids per engine', () => {
    for (const e of ENGINE_MODULES) {
      const ids = e.signatures.map((s) => s.id);
      assert.equal(new Set(ids).size, ids.length, e.id);
    }
  });
});
