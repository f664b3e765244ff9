import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  HEAD_LEN,
  type IngestOptions,
  ingestLocal,
  type LedgerLike,
  TAIL_LEN,
  TIERING_BUDGET,
} from '../../src/app/ingest.js';
import { LogAnalyzer } from '../../src/core/reading/analyzer.js';
import type { LaunchReport } from '../../src/core/reading/report.js';
import { analyzeFile } from '../../src/sources/file.js';
import { Ledger } from '../../src/store/ledger.js';
import type { LaunchRecord, LogKey, LogState } from '../../src/store/types.js';
import { DIST, ROOT, SCENARIOS, tmpDir } from '../helpers.js';
import { BACKENDS, stopBackends } from './backends.js';

/** The ledger's contract in memory, counting what ingest asked of it. */
class MemoryLedger implements LedgerLike {
  state: LogState | null = null;
  readonly launches = new Map<string, LaunchRecord>();
  saves: Array<{ offset: number; lines: number; checkpoint: Uint8Array | null }> = [];
  resets = 0;

  getLog(key: LogKey): LogState | null {
    return this.state && this.state.host === key.host && this.state.path === key.path ? this.state : null;
  }

  saveProgress(state: Omit<LogState, 'id' | 'updatedAt'>, launches: LaunchRecord[]): void {
    this.state = { ...state, id: 1, updatedAt: 0 };
    this.saves.push({ offset: state.offset, lines: state.lines, checkpoint: state.checkpoint });
    for (const l of launches) this.launches.set(l.id, l);
  }

  resetLog(key: LogKey): void {
    this.resets++;
    if (this.getLog(key))
      this.state = {
        ...this.state!,
        fileId: null,
        headHash: null,
        headLen: 0,
        offset: 0,
        lines: 0,
        checkpoint: null,
      };
  }
}

/** A crash while serving, as SGLang prints it: a relaunch after it is a new launch. */
const CRASH = [
  '[2026-02-20 01:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):',
  '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2100, in event_loop_overlap',
  '    result = self.run_batch(batch)',
  'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.',
  '[2026-02-20 01:00:01] Received sigquit from a child process. It usually means the child failed.',
  '',
].join('\n');

/** The first look for the file's last newline. */
const PROBE = 4096;

let dir = '';
let serving = Buffer.alloc(0);
let relaunch = Buffer.alloc(0);

/** A serving log, a crash, and a relaunch that serves: `n` bytes of serving lines first. */
function manyLaunches(n: number): Buffer {
  const body = serving.subarray(0, serving.indexOf(10, n) + 1);
  return Buffer.concat([body, Buffer.from(CRASH), relaunch, serving.subarray(serving.indexOf(10, n) + 1)]);
}

let seq = 0;
function file(data: Buffer | string): string {
  const p = path.join(dir, `log-${++seq}.log`);
  fs.writeFileSync(p, data);
  return p;
}

/** The report of reading the file from the start, as `firedup runs` does without a ledger. */
const full = (p: string) => analyzeFile(p).report;

/**
 * A read's whole report and ids: a ledger keeps the closed launches (`earlier`), read back here before the
 * report's own, as `runs` prints them.
 */
async function whole(r: Awaited<ReturnType<typeof ingestLocal>>) {
  const before: LaunchReport[] = [];
  if (r.earlier)
    for await (const page of r.earlier.reportTexts()) before.push(...page.map((t) => JSON.parse(t)));
  assert.equal(before.length, r.earlier?.count ?? 0);
  const ids = r.earlier ? (await r.earlier.last(r.earlier.count)).map((x) => x.id) : [];
  return {
    report: { ...r.report, launches: [...before, ...r.report.launches] },
    ids: [...ids, ...r.records.map((x) => x.id)],
  };
}

before(async () => {
  dir = tmpDir();
  const gen = await import(pathToFileURL(path.join(ROOT, 'scripts', 'gen-serving-log.mjs')).href);
  const p = path.join(dir, 'serving.log');
  gen.generateServingLog(p, { bytes: 3_000_000, seed: 3 });
  serving = fs.readFileSync(p);
  relaunch = fs.readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'));
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));
after(stopBackends);

