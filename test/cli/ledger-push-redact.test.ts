/**
 * Ledgers on hostile input. `ledger push` (issue 25, item 14): secrets a source ledger holds are redacted on the way, as a
 * read redacts; a source ledger that does not exist is one line, and no empty file is left behind.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Ledger } from '../../src/store/ledger.js';
import { runCli, tmpDir } from '../helpers.js';
import { scenarioRecords } from '../ledger-fixtures.js';
import { benchResult } from '../store/fixtures.js';

describe('ledger push: secrets and missing sources', () => {
  it('redacts what an older ledger kept in clear', () => {
    const dir = tmpDir();
    const src = path.join(dir, 'old.db');
    const dst = path.join(dir, 'team.db');
    const [rec] = scenarioRecords('glm5-trtllm-oom-in-cuda-graph.log');
    const jwt = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.${'s'.repeat(30)}`;
    const leaky = structuredClone(rec!);
    (leaky.report as unknown as { config: Record<string, unknown> }).config = {
      api_key: 'sk-plain-secret-1234567890',
      model_path: 'm',
    };
    const l = Ledger.open(src);
    l.upsertLaunches([leaky]);
    l.addBench(leaky.id, {
      ...benchResult('f00dfeedf00dfeed'),
      source: `bench run with token=${jwt}`,
      serverConfig: { admin_api_key: 'adm-secret-99' },
    });
    l.close();
    const r = runCli(['ledger', 'push', '--ledger', src, '--to', dst, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const raw = fs.readFileSync(dst).toString('latin1');
    for (const secret of ['sk-plain-secret-1234567890', jwt, 'adm-secret-99'])
      assert.ok(!raw.includes(secret), `${secret} copied`);
    const shown = JSON.parse(runCli(['show', rec!.id.slice(0, 8), '--json', '--ledger', dst]).stdout);
    assert.equal(shown.report.config.api_key, '<redacted>');
  });

  it('a source ledger that is not there: one line, nothing created', () => {
    const dir = tmpDir();
    const src = path.join(dir, 'typo.db');
    const r = runCli(['ledger', 'push', '--ledger', src, '--to', path.join(dir, 'team.db')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /typo\.db: no such ledger/);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.ok(!fs.existsSync(src), 'no empty ledger left behind');
  });
});

describe('a ledger whose schema version is behind its tables (issue 25, item 17)', () => {
  it('is one line naming the file and what to do; status still prints its report', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'l.db');
    const [rec] = scenarioRecords('glm5-trtllm-oom-in-cuda-graph.log');
    const l = Ledger.open(file);
    l.upsertLaunches([rec!]);
    l.close();
    const Sqlite = createRequire(import.meta.url)('better-sqlite3');
    const raw = new Sqlite(file);
    raw.pragma('user_version = 1');
    raw.close();
    const runs = runCli(['runs', '--ledger', file]);
    assert.equal(runs.code, 1);
    assert.match(
      runs.stderr,
      /l\.db: its schema version \(1\) is behind its own tables .*restore it from a copy/,
    );
    assert.equal(runs.stderr.trim().split('\n').length, 1);
    assert.doesNotMatch(runs.stderr, /internal error|at /);
  });
});
