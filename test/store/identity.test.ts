/**
 * One launch however often it is read: the same launch at another path (a copy) keeps its record and id,
 * and expectations count it once; two launches of one file stay two, however alike; migration 3 upgrades
 * an older ledger (fingerprints, paths, superseded launches ended).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { expectationsFor } from '../../src/store/history.js';
import { Ledger } from '../../src/store/ledger.js';
import { APPLICATION_ID, MIGRATIONS } from '../../src/store/migrations.js';
import { launchRow, recordFromReport } from '../../src/store/record.js';
import type { LaunchRecord } from '../../src/store/types.js';
import { tmpDir } from '../helpers.js';
import { BACKENDS, stopBackends } from './backends.js';
import { HOST, scenarioRecords } from './fixtures.js';

after(stopBackends);

const recs = scenarioRecords();
const CUT = recs.get('glm5-cutlass-bench-then-shutdown.log#1')!;
const R1 = recs.get('glm5-relaunch-stuck-at-48pct.log#1')!;
const R2 = recs.get('glm5-relaunch-stuck-at-48pct.log#2')!;

/** The record of the same launch read at another path (another file, another inode). */
const copyAt = (r: LaunchRecord, p: string, now = r.firstSeen + 60): LaunchRecord =>
  recordFromReport(r.report, { host: r.host, path: p, fileId: '2049:999', now });

for (const b of BACKENDS)
  describe(`ledger (${b.name}): one launch, read at several paths`, () => {
    it('a copy keeps the first record and its id, and adds its path', async () => {
      const l = await b.open();
      try {
        await l.upsertLaunches([CUT]);
        const copy = copyAt(CUT, '/tmp/copy.log');
        assert.notEqual(copy.id, CUT.id);
        const [kept] = await l.upsertLaunches([copy]);
        assert.equal(kept!.id, CUT.id);
        assert.equal((await l.list()).length, 1);
        assert.deepEqual(
          (await l.getLaunch(CUT.id))!.paths.map((p) => p.path).sort(),
          [CUT.path, '/tmp/copy.log'].sort(),
        );
        assert.equal(await l.keptId(copy), CUT.id);
        assert.equal((await l.list({ path: '/tmp/copy.log' })).length, 1);
      } finally {
        await l.close();
      }
    });

    it('a batch of one file with a copy among its launches: the copy keeps its twin, the others their own ids', async () => {
      // What a read writes: a batch of launches read at one place, written a batch at a time where none can
      // be a copy (Postgres: one statement for hundreds), one by one where one may.
      const l = await b.open();
      try {
        await l.upsertLaunches([CUT]);
        const at = (p: string) => [copyAt(CUT, p), copyAt(R1, p), copyAt(R2, p)];
        const mixed = await l.upsertLaunches(at('/tmp/mixed.log'));
        assert.deepEqual(
          mixed.map((r) => r.id),
          [CUT.id, copyAt(R1, '/tmp/mixed.log').id, copyAt(R2, '/tmp/mixed.log').id],
        );
        // The same three read at a third place: all three are copies now.
        const again = await l.upsertLaunches(at('/tmp/third.log'));
        assert.deepEqual(
          again.map((r) => r.id),
          mixed.map((r) => r.id),
        );
        assert.equal((await l.list()).length, 3);
        // Launches no other place has: one batch, their own ids, each listed at its place.
        const fresh = [R1, R2].map((r) => copyAt(r, '/tmp/fresh.log'));
        await l.forget([mixed[1]!.id, mixed[2]!.id]);
        const kept = await l.upsertLaunches(fresh);
        assert.deepEqual(
          kept.map((r) => r.id),
          fresh.map((r) => r.id),
        );
        assert.equal((await l.list({ path: '/tmp/fresh.log' })).length, 2);
      } finally {
        await l.close();
      }
    });

    it('launches timed from the server start (llama.cpp `0.00.000.816 I …`) are never twins of each other', async () => {
      // Two servers started in two files: their first lines and their starts (~0.001 s) are alike by design.
      const { analyzeText } = await import('../helpers.js');
      const log = (port: number) =>
        [
          '0.00.000.816 I srv  llama_server: initializing ...',
          `0.00.036.417 I main: HTTP server is listening, hostname: 127.0.0.1, port: ${port}, http threads: 1`,
          '',
        ].join('\n');
      const [a, b2] = [8101, 8102].map((port, i) =>
        recordFromReport(analyzeText(log(port)).launches[0]!, {
          host: HOST,
          path: `/tmp/point-${i}.log`,
          fileId: `2049:${700 + i}`,
          now: 1_771_474_000 + i,
        }),
      );
      assert.equal(a!.fingerprint, null);
      const l = await b.open();
      try {
        const kept = await l.upsertLaunches([a!, b2!]);
        assert.notEqual(kept[0]!.id, kept[1]!.id);
        assert.equal((await l.list()).length, 2);
      } finally {
        await l.close();
      }
    });

    it('a copy that saw less of the launch does not take back what the record knows', async () => {
      const l = await b.open();
      try {
        await l.upsertLaunches([R1]);
        const early = copyAt(
          { ...R1, report: { ...R1.report, outcome: 'serving', endLine: R1.report.endLine - 50 } },
          '/tmp/early.log',
        );
        await l.upsertLaunches([early]);
        const got = (await l.getLaunch(R1.id))!;
        assert.equal(got.outcome, 'ended');
        assert.equal(got.path, R1.path);
        assert.equal(got.paths.length, 2);
      } finally {
        await l.close();
      }
    });

    it('expectations count distinct launches: a copy of an earlier launch is one earlier launch', async () => {
      const l = await b.open();
      try {
        await l.upsertLaunches([CUT]);
        await l.upsertLaunches([copyAt(CUT, '/tmp/copy.log')]);
        const later = { ...CUT, id: 'feed000000000001', startTs: CUT.startTs! + 86400, fingerprint: 'x' };
        const e = await expectationsFor(l, later);
        assert.ok(e);
        assert.match(e.basis, /^1 earlier launch of/);
      } finally {
        await l.close();
      }
    });

    it('launches at two places of one file stay two, however alike', async () => {
      const l = await b.open();
      try {
        const again = recordFromReport(
          { ...CUT.report, startOffset: CUT.report.endOffset, startLine: CUT.report.endLine + 1 },
          { host: HOST, path: CUT.path, fileId: CUT.fileId, now: CUT.firstSeen },
        );
        await l.upsertLaunches([CUT, again]);
        assert.equal((await l.list()).length, 2);
      } finally {
        await l.close();
      }
    });
  });

