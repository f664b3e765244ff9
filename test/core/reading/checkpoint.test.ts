import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { StateCodec } from '../../../src/core/base/state-codec.js';
import { ENGINE_MODULES } from '../../../src/core/engines/index.js';
import { type AnalyzerOptions, LogAnalyzer } from '../../../src/core/reading/analyzer.js';
import {
  ANALYZER_SPEC,
  CHECKPOINT_VERSION,
  CheckpointError,
  CREATED,
  SPLITTER_SPEC,
  sum53,
} from '../../../src/core/reading/checkpoint.js';
import { READING_ID } from '../../../src/core/reading/reading-id.js';
import type { AnalysisReport } from '../../../src/core/reading/report.js';
import { ROOT, SCENARIOS, SHARED, tmpDir } from '../../helpers.js';

const OPTS = { year: 2026 };

function logsIn(rel: string): string[] {
  const d = path.join(SHARED, rel);
  if (!fs.existsSync(d)) return [];
  return fs
    .readdirSync(d)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .map((f) => path.join(d, f));
}

/** A crash while serving, then a relaunch into the same file: the states a resumed read must carry over. */
const CRASH = [
  '[2026-02-20 01:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):',
  '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2100, in event_loop_overlap',
  '    result = self.run_batch(batch)',
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.81 GiB',
  '[2026-02-20 01:00:01] Received sigquit from a child process. It usually means the child failed.',
  '',
].join('\n');

/** Sizes of every line start (0 and each position just after a newline, EOF excluded). */
function boundaries(data: Buffer): number[] {
  const out = [0];
  for (let i = data.indexOf(10); i >= 0 && i + 1 < data.length; i = data.indexOf(10, i + 1)) out.push(i + 1);
  return out;
}

function pushInChunks(a: LogAnalyzer, data: Buffer, chunk: number): void {
  for (let i = 0; i < data.length; i += chunk) a.push(data.subarray(i, Math.min(data.length, i + chunk)));
}

function straight(data: Buffer, bulk: boolean, opts: AnalyzerOptions = OPTS): AnalysisReport {
  const a = new LogAnalyzer({ ...opts, bulk });
  a.push(data);
  return a.end();
}

/** Reads `data` stopping at each cut: checkpoint, restore, and go on with the restored analyzer. */
function chained(
  data: Buffer,
  cuts: number[],
  bulk: boolean,
  chunk: number,
  opts: AnalyzerOptions = OPTS,
): AnalysisReport {
  let a = new LogAnalyzer({ ...opts, bulk });
  let pos = 0;
  for (const cut of cuts) {
    pushInChunks(a, data.subarray(pos, cut), chunk);
    const bytes = a.checkpoint();
    const b = LogAnalyzer.restore(bytes, { ...opts, bulk });
    // Saving a restored analyzer gives the same bytes: nothing was lost or reordered on the way.
    assert.deepEqual(Buffer.from(b.checkpoint()), Buffer.from(bytes));
    a = b;
    pos = cut;
  }
  pushInChunks(a, data.subarray(pos), chunk);
  return a.end();
}

interface Log {
  name: string;
  data: Buffer;
  lines: number[];
  want: Map<boolean, AnalysisReport>;
}

function load(file: string, data = fs.readFileSync(file)): Log {
  return {
    name: path.basename(file),
    data,
    lines: boundaries(data),
    want: new Map([
      [true, straight(data, true)],
      [false, straight(data, false)],
    ]),
  };
}

const cutsOf = (log: Log) =>
  fc
    .array(fc.nat(), { minLength: 1, maxLength: 4 })
    .map((xs) => [...new Set(xs.map((x) => log.lines[x % log.lines.length]!))].sort((p, q) => p - q));

