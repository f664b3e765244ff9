import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, SCENARIOS, spawnCli, tmpDir } from '../helpers.js';
import { request, serve } from '../web/serve-helpers.js';

/**
 * One stuck log, every command: `status`, `watch --json`, `wait`, `ps` and `serve`'s API count the silence from
 * the file's mtime and give the same verdict (state, phase, quiet seconds) at the same moment.
 */
describe('one verdict for one log, whichever command reads it', () => {
  let dir: string;
  let log: string;
  const AGO = 2811;
  before(() => {
    dir = tmpDir();
    log = path.join(dir, 'stuck.log');
    // The relaunch stuck at shard 40/83, last written 2,811 s ago (as in the issue).
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), log);
    const then = new Date(Date.now() - AGO * 1000);
    fs.utimesSync(log, then, then);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('status, watch, wait, ps and serve all say stalled in loading_weights, quiet for the file’s age', async () => {
    const seen: Record<string, { state: string; phase: string; stalledIn: string; quietFor: number }> = {};
    const status = runCli(['status', '--json', log]);
    assert.equal(status.code, 4, status.stderr);
    seen.status = JSON.parse(status.stdout).live;

    // watch: stopped after its first verdict.
    const watch = spawnCli(['watch', log, '--json', '--no-gpu'], {}, 20_000);
    let buf = '';
    const first = await new Promise<any>((resolve) => {
      watch.child.stdout!.on('data', (d) => {
        buf += d;
        const v = buf
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l))
          .find((e) => e.type === 'verdict');
        if (v) resolve(v);
      });
    });
    watch.child.kill('SIGTERM');
    await watch.done;
    seen.watch = first;

    const wait = await spawnCli(['wait', log, '--json', '--no-gpu'], {}, 20_000).done;
    assert.equal(wait.code, 4, 'stalled at once, not a timeout');
    assert.ok(wait.seconds < 10, `wait took ${wait.seconds} s`);
    seen.wait = wait.events.filter((e) => e.type === 'verdict').at(-1) as any;

    const s = await serve(['--ledger', path.join(dir, 'ledger.db'), '--watch', log]);
    try {
      let t: any;
      for (let i = 0; i < 100 && !(t?.verdict && t.verdict.state !== 'waiting'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        t = (await request(s.base, '/api/live')).json().targets[0];
      }
      seen.serve = t.verdict;
    } finally {
      await s.stop();
    }

    // ps, from a fleet file naming the log: the same state and phase in its row, the same silence in its why.
    const fleet = path.join(dir, 'firedup.toml');
    fs.writeFileSync(fleet, `[[target]]\nname = "stuck"\nlog = ${JSON.stringify(log)}\n`);
    const ps = await spawnCli(['ps', '--config', fleet, '--json', '--no-gpu', '--no-ledger']).done;
    const row = ps.events[0]!.targets[0];
    assert.deepEqual([row.state, row.phase], ['stalled', 'loading_weights'], JSON.stringify(row));
    const psQuiet = Number(/for (\d+) s/.exec(row.why)?.[1]);
    assert.ok(Math.abs(psQuiet - AGO) < 30, `ps: ${row.why}`);

    for (const [cmd, v] of Object.entries(seen)) {
      assert.equal(v.state, 'stalled', `${cmd}: ${JSON.stringify(v)}`);
      assert.equal(v.phase, 'loading_weights', cmd);
      assert.equal(v.stalledIn, 'loading_weights', cmd);
      // The commands ran a few seconds apart: the same silence within that.
      assert.ok(Math.abs(v.quietFor - AGO) < 30, `${cmd}: quiet ${v.quietFor} s, the file is ${AGO} s old`);
    }
    assert.ok(Math.abs(seen.status!.quietFor - seen.watch!.quietFor) < 5);
    assert.ok(Math.abs(seen.wait!.quietFor - seen.watch!.quietFor) < 5);
  });
});