describe('ingest reads only what was appended', () => {
  it('a first read, then an append: resumes where it stopped and reports as a full read', async () => {
    const data = manyLaunches(1_000_000);
    const p = file(data.subarray(0, 2_000_000));
    const ledger = new MemoryLedger();
    const first = await ingestLocal(ledger, p);
    assert.equal(first.resumedFrom, 0);
    assert.equal(first.reset, false);
    assert.deepEqual(first.report, full(p));
    assert.equal(ledger.state!.path, fs.realpathSync(p));
    assert.equal(ledger.state!.host, 'localhost');
    assert.equal(ledger.state!.headLen, HEAD_LEN);
    assert.equal(data[ledger.state!.offset - 1], 10, 'the offset is at a line boundary');

    fs.appendFileSync(p, data.subarray(2_000_000));
    const appended = data.length - 2_000_000;
    const second = await ingestLocal(ledger, p);
    assert.equal(second.resumedFrom, ledger.saves[0]!.offset);
    assert.ok(second.resumedFrom > 1_900_000);
    assert.ok(
      second.bytesRead <= appended + 2_000_000 - second.resumedFrom + HEAD_LEN + 2 * TAIL_LEN + PROBE,
      `read ${second.bytesRead} bytes for ${appended} appended`,
    );
    assert.deepEqual(second.report, full(p));
    assert.ok(second.report.launches.length >= 2);
    assert.equal(second.records.length, second.report.launches.length);
    assert.deepEqual(
      [...ledger.launches.keys()].sort(),
      second.records.map((r) => r.id).sort(),
      'the launch read in both parts is one record',
    );
  });

  it('nothing new: reads the head and the last line only', async () => {
    const p = file(manyLaunches(200_000));
    const ledger = new MemoryLedger();
    await ingestLocal(ledger, p);
    const again = await ingestLocal(ledger, p);
    assert.equal(again.resumedFrom, fs.statSync(p).size);
    assert.ok(again.bytesRead <= HEAD_LEN + 2 * TAIL_LEN + PROBE, `read ${again.bytesRead}`);
    assert.deepEqual(again.report, full(p));
  });

  it('a last line without its newline is read again once it is complete', async () => {
    const line = '[2026-02-19 13:03:40] INFO:     127.0.0.1:5000 - "POST /generate HTTP/1.1" 200 OK\n';
    const base = manyLaunches(100_000);
    const p = file(Buffer.concat([base, Buffer.from(line.slice(0, 30))]));
    const ledger = new MemoryLedger();
    const first = await ingestLocal(ledger, p);
    assert.equal(ledger.state!.offset, base.length);
    assert.equal(first.report.lines, full(p).lines);
    assert.deepEqual(first.report, full(p));
    fs.appendFileSync(p, `${line.slice(30)}${line}${line.slice(0, 10)}`);
    const second = await ingestLocal(ledger, p);
    assert.equal(second.resumedFrom, base.length);
    assert.deepEqual(second.report, full(p));
    assert.equal(ledger.state!.offset, base.length + 2 * line.length);
  });

  it('an empty file, then lines', async () => {
    const p = file('');
    const ledger = new MemoryLedger();
    const first = await ingestLocal(ledger, p);
    assert.deepEqual(first.report, full(p));
    assert.equal(ledger.state!.offset, 0);
    fs.appendFileSync(p, relaunch);
    const second = await ingestLocal(ledger, p);
    assert.equal(second.reset, false);
    assert.deepEqual(second.report, full(p));
  });

  it('without a ledger, a plain read', async () => {
    const p = file(manyLaunches(100_000));
    const r = await ingestLocal(null, p);
    assert.deepEqual(r.report, full(p));
    assert.equal(r.resumedFrom, 0);
    assert.equal(r.records.length, r.report.launches.length);
  });

  it('a missing file is one line naming it', async () => {
    await assert.rejects(ingestLocal(null, path.join(dir, 'nope.log')), /nope\.log: no such file/);
  });
});

