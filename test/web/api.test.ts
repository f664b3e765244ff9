import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, runCli, tmpDir } from '../helpers.js';
import { request, serve } from './serve-helpers.js';

/** One JSON shape for a launch's config: `.config`, in status, runs (log and ledger), show and the API. */
describe('a launch JSON has its config at .config everywhere', () => {
  let dir: string;
  let ledger: string;
  const log = path.join(ROOT, 'examples', 'glm5-serving.log');
  before(() => {
    dir = tmpDir();
    ledger = path.join(dir, 'ledger.db');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('status, runs LOG, runs, show and /api/launches/ID agree', async () => {
    const status = JSON.parse(runCli(['status', '--json', '--no-probe', '--ledger', ledger, log]).stdout);
    const config = status.config;
    assert.ok(config && typeof config === 'object' && Object.keys(config).length > 10);
    const runsLog = JSON.parse(runCli(['runs', '--json', '--ledger', ledger, log]).stdout);
    assert.deepEqual(runsLog.launches.at(-1).config, config);
    const runs = JSON.parse(runCli(['runs', '--json', '--ledger', ledger]).stdout);
    assert.deepEqual(runs.launches[0].config, config);
    const show = JSON.parse(runCli(['show', 'last', '--json', '--ledger', ledger]).stdout);
    assert.deepEqual(show.config, config);
    // The old place stays: show's full report carries it as before.
    assert.deepEqual(show.report.config, config);
    const s = await serve(['--ledger', ledger]);
    try {
      const detail = (await request(s.base, `/api/launches/${show.id}`)).json();
      assert.deepEqual(Object.keys(detail.launch.config).sort(), Object.keys(config).sort());
      assert.deepEqual(detail.launch.report.config, detail.launch.config);
    } finally {
      assert.equal(await s.stop(), 0);
    }
  });
});