describe('ledger: migration 3', () => {
  it('an older ledger gets fingerprints, paths, and its superseded launches ended', () => {
    const file = path.join(tmpDir(), 'old.db');
    const db = new Database(file);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma('journal_mode = WAL');
    db.exec(MIGRATIONS[0]!);
    db.exec(MIGRATIONS[1]!);
    db.pragma('user_version = 2');
    // As firedup of schema 2 wrote them: launch 1 of the relaunch log still "serving".
    // Only the columns schema 2 had: later ones (machine, user_name, …) are added by the migrations under test.
    const had = new Set(
      (db.prepare('PRAGMA table_info(launches)').all() as Array<{ name: string }>).map((c) => c.name),
    );
    for (const r of [R1, R2, CUT]) {
      const { fingerprint, ...row } = launchRow(r);
      row.outcome = r === R1 ? 'serving' : row.outcome;
      const cols = Object.keys(row).filter((c) => had.has(c));
      db.prepare(
        `INSERT INTO launches (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
      ).run(row);
    }
    db.close();
    const l = Ledger.open(file);
    try {
      const r1 = l.getLaunch(R1.id)!;
      assert.equal(r1.outcome, 'ended');
      assert.equal(r1.report.outcome, 'ended');
      assert.equal(l.getLaunch(R2.id)!.outcome, 'in_progress');
      assert.equal(l.getLaunch(CUT.id)!.outcome, 'shutdown');
      for (const r of [R1, R2, CUT]) {
        const got = l.getLaunch(r.id)!;
        assert.equal(got.fingerprint, r.fingerprint);
        assert.deepEqual(
          got.paths.map((p) => p.path),
          [r.path],
        );
      }
      // And a copy read now joins the old record.
      assert.equal(l.upsertLaunches([copyAt(CUT, '/tmp/c.log')])[0]!.id, CUT.id);
    } finally {
      l.close();
    }
  });
});
