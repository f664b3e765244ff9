/** The SSE reader on the shapes servers really send, and on streams no server should send (issue 25, item 2). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_EVENT_CHARS, SseError, SseReader } from '../../../../../src/core/campaign/bench/loadgen/sse.js';

function read(chunks: string[]): string[] {
  const r = new SseReader();
  const out: string[] = [];
  for (const c of chunks) r.push(c, (d) => out.push(d));
  r.end((d) => out.push(d));
  return out;
}

describe('SseReader', () => {
  it('splits events on blank lines, whatever the chunking', () => {
    const text = 'data: {"a":1}\n\ndata: {"a":2}\r\n\r\n: keep-alive\n\ndata: [DONE]\n\n';
    const want = ['{"a":1}', '{"a":2}', '[DONE]'];
    assert.deepEqual(read([text]), want);
    assert.deepEqual(read(text.split('')), want);
  });
  it('joins the data lines of one event', () => {
    assert.deepEqual(read(['data: line one\ndata: line two\n\n']), ['line one\nline two']);
  });
  it('reads data lines with no blank line between them as separate events (a non-conforming server)', () => {
    const chunks = Array.from({ length: 1000 }, (_, i) => `data: {"choices":[{"text":"t${i}"}]}\n`);
    const out = read([...chunks, 'data: [DONE]\n']);
    assert.equal(out.length, 1001);
    assert.equal(out[0], '{"choices":[{"text":"t0"}]}');
    assert.equal(out.at(-1), '[DONE]');
  });
  it('refuses an endless event or line instead of growing without bound', () => {
    const r = new SseReader();
    const piece = `data: ${'x'.repeat(64 * 1024)}\n`;
    assert.throws(() => {
      for (let i = 0; i <= MAX_EVENT_CHARS / piece.length + 1; i++) r.push(piece, () => {});
    }, SseError);
    const line = new SseReader();
    assert.throws(() => {
      for (let i = 0; i <= MAX_EVENT_CHARS / 65536 + 1; i++) line.push('y'.repeat(65536), () => {});
    }, SseError);
  });
});
