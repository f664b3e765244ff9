import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { contentHash } from '../../../src/core/base/content-hash.js';
import { sha256Hex } from '../../../src/core/base/sha256.js';

describe('sha256Hex (record ids without node:crypto)', () => {
  it("is node:crypto's SHA-256 of the text's UTF-8 bytes, at every length around the block boundaries", () => {
    const texts: string[] = [];
    for (let n = 0; n <= 200; n++) texts.push('a'.repeat(n));
    texts.push('', 'hello world', 'héllo wörld ✓ 日本語 🚀', 'x\0y', 'b'.repeat(5000), 'c'.repeat(70_000));
    texts.push(
      ['localhost', '/var/log/sglang.log', '2049:123', '0', '[2026-02-19 13:02:11] server_args=…'].join('\0'),
    );
    for (const t of texts)
      assert.equal(sha256Hex(t), createHash('sha256').update(t).digest('hex'), `length ${t.length}`);
  });

  it('is the same for a short text after a long one (its buffer is reused), and for texts past a megabyte', () => {
    const texts = ['é'.repeat(300_000), 'short', 'z'.repeat(400_000), '🚀'.repeat(3), 'd'.repeat(64), 'e'];
    for (const t of texts)
      assert.equal(sha256Hex(t), createHash('sha256').update(t).digest('hex'), `length ${t.length}`);
  });
});

describe('contentHash (the head and tail of a log, in the ledger)', () => {
  const bytes = (n: number, seed = 1) => {
    const b = Buffer.alloc(n);
    let x = seed;
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      b[i] = x >>> 24;
    }
    return b;
  };

  it('is 128 bits, marked as this form, the same for the same bytes', () => {
    const b = bytes(65536);
    assert.match(contentHash(b), /^h128:[0-9a-f]{32}$/);
    assert.equal(contentHash(b), contentHash(Buffer.from(b)));
    assert.equal(contentHash(b.subarray(100, 5000)), contentHash(Buffer.from(b.subarray(100, 5000))));
  });

  it('tells apart every one-byte change, every length, trailing zeros', () => {
    const b = bytes(4096);
    const seen = new Set<string>();
    for (let n = 0; n <= 300; n++) seen.add(contentHash(b.subarray(0, n)));
    assert.equal(seen.size, 301);
    const zeros = new Set<string>();
    for (let n = 0; n <= 70; n++) zeros.add(contentHash(Buffer.alloc(n)));
    assert.equal(zeros.size, 71);
    const base = contentHash(b);
    const flips = new Set<string>([base]);
    for (let i = 0; i < b.length; i += 7) {
      const c = Buffer.from(b);
      c[i]! ^= 1 << (i % 8);
      flips.add(contentHash(c));
    }
    assert.equal(flips.size, 1 + Math.ceil(b.length / 7));
    // two words swapped, two changes that cancel in a plain sum
    const s = Buffer.from(b);
    s.writeUInt32LE(b.readUInt32LE(0), 8);
    s.writeUInt32LE(b.readUInt32LE(8), 0);
    assert.notEqual(contentHash(s), base);
  });
});
