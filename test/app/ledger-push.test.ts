/**
 * `ledger push` carries a sweep's runs with their launches: into a SQLite file or a Postgres database, the runs
 * name the destination's launch and benchmark ids, a second push adds nothing, and a run that ended since is
 * updated. Someone else's sweep of the same name already there keeps its runs.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openLedger } from '../../src/store/open.js';
import { runCli, SCENARIOS, tmpDir } from '../helpers.js';
import { BACKENDS, stopBackends } from '../store/backends.js';
import { benchResult } from '../store/fixtures.js';

after(stopBackends);

const LOGS = ['glm5-cutlass-bench-then-shutdown.log', 'glm5-trtllm-oom-in-cuda-graph.log'].map((f) =>
  path.join(SCENARIOS, f),
);

const point = (hash: string, index: number, startedAt: number) => ({
  sweep: 'moe-backends',
  pointHash: hash,
  pointIndex: index,
  flags: { moe_runner_backend: hash },
  argv: ['python3', '-m', 'sglang.launch_server', '--moe-runner-backend', hash],
  plan: { levels: [1, 8] },
  startedAt,
});

for (const b of BACKENDS)
  describe(`ledger push: sweeps (${b.name})`, () => {
    it('copies every run once, with the launch and benchmark ids of the destination; a push again updates', async () => {
      const local = path.join(tmpDir(), 'laptop.db');
      for (const log of LOGS) assert.equal(runCli(['runs', log, '--ledger', local]).code, 0);
      const src = await openLedger(local);
      const [served, oom] = (await src.listItems({})).map((i) => i.id).reverse();
      const bench = await src.addBench(served!, benchResult('f1'));
      const a = await src.openSweepPoint(point('flashinfer_cutlass', 0, 1_771_470_000));
      await src.updateSweepPoint(a.id, {
        status: 'done',
        launchId: served!,
        detail: { benchIds: [bench.record.id], loadSeconds: 300 },
        endedAt: 1_771_471_000,
      });
      const c = await src.openSweepPoint(point('flashinfer_trtllm', 1, 1_771_472_000));
      await src.updateSweepPoint(c.id, { launchId: oom! });
      await src.close();

      // Someone else's run of a sweep with the same name is there first.
      const dest = b.fresh();
      const theirs = await openLedger(dest);
      await theirs.openSweepPoint(point('flashinfer_cutlass', 0, 1_771_000_000));
      await theirs.close();

      const first = runCli(['ledger', 'push', '--to', dest, '--ledger', local, '--json']);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual([JSON.parse(first.stdout).sweepRuns, JSON.parse(first.stdout).sweepRunsAdded], [2, 2]);
      const to = await openLedger(dest);
      try {
        const runs = await to.sweepPoints('moe-backends');
        assert.deepEqual(
          runs.map((r) => [r.pointHash, r.run, r.status]),
          [
            ['flashinfer_cutlass', 1, 'running'],
            ['flashinfer_cutlass', 2, 'done'],
            ['flashinfer_trtllm', 1, 'running'],
          ],
        );
        const mine = runs[1]!;
        const launch = await to.getLaunch(mine.launchId!);
        assert.equal(
          launch?.outcome,
          'shutdown',
          'the run names the served launch, as the destination has it',
        );
        const benches = (await to.benchesOf([mine.launchId!])).get(mine.launchId!) ?? [];
        assert.deepEqual(
          mine.detail.benchIds,
          benches.map((x) => x.id),
        );
        assert.equal(mine.detail.loadSeconds, 300);
      } finally {
        await to.close();
      }

      // The OOM point ended since: pushing again updates it and adds nothing.
      const again = await openLedger(local);
      await again.updateSweepPoint(c.id, { status: 'crashed', endedAt: 1_771_472_500 });
      await again.close();
      const second = runCli(['ledger', 'push', '--to', dest, '--ledger', local]);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stdout, /; 2 sweep runs \(0 new\)$/m);
      const after2 = await openLedger(dest);
      try {
        const runs = await after2.sweepPoints('moe-backends');
        assert.equal(runs.length, 3);
        assert.deepEqual(
          runs.filter((r) => r.pointHash === 'flashinfer_trtllm').map((r) => [r.status, r.endedAt]),
          [['crashed', 1_771_472_500]],
        );
      } finally {
        await after2.close();
      }
    });
  });
