/**
 * A remote log (read over ssh, through a real sshd on 127.0.0.1) of thousands of launches read through the
 * ledger: as for a local one (ledger-many-launches.test.ts), the ledger keeps the closed launches, the read and
 * its checkpoint only the open ones, and what `runs` and `status` print is what a read without a ledger prints.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLOSED_BATCH } from '../../src/app/closed-launches.js';
import { runCli, tmpDir } from '../helpers.js';
import { assertOneAppended, launch, launchRows, logOf, statusOf, withStore } from '../many-launches.js';
import { startSshd, type TestSshd } from '../ssh.js';
import { BACKENDS, stopBackends } from '../store/backends.js';

const HOST = 'firedup-test';
let sshd: TestSshd;
before(async () => {
  sshd = await startSshd();
});
after(stopBackends);
after(() => sshd.stop());

function cli(args: string[]): string {
  const r = runCli([...args, '--ssh-config', sshd.config]);
  assert.equal(r.code, 0, `firedup ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const target = (log: string) => `${HOST}:${log}`;
/** What a read of the remote log without a ledger prints: the reference. */
const plain = (cmd: string[], log: string) => cli([...cmd, '--no-ledger', target(log)]);
const status = statusOf;
/** Each launch recorded at the log. */
const rows = (where: string, log: string) => launchRows(where, { host: HOST, path: log });

/** `runs` and `status` through the ledger print what they print without one. */
function printsAsPlain(ledger: string, log: string): void {
  assert.equal(
    cli(['runs', '--no-color', '--ledger', ledger, target(log)]),
    plain(['runs', '--no-color'], log),
  );
  assert.deepEqual(
    status(cli(['status', '--json', '--ledger', ledger, target(log)])),
    status(plain(['status', '--json'], log)),
  );
}

const N = 2 * CLOSED_BATCH + 500;

describe('a remote log of thousands of launches, read through the ledger', () => {
  for (const b of BACKENDS)
    it(`first read, unchanged re-read, one launch appended, one forgotten: as without a ledger (${b.name})`, async () => {
      const dir = tmpDir();
      const log = path.join(dir, 'server.log');
      fs.writeFileSync(log, logOf(0, N));
      const ledger = b.fresh();
      const runsJson = plain(['runs', '--json'], log);
      const runsText = plain(['runs', '--no-color'], log);
      const statusJson = status(plain(['status', '--json'], log));
      assert.equal(JSON.parse(runsJson).launches.length, N);
      // the same launches as a local read of the file
      assert.deepEqual(
        JSON.parse(runsJson).launches,
        JSON.parse(runCli(['runs', '--json', '--no-ledger', log]).stdout).launches,
      );

      // first read
      assert.equal(cli(['runs', '--json', '--ledger', ledger, target(log)]), runsJson);
      const first = await rows(ledger, log);
      assert.equal(first.length, N, 'one row per launch');
      assert.equal(new Set(first.map((r) => r.offset)).size, N, 'no launch twice');

      // unchanged: the same output, and nothing written
      const logState = () => withStore(ledger, async (s) => (await s.getLog({ host: HOST, path: log }))!);
      const saved = await logState();
      assert.equal(saved.offset, fs.statSync(log).size);
      // The checkpoint holds the open launch, not the thousands before it.
      assert.ok(saved.checkpoint!.length < 64 << 10, `checkpoint of ${saved.checkpoint!.length} bytes`);
      assert.equal(cli(['runs', '--json', '--ledger', ledger, target(log)]), runsJson);
      assert.equal(cli(['runs', '--no-color', '--ledger', ledger, target(log)]), runsText);
      assert.deepEqual(status(cli(['status', '--json', '--ledger', ledger, target(log)])), statusJson);
      assert.equal(
        cli(['status', '--no-color', '--ledger', ledger, target(log)]).split('\n')[0],
        plain(['status', '--no-color'], log).split('\n')[0],
        'launch N of N',
      );
      assert.deepEqual(await rows(ledger, log), first, 'no launch row written again');
      assert.equal((await logState()).updatedAt, saved.updatedAt, 'the saved state untouched');

      // one launch appended: the new one and the one it closed are written, no other
      fs.appendFileSync(log, launch(N));
      const grown = plain(['runs', '--json'], log);
      assert.equal(cli(['runs', '--json', '--ledger', ledger, target(log)]), grown);
      const after1 = await rows(ledger, log);
      assertOneAppended(after1, first, saved.updatedAt);
      assert.equal((await logState()).offset, fs.statSync(log).size, 'resumed, not read afresh');
      printsAsPlain(ledger, log);

      // the same as a full read into a new ledger: output and ids
      const fresh = b.fresh();
      assert.equal(cli(['runs', '--json', '--ledger', fresh, target(log)]), grown);
      assert.deepEqual(
        (await rows(fresh, log)).map((r) => [r.offset, r.id]),
        after1.map((r) => [r.offset, r.id]),
      );

      // A launch forgotten from the ledger: the next read cannot continue without it, and reads the file again.
      await withStore(ledger, (s) => s.forget([first[10]!.id]));
      const beforeForget = (await logState()).updatedAt;
      assert.equal(cli(['runs', '--json', '--ledger', ledger, target(log)]), grown);
      const again = await rows(ledger, log);
      assert.equal(again.length, N + 1);
      assert.equal(
        again.filter((r) => r.updatedAt >= beforeForget).length,
        N + 1,
        'every launch written again',
      );
      assert.deepEqual(
        again.map((r) => [r.offset, r.id]),
        after1.map((r) => [r.offset, r.id]),
      );
      printsAsPlain(ledger, log);
    });
});
