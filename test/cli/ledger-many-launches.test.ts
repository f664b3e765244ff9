/**
 * A log of thousands of launches read through the ledger (issue 15): the ledger keeps the closed launches, the
 * read only the open ones, and what `runs` and `status` print is still what a read without a ledger prints,
 * on a first read, an unchanged re-read and after a launch is appended, on both stores.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BULK_BATCH, CLOSED_BATCH } from '../../src/app/closed-launches.js';
import { runCli, tmpDir } from '../helpers.js';
import { assertOneAppended, launch, launchRows, logOf, statusOf, withStore } from '../many-launches.js';
import { BACKENDS, stopBackends } from '../store/backends.js';

after(stopBackends);

function cli(args: string[]): string {
  const r = runCli(args);
  assert.equal(r.code, 0, `firedup ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** What a read without a ledger prints: the reference. */
const plain = (cmd: string[], log: string) => cli([...cmd, '--no-ledger', log]);
const status = statusOf;
/** Each launch recorded at the log. */
const rows = (where: string, log: string) => launchRows(where, { path: fs.realpathSync(log) });

// More launches than a batch written at once (the first, then one of the writer's thread) and than a page read
// back, so that all are crossed (the last launch one that serves: `status` exits 0).
const N = CLOSED_BATCH + BULK_BATCH + 501;

describe('a log of thousands of launches, read through the ledger', () => {
  for (const b of BACKENDS)
    it(`first read, unchanged re-read, one launch appended: as without a ledger (${b.name})`, async () => {
      const dir = tmpDir();
      const log = path.join(dir, 'server.log');
      fs.writeFileSync(log, logOf(0, N));
      const ledger = b.fresh();
      const runsJson = plain(['runs', '--json'], log);
      const runsText = plain(['runs', '--no-color'], log);
      const statusJson = status(plain(['status', '--json'], log));
      assert.equal(JSON.parse(runsJson).launches.length, N);

      // first read
      assert.equal(cli(['runs', '--json', '--ledger', ledger, log]), runsJson);
      const first = await rows(ledger, log);
      assert.equal(first.length, N, 'one row per launch');
      assert.equal(new Set(first.map((r) => r.offset)).size, N, 'no launch twice');

      // unchanged: the same output, and nothing written
      const logState = () =>
        withStore(ledger, async (s) => (await s.getLog({ host: 'localhost', path: fs.realpathSync(log) }))!);
      const saved = await logState();
      assert.equal(cli(['runs', '--json', '--ledger', ledger, log]), runsJson);
      assert.equal(cli(['runs', '--no-color', '--ledger', ledger, log]), runsText);
      assert.deepEqual(status(cli(['status', '--json', '--ledger', ledger, log])), statusJson);
      assert.equal(
        cli(['status', '--no-color', '--ledger', ledger, log]).split('\n')[0],
        plain(['status', '--no-color'], log).split('\n')[0],
        'launch N of N',
      );
      assert.deepEqual(await rows(ledger, log), first, 'no launch row written again');
      assert.equal((await logState()).updatedAt, saved.updatedAt, 'the saved state untouched');
      // The checkpoint holds the open launch, not the thousands before it.
      assert.ok(saved.checkpoint!.length < 64 << 10, `checkpoint of ${saved.checkpoint!.length} bytes`);

      // one launch appended: the new one and the one it closed are written, no other
      fs.appendFileSync(log, launch(N));
      const grown = plain(['runs', '--json'], log);
      assert.equal(cli(['runs', '--json', '--ledger', ledger, log]), grown);
      const after1 = await rows(ledger, log);
      assertOneAppended(after1, first, saved.updatedAt);
      assert.deepEqual(
        status(cli(['status', '--json', '--ledger', ledger, log])),
        status(plain(['status', '--json'], log)),
      );

      // the same as a full read into a new ledger: output and ids
      const fresh = b.fresh();
      assert.equal(cli(['runs', '--json', '--ledger', fresh, log]), grown);
      assert.deepEqual(
        (await rows(fresh, log)).map((r) => [r.offset, r.id]),
        after1.map((r) => [r.offset, r.id]),
      );

      // A launch forgotten from the ledger: the next read cannot continue without it, and reads the file again.
      await withStore(ledger, (s) => s.forget([first[10]!.id]));
      assert.equal(cli(['runs', '--json', '--ledger', ledger, log]), grown);
      assert.equal((await rows(ledger, log)).length, N + 1);
    });
});
