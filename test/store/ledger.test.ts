import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Ledger } from '../../src/store/ledger.js';
import type { LedgerStore } from '../../src/store/ledger-store.js';
import { APPLICATION_ID, LEDGER_TABLES, MIGRATIONS, SCHEMA_VERSION } from '../../src/store/migrations.js';
import { launchRow, listItemOf } from '../../src/store/record.js';
import { type LaunchRecord, LedgerError } from '../../src/store/types.js';
import { tmpDir } from '../helpers.js';
import { BACKENDS, stopBackends } from './backends.js';
import { benchResult, HOST, scenarioRecords } from './fixtures.js';

after(stopBackends);

const recs = scenarioRecords();
const rec = (key: string): LaunchRecord => recs.get(key)!;
const CUTLASS = 'glm5-cutlass-bench-then-shutdown.log#1';
const RELAUNCH1 = 'glm5-relaunch-stuck-at-48pct.log#1';
const RELAUNCH2 = 'glm5-relaunch-stuck-at-48pct.log#2';
const SILENT = 'glm5-silent-after-load-weight-end.log#1';
const OOM = 'glm5-trtllm-oom-in-cuda-graph.log#1';
/** Newest first by the logs' own start times. */
const NEWEST_FIRST = [OOM, SILENT, CUTLASS, RELAUNCH2, RELAUNCH1];

const ids = (rs: LaunchRecord[]) => rs.map((r) => r.id);
const idsOf = (...keys: string[]) => keys.map((k) => rec(k).id);
const json = <T>(x: T): T => JSON.parse(JSON.stringify(x));

async function code(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof LedgerError, `expected a LedgerError, got ${e}`);
    return e.code;
  }
  assert.fail('expected a LedgerError');
}

async function message(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail('expected an error');
}

