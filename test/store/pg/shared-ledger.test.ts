/**
 * The shared ledger on a real Postgres server: several firedup processes migrating and writing at once, a
 * foreign or newer database refused, `ledger push` repeated, and a server that goes away mid-write.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { ingestLocal } from '../../../src/app/ingest.js';
import { SCHEMA_VERSION } from '../../../src/store/migrations.js';
import { openLedger } from '../../../src/store/open.js';
import { recordFromReport } from '../../../src/store/record.js';
import { LedgerError } from '../../../src/store/types.js';
import { assertOneLine, runCli, spawnCli, tmpDir } from '../../helpers.js';
import { startPostgres } from '../../postgres.js';
import { stopBackends, testPostgres } from '../backends.js';

after(stopBackends);

const EXAMPLES = new URL('../../../../examples/', import.meta.url).pathname;
const RELAUNCH = path.join(EXAMPLES, 'glm5-relaunch-stuck-at-48pct.log');
const VLLM = path.join(EXAMPLES, 'vllm-llama3-8b-serving.log');

async function query(url: string, sql: string, params: unknown[] = []): Promise<any[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows;
  } finally {
    await c.end();
  }
}

async function code(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof LedgerError, `expected a LedgerError, got ${e}`);
    return { code: e.code, message: e.message };
  }
  assert.fail('expected a LedgerError');
}

describe('shared ledger (postgres): the schema', () => {
  it('four processes opening a new database at once: one schema at the latest version, no error', async () => {
    const url = testPostgres().createDatabase();
    const runs = Array.from({ length: 4 }, () => spawnCli(['runs', '--ledger', url, '--json']).done);
    for (const r of await Promise.all(runs)) assert.deepEqual([r.code, r.stderr], [0, '']);
    const [v] = await query(url, 'SELECT version FROM firedup_schema');
    assert.equal(v.version, SCHEMA_VERSION);
    const tables = await query(
      url,
      "SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'launches'",
    );
    assert.equal(tables[0].n, 1);
  });

  it("a database holding another program's tables is refused and left as it was", async () => {
    const url = testPostgres().createDatabase();
    await query(url, 'CREATE TABLE users (id int)');
    const got = await code(openLedger(url));
    assert.equal(got.code, 'foreign');
    assert.match(got.message, /holds tables firedup did not create \(users\)/);
    const names = await query(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    assert.deepEqual(
      names.map((r) => r.table_name),
      ['users'],
    );
  });

  it('a ledger written by a newer firedup is refused', async () => {
    const url = testPostgres().createDatabase();
    await (await openLedger(url)).close();
    await query(url, 'UPDATE firedup_schema SET version = $1', [SCHEMA_VERSION + 1]);
    const got = await code(openLedger(url));
    assert.equal(got.code, 'too_new');
    assert.match(got.message, /newer firedup/);
  });

  it('a database that does not exist, or a server not there: one line naming the URL, password masked', () => {
    const base = new URL(testPostgres().url);
    base.pathname = '/no_such_db';
    base.password = 'hunter2';
    const missing = runCli(['runs', '--ledger', base.href]);
    assert.equal(missing.code, 1);
    assertOneLine(missing.stderr);
    assert.match(missing.stderr, /no_such_db.*does not exist/);
    assert.doesNotMatch(missing.stderr, /hunter2/);
    const t0 = Date.now();
    const gone = runCli(['status', RELAUNCH, '--ledger', 'postgres://firedup:hunter2@127.0.0.1:1/firedup']);
    assert.equal(gone.code, 1);
    assertOneLine(gone.stderr);
    assert.match(gone.stderr, /cannot reach ledger postgres:\/\/firedup:<redacted>@127\.0\.0\.1:1\/firedup/);
    assert.ok(Date.now() - t0 < 20_000, 'no hang');
  });

  it('a refused password: one line naming the URL, the password masked, what to check', async () => {
    const server = testPostgres();
    // The test server trusts its socket; this user alone must give a password.
    await query(server.url, "CREATE ROLE alice LOGIN PASSWORD 'right-pw'");
    const hba = path.join(server.dir, 'data', 'pg_hba.conf');
    fs.writeFileSync(hba, `local all alice scram-sha-256\n${fs.readFileSync(hba, 'utf8')}`);
    await query(server.url, 'SELECT pg_reload_conf()');
    const url = new URL(server.url);
    url.username = 'alice';
    url.password = 'wrong-pw';
    const r = runCli(['runs', '--ledger', url.href]);
    assert.equal(r.code, 1);
    assertOneLine(r.stderr);
    assert.match(
      r.stderr,
      /ledger postgres:\/\/alice:<redacted>@localhost\/postgres.*password authentication failed for user "alice"; check the user and password/,
    );
    assert.doesNotMatch(r.stderr, /wrong-pw/);
  });
});

describe('shared ledger (postgres): several hosts writing at once', () => {
  it('eight processes reading copies and one shared log at once: each launch recorded once', async () => {
    const url = testPostgres().createDatabase();
    const dir = tmpDir();
    const runs = [];
    for (let i = 0; i < 4; i++) {
      // Each "host" has its own copy of the relaunch log (another path: the same two launches)...
      const copy = path.join(dir, `host${i}`, 'server.log');
      fs.mkdirSync(path.dirname(copy));
      fs.copyFileSync(RELAUNCH, copy);
      runs.push(spawnCli(['runs', copy, '--ledger', url, '--json']).done);
      // ...and all read the same vLLM log.
      runs.push(spawnCli(['runs', VLLM, '--ledger', url, '--json']).done);
    }
    for (const r of await Promise.all(runs)) assert.deepEqual([r.code, r.stderr], [0, '']);
    const l = await openLedger(url);
    try {
      const all = await l.list();
      const byModel = (m: string) => all.filter((r) => r.model?.includes(m));
      assert.equal(byModel('GLM-5').length, 2, 'the relaunch log holds two launches, however many copies');
      for (const r of byModel('GLM-5')) assert.equal(r.paths.length, 4, 'each read at the four copies');
      assert.equal(byModel('Llama').length, 1);
      assert.equal(all.length, 3);
      const logs = await query(url, 'SELECT count(*)::int AS n FROM logs');
      assert.equal(logs[0].n, 5, 'where reading stopped, per file');
    } finally {
      await l.close();
    }
    // And reading again updates, never adds.
    const again = runCli(['runs', VLLM, '--ledger', url]);
    assert.equal(again.code, 0, again.stderr);
    const [n] = await query(url, 'SELECT count(*)::int AS n FROM launches');
    assert.equal(n.n, 3);
  });
});

describe('shared ledger (postgres): live sessions', () => {
  it('wait records the launches and keeps its verdict (stalled) there, for runs on any host to list', () => {
    const url = testPostgres().createDatabase();
    const r = runCli(['wait', RELAUNCH, '--timeout', '30s', '--no-gpu', '--ledger', url]);
    assert.equal(r.code, 4, r.stderr);
    const listed = JSON.parse(runCli(['runs', '--ledger', url, '--json']).stdout);
    assert.deepEqual(
      listed.launches.map((l: any) => [l.outcome, l.state]),
      [
        ['in_progress', 'stalled'],
        ['ended', 'ended'],
      ],
    );
    const stalled = runCli(['runs', '--ledger', url, '--outcome', 'stalled', '--json']);
    assert.equal(JSON.parse(stalled.stdout).launches.length, 1);
  });
});

describe('shared ledger (postgres): ledger push', () => {
  it("pushing a laptop's ledger twice gives every launch, bench and target once", async () => {
    const url = testPostgres().createDatabase();
    const local = path.join(tmpDir(), 'laptop.db');
    for (const log of [RELAUNCH, VLLM]) assert.equal(runCli(['runs', log, '--ledger', local]).code, 0);
    // The vLLM launch was also read from a copy: one launch, two places.
    const copy = path.join(tmpDir(), 'copy.log');
    fs.copyFileSync(VLLM, copy);
    assert.equal(runCli(['runs', copy, '--ledger', local]).code, 0);
    assert.equal(runCli(['target', 'add', 'load_s <= 600', '--ledger', local]).code, 0);
    const first = runCli(['ledger', 'push', '--to', url, '--ledger', local, '--json']);
    assert.equal(first.code, 0, first.stderr);
    const a = JSON.parse(first.stdout);
    assert.deepEqual([a.launches, a.added, a.targets], [3, 3, 1]);
    const second = runCli(['ledger', 'push', '--to', url, '--ledger', local]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(
      second.stdout,
      /^pushed 3 launches from .*laptop\.db to postgres:\/\/.*: 0 new, 3 already there/,
    );
    const mine = JSON.parse(runCli(['runs', '--ledger', local, '--json']).stdout);
    const team = JSON.parse(runCli(['runs', '--ledger', url, '--json']).stdout);
    assert.deepEqual(
      team.launches.map((r: any) => [r.id, r.outcome, r.model]),
      mine.launches.map((r: any) => [r.id, r.outcome, r.model]),
    );
    const [t] = await query(url, 'SELECT count(*)::int AS n FROM targets');
    assert.equal(t.n, 1);
    const places = await query(url, 'SELECT path FROM launch_paths ORDER BY seq');
    assert.equal(places.length, 4, 'two launches at one place, the vLLM one at two');
    assert.ok(places.some((p) => p.path === fs.realpathSync(copy)));
    // `show` and `diff` read the pushed launches as the local ledger does.
    const show = runCli(['show', 'last', '--ledger', url, '--json']);
    assert.equal(show.code, 0, show.stderr);
    assert.deepEqual(
      JSON.parse(show.stdout).report,
      JSON.parse(runCli(['show', 'last', '--ledger', local, '--json']).stdout).report,
    );
    const diff = runCli(['diff', 'last~1', 'last', '--ledger', url]);
    assert.equal(diff.code, 0, diff.stderr);
  });

  it('--to missing, or the ledger itself: one line', () => {
    const local = path.join(tmpDir(), 'l.db');
    for (const args of [
      ['ledger', 'push', '--ledger', local],
      ['ledger', 'push', '--to', local, '--ledger', local],
      ['ledger', 'pull'],
    ]) {
      const r = runCli(args);
      assert.equal(r.code, 1, args.join(' '));
      assertOneLine(r.stderr);
    }
  });
});

describe('shared ledger (postgres): a server that goes away mid-write', () => {
  it('one line saying nothing was kept, and nothing of the launch is', async (t) => {
    // A server of its own: this test kills it.
    const server = startPostgres();
    t.after(() => server.stop());
    const url = server.createDatabase();
    await (await openLedger(url)).close();
    // The second launch's write waits on a lock this test holds: the first launch is written, not committed.
    const read = await ingestLocal(null, RELAUNCH);
    const real = fs.realpathSync(RELAUNCH);
    const second = recordFromReport(read.report.launches[1]!, {
      host: 'localhost',
      path: real,
      fileId: null,
      now: 0,
    });
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    blocker.on('error', () => {});
    await blocker.query('SELECT pg_advisory_lock(hashtext($1))', [`firedup:launch:${second.fingerprint}`]);
    const run = spawnCli(['status', RELAUNCH, '--ledger', url]);
    for (let i = 0; ; i++) {
      const waiting = await query(
        url,
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'advisory' AND application_name = 'firedup'",
      );
      if (waiting[0].n > 0) break;
      assert.ok(i < 200, 'the write never reached the lock');
      await new Promise((r) => setTimeout(r, 50));
    }
    server.kill();
    const r = await run.done;
    // The ledger's failure costs the recording, not the report (as a full disk does): the verdict's own exit
    // code (the relaunch is stuck loading: 4), and one line saying what was not kept.
    assert.equal(r.code, 4, r.stderr);
    assertOneLine(r.stderr);
    assert.match(
      r.stderr,
      /^firedup: not recording: cannot reach ledger postgres:\/\/.*nothing of this write was kept/,
    );
    assert.match(r.stdout, /launch 2 of 2/);
    server.restart();
    const l = await openLedger(url);
    try {
      assert.deepEqual(await l.list(), [], 'no launch, not even the first one of that transaction');
      assert.equal(await l.getLog({ host: 'localhost', path: real }), null);
    } finally {
      await l.close();
    }
  });
});

describe('test postgres helper', () => {
  it('runs the server as a user that is not root, on a socket in its temp dir', () => {
    const server = testPostgres();
    const r = spawnSync('psql', ['-h', server.socketDir, '-U', 'postgres', '-qAtc', 'SHOW data_directory'], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.trim().startsWith(server.dir), r.stdout);
  });
});