describe('ingest reads afresh a file that changed', () => {
  async function twice(change: (p: string) => void, opts: IngestOptions = {}) {
    const p = file(manyLaunches(300_000));
    const ledger = new MemoryLedger();
    await ingestLocal(ledger, p, opts);
    change(p);
    const r = await ingestLocal(ledger, p, opts);
    return { p, r, ledger };
  }

  it('truncated and rewritten shorter', async () => {
    const { p, r, ledger } = await twice((p) => fs.truncateSync(p, 1000));
    assert.equal(r.reset, true);
    assert.equal(r.resumedFrom, 0);
    assert.equal(ledger.resets, 1);
    assert.deepEqual(r.report, full(p));
    assert.equal(ledger.state!.offset, fs.readFileSync(p).lastIndexOf(10) + 1);
  });

  it('truncated to nothing and written again, longer than before', async () => {
    const { p, r } = await twice((p) => {
      fs.truncateSync(p, 0);
      fs.appendFileSync(p, Buffer.concat([relaunch, manyLaunches(400_000)]));
    });
    assert.equal(r.reset, true);
    assert.deepEqual(r.report, full(p));
  });

  it('replaced by another file (another inode)', async () => {
    const { p, r } = await twice((p) => {
      const other = `${p}.new`;
      fs.writeFileSync(other, manyLaunches(300_000));
      fs.appendFileSync(other, relaunch);
      fs.renameSync(other, p);
    });
    assert.equal(r.reset, true);
    assert.equal(r.resumedFrom, 0);
    assert.deepEqual(r.report, full(p));
  });

  it('its head edited in place, same size', async () => {
    const { p, r } = await twice((p) => {
      const fd = fs.openSync(p, 'r+');
      fs.writeSync(fd, Buffer.from('2025'), 0, 4, 1);
      fs.closeSync(fd);
    });
    assert.equal(r.reset, true);
    assert.deepEqual(r.report, full(p));
  });

  it('a rewrite past the head, before where the last read stopped', async () => {
    const { p, r } = await twice((p) => {
      const fd = fs.openSync(p, 'r+');
      fs.writeSync(fd, Buffer.from('X'), 0, 1, fs.statSync(p).size - 100);
      fs.closeSync(fd);
    });
    assert.equal(r.reset, true);
    assert.deepEqual(r.report, full(p));
  });

  it('a checkpoint this version cannot restore', async () => {
    const p = file(manyLaunches(300_000));
    const ledger = new MemoryLedger();
    await ingestLocal(ledger, p);
    ledger.state = { ...ledger.state!, checkpoint: Buffer.from('{"magic":"firedup-checkpoint","v":0}') };
    const again = await ingestLocal(ledger, p);
    assert.equal(again.reset, true);
    assert.deepEqual(again.report, full(p));
  });

  it('a checkpoint read by other rules (before an upgrade) is not resumed: the stale reading is not kept', async () => {
    const p = file(manyLaunches(300_000));
    const ledger = new MemoryLedger();
    await ingestLocal(ledger, p);
    const text = Buffer.from(ledger.state!.checkpoint!).toString('utf8');
    const nl = text.indexOf('\n');
    const head = { ...JSON.parse(text.slice(0, nl)), rules: '0.0.9+0000000000000000' };
    ledger.state = { ...ledger.state!, checkpoint: Buffer.from(`${JSON.stringify(head)}${text.slice(nl)}`) };
    const again = await ingestLocal(ledger, p);
    assert.equal(again.reset, true);
    assert.equal(again.resumedFrom, 0);
    assert.deepEqual(again.report, full(p));
    // and the checkpoint saved now is this firedup's, resumed by the next read
    const next = await ingestLocal(ledger, p);
    assert.equal(next.reset, false);
    assert.deepEqual(next.report, full(p));
  });

  it('other options (a forced engine) do not resume a checkpoint taken without them', async () => {
    const p = file(manyLaunches(100_000));
    const ledger = new MemoryLedger();
    await ingestLocal(ledger, p);
    const r = await ingestLocal(ledger, p, { engine: 'sglang' });
    assert.equal(r.reset, true);
    assert.deepEqual(r.report, analyzeFile(p, { engine: 'sglang' }).report);
  });
});

