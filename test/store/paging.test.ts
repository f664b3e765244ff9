/** The table's queries on both ledgers: sort by a column, search, a page at an offset, the count, the facets. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { LedgerStore } from '../../src/store/ledger-store.js';
import type { LaunchRecord } from '../../src/store/types.js';
import { BACKENDS, stopBackends } from './backends.js';
import { scenarioRecords } from './fixtures.js';

after(() => stopBackends());

for (const backend of BACKENDS) {
  describe(`launch pages (${backend.name})`, () => {
    const fill = async (): Promise<{ ledger: LedgerStore; recs: LaunchRecord[]; benched: string }> => {
      const ledger = await backend.open();
      const recs = [...scenarioRecords().values()];
      const kept = await ledger.upsertLaunches(recs);
      await ledger.addBench(kept[0]!.id, {
        ...({} as any),
        fingerprint: 'f'.repeat(16),
        finishedAt: 1_800_000_100,
        outputTokS: 777,
      });
      return { ledger, recs: await ledger.list({}), benched: kept[0]!.id };
    };

    it('pages newest first by default; offset and limit cut the same order; the count ignores them', async () => {
      const { ledger, recs } = await fill();
      try {
        const ids = recs.map((r) => r.id);
        const pages: string[] = [];
        for (let off = 0; off < ids.length; off += 2)
          pages.push(...(await ledger.listItems({ limit: 2, offset: off })).map((i) => i.id));
        assert.deepEqual(pages, ids);
        assert.equal(await ledger.countLaunches({ limit: 1, offset: 3 }), ids.length);
        assert.equal(
          await ledger.countLaunches({ outcome: 'crashed' }),
          recs.filter((r) => r.outcome === 'crashed').length,
        );
      } finally {
        await ledger.close();
      }
    });

    it('sorts by each column either way, unknown values last; searches words; lists facets', async () => {
      const { ledger, recs, benched } = await fill();
      try {
        const peak = async (dir: 'asc' | 'desc') =>
          (await ledger.listItems({ sort: { by: 'peak', dir } })).map((i) => i.peakTokS);
        const known = recs.map((r) => r.peakTokS).filter((x): x is number => x !== null);
        const desc = await peak('desc');
        assert.deepEqual(
          desc.slice(0, known.length),
          [...known].sort((a, b) => b - a),
        );
        assert.ok(desc.slice(known.length).every((x) => x === null));
        const asc = await peak('asc');
        assert.deepEqual(
          asc.slice(0, known.length),
          [...known].sort((a, b) => a - b),
        );
        assert.equal(
          (await ledger.listItems({ sort: { by: 'bench', dir: 'desc' }, limit: 1 }))[0]!.id,
          benched,
        );
        for (const by of ['id', 'start', 'host', 'model', 'engine', 'outcome', 'load', 'median'] as const)
          assert.equal((await ledger.listItems({ sort: { by, dir: 'asc' } })).length, recs.length, by);
        const oom = await ledger.listItems({ text: ['OOM'] });
        assert.ok(oom.length >= 1 && oom.every((i) => i.failure?.class === 'oom'));
        assert.equal(await ledger.countLaunches({ text: ['oom', 'no-such-word'] }), 0);
        const f = await ledger.launchFacets();
        assert.deepEqual(f.hosts, [...new Set(recs.map((r) => r.host))].sort());
        assert.ok(f.states.includes('crashed'));
      } finally {
        await ledger.close();
      }
    });
  });
}
