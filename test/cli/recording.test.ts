import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { runCli, SCENARIOS, spawnCli, tmpDir } from '../helpers.js';

const CUTLASS = path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log');

describe('every command records what it read in the ledger', () => {
  let dir: string;
  let ledger: string;
  before(() => {
    dir = tmpDir();
    ledger = path.join(dir, 'ledger.db');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const rows = (sql: string) => {
    const db = new Database(ledger, { readonly: true });
    try {
      return db.prepare(sql).all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  };

  it('status records the launch once, and the next status continues from the stored offset', () => {
    const log = path.join(dir, 'server.log');
    const text = fs.readFileSync(CUTLASS, 'utf8');
    const cut = text.indexOf('\n', Math.floor(text.length / 2)) + 1;
    fs.writeFileSync(log, text.slice(0, cut));
    const first = runCli(['status', '--json', '--ledger', ledger, log]);
    assert.equal(JSON.parse(first.stdout).outcome, 'serving');
    const [state] = rows('SELECT offset FROM logs');
    assert.equal(state!.offset, Buffer.byteLength(text.slice(0, cut)));
    fs.appendFileSync(log, text.slice(cut));
    const second = runCli(['status', '--json', '--ledger', ledger, log]);
    const rep = JSON.parse(second.stdout);
    // The same answer as a fresh read of the whole file (but for the live part, read at another moment).
    const fresh = JSON.parse(runCli(['status', '--json', '--no-ledger', log]).stdout);
    delete rep.live;
    delete fresh.live;
    assert.deepEqual(rep, fresh);
    assert.equal(rep.outcome, 'shutdown');
    const launches = rows('SELECT outcome FROM launches');
    assert.deepEqual(launches, [{ outcome: 'shutdown' }]);
    assert.equal(rows('SELECT offset FROM logs')[0]!.offset, Buffer.byteLength(text));
    // And `runs` without a file lists it.
    const list = runCli(['runs', '--json', '--ledger', ledger]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /GLM-5-NVFP4/);
  });

  it('a log truncated in place and relaunched keeps the earlier launch on record', () => {
    const db = path.join(dir, 'truncated.db');
    const log = path.join(dir, 'truncated.log');
    fs.copyFileSync(CUTLASS, log);
    runCli(['status', '--ledger', db, log]);
    // `> server.log` then a relaunch: same inode, a new launch at offset 0.
    fs.truncateSync(log, 0);
    fs.appendFileSync(log, fs.readFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log')));
    runCli(['status', '--ledger', db, log]);
    const list = JSON.parse(runCli(['runs', '--json', '--ledger', db]).stdout);
    const outcomes = list.launches.map((l: { outcome: string }) => l.outcome).sort();
    // The relaunch log's first launch served, then a relaunch followed it without an exit line: ended.
    assert.deepEqual(outcomes, ['ended', 'in_progress', 'shutdown']);
  });

  it('--no-ledger and FIREDUP_LEDGER=off record nothing', () => {
    const other = path.join(dir, 'none.db');
    runCli(['runs', '--no-ledger', CUTLASS]);
    assert.equal(fs.existsSync(other), false);
    const r = spawnCli(['status', CUTLASS], { FIREDUP_LEDGER: 'off' });
    return r.done.then((res) => {
      assert.equal(res.code, 5);
      assert.equal(fs.existsSync(path.join(process.cwd(), 'off')), false);
    });
  });

  it('a corrupt ledger is one clear line, the report is still printed, and the file stays as it was', () => {
    const bad = path.join(dir, 'corrupt.db');
    fs.writeFileSync(bad, 'not a database at all\n'.repeat(20));
    const before = fs.readFileSync(bad);
    const r = runCli(['status', '--ledger', bad, CUTLASS]);
    // the launch's own verdict (shut down), as without a ledger: a damaged ledger must not hide the report
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stdout, /glm5-cutlass-bench-then-shutdown\.log/);
    assert.match(r.stderr, /^firedup: not recording: ledger .*corrupt\.db is not a SQLite database.*\n$/);
    assert.equal(r.stderr.split('\n').length, 2);
    assert.deepEqual(fs.readFileSync(bad), before);
    // a command that only reads the ledger has nothing else to show: one line, exit 1
    const runs = runCli(['runs', '--ledger', bad]);
    assert.equal(runs.code, 1);
    assert.equal(runs.stderr.split('\n').length, 2);
  });

  it('watch records the launch as it goes, and earlier launches like it give "usually takes" and the budget', async () => {
    const hist = path.join(dir, 'history.db');
    // Two earlier launches with this config that got ready (two launches: a copy of one log would be one).
    for (const [name, day] of [
      ['first.log', '2026-02-19'],
      ['second.log', '2026-02-18'],
    ] as const) {
      const f = path.join(dir, name);
      fs.writeFileSync(f, fs.readFileSync(CUTLASS, 'utf8').replaceAll('2026-02-19', day));
      assert.equal(runCli(['status', '--ledger', hist, f]).code, 5);
    }
    // A third, same config, now just past "Load weight end" and quiet.
    const lines = fs.readFileSync(CUTLASS, 'utf8').split('\n');
    const end = lines.findIndex((l) => l.includes('Load weight end'));
    const log = path.join(dir, 'third.log');
    // A day later (history only counts launches that started before this one).
    fs.writeFileSync(log, `${lines.slice(0, end + 1).join('\n')}\n`.replaceAll('2026-02-19', '2026-02-20'));
    const w = spawnCli(['watch', '--json', '--no-gpu', '--ledger', hist, log, '--timeout', '3s'], {}, 30_000);
    const r = await w.done;
    const verdicts = r.events.filter((e) => e.type === 'verdict' && e.phase === 'weights_loaded');
    const v = verdicts.at(-1)!;
    assert.ok(v, r.stdout);
    assert.equal(v.typical.phase, 'weights_loaded');
    assert.equal(v.typical.n, 2);
    assert.match(v.typical.basis, /2 earlier launches of GLM-5-NVFP4 on localhost/);
    assert.match(v.why, /weights loaded usually takes \d+s here/);
    const db = new Database(hist, { readonly: true });
    const recs = db.prepare('SELECT path, phase, outcome FROM launches ORDER BY path').all();
    db.close();
    assert.deepEqual(
      recs.map((x: any) => [path.basename(x.path), x.phase, x.outcome]),
      [
        ['first.log', 'serving', 'shutdown'],
        ['second.log', 'serving', 'shutdown'],
        ['third.log', 'weights_loaded', 'in_progress'],
      ],
    );
  });
});