describe('an entry an older firedup wrote (SHA-256 digests of the head and the tail)', () => {
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  it('resumes from it when the file is the same, and saves its hashes anew', async () => {
    const data = manyLaunches(300_000);
    const p = file(data.subarray(0, 600_000));
    const ledger = new MemoryLedger();
    await ingestLocal(ledger, p);
    const st = ledger.state!;
    assert.match(st.headHash!, /^h128:[0-9a-f]{32}$/);
    const bytes = fs.readFileSync(p);
    ledger.state = {
      ...st,
      headHash: sha(bytes.subarray(0, st.headLen)),
      tailHash: sha(bytes.subarray(st.offset - TAIL_LEN, st.offset)),
    };
    fs.appendFileSync(p, data.subarray(600_000));
    const r = await ingestLocal(ledger, p);
    assert.equal(r.reset, false);
    assert.equal(r.resumedFrom, st.offset);
    assert.deepEqual(r.report, full(p));
    assert.equal(ledger.state!.headHash, st.headHash, 'the head hash saved in the new form');
    assert.match(ledger.state!.tailHash!, /^h128:/);
    const again = await ingestLocal(ledger, p);
    assert.equal(again.reset, false);
    assert.equal(again.resumedFrom, ledger.state!.offset);
  });

  it('reads afresh when the head changed since', async () => {
    const p = file(manyLaunches(300_000));
    const ledger = new MemoryLedger();
    await ingestLocal(ledger, p);
    const st = ledger.state!;
    const bytes = fs.readFileSync(p);
    ledger.state = {
      ...st,
      headHash: sha(bytes.subarray(0, st.headLen)),
      tailHash: sha(bytes.subarray(st.offset - TAIL_LEN, st.offset)),
    };
    const fd = fs.openSync(p, 'r+');
    fs.writeSync(fd, Buffer.from('2025'), 0, 4, 1);
    fs.closeSync(fd);
    const r = await ingestLocal(ledger, p);
    assert.equal(r.reset, true);
    assert.deepEqual(r.report, full(p));
  });
});

describe('the wasm tiering budget a short read changes and puts back', () => {
  it("is this Node's default, so that putting it back leaves V8's flags (the code cache's key) as they were", () => {
    const r = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    const m = /--wasm-tiering-budget[^\n]*\n\s*type: int\s+default: --wasm-tiering-budget=(\d+)/.exec(
      r.stdout,
    );
    assert.ok(m, 'node --v8-options lists --wasm-tiering-budget');
    assert.equal(Number(m[1]), TIERING_BUDGET);
  });

  it('an incremental read leaves the flags as they were', async () => {
    const v8 = await import('node:v8');
    const tag = v8.cachedDataVersionTag();
    const data = manyLaunches(300_000);
    const p = file(data.subarray(0, 500_000));
    const ledger = new MemoryLedger();
    await ingestLocal(ledger, p);
    fs.appendFileSync(p, data.subarray(500_000));
    const r = await ingestLocal(ledger, p);
    assert.ok(r.resumedFrom > 0);
    assert.deepEqual(r.report, full(p));
    assert.equal(v8.cachedDataVersionTag(), tag);
  });
});

describe('long reads', () => {
  it('save progress along the way, at line boundaries, each resumable', async () => {
    const data = manyLaunches(1_500_000);
    const p = file(data);
    const ledger = new MemoryLedger();
    const r = await ingestLocal(ledger, p, {
      saveEvery: 500_000,
      parallelMinBytes: Number.POSITIVE_INFINITY,
    });
    assert.deepEqual(r.report, full(p));
    assert.ok(ledger.saves.length >= 4, `${ledger.saves.length} saves`);
    const year = new Date(fs.statSync(p).mtimeMs).getUTCFullYear();
    let last = 0;
    for (const s of ledger.saves) {
      assert.ok(s.offset > last);
      assert.equal(data[s.offset - 1], 10);
      const a = LogAnalyzer.restore(s.checkpoint!, { year });
      assert.equal(a.bytes, s.offset);
      a.push(data.subarray(s.offset));
      assert.deepEqual(a.end(), r.report);
      last = s.offset;
    }
  });

  it('with two threads (the first read of a big file), the checkpoint continues exactly', async () => {
    const data = manyLaunches(2_000_000);
    const cut = data.indexOf(10, data.length - 400_000) + 1;
    const p = file(data.subarray(0, cut));
    const ledger = new MemoryLedger();
    const opts = { parallelMinBytes: 1 << 20, saveEvery: 700_000 };
    const first = await ingestLocal(ledger, p, opts);
    assert.deepEqual(first.report, full(p));
    fs.appendFileSync(p, data.subarray(cut));
    const second = await ingestLocal(ledger, p, opts);
    assert.equal(second.resumedFrom, cut);
    assert.deepEqual(second.report, full(p));
    // An append big enough for two threads is read with them too.
    fs.appendFileSync(p, data);
    const third = await ingestLocal(ledger, p, opts);
    assert.equal(third.resumedFrom, data.length);
    assert.deepEqual(third.report, full(p));
  });
});

