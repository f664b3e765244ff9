import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import { GenericScanner, GenericWasm } from '../../../src/core/reading/generic-scan.js';
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
  units: number;
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

describe('generic reader in wasm (assembly/generic.ts): the same shape as generic-scan.ts', () => {
  /** The wasm reader's key, decoded length, stamp time and year of one line. */
  function wasmShape(w: GenericWasm, line: Buffer): [number, number, number | null, number] {
    w.window(line, 0, false);
    w.x.genericShape(0, line.length);
    const r = w.res();
    const key = r[113]!;
    return [key, key < 0 ? 0 : r[114]!, key < 0 || Number.isNaN(r[115]!) ? null : r[115]!, r[116]!];
  }

  function compare(sc: ScannerInternals, w: GenericWasm, line: Buffer): void {
    const key = sc.shape(line, 0, line.length, null);
    const own: [number, number, number | null, number] = [
      key,
      key < 0 ? 0 : sc.units,
      key < 0 || !sc.hasStamp ? null : sc.stampTs,
      sc.hasStamp ? (sc as unknown as { stampYear: number }).stampYear : 0,
    ];
    const got = wasmShape(w, line);
    if (!own[2]) {
      own[3] = 0;
      got[3] = 0;
    }
    assert.deepEqual(got, own, JSON.stringify(line.toString('latin1')));
  }

  it('every real line: its key, its decoded length, its stamp', () => {
    const sc = new GenericScanner() as unknown as ScannerInternals;
    const w = new GenericWasm();
    let n = 0;
    for (const f of realLogs()) {
      const data = fs.readFileSync(f);
      let s = 0;
      while (s < data.length) {
        let e = data.indexOf(10, s);
        if (e < 0) e = data.length;
        if (e - s <= 2048) {
          compare(sc, w, data.subarray(s, e));
          n++;
        }
        s = e + 1;
      }
    }
    assert.ok(n > 20_000, `${n} lines`);
  });

  it('made-up lines: stamps of every form and edge, short numbers, bytes outside ASCII, control bytes', () => {
    const scanner = new GenericScanner() as unknown as ScannerInternals;
    const w = new GenericWasm();
    const lines = [
      '2024-02-30 10:11:12 day past the month',
      '0099-01-01T00:00:00Z a year read as 1999',
      '1969-12-31 23:59:59.999999999999999 before the epoch, fifteen digits of fraction',
      '2025-05-29T21:09:41.5998180000000001Z sixteen digits',
      'tgi-1-1   | 2025-05-29T21:09:41,599818Z  INFO x{a=1 b=22 c=333 d=4444}: y: z.rs:637: Success',
      '[GIN] 2024/05/07 - 16:42:17 | 200 | 12.406749875s |       127.0.0.1 | POST     "/api/chat"',
      'exit code 137 (status=500) [12] {7} <8> #9; 1,2,3 x1 10.0.0.1:8080 ab12cd 2024-01-01 00:00:00',
      'caf\u00e9 \u{1f600} na\u00efve — done',
      'tab\there and\tthere 12\t34',
      'bell\u0007 byte',
      '2024-01-01 24:00:00 not a stamp 2024-13-01 10:00:00 nor this',
      '2024-01-01 10:00:00+02:00 runs into an offset',
      '    2024-01-01 10:00:00 indented',
      `${'x'.repeat(75)} 2024-01-01 10:00:00 too far for a stamp`,
      'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~ 0123456789',
      '',
      '1',
      '12345',
    ];
    for (const l of lines) {
      compare(scanner, w, Buffer.from(l, 'utf8'));
      compare(scanner, w, Buffer.from(`${l}${' pad'.repeat(9)}`, 'utf8'));
    }
    // a short number between two of each printable byte (a word of its own or not), in and past the first word
    for (let c = 32; c < 127; c++) {
      const b = String.fromCharCode(c);
      compare(scanner, w, Buffer.from(`w ${b}12${b} z ${b}1234567${b}`, 'latin1'));
      compare(scanner, w, Buffer.from(`${b}12${b}x 5`, 'latin1'));
    }
    compare(scanner, w, Buffer.from([0x61, 0x20, 0x62, 0xff, 0x63]));
    compare(scanner, w, Buffer.from([0x61, 0x20, 0x62, 0xc3, 0xa9, 0x20, 0x7f]));
  });
});

describe('generic reader: lines with a flag or a URL (analyzer.ts flagSafe)', () => {
  /** The lines the analyzer read in bulk, and its report; the general path's report beside it. */
  const read = (lines: string[]) => {
    // a line naming an engine first (a vote: the launch the generic reader reads in)
    const data = Buffer.from(`llama-server logs below\n${lines.join('\n')}\n`);
    const a = new LogAnalyzer({ year: 2026 });
    let bulk = 0;
    const apply = a.applyRun.bind(a);
    a.applyRun = (r) => {
      bulk += r.lines;
      apply(r);
    };
    a.push(data);
    const general = new LogAnalyzer({ year: 2026, bulk: false });
    general.push(data);
    return { bulk, report: a.end(), general: general.end() };
  };
  const made = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i));

  it('reads by shape a `--` or `://` line no credential can follow, as the general path reads it', () => {
    for (const line of [
      (i: number) => `ran the tool with --seed ${1000 + i} and it finished in ${i}.${i % 10} s`,
      (i: number) =>
        `step:${i} done; the notes are at https://example.com/notes/${i}?page=${i % 5} -- see there`,
    ]) {
      const { bulk, report, general } = read(made(3000, line));
      assert.deepEqual(report, general);
      assert.ok(bulk >= 2500, `${line(1)}: ${bulk} of 3000 lines read in bulk`);
    }
  });

  it('leaves to the general path a flag that names a credential, a URL with a user and a password', () => {
    for (const line of [
      (i: number) => `ran the tool with --api-key abc${i}def${i * 7} --threads ${i % 7}`,
      (i: number) => `the token ${i} was refreshed -- retry ${i % 3}`,
      (i: number) => `fetched redis://worker:s3cr${i}t@cache.local:${6379 + (i % 3)} in ${i} ms`,
      (i: number) => `fetched https://cache${i}.local/x@${i} at ${i % 60} s`,
    ]) {
      const { bulk, report, general } = read(made(1500, line));
      assert.deepEqual(report, general);
      assert.equal(bulk, 0, `${line(1)}: ${bulk} lines read in bulk`);
      assert.ok(!JSON.stringify(report).includes('s3cr1t'));
    }
  });
});
