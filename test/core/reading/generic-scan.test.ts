import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import type { GenericScanner } from '../../../src/core/reading/generic-scan.js';
import type { ShapeEffect } from '../../../src/core/reading/scan.js';
import { ROOT } from '../../helpers.js';
import { realLogs } from '../../real-logs.js';

type Internals = {
  generic: GenericScanner | null;
  classifyGeneric: (
    b: Buffer,
    s: number,
    e: number,
    ts: number | null,
    t: null,
    p: null,
  ) => ShapeEffect | null;
  genericScanner(b: Buffer, s: number, e: number): unknown;
  flushHeld(): void;
};
type ScannerInternals = {
  shape(b: Buffer, s: number, e: number, layout: null): number;
  learnShape(b: Buffer, s: number, e: number): number;
  hasStamp: boolean;
  stampTs: number;
  setKey(k: string): void;
};

/** An analyzer in the state the generic reader reads a bench shape's log in (its first 2,500 lines read). */
async function stateOf(name: string): Promise<LogAnalyzer> {
  const g = (await import(pathToFileURL(path.join(ROOT, 'scripts', 'gen-shape-logs.mjs')).href)) as {
    generateShapeLog(name: string, out: string, opts: { bytes: number; seed: number }): void;
  };
  const dir = fs.mkdtempSync('/tmp/firedup-generic-');
  const file = path.join(dir, `${name}.log`);
  g.generateShapeLog(name, file, { bytes: 600_000, seed: 3 });
  const data = fs.readFileSync(file);
  fs.rmSync(dir, { recursive: true });
  const a = new LogAnalyzer({ year: 2026 });
  a.push(data);
  return a;
}

const VERDICT = (fx: ShapeEffect | null) =>
  fx === null
    ? 0
    : fx.kind === 'touch'
      ? 1
      : fx.kind === 'serving'
        ? fx.engine
          ? 2
          : 3
        : fx.kind === 'access'
          ? fx.engine
            ? 4
            : 5
          : 0;

describe('generic reader (generic-scan.ts): lines of one shape read alike, on every real line', () => {
  it('no real line of a kept shape reads otherwise than its shape says', async () => {
    const logs = realLogs();
    assert.ok(logs.length > 100, `${logs.length} real logs found`);
    const lines: Buffer[] = [];
    for (const f of logs) {
      const data = fs.readFileSync(f);
      let s = 0;
      while (s < data.length) {
        let e = data.indexOf(10, s);
        if (e < 0) e = data.length;
        if (e - s <= 2048) lines.push(data.subarray(s, e));
        s = e + 1;
      }
    }
    let kept = 0;
    let taken = 0;
    for (const name of ['unknown-gin', 'unknown-text', 'tgi-router', 'vllm-v1-engine', 'sglang-access']) {
      const a = (await stateOf(name)) as unknown as Internals;
      a.flushHeld();
      const probe = Buffer.from('x\n');
      // the state's scanner, its table keyed as the reading's now
      const got = a.genericScanner(probe, 0, probe.length);
      assert.notEqual(got, null, `${name}: the generic reader reads in this state`);
      const sc = a.generic as unknown as ScannerInternals;
      sc.setKey(`test:${name}`);
      const byShape = new Map<number, number>();
      for (const line of lines) {
        const key = sc.shape(line, 0, line.length, null);
        if (key < 0) continue;
        let v = byShape.get(key);
        if (v === undefined) {
          v = sc.learnShape(line, 0, line.length);
          byShape.set(key, v);
          if (v !== 0) kept++;
        }
        if (v === 0) continue;
        sc.shape(line, 0, line.length, null);
        const ts = sc.hasStamp ? sc.stampTs : null;
        const own = VERDICT(a.classifyGeneric(line, 0, line.length, ts, null, null));
        assert.equal(
          own,
          v,
          `${name}: ${JSON.stringify(line.toString('utf8'))} reads ${own}, its shape ${v}`,
        );
        taken++;
      }
    }
    assert.ok(kept > 0 && taken > 0, `${kept} shapes kept, ${taken} lines taken`);
  });
});
