import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from '../../src/store/migrations.js';
import { BIN, ROOT, runCli, SCENARIOS, SHARED, tmpDir } from '../helpers.js';

/** Issue 24.2 (benches kept unattached, corrected by hand) and 24.9 (who and where on every record). */
describe('record identity: machine, user, notes, tags; benches without a launch', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a launch carries its machine and user; runs --host finds it by hostname; note and tag stick', () => {
    const ledger = path.join(dir, 'l.db');
    const log = path.join(dir, 'a.log');
    fs.copyFileSync(path.join(ROOT, 'examples', 'glm5-serving.log'), log);
    assert.equal(runCli(['status', '--no-probe', '--ledger', ledger, log]).code, 0);
    const listed = JSON.parse(runCli(['runs', '--host', os.hostname(), '--json', '--ledger', ledger]).stdout);
    assert.equal(listed.launches.length, 1);
    assert.equal(listed.launches[0].machine, os.hostname());
    assert.equal(listed.launches[0].user, os.userInfo().username);
    const other = JSON.parse(
      runCli(['runs', '--host', 'gpu-elsewhere', '--json', '--ledger', ledger]).stdout,
    );
    assert.equal(other.launches.length, 0);

    assert.equal(runCli(['tag', 'last', 'baseline', '--ledger', ledger]).code, 0);
    const n = runCli([
      'note',
      'last',
      'relaunched with tp=8; api_key=sk-abcdefabcdefabcdefabcdef',
      '--ledger',
      ledger,
    ]);
    assert.equal(n.code, 0, n.stderr);
    const shown = runCli(['show', 'last', '--no-color', '--ledger', ledger]).stdout;
    assert.match(shown, /tags: baseline/);
    assert.match(shown, /note \(.*\): relaunched with tp=8/);
    assert.doesNotMatch(shown, /sk-abcdef/, 'a secret in a note is not kept');
    const untag = runCli(['tag', 'last', 'baseline', '--rm', '--json', '--ledger', ledger]);
    assert.deepEqual(JSON.parse(untag.stdout).tags, []);
    const bad = runCli(['tag', 'last', 'two words', '--ledger', ledger]);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
  });

  it('a ledger of schema 5 migrates: its localhost rows are this machine, its benches stay', () => {
    const ledger = path.join(dir, 'old.db');
    const db = new Database(ledger);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma('journal_mode = WAL');
    for (const step of MIGRATIONS.slice(0, 5)) db.exec(step);
    db.pragma('user_version = 5');
    db.prepare(
      `INSERT INTO launches (id, host, path, start_offset, start_line, start_ts, outcome, phase, port, model, report,
         config, first_seen, updated_at) VALUES ('00aa11bb22cc33dd', 'localhost', '/srv/old.log', 0, 1, 1.7e9,
         'serving', 'serving', 30000, 'm', '{"phases":[]}', '{}', 1.7e9, 1.7e9)`,
    ).run();
    db.prepare(
      `INSERT INTO benches (launch_id, fingerprint, finished_at, imported_at, result)
       VALUES ('00aa11bb22cc33dd', 'f1', 1.7e9, 1.7e9, '{"source":"old","tool":"sglang"}')`,
    ).run();
    db.close();
    const r = runCli(['runs', '--host', os.hostname(), '--json', '--ledger', ledger]);
    assert.equal(r.code, 0, r.stderr);
    const [l] = JSON.parse(r.stdout).launches;
    assert.equal(l.id, '00aa11bb22cc33dd');
    assert.equal(l.host, 'localhost');
    const after = new Database(ledger, { readonly: true });
    assert.equal(after.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    assert.equal((after.prepare('SELECT count(*) AS n FROM benches').get() as { n: number }).n, 1);
    after.close();
    // The bench came through: it can be detached, listed, attached again.
    assert.equal(runCli(['bench', 'detach', '1', '--ledger', ledger]).code, 0);
    assert.match(runCli(['bench', 'list', '--no-color', '--ledger', ledger]).stdout, /#1 .*detached by hand/);
    assert.equal(runCli(['bench', 'attach', '1', '00aa11bb', '--ledger', ledger]).code, 0);
    assert.match(runCli(['bench', 'list', '--ledger', ledger]).stdout, /no unattached benches/);
  });

  it('a bench no launch matches is kept unattached with why; attach, detach and rm correct it', () => {
    const ledger = path.join(dir, 'b.db');
    const res = path.join(SHARED, 'bench', 'sglang-bench-serving.jsonl');
    const r = runCli(['bench', 'import', res, '--ledger', ledger]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /kept unattached as bench #1/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    const listed = JSON.parse(runCli(['bench', 'list', '--json', '--ledger', ledger]).stdout).unattached;
    assert.ok(listed.length >= 1);
    assert.equal(listed[0].launchId, null);
    assert.match(listed[0].unattached, /no launch serving on /);
    assert.equal(listed[0].machine, os.hostname());
    // Imported again: the same results, not kept twice.
    runCli(['bench', 'import', res, '--ledger', ledger]);
    assert.equal(
      JSON.parse(runCli(['bench', 'list', '--json', '--ledger', ledger]).stdout).unattached.length,
      listed.length,
    );
    // A launch to give it to.
    const log = path.join(dir, 'b.log');
    fs.copyFileSync(path.join(ROOT, 'examples', 'glm5-serving.log'), log);
    runCli(['status', '--no-probe', '--ledger', ledger, log]);
    const a = runCli(['bench', 'attach', '1', 'last', '--ledger', ledger]);
    assert.equal(a.code, 0, a.stderr);
    const shown = JSON.parse(runCli(['show', 'last', '--json', '--ledger', ledger]).stdout);
    assert.equal(shown.benches.length, 1);
    assert.equal(runCli(['bench', 'detach', '1', '--ledger', ledger]).code, 0);
    assert.equal(JSON.parse(runCli(['show', 'last', '--json', '--ledger', ledger]).stdout).benches.length, 0);
    assert.equal(runCli(['bench', 'rm', '1', '--ledger', ledger]).code, 0);
    const left = JSON.parse(runCli(['bench', 'list', '--json', '--ledger', ledger]).stdout).unattached;
    assert.ok(!left.some((b: { id: number }) => b.id === 1));
  });

  it('hooks get FIREDUP_HOST and an absolute FIREDUP_LOG, whatever path the command was given', () => {
    const sub = path.join(dir, 'run');
    fs.mkdirSync(sub);
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'), path.join(sub, 'crash.log'));
    const out = path.join(dir, 'hook.txt');
    const r = spawnSync(
      process.execPath,
      [
        BIN,
        'wait',
        'crash.log',
        '--no-gpu',
        '--no-ledger',
        '--on-fail',
        `echo "$FIREDUP_HOST|$FIREDUP_LOG" > ${out}`,
      ],
      { cwd: sub, encoding: 'utf8', timeout: 30_000 },
    );
    assert.equal(r.status, 2, r.stderr);
    assert.equal(fs.readFileSync(out, 'utf8').trim(), `${os.hostname()}|${path.join(sub, 'crash.log')}`);
  });
});
