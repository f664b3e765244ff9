/**
 * The ledger's writer thread: launches staged ahead of their batch are written as they come, in the batch's
 * transaction, so that a batch is one commit (fewer rewrites of the random-key index pages) and all of it or
 * none of it is kept.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BulkWriter } from '../../src/store/bulk-writer.js';
import { Ledger } from '../../src/store/ledger.js';
import type { LaunchRecord } from '../../src/store/types.js';
import { tmpDir } from '../helpers.js';
import { scenarioRecords } from './fixtures.js';

const base = [...scenarioRecords().values()][0]!;
/** Distinct launches of one file (own ids, offsets and start times: no two are twins). */
const launch = (i: number, over: Partial<LaunchRecord> = {}): LaunchRecord => ({
  ...base,
  id: `bulk-${i}`,
  startOffset: i * 1000,
  startTs: (base.startTs ?? 1_771_000_000) + i,
  ...over,
});

function ledgerAt(): { file: string; count: () => number } {
  const file = path.join(tmpDir(), 'ledger.db');
  Ledger.open(file).close();
  return {
    file,
    count: () => {
      const l = Ledger.open(file);
      try {
        return l.launchIdsAt({ host: base.host, path: base.path }).length;
      } finally {
        l.close();
      }
    },
  };
}

describe('the ledger writer thread', () => {
  it('writes staged parts and their batch as one commit: every launch once', async () => {
    const { file, count } = ledgerAt();
    const w = new BulkWriter(file);
    const prepared = Array.from({ length: 130 }, (_, i) => w.prepare(launch(i)).write);
    w.stage(prepared.slice(0, 50));
    w.stage(prepared.slice(50, 100));
    await w.write(prepared.slice(100));
    assert.equal(count(), 130);
    await w.write([w.prepare(launch(130)).write]);
    await w.close();
    assert.equal(count(), 131);
  });

  it('a batch that fails keeps none of its launches, staged ones included', async () => {
    const { file, count } = ledgerAt();
    const w = new BulkWriter(file);
    await w.write([w.prepare(launch(0)).write]);
    w.stage([w.prepare(launch(1)).write, w.prepare(launch(2)).write]);
    // A row the schema refuses (an outcome is NOT NULL) fails the batch on the writer's thread.
    const bad = w.prepare(launch(3, { outcome: null as unknown as LaunchRecord['outcome'] })).write;
    await assert.rejects(w.write([bad]));
    await w.close().catch(() => {});
    assert.equal(count(), 1, 'only the batch committed before the failure');
  });
});
