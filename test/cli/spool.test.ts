import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TextSpool } from '../../src/cli/spool.js';

async function drained(spool: TextSpool): Promise<string> {
  const out: Buffer[] = [];
  await spool.drain(async (piece) => {
    out.push(Buffer.from(piece));
  });
  return Buffer.concat(out).toString('utf8');
}

describe('TextSpool', () => {
  it('gives back what was added, in order, from memory', async () => {
    const s = new TextSpool();
    s.add('{"a":1}');
    s.add(',{"b":"é"}');
    assert.equal(s.count, 2);
    assert.equal(await drained(s), '{"a":1},{"b":"é"}');
    assert.equal(await drained(s), '', 'drained once');
  });

  it('past its memory, through a file: the same text, multi-byte characters whole', async () => {
    const s = new TextSpool(16);
    const pieces = Array.from({ length: 500 }, (_, i) => `,{"n":${i},"t":"ünïcödé ${'€'.repeat(i % 7)}"}`);
    for (const p of pieces) s.add(p);
    assert.equal(await drained(s), pieces.join(''));
  });
});
