import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BIN, ROOT, tmpDir } from '../helpers.js';

/** `runs` (the ledger's table) piped: nothing cut; with COLUMNS: cut to fit, the file name kept. */
describe('runs table width', () => {
  const dir = tmpDir();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ledger = path.join(dir, 'ledger.db');
  const deep = path.join(dir, 'a-rather-long-directory-of-logs', 'for-the-glm5-campaign');
  const log = path.join(deep, 'glm5-serving-with-a-long-descriptive-name.log');
  fs.mkdirSync(deep, { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'examples', 'glm5-serving.log'), log);
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const e = { ...process.env, ...env };
    if (!('COLUMNS' in env)) delete e.COLUMNS;
    return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: e });
  };

  it('piped without COLUMNS: the log column is the full path', () => {
    assert.equal(cli(['status', log, '--no-probe', '--ledger', ledger]).status, 0);
    const r = cli(['runs', '--ledger', ledger]);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.includes(log), r.stdout);
    assert.doesNotMatch(r.stdout, /…/);
  });

  it('with COLUMNS: cut to fit, keeping the file name end', () => {
    const r = cli(['runs', '--ledger', ledger], { COLUMNS: '120' });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(!r.stdout.includes(log), r.stdout);
    for (const l of r.stdout.split('\n')) assert.ok([...l].length <= 120, l);
  });
});
