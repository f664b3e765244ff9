/**
 * ClosedWriter with a writer on another thread: every closed launch reaches it once and in order, the launches
 * of a batch being made are handed over a few at a time (the reading thread does not hold a whole batch), a
 * batch is BULK_BATCH launches with the ones staged before it, and `flushed` commits a batch not full yet.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BULK_BATCH,
  type BulkWriterLike,
  CLOSED_BATCH,
  type ClosedLedger,
  ClosedWriter,
} from '../../src/app/closed-launches.js';
import type { LaunchRecord } from '../../src/core/campaign/records.js';

type Call = { kind: 'stage' | 'write'; ids: string[] };

function recordingLedger(): { ledger: ClosedLedger; calls: Call[]; committed: string[] } {
  const calls: Call[] = [];
  const committed: string[] = [];
  let staged: string[] = [];
  const bulk: BulkWriterLike = {
    prepare: (rec) => ({ write: { id: rec.id }, text: `{"id":"${rec.id}"}` }),
    stage: (part) => {
      const ids = part.map((w) => (w as { id: string }).id);
      calls.push({ kind: 'stage', ids });
      staged.push(...ids);
    },
    write: async (batch) => {
      const ids = batch.map((w) => (w as { id: string }).id);
      calls.push({ kind: 'write', ids });
      committed.push(...staged, ...ids);
      staged = [];
    },
    flushed: async () => {},
    close: async () => {},
  };
  const ledger: ClosedLedger = {
    upsertLaunches: (recs) => recs,
    launchesAtLog: () => [],
    getLaunches: () => [],
    reportTexts: () => [],
    bulkWriter: () => bulk,
  };
  return { ledger, calls, committed };
}

const rec = (i: number) => ({ id: `L${i}` }) as unknown as LaunchRecord;

describe('ClosedWriter with a writer thread', () => {
  it('hands every launch over once, in order, a few at a time, a batch per BULK_BATCH', async () => {
    const { ledger, calls, committed } = recordingLedger();
    const w = new ClosedWriter(ledger, (run) => run());
    // The writer starts with the first CLOSED_BATCH launches; then come batches of BULK_BATCH.
    const n = CLOSED_BATCH + 2 * BULK_BATCH + 7;
    const texts: Array<string | null> = [];
    for (let i = 0; i < n; i++) texts.push(w.add(rec(i), true));
    await w.flushed();
    assert.deepEqual(
      committed,
      Array.from({ length: n }, (_, i) => `L${i}`),
      'each launch committed once, in order',
    );
    // The first batch is written from the records kept until the writer starts; after that, staged parts.
    const writes = calls.filter((c) => c.kind === 'write');
    assert.equal(writes.length, 4);
    const stages = calls.filter((c) => c.kind === 'stage');
    assert.ok(stages.length > 0, 'launches staged ahead of their batch');
    const biggestHeld = Math.max(...calls.slice(1).map((c) => c.ids.length));
    assert.ok(biggestHeld < CLOSED_BATCH / 4, `at most ${biggestHeld} launches held on the reading thread`);
    // Between two writes, the staged parts and the batch make BULK_BATCH launches.
    let since = 0;
    for (const c of calls.slice(1)) {
      since += c.ids.length;
      if (c.kind === 'write' && c !== writes.at(-1)) {
        assert.equal(since, BULK_BATCH);
        since = 0;
      }
    }
    assert.equal(
      texts.slice(CLOSED_BATCH).every((t, i) => t === `{"id":"L${CLOSED_BATCH + i}"}`),
      true,
    );
    assert.equal(w.size, 0, 'nothing left unwritten after flushed');
  });

  it('flushed commits launches only staged so far', async () => {
    const { ledger, calls, committed } = recordingLedger();
    const w = new ClosedWriter(ledger, (run) => run());
    const n = CLOSED_BATCH + 120;
    for (let i = 0; i < n; i++) w.add(rec(i));
    assert.ok(w.size > 0);
    await w.flushed();
    assert.equal(committed.length, n);
    assert.equal(calls.at(-1)!.kind, 'write');
    assert.equal(w.size, 0);
  });
});
