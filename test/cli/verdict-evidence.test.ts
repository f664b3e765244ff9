import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, runCli, spawnCli, tmpDir } from '../helpers.js';

/** Issue 24.7: one verdict cites one log line, whichever output carries it. */
describe('every output of a verdict cites the same evidence line', () => {
  let dir: string;
  let log: string;
  before(() => {
    dir = tmpDir();
    log = path.join(dir, 'stuck.log');
    fs.copyFileSync(path.join(ROOT, 'examples', 'glm5-relaunch-stuck-at-48pct.log'), log);
    // Written two hours ago: the load stopped long since, every command calls it stalled at once.
    const then = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(log, then, then);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('status (text and JSON), wait --json and --on-fail name the loading bar’s line', async () => {
    const text = runCli(['status', '--no-ledger', '--no-color', log]);
    assert.equal(text.code, 4, text.stderr);
    const cited = Number(/evidence (\d+):/.exec(text.stdout)?.[1]);
    assert.equal(cited, 390, text.stdout);

    const json = runCli(['status', '--no-ledger', '--json', log]);
    const live = JSON.parse(json.stdout).live;
    assert.equal(live.state, 'stalled');
    assert.equal(live.evidence.find((e: { line?: number }) => e.line)?.line, cited);

    const hook = path.join(dir, 'hook.txt');
    const w = await spawnCli(
      [
        'wait',
        log,
        '--no-ledger',
        '--no-gpu',
        '--json',
        '--on-fail',
        `echo "$FIREDUP_EVIDENCE_LINE" > ${hook}`,
      ],
      {},
      30_000,
    ).done;
    assert.equal(w.code, 4, w.stderr);
    const verdict = w.events.filter((e) => e.type === 'verdict').at(-1)!;
    assert.equal(verdict.state, 'stalled');
    assert.equal(verdict.evidence.find((e: { line?: number }) => e.line)?.line, cited);
    assert.equal(fs.readFileSync(hook, 'utf8').trim(), String(cited));
  });
});