describe('ledger: creation and migrations', () => {
  it('creates the directory (0700) and the file, at the latest schema, marked as firedup', () => {
    const file = path.join(tmpDir(), 'a', 'b', 'ledger.db');
    Ledger.open(file).close();
    assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    assert.equal(fs.statSync(file).mode & 0o077, 0, 'not readable by others');
    const db = new Database(file, { readonly: true });
    assert.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.equal(db.pragma('application_id', { simple: true }), APPLICATION_ID);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as any[]).map(
      (r) => r.name,
    );
    db.close();
    assert.deepEqual(new Set(tables), LEDGER_TABLES);
  });

  it('initialises an empty (0-byte) file', () => {
    const file = path.join(tmpDir(), 'ledger.db');
    fs.writeFileSync(file, '');
    const l = Ledger.open(file);
    l.upsertLaunches([rec(CUTLASS)]);
    l.close();
    assert.ok(fs.statSync(file).size > 0);
  });

  it('reopening keeps everything and migrates nothing twice', () => {
    const file = path.join(tmpDir(), 'ledger.db');
    const l = Ledger.open(file);
    l.upsertLaunches([...recs.values()]);
    l.addTarget({ model: null, metric: 'output_tok_s', op: '>=', value: 1000, expr: 'output_tok_s >= 1000' });
    l.close();
    const again = Ledger.open(file);
    assert.equal(again.list().length, recs.size);
    assert.equal(again.targets().length, 1);
    again.close();
  });

  it('a ledger of schema 1 gets the list summary of every launch it holds (migration 2)', () => {
    const file = path.join(tmpDir(), 'ledger.db');
    const db = new Database(file);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma('journal_mode = WAL');
    db.exec(MIGRATIONS[0]!);
    db.pragma('user_version = 1');
    // The rows as firedup of schema 1 wrote them: no summary column, no fingerprint.
    const rows = [...recs.values()].map((r) => {
      const { summary, fingerprint, machine, user_name, ...row } = launchRow(r);
      return row;
    });
    const cols = Object.keys(rows[0]!);
    const insert = db.prepare(
      `INSERT INTO launches (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
    );
    for (const row of rows) insert.run(row);
    db.close();
    const l = Ledger.open(file);
    try {
      const items = l.listItems();
      assert.equal(items.length, recs.size);
      assert.deepEqual(items, l.list().map(listItemOf));
      // Rows older than schema 6 know no machine or user (read as this machine's: identity.ts).
      assert.ok(items.every((i) => i.machine === null && i.user === null));
      const plain = items.map(({ machine, user, ...rest }) => rest);
      assert.deepEqual(plain, json(ids(l.list()).map((id) => listItemOf(recs.get(keyOf(id))!))));
    } finally {
      l.close();
    }
  });
});

const keyOf = (id: string): string => [...recs].find(([, r]) => r.id === id)![0];

for (const b of BACKENDS)
  describe(`ledger (${b.name}): logs`, () => {
    let l: LedgerStore;
    before(async () => (l = await b.open()));
    after(() => l.close());
    const key = { host: HOST, path: rec(RELAUNCH1).path };

    it('saves progress with its launches and reads it back', async () => {
      assert.equal(await l.getLog(key), null);
      const checkpoint = new Uint8Array([1, 2, 3, 250]);
      const state = {
        ...key,
        fileId: '2049:1234',
        headHash: 'ab'.repeat(32),
        headLen: 4096,
        tailHash: 'cd'.repeat(32),
        offset: 35777,
        lines: 321,
      };
      await l.saveProgress({ ...state, checkpoint }, [rec(RELAUNCH1)]);
      const got = (await l.getLog(key))!;
      assert.deepEqual({ ...got, id: 0, updatedAt: 0 }, { ...state, checkpoint, id: 0, updatedAt: 0 });
      assert.ok(got.checkpoint instanceof Uint8Array);
      assert.deepEqual(ids(await l.list({ path: key.path })), idsOf(RELAUNCH1));

      await l.saveProgress({ ...state, offset: 42826, lines: 390, checkpoint: null }, [
        rec(RELAUNCH1),
        rec(RELAUNCH2),
      ]);
      assert.equal((await l.getLog(key))!.offset, 42826);
      assert.equal((await l.getLog(key))!.checkpoint, null);
      assert.deepEqual(ids(await l.list({ path: key.path })), idsOf(RELAUNCH2, RELAUNCH1));
    });

    it("launchesAtLog: the file's launches in file order, with their ids; their reports as text", async () => {
      const want = [rec(RELAUNCH1), rec(RELAUNCH2)].map((r) => ({ id: r.id, startOffset: r.startOffset }));
      assert.deepEqual(await l.launchesAtLog(key, '2049:1234'), want);
      // another file at that path (replaced: another inode) has none of them
      assert.deepEqual(await l.launchesAtLog(key, '2049:9999'), []);
      // the reports as a read prints them, key for key, in the order asked
      const texts = await l.reportTexts([rec(RELAUNCH2).id, 'feedfeedfeedfeed', rec(RELAUNCH1).id]);
      assert.deepEqual(texts, [JSON.stringify(rec(RELAUNCH2).report), JSON.stringify(rec(RELAUNCH1).report)]);
      assert.deepEqual(
        ids(await l.getLaunches([rec(RELAUNCH2).id, rec(RELAUNCH1).id])),
        idsOf(RELAUNCH2, RELAUNCH1),
      );
    });

    it('a write that does not know the file (a remote watch) leaves a launch the file read put there', async () => {
      // `watch host:/log` records without the remote inode, `status host:/log` with it: the launch stays the
      // file's, or the next status would find the ledger short of it and read the whole log again.
      await l.upsertLaunches([{ ...rec(RELAUNCH2), fileId: null, updatedAt: rec(RELAUNCH2).updatedAt + 1 }]);
      const want = [rec(RELAUNCH1), rec(RELAUNCH2)].map((r) => ({ id: r.id, startOffset: r.startOffset }));
      assert.deepEqual(await l.launchesAtLog(key, '2049:1234'), want);
    });

    it('resetLog forgets where reading stopped but keeps the launches', async () => {
      await l.resetLog(key);
      const got = (await l.getLog(key))!;
      assert.deepEqual(
        [got.offset, got.lines, got.checkpoint, got.fileId, got.headHash],
        [0, 0, null, null, null],
      );
      assert.equal((await l.list({ path: key.path })).length, 2);
      // the launches are no longer the file's: a read of the file as it is now starts without them
      assert.deepEqual(await l.launchesAtLog(key, '2049:1234'), []);
    });
  });

for (const b of BACKENDS)
  describe(`ledger (${b.name}): launches`, () => {
    let l: LedgerStore;
    before(async () => {
      l = await b.open();
      await l.upsertLaunches([...recs.values()]);
    });
    after(() => l.close());

    it('keeps the whole report, throughput series included', async () => {
      const r = rec(CUTLASS);
      const { machine, user, ...got } = (await l.getLaunch(r.id))!;
      assert.deepEqual(got, json(r));
      // Who and where, filled in on the way in (issue 24.9): a remote log's machine is its ssh host.
      assert.equal(machine, r.host);
      assert.equal(user, os.userInfo().username);
      assert.equal(got.report.throughput!.series.length, r.report.throughput!.series.length);
      assert.equal(await l.getLaunch('0000000000000000'), null);
    });

    it('upserting the same launch again gives one row, first seen kept, the rest updated', async () => {
      const r = rec(SILENT);
      const intended = {
        argv: ['python', '-m', 'sglang.launch_server'],
        cwd: '/root',
        env: { CUDA_VISIBLE_DEVICES: '0,1,2,3,4,5,6,7' },
        engineVersion: '0.5.8',
        git: null,
        flags: { tp_size: 8 },
        mismatches: [],
        pid: 4242,
        startedAt: 1_771_577_990,
      };
      // Recorded (in `before`) when first seen; seen again later, with what `firedup launch` intended.
      await l.upsertLaunches([
        { ...r, intended, firstSeen: r.firstSeen + 100, updatedAt: r.firstSeen + 100 },
      ]);
      await l.upsertLaunches([
        { ...r, outcome: 'crashed', failureClass: 'killed', firstSeen: 1, updatedAt: r.firstSeen + 200 },
      ]);
      const got = (await l.getLaunch(r.id))!;
      assert.equal((await l.list({ path: r.path })).length, 1);
      assert.deepEqual(
        [got.firstSeen, got.updatedAt, got.outcome, got.failureClass],
        [r.firstSeen, r.firstSeen + 200, 'crashed', 'killed'],
      );
      assert.deepEqual(got.intended, intended, 'a record without an intent keeps the known one');
      const other = { ...intended, pid: 5151 };
      await l.upsertLaunches([{ ...r, intended: other, updatedAt: 300 }]);
      assert.equal((await l.getLaunch(r.id))!.intended!.pid, 5151);
      await l.upsertLaunches([r]);
    });

    it('listItems: what list() gives, without the reports: the phases, key flags and failure a row shows', async () => {
      for (const filter of [
        {},
        { limit: 2 },
        { outcome: 'crashed' },
        { where: [{ key: 'tp_size', value: '8' }] },
      ])
        assert.deepEqual(
          await l.listItems(filter),
          (await l.list(filter)).map(listItemOf),
          JSON.stringify(filter),
        );
      const oom = (await l.listItems({ outcome: 'crashed' }))[0]!;
      const r = rec(OOM);
      assert.equal('report' in oom, false);
      assert.deepEqual(
        oom.phases,
        r.report.phases.map((p) => ({ phase: p.phase, at: p.at, duration: p.duration })),
      );
      assert.deepEqual(oom.configSummary, json(r.report.configSummary));
      assert.deepEqual(oom.failure, { class: 'oom', message: r.report.failure!.message });
      assert.equal((await l.listItems({ outcome: 'serving' }))[0]?.failure ?? null, null);
    });

    it('lists newest first, by the log start time', async () => {
      assert.deepEqual(ids(await l.list()), idsOf(...NEWEST_FIRST));
      assert.deepEqual(ids(await l.list({ limit: 2 })), idsOf(OOM, SILENT));
    });

    it('filters on config fields, compared as text', async () => {
      const where = async (...kv: string[]) =>
        ids(await l.list({ where: kv.map((s) => ({ key: s.split('=')[0]!, value: s.split('=')[1]! })) }));
      assert.deepEqual(await where('moe_runner_backend=flashinfer_trtllm'), idsOf(OOM));
      assert.deepEqual(await where('disable_cuda_graph=true'), idsOf(CUTLASS, RELAUNCH2));
      assert.deepEqual(
        await where('disable_cuda_graph=True'),
        idsOf(CUTLASS, RELAUNCH2),
        'as Python prints it',
      );
      assert.deepEqual(await where('tp_size=8'), idsOf(...NEWEST_FIRST));
      assert.deepEqual(await where('tp_size=4'), []);
      assert.deepEqual(await where('mem_fraction_static=0.88'), idsOf(...NEWEST_FIRST));
      assert.deepEqual(await where('max_running_requests=1024'), idsOf(CUTLASS));
      assert.deepEqual(await where('cuda_graph_max_bs=None'), idsOf(CUTLASS, RELAUNCH2));
      assert.deepEqual(
        await where('moe_runner_backend=flashinfer_cutlass', 'disable_cuda_graph=false'),
        idsOf(SILENT, RELAUNCH1),
      );
      assert.deepEqual(await where('no_such_flag=1'), []);
    });

    it('filters on model, host, outcome, since and path', async () => {
      assert.equal((await l.list({ model: 'glm-5' })).length, recs.size, 'case-insensitive substring');
      assert.deepEqual(await l.list({ model: 'llama' }), []);
      assert.equal((await l.list({ host: HOST })).length, recs.size);
      assert.deepEqual(await l.list({ host: 'gpu' }), [], 'host is exact');
      assert.deepEqual(ids(await l.list({ outcome: 'crashed' })), idsOf(OOM));
      assert.deepEqual(ids(await l.list({ outcome: 'in_progress' })), idsOf(SILENT, RELAUNCH2));
      assert.deepEqual(ids(await l.list({ since: rec(CUTLASS).startTs! })), idsOf(OOM, SILENT, CUTLASS));
      assert.deepEqual(ids(await l.list({ path: rec(RELAUNCH1).path })), idsOf(RELAUNCH2, RELAUNCH1));
      assert.deepEqual(ids(await l.list({ model: 'GLM', outcome: 'in_progress', limit: 1 })), idsOf(SILENT));
    });

    it('history: earlier launches of the same model, engine, host and config', async () => {
      const r = rec(RELAUNCH1);
      // The silent launch was asked for with the same flags as launch 1 of the relaunch log.
      assert.equal(rec(SILENT).configHash, r.configHash);
      // The same launch repeated a month later, into another file.
      const later: LaunchRecord = {
        ...r,
        id: 'feed000000000001',
        path: '/logs/again.log',
        startTs: r.startTs! + 30 * 86400,
      };
      await l.upsertLaunches([later]);
      const key = { model: r.model, engine: r.engine, host: HOST, configHash: r.configHash };
      assert.deepEqual(ids(await l.history(key, later.startTs!)), idsOf(SILENT, RELAUNCH1));
      assert.deepEqual(ids(await l.history(key)), [later.id, ...idsOf(SILENT, RELAUNCH1)]);
      assert.deepEqual(ids(await l.history(key, later.startTs!, 1)), idsOf(SILENT));
      assert.deepEqual(ids(await l.history(key, r.startTs!)), [], 'strictly before');
      assert.deepEqual(ids(await l.history({ ...key, host: 'gpu-b' }, later.startTs!)), []);
      // Without a config hash, any config of that model on that host.
      assert.deepEqual(
        ids(await l.history({ ...key, configHash: null }, later.startTs!)),
        idsOf(...NEWEST_FIRST),
      );
      assert.deepEqual(
        ids(await l.history({ ...key, configHash: null }, later.startTs!, 2)),
        idsOf(OOM, SILENT),
      );
      assert.equal((await l.list({ path: '/logs/again.log' })).length, 1);
    });
  });

for (const b of BACKENDS)
  describe(`ledger (${b.name}): resolving what the user typed`, () => {
    let l: LedgerStore;
    const twin = (id: string, startTs: number): LaunchRecord => ({ ...rec(CUTLASS), id, startTs });
    before(async () => {
      l = await b.open();
      await l.upsertLaunches([...recs.values()]);
      await l.upsertLaunches([
        twin('abcd000000000001', 1_700_000_001),
        twin('abcd000000000002', 1_700_000_002),
      ]);
    });
    after(() => l.close());

    it('a full id, or a unique prefix of 4 or more hex characters', async () => {
      const r = rec(OOM);
      assert.equal((await l.resolve(r.id)).id, r.id);
      assert.equal((await l.resolve(r.id.toUpperCase())).id, r.id);
      const unique = [4, 5, 6, 7, 8]
        .map((n) => r.id.slice(0, n))
        .find((p) => [...recs.values()].filter((x) => x.id.startsWith(p)).length === 1)!;
      assert.equal((await l.resolve(unique)).id, r.id);
      assert.equal((await l.resolve('abcd000000000002')).id, 'abcd000000000002');
    });

    it('an ambiguous prefix lists the candidates with model and start', async () => {
      assert.equal(await code(() => l.resolve('abcd')), 'ambiguous');
      const msg = await message(() => l.resolve('abcd0000'));
      assert.match(msg, /abcd000000000001 \(lukealonso\/GLM-5-NVFP4, 2023-11-14T22:13:21Z\)/);
      assert.match(msg, /abcd000000000002/);
      assert.doesNotMatch(msg, /\n/);
    });

    it('last and last~N, newest first', async () => {
      assert.equal((await l.resolve('last')).id, rec(OOM).id);
      assert.equal((await l.resolve('last~0')).id, rec(OOM).id);
      assert.equal((await l.resolve('last~1')).id, rec(SILENT).id);
      assert.equal((await l.resolve('last~6')).id, 'abcd000000000001');
    });

    it('not found says how to list launches', async () => {
      for (const ref of ['last~99', 'ffffffff', 'abc', 'xyz12345', 'last~x', '']) {
        assert.equal(await code(() => l.resolve(ref)), 'not_found', ref);
        assert.match(await message(() => l.resolve(ref)), /firedup runs/);
      }
    });
  });

for (const b of BACKENDS)
  describe(`ledger (${b.name}): benchmarks`, () => {
    let l: LedgerStore;
    before(async () => {
      l = await b.open();
      await l.upsertLaunches([...recs.values()]);
    });
    after(() => l.close());

    it('attaches a result once per fingerprint', async () => {
      const id = rec(RELAUNCH1).id;
      const first = await l.addBench(id, benchResult('f1'));
      assert.equal(first.added, true);
      assert.deepEqual(
        { ...first.record, id: 0, importedAt: 0 },
        { ...benchResult('f1'), id: 0, launchId: id, importedAt: 0 },
      );
      const again = await l.addBench(id, benchResult('f1'));
      assert.deepEqual(again, { record: first.record, added: false });
      assert.equal((await l.addBench(id, benchResult('f2', 1_771_474_400))).added, true);
      assert.deepEqual(
        (await l.benches(id)).map((b) => b.fingerprint),
        ['f1', 'f2'],
      );
      assert.equal(
        (await l.addBench(rec(OOM).id, benchResult('f1'))).added,
        true,
        'the same result on another launch',
      );
      assert.deepEqual(await l.benches(rec(SILENT).id), []);
      // Several launches' at once, each as benches() gives them.
      const some = [id, rec(OOM).id, rec(SILENT).id];
      const of = await l.benchesOf(some);
      assert.deepEqual([...of.keys()].sort(), [id, rec(OOM).id].sort());
      for (const x of some) assert.deepEqual(of.get(x) ?? [], await l.benches(x));
      assert.equal((await l.benchesOf([])).size, 0);
      assert.equal(await code(() => l.addBench('0000000000000000', benchResult('f3'))), 'not_found');
    });

    it('servingAt: the launch up on that host and port at that time', async () => {
      const r1 = rec(RELAUNCH1);
      const r2 = rec(RELAUNCH2);
      const cut = rec(CUTLASS);
      assert.equal(r1.port, 8000);
      assert.equal((await l.servingAt(HOST, 8000, r1.startTs! + 100))?.id, r1.id);
      assert.equal((await l.servingAt(HOST, null, r1.startTs! + 100))?.id, r1.id, 'any port');
      // Launch 1 served until the log stopped: still up after its last line...
      assert.equal((await l.servingAt(HOST, 8000, r1.endTs! + 600))?.id, r1.id);
      // ...until the relaunch on its port replaced it; the relaunch was loading, then fell silent.
      assert.equal((await l.servingAt(HOST, 8000, r2.startTs! + 5))?.id, r2.id);
      assert.equal(await l.servingAt(HOST, 8000, r2.endTs! + 60), null);
      // A clean shutdown ends it.
      assert.equal((await l.servingAt(HOST, 8000, cut.startTs! + 200))?.id, cut.id);
      assert.equal(await l.servingAt(HOST, 8000, cut.endTs! + 1), null);
      assert.equal(await l.servingAt(HOST, 9000, r1.startTs! + 100), null, 'another port');
      assert.equal(await l.servingAt('gpu-b', 8000, r1.startTs! + 100), null, 'another host');
      assert.equal(await l.servingAt(HOST, 8000, r1.startTs! - 1), null, 'before any launch');
    });

    it('servingAt: a relaunch that found the port taken did not replace the server', async () => {
      const r1 = rec(RELAUNCH1);
      const clash: LaunchRecord = {
        ...rec(OOM),
        id: 'beef000000000001',
        startTs: r1.endTs! + 100,
        endTs: r1.endTs! + 110,
        failureClass: 'port_in_use',
      };
      await l.upsertLaunches([clash]);
      assert.equal((await l.servingAt(HOST, 8000, r1.endTs! + 200))?.id, r1.id);
    });
  });

for (const b of BACKENDS)
  describe(`ledger (${b.name}): targets`, () => {
    let l: LedgerStore;
    before(async () => (l = await b.open()));
    after(() => l.close());
    const global = {
      model: null,
      metric: 'output_tok_s',
      op: '>=' as const,
      value: 1000,
      expr: 'output_tok_s >= 1000',
    };
    const glm = { ...global, model: 'lukealonso/GLM-5-NVFP4', value: 900, expr: 'output_tok_s >= 900' };

    it('adding twice returns the existing one', async () => {
      const a = await l.addTarget(global);
      assert.deepEqual(a, { ...global, id: a.id });
      assert.deepEqual(await l.addTarget(global), a);
      const b = await l.addTarget(glm);
      assert.notEqual(b.id, a.id);
      assert.deepEqual(await l.addTarget(glm), b);
      // The same expression for a model is a target of its own.
      const c = await l.addTarget({ ...global, model: 'other/model' });
      assert.equal((await l.targets()).length, 3);
      assert.deepEqual(await l.targets('lukealonso/GLM-5-NVFP4'), [a, b]);
      assert.deepEqual(await l.targets('nobody/else'), [a]);
      assert.deepEqual(await l.targets(null), [a]);
      assert.deepEqual(await l.targets('other/model'), [a, c]);
    });

    it('removes by id', async () => {
      const [a] = await l.targets(null);
      assert.equal(await l.removeTarget(a!.id), true);
      assert.equal(await l.removeTarget(a!.id), false);
      assert.deepEqual(await l.targets(null), []);
    });
  });

for (const b of BACKENDS)
  describe(`ledger (${b.name}): live verdicts, forgetting, sweeps`, () => {
    let l: LedgerStore;
    before(async () => {
      l = await b.open();
      await l.upsertLaunches([...recs.values()]);
    });
    after(() => l.close());

    it('a kept live verdict lists the launch by it, until the log moves on', async () => {
      const r = rec(SILENT);
      const mark = {
        state: 'stalled' as const,
        at: 1,
        why: 'no progress',
        phase: 'loading_weights',
        evidence: [],
      };
      await l.setLive(r.id, mark);
      assert.deepEqual(ids(await l.list({ outcome: 'stalled' })), [r.id]);
      assert.deepEqual((await l.getLaunch(r.id))!.live, mark);
      // Read again with nothing new: the verdict stands.
      await l.upsertLaunches([r]);
      assert.equal((await l.getLaunch(r.id))!.state, 'stalled');
      // The log moved on (another phase): it is the log's word again.
      await l.upsertLaunches([{ ...r, phase: 'kv_cache' }]);
      const got = (await l.getLaunch(r.id))!;
      assert.deepEqual([got.live, got.state], [null, 'in_progress']);
      await l.upsertLaunches([r]);
    });

    it('forget: launches with their benches and places, and with a log, where reading it stopped', async () => {
      const r1 = rec(RELAUNCH1);
      await l.addBench(r1.id, benchResult('fx'));
      await l.saveProgress(
        {
          host: HOST,
          path: r1.path,
          fileId: null,
          headHash: null,
          headLen: 0,
          offset: 10,
          lines: 1,
          checkpoint: null,
        },
        [],
      );
      const at = await l.launchIdsAt({ host: HOST, path: r1.path });
      assert.deepEqual(at.sort(), idsOf(RELAUNCH1, RELAUNCH2).sort());
      assert.deepEqual(await l.forget(at, { host: HOST, path: r1.path }), { launches: 2, benches: 1 });
      assert.equal(await l.getLaunch(r1.id), null);
      assert.equal(await l.getLog({ host: HOST, path: r1.path }), null);
      assert.deepEqual(await l.benches(r1.id), []);
      assert.equal((await l.list()).length, recs.size - 2);
    });

    it('sweeps: a point opened running, updated, numbered per run, a stale one interrupted', async () => {
      const p = {
        sweep: 'np',
        pointHash: 'h1',
        pointIndex: 0,
        flags: { parallel: 2 },
        argv: ['llama-server', '-np', '2'],
        plan: { levels: [1] },
        startedAt: 100,
      };
      const first = await l.openSweepPoint(p);
      assert.deepEqual(
        [first.run, first.status, first.detail, first.flags],
        [1, 'running', {}, { parallel: 2 }],
      );
      await l.updateSweepPoint(first.id, {
        status: 'done',
        launchId: rec(OOM).id,
        endedAt: 200,
        detail: { log: 'x' },
      });
      const second = await l.openSweepPoint({ ...p, startedAt: 300 });
      assert.equal(second.run, 2);
      await l.openSweepPoint({ ...p, pointHash: 'h2', pointIndex: 1, startedAt: 400 });
      assert.equal(await l.closeStaleSweepPoints('np'), 2);
      const points = await l.sweepPoints('np');
      assert.deepEqual(
        points.map((x) => [x.pointIndex, x.run, x.status, x.launchId]),
        [
          [0, 1, 'done', rec(OOM).id],
          [0, 2, 'interrupted', null],
          [1, 1, 'interrupted', null],
        ],
      );
      assert.equal(points[1]!.detail.cause, 'the sweep process ended before this point did');
      // The interrupted runs ended when they were found stale: now.
      const [sweep] = await l.sweeps();
      assert.deepEqual(
        { ...sweep, endedAt: 0 },
        { name: 'np', points: 2, runs: 3, startedAt: 100, endedAt: 0 },
      );
      assert.ok(sweep!.endedAt! > 200);
    });
  });