describe('with the real ledger', () => {
  for (const b of BACKENDS)
    it(`append, resume, no duplicate launches (${b.name})`, async () => {
      const data = manyLaunches(800_000);
      const p = file(data.subarray(0, 900_000));
      const ledger = await b.open();
      try {
        // Saved along the way too (every 256 KB here), each save whole and in order.
        await ingestLocal(ledger, p, { saveEvery: 256 << 10 });
        fs.appendFileSync(p, data.subarray(900_000));
        const r = await ingestLocal(ledger, p);
        assert.ok(r.resumedFrom > 800_000);
        const w = await whole(r);
        assert.deepEqual(w.report, full(p));
        const real = fs.realpathSync(p);
        const stored = await ledger.list({ path: real });
        assert.equal(stored.length, w.report.launches.length);
        assert.deepEqual(stored.map((l) => l.id).sort(), [...w.ids].sort());
        const state = (await ledger.getLog({ host: 'localhost', path: real }))!;
        assert.equal(state.offset, data.length);
        assert.ok(state.checkpoint instanceof Uint8Array);
      } finally {
        await ledger.close();
      }
    });

  it('killed (-9) mid-read: the next read resumes from the last save, with no duplicate launches', async () => {
    // Several launches, the crash and the relaunch after the first save, so a launch spans the kill.
    const data = Buffer.concat([
      serving,
      Buffer.from(CRASH),
      relaunch,
      serving.subarray(serving.indexOf(10) + 1),
    ]);
    const p = file(data);
    const real = fs.realpathSync(p);
    const db = path.join(dir, `ledger-${++seq}.db`);
    // The child saves every 1 MB and, after its first save, says so and hangs until it is killed.
    const script = path.join(dir, `child-${seq}.mjs`);
    const mod = (rel: string) => JSON.stringify(pathToFileURL(path.join(DIST, rel)).href);
    fs.writeFileSync(
      script,
      `import { ingestLocal } from ${mod('src/app/ingest.js')};
       import { Ledger } from ${mod('src/store/ledger.js')};
       const ledger = Ledger.open(process.argv[2]);
       const hanging = {
         getLog: (k) => ledger.getLog(k),
         resetLog: (k) => ledger.resetLog(k),
         saveProgress(state, launches) {
           ledger.saveProgress(state, launches);
           process.stdout.write('saved ' + state.offset + '\\n');
           Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
         },
       };
       await ingestLocal(hanging, process.argv[3], { saveEvery: 1 << 20, parallelMinBytes: Infinity });
       process.stdout.write('finished\\n');`,
    );
    const child = spawn(process.execPath, [script, db, p], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const saved = await new Promise<number>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /saved (\d+)/.exec(out);
        if (m) {
          child.kill('SIGKILL');
          resolve(Number(m[1]));
        }
      });
      child.on('exit', () => reject(new Error(`child exited before saving: ${out}`)));
    });
    await new Promise((resolve) => child.once('exit', resolve));
    assert.ok(saved > 1_000_000 && saved <= 1 << 20, `saved at ${saved}`);

    const ledger = Ledger.open(db);
    try {
      assert.equal(ledger.getLog({ host: 'localhost', path: real })!.offset, saved);
      const before = ledger.list({ path: real }).length;
      assert.ok(before >= 1);
      const r = await ingestLocal(ledger, p, { parallelMinBytes: Number.POSITIVE_INFINITY });
      assert.equal(r.resumedFrom, saved);
      assert.equal(r.reset, false);
      assert.ok(r.bytesRead <= data.length - saved + HEAD_LEN + 2 * TAIL_LEN + PROBE, `read ${r.bytesRead}`);
      const w = await whole(r);
      assert.deepEqual(w.report, full(p));
      const stored = ledger.list({ path: real });
      assert.equal(stored.length, w.report.launches.length);
      assert.ok(w.report.launches.length >= 2);
      assert.deepEqual(stored.map((l) => l.id).sort(), [...w.ids].sort());
    } finally {
      ledger.close();
    }
  });
});
