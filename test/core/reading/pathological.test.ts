import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { binaryLine, LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import { ROOT } from '../../helpers.js';

/**
 * Logs no one writes on purpose but everyone gets: a crash-looping server's 100k launches, random bytes
 * cat'ed into a log. Each must be read in bounded time (the suite's timeout) with a sensible report.
 */
async function generate(format: string, opts: Record<string, number>): Promise<Buffer> {
  const { generateFormatLog } = await import(
    pathToFileURL(path.join(ROOT, 'scripts', 'gen-format-logs.mjs')).href
  );
  const dir = fs.mkdtempSync('/tmp/firedup-patho-');
  const file = path.join(dir, `${format}.log`);
  generateFormatLog(format, file, opts);
  const data = fs.readFileSync(file);
  fs.rmSync(dir, { recursive: true });
  return data;
}

function analyze(data: Buffer) {
  const a = new LogAnalyzer({ year: 2026 });
  for (let at = 0; at < data.length; at += 4 << 20) a.push(data.subarray(at, at + (4 << 20)));
  return a.end();
}

describe('pathological logs are read in bounded time', { timeout: 120_000 }, () => {
  it('a log of 100k launches: every launch, each with its own small summary', async () => {
    const data = await generate('launches', { launches: 100_000, seed: 5 });
    const rep = analyze(data);
    assert.equal(rep.launches.length, 100_000);
    const last = rep.launches.at(-1)!;
    assert.equal(last.index, 99_999);
    // Launches that served one batch keep one sample (and a median of it), not an empty histogram.
    const served = rep.launches.find((l) => l.throughput !== null)!;
    assert.equal(served.throughput!.samples, 1);
    assert.equal(typeof served.throughput!.median, 'number');
    // Each launch's report stays small: no launch carries another's lines.
    const sizes = rep.launches.slice(0, 1000).map((l) => JSON.stringify(l).length);
    assert.ok(Math.max(...sizes) < 4096, `largest launch report ${Math.max(...sizes)} bytes`);
  });

  it('20 MB of random bytes: no launch, every line counted', async () => {
    const data = await generate('random', { bytes: 20_000_000, seed: 9 });
    const rep = analyze(data);
    assert.equal(rep.launches.length, 0);
    assert.equal(rep.bytes, data.length);
    let lines = 0;
    for (const b of data) if (b === 10) lines++;
    assert.equal(rep.lines, lines + (data.at(-1) === 10 ? 0 : 1));
  });

  it('binary lines are told from text, UTF-8 included', () => {
    const is = (s: string | Buffer) => {
      const b = Buffer.isBuffer(s) ? s : Buffer.from(s);
      return binaryLine(b, 0, b.length);
    };
    assert.equal(is('[2026-01-01 00:00:00] Load weight begin. avail mem=78.50 GB'), false);
    assert.equal(is('\x1b[1;36m(APIServer pid=155)\x1b[0;0m INFO 11-28 15:28:15 ready'), false);
    assert.equal(is('模型加载完成，耗时 36.2 秒 — 服务已就绪'), false);
    assert.equal(is('\0\0\0\0\0\0[2026-01-01 00:00:00] after a truncation'), false);
    assert.equal(is('Loading 50%\b\b\b\b60%\r'), false);
    assert.equal(is(crypto.createHash('sha512').update('x').digest()), true);
  });
});