function checkLogs(logs: Log[], runs: number): void {
  fc.assert(
    fc.property(
      fc
        .integer({ min: 0, max: logs.length - 1 })
        .chain((i) =>
          fc.tuple(
            fc.constant(logs[i]!),
            cutsOf(logs[i]!),
            fc.boolean(),
            fc.integer({ min: 64, max: 1 << 16 }),
          ),
        ),
      ([log, cuts, bulk, chunk]) => {
        assert.deepEqual(
          chained(log.data, cuts, bulk, chunk),
          log.want.get(bulk),
          `${log.name} cut at ${cuts}`,
        );
      },
    ),
    { numRuns: runs },
  );
}

describe('checkpoint and restore continue a read exactly', () => {
  let dir = '';
  const generated: Log[] = [];

  before(async () => {
    dir = tmpDir();
    const gen = await import(pathToFileURL(path.join(ROOT, 'scripts', 'gen-serving-log.mjs')).href);
    const serving = path.join(dir, 'serving.log');
    gen.generateServingLog(serving, { bytes: 300_000, seed: 7 });
    generated.push(load(serving));
    // Serving, a crash mid-serving, a relaunch that serves and shuts down, then serving lines again.
    const relaunch = fs.readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'));
    const body = fs.readFileSync(serving);
    const tail = body.subarray(-60_000);
    const mixed = Buffer.concat([
      body.subarray(0, body.indexOf(10, 120_000) + 1),
      Buffer.from(CRASH),
      relaunch,
      tail.subarray(tail.indexOf(10) + 1),
    ]);
    generated.push(load('mixed.log', mixed));
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('scenario logs, cut at random line boundaries, bulk on and off', () => {
    const logs = [...logsIn('scenarios'), ...logsIn('logs')].map((f) => load(f));
    assert.ok(logs.length >= 5);
    checkLogs(logs, 120);
  });

  it('a sample of the corpus', () => {
    const logs = [...logsIn('corpus/sglang'), ...logsIn('corpus/vllm'), ...logsIn('corpus/extra')].map((f) =>
      load(f),
    );
    assert.ok(logs.length >= 40);
    checkLogs(logs, 150);
  });

  it('generated serving logs, with a crash and a relaunch', () => {
    assert.equal(generated.length, 2);
    checkLogs(generated, 60);
  });

  it('at every line of a launch that crashes with remedies and a cut traceback', () => {
    // Every boundary, not a sample: the traceback reader and the failure share state line by line.
    const log = load(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'));
    for (const cut of log.lines)
      assert.deepEqual(chained(log.data, [cut], true, 1 << 20), log.want.get(true));
  });

  it("at every line of an exception whose message's continuation names the class", () => {
    // The continuation window (TracebackTracker) spans lines: a cut between the exception and its ptxas line.
    const log = load(path.join(SHARED, 'synthetic', 'vllm', '058.log'));
    assert.equal(log.want.get(true)!.launches[0]!.failure?.class, 'unsupported');
    for (const bulk of [true, false])
      for (const cut of log.lines)
        assert.deepEqual(chained(log.data, [cut], bulk, 1 << 20), log.want.get(bulk), `cut at ${cut}`);
  });

  it("one log of several nodes (Ray), cut at every line: each node's reading carries over", () => {
    for (const s of ['clean', 'oom', 'stuck']) {
      const log = load(path.join(ROOT, 'test', 'fixtures', 'multinode', `vllm-ray-2node-${s}.log`));
      assert.equal(log.want.get(true)!.launches[0]!.nodes?.layout, 'ray', s);
      for (const bulk of [true, false])
        for (const cut of log.lines)
          assert.deepEqual(chained(log.data, [cut], bulk, 1 << 20), log.want.get(bulk), `${s} cut at ${cut}`);
    }
  });

  it('lines over the length limit, cut anywhere', () => {
    const opts = { ...OPTS, maxLine: 120 };
    const data = fs.readFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'));
    // The general path only: the bulk reader does not cut serving lines at so small a limit.
    const want = straight(data, false, opts);
    assert.ok(want.truncatedLines > 10);
    for (const cut of boundaries(data)) assert.deepEqual(chained(data, [cut], false, 1 << 20, opts), want);
  });

  it('a checkpoint of a partial read restores to the same report so far', () => {
    const log = generated[1]!;
    const cut = log.lines[Math.floor(log.lines.length / 2)]!;
    const a = new LogAnalyzer(OPTS);
    a.push(log.data.subarray(0, cut));
    const b = LogAnalyzer.restore(a.checkpoint(), OPTS);
    assert.deepEqual(b.report(), a.report());
    assert.equal(b.bytes, cut);
    assert.equal(b.lineCount, a.lineCount);
  });
});

describe('checkpoint refuses what it cannot continue', () => {
  it('inside a line', () => {
    const a = new LogAnalyzer(OPTS);
    a.push(Buffer.from('[2026-02-19 13:02:12] Init torch distributed begin.\n[2026-02-19 13:02'));
    assert.throws(() => a.checkpoint(), /inside a line/);
    a.push(Buffer.from(':13] more\n'));
    assert.ok(a.checkpoint().length > 0);
  });

  it('after end', () => {
    const a = new LogAnalyzer(OPTS);
    a.end();
    assert.throws(() => a.checkpoint(), /after end/);
  });

  function saved(): Uint8Array {
    const a = new LogAnalyzer(OPTS);
    a.push(fs.readFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log')));
    return a.checkpoint();
  }

  /** Edits a checkpoint as a writer would (the checksum made anew), or as damage would (`resum` false). */
  function edit(data: Uint8Array, f: (doc: Record<string, any>) => void, resum = true): Uint8Array {
    const text = Buffer.from(data).toString('utf8');
    const nl = text.indexOf('\n');
    const doc = { ...JSON.parse(text.slice(0, nl)), state: JSON.parse(text.slice(nl + 1)) };
    f(doc);
    const { state, ...head } = doc;
    const stateText = JSON.stringify(state);
    if (resum) head.sum = sum53(stateText);
    return Buffer.from(`${JSON.stringify(head)}\n${stateText}`);
  }

  const code = (c: string) => (err: unknown) => err instanceof CheckpointError && err.code === c;

  it('a checkpoint of the version before Ray nodes (v3) is read afresh, not misread', () => {
    assert.ok(CHECKPOINT_VERSION >= 4);
    assert.throws(
      () =>
        LogAnalyzer.restore(
          edit(saved(), (d) => (d.v = 3)),
          OPTS,
        ),
      (e: Error) => e instanceof CheckpointError && e.code === 'version',
    );
  });

  it('another version, or other saved fields, is a typed error', () => {
    const data = saved();
    assert.throws(
      () =>
        LogAnalyzer.restore(
          edit(data, (d) => (d.v = CHECKPOINT_VERSION + 1)),
          OPTS,
        ),
      code('version'),
    );
    assert.throws(
      () =>
        LogAnalyzer.restore(
          edit(data, (d) => (d.schema = '00000000')),
          OPTS,
        ),
      code('version'),
    );
  });

  it('one read by other rules (a firedup before an upgrade) is a typed error, so the log is read afresh', () => {
    const data = saved();
    assert.equal(JSON.parse(Buffer.from(data).toString('utf8').split('\n')[0]!).rules, READING_ID);
    for (const rules of ['0.0.9+0000000000000000', undefined])
      assert.throws(
        () =>
          LogAnalyzer.restore(
            edit(data, (d) => (d.rules = rules)),
            OPTS,
          ),
        code('version'),
      );
  });

  it('other options are a typed error', () => {
    const data = saved();
    assert.throws(() => LogAnalyzer.restore(data, { year: 2027 }), code('options'));
    assert.throws(() => LogAnalyzer.restore(data, { ...OPTS, engine: 'vllm' }), code('options'));
    assert.throws(() => LogAnalyzer.restore(data, { ...OPTS, maxLine: 100 }), code('options'));
    // Bulk reading is not part of the state: either way reads the same.
    assert.ok(LogAnalyzer.restore(data, { ...OPTS, bulk: false }));
  });

  it('garbage and damaged state are a typed error', () => {
    for (const bad of [Buffer.from(''), Buffer.from('not json'), Buffer.from('{"a":1}'), Buffer.from('null')])
      assert.throws(() => LogAnalyzer.restore(bad, OPTS), code('corrupt'));
    const data = saved();
    assert.throws(
      () =>
        LogAnalyzer.restore(
          edit(data, (d) => delete d.state.f.launches),
          OPTS,
        ),
      code('corrupt'),
    );
    assert.throws(
      () =>
        LogAnalyzer.restore(
          edit(data, (d) => (d.state.f.current = { $ref: 999 })),
          OPTS,
        ),
      code('corrupt'),
    );
    // The same edit without its checksum made anew: damage, caught before anything is decoded.
    assert.throws(
      () =>
        LogAnalyzer.restore(
          edit(data, (d) => (d.state.f.lastTs = 1), false),
          OPTS,
        ),
      (err: unknown) =>
        err instanceof CheckpointError && err.code === 'corrupt' && /checksum/.test(err.message),
    );
  });
});

/** Every object reachable from `root`, once, not looking into `stop`. */
function reachable(root: object, stop: ReadonlySet<unknown>): object[] {
  const seen = new Set<object>();
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || seen.has(v) || stop.has(v)) return;
    seen.add(v);
    if (v instanceof Map)
      for (const [k, x] of v) {
        walk(k);
        walk(x);
      }
    else if (v instanceof Set) for (const x of v) walk(x);
    else if (!ArrayBuffer.isView(v)) for (const x of Object.values(v)) walk(x);
  };
  walk(root);
  return [...seen];
}

describe('the serialiser knows every field', () => {
  function analyzers(): LogAnalyzer[] {
    return [...logsIn('scenarios'), ...logsIn('logs'), ...logsIn('corpus/sglang')].map((f) => {
      const a = new LogAnalyzer(OPTS);
      a.push(fs.readFileSync(f));
      return a;
    });
  }

  it("the analyzer's and the splitter's own fields are exactly their specs' state and rebuilt fields", () => {
    const a = new LogAnalyzer(OPTS);
    const fields = (s: { state: readonly string[]; rebuilt: readonly string[] }) =>
      [...s.state, ...s.rebuilt].sort();
    assert.deepEqual(Object.keys(a).sort(), fields(ANALYZER_SPEC));
    assert.deepEqual(Object.keys((a as any).splitter).sort(), fields(SPLITTER_SPEC));
  });

  it('every class in a real analyzer state is one the serialiser saves, with the fields of a fresh one', () => {
    const created = new Map(CREATED.map((c) => [c.spec.proto, c]));
    const classes = new Set<string>();
    for (const a of analyzers()) {
      const splitter = (a as any).splitter;
      // Rebuilt fields (closures, the bulk reader) are built again by the constructor: not walked.
      const state = ANALYZER_SPEC.state.map((k) =>
        k === 'splitter' ? SPLITTER_SPEC.state.map((f) => splitter[f]) : (a as any)[k],
      );
      for (const o of reachable(state, new Set(ENGINE_MODULES))) {
        const proto = Object.getPrototypeOf(o);
        if (
          proto === Object.prototype ||
          proto === Array.prototype ||
          proto === Map.prototype ||
          proto === Set.prototype ||
          o instanceof Uint32Array ||
          o instanceof Float64Array
        )
          continue;
        const c = created.get(proto);
        assert.ok(c, `unknown class ${proto?.constructor?.name} in the analyzer's state`);
        classes.add(c.spec.name);
        // A field set outside the constructor would be missing from the fingerprint of the saved fields.
        assert.deepEqual(Object.keys(o), Object.keys(c.fresh()), c.spec.name);
      }
    }
    assert.deepEqual([...classes].sort(), CREATED.map((c) => c.spec.name).sort());
  });

  it('a new field is refused rather than dropped', () => {
    const a = new LogAnalyzer(OPTS);
    (a as any).addedLater = 1;
    assert.throws(() => a.checkpoint(), /LogAnalyzer\.addedLater.*neither state nor rebuilt/);
    const b = new LogAnalyzer(OPTS);
    (b as any).splitter.addedLater = 1;
    assert.throws(() => b.checkpoint(), /LineSplitter\.addedLater/);
    const c = new LogAnalyzer(OPTS);
    c.push(fs.readFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log')));
    (c.launches[0] as any).addedLater = () => 1;
    assert.throws(
      () => c.checkpoint(),
      /cannot save a function at LogAnalyzer\.launches\.0\.LaunchBuilder\.addedLater/,
    );
    (c.launches[0] as any).addedLater = new (class Unknown {})();
    assert.throws(() => c.checkpoint(), /an instance of Unknown/);
  });
});

describe('state codec', () => {
  class Box {
    constructor(public v: unknown) {}
  }
  const codec = new StateCodec(
    [
      { kind: 'create', name: 'Box', proto: Box.prototype },
      { kind: 'into', name: 'Root', proto: Object.prototype, state: ['x'], rebuilt: ['f'] },
    ],
    [['pi', Math.PI]],
  );
  const spec = { kind: 'into', name: 'Root', proto: Object.prototype, state: ['x'], rebuilt: ['f'] } as const;

  function roundTrip(x: unknown): unknown {
    const json = JSON.parse(JSON.stringify(codec.encodeInto({ x, f: () => 0 }, spec)));
    const into: { x?: unknown } = {};
    codec.decodeInto(json, into, spec);
    return into.x;
  }

  it('keeps values JSON cannot hold, prototypes and orders', () => {
    const np = Object.create(null);
    np.a = 1;
    const value = {
      u: undefined,
      z: -0,
      n: Number.NaN,
      i: [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
      $tag: { $c: 'Box' },
      np,
      m: new Map<unknown, unknown>([
        [2, 'b'],
        ['1', { k: 1 }],
      ]),
      s: new Set([3, 1, 2]),
      h: Float64Array.from([0, 0, 1.5, 0, -0, Number.NaN, 0, 0]),
      d: Uint32Array.from([1, 2, 3]),
      b: new Box([new Box(null)]),
      k: Math.PI,
      text: 'ü\u0000\ud800',
    };
    Object.defineProperty(value, '__proto__', {
      value: { x: 1 },
      enumerable: true,
      writable: true,
      configurable: true,
    });
    const back = roundTrip(value) as typeof value;
    assert.deepEqual(back, value);
    assert.ok(Object.is(back.z, -0));
    assert.deepEqual(Object.getOwnPropertyDescriptor(back, '__proto__')?.value, { x: 1 });
    assert.equal(Object.getPrototypeOf(back), Object.prototype);
    assert.equal(Object.getPrototypeOf(back.np), null);
    assert.ok(back.b instanceof Box && (back.b.v as Box[])[0] instanceof Box);
    assert.deepEqual([...back.s], [3, 1, 2]);
  });

  it('an object reached twice comes back as one object', () => {
    const shared = ['first remedy'];
    const value = { event: { remedies: shared }, candidates: [{ remedies: shared }], again: shared };
    const back = roundTrip(value) as typeof value;
    assert.deepEqual(back, value);
    back.event.remedies.push('second');
    assert.equal(back.candidates[0]!.remedies.length, 2);
    assert.equal(back.again, back.event.remedies);
  });

  it('refuses cycles, functions, unknown classes and arrays with extra properties', () => {
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    assert.throws(() => roundTrip(cyc), /a cycle/);
    assert.throws(() => roundTrip({ f: () => 1 }), /a function at Root\.x\.f/);
    assert.throws(() => roundTrip(new Date()), /an instance of Date/);
    assert.throws(() => roundTrip(/x/.exec('x')), /an array with extras/);
    assert.throws(() => roundTrip(Buffer.from('x')), /a Buffer/);
  });
});
