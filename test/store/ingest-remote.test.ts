import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ingestRemote } from '../../src/app/ingest-remote.js';
import { SshSession } from '../../src/sources/ssh/session.js';
import { Ledger } from '../../src/store/ledger.js';
import { analyzeBytes, runCli, SCENARIOS, tmpDir } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';
import { BACKENDS, stopBackends } from './backends.js';

/** `status` on a remote log continues from the ledger's offset: only the new bytes cross the wire. */
let sshd: TestSshd;
let session: SshSession;
let dir: string;
let ledger: Ledger;
before(async () => {
  sshd = await startSshd();
  dir = tmpDir();
  session = new SshSession({ user: null, host: 'firedup-test', port: null }, { config: sshd.config });
  ledger = Ledger.open(path.join(dir, 'ledger.db'));
});
after(stopBackends);
after(async () => {
  ledger.close();
  await session.close();
  sshd.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

// Two scenario logs back to back (> 64 KiB, so the head hash covers only the start of the file).
const text = Buffer.concat([
  fs.readFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log')),
  fs.readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log')),
]);

describe('remote status resumes from the ledger', () => {
  for (const b of BACKENDS)
    it(`reads only what was appended, ends in the same report as a full read, and records no launch twice (${b.name})`, async () => {
      const ledger = await b.open();
      try {
        const log = path.join(dir, `server-${b.name}.log`);
        const cut = text.indexOf(10, Math.floor(text.length * 0.6)) + 1;
        // The first read ends inside a line: it is read again, whole, next time.
        fs.writeFileSync(log, text.subarray(0, cut + 20));
        const key = { host: 'firedup-test', path: log };
        const first = await ingestRemote(ledger, session, key, { year: 2026 });
        assert.equal(first.resumedFrom, 0);
        assert.equal(first.bytesRead, cut + 20);
        fs.appendFileSync(log, text.subarray(cut + 20));
        const second = await ingestRemote(ledger, session, key, { year: 2026 });
        assert.equal(second.resumedFrom, cut);
        assert.equal(second.bytesRead, text.length - cut);
        assert.equal(second.reset, false);
        assert.deepEqual(second.report, analyzeBytes(text));
        const recorded = await ledger.list({ path: log });
        assert.equal(recorded.length, second.report.launches.length);
        // Nothing new: nothing but the stat and the checksums crosses.
        const third = await ingestRemote(ledger, session, key, { year: 2026 });
        assert.equal(third.bytesRead, 0);
        assert.deepEqual(third.report, second.report);
      } finally {
        await ledger.close();
      }
    });

  it('a truncated or replaced file is read afresh', async () => {
    const log = path.join(dir, 'rotating.log');
    fs.writeFileSync(log, text);
    const key = { host: 'firedup-test', path: log };
    await ingestRemote(ledger, session, key, { year: 2026 });
    // copytruncate, then a new launch written: same inode, shorter file.
    const small = text.subarray(0, 5000);
    const cut = small.lastIndexOf(10) + 1;
    fs.truncateSync(log, 0);
    fs.writeFileSync(log, small.subarray(0, cut));
    const after = await ingestRemote(ledger, session, key, { year: 2026 });
    assert.equal(after.reset, true);
    assert.equal(after.resumedFrom, 0);
    assert.deepEqual(after.report, analyzeBytes(small.subarray(0, cut)));
    // Replaced (written aside, renamed over it, as log shippers do) by a file with the same head: another inode.
    fs.writeFileSync(`${log}.new`, small.subarray(0, cut));
    fs.renameSync(`${log}.new`, log);
    const replaced = await ingestRemote(ledger, session, key, { year: 2026 });
    assert.equal(replaced.reset, true);
    assert.equal(replaced.bytesRead, cut);
  });

  it('firedup status over ssh twice, with the log growing between, answers as a local read does', () => {
    const log = path.join(dir, 'cli.log');
    const db = path.join(dir, 'cli.db');
    const cut = text.indexOf(10, Math.floor(text.length / 3)) + 1;
    fs.writeFileSync(log, text.subarray(0, cut));
    const args = ['--ssh-config', sshd.config, '--ledger', db];
    const a = runCli(['status', '--json', ...args, `firedup-test:${log}`]);
    assert.equal(JSON.parse(a.stdout).launchCount, 1, a.stderr);
    fs.appendFileSync(log, text.subarray(cut));
    const b = runCli(['status', '--json', ...args, `firedup-test:${log}`]);
    const local = runCli(['status', '--json', '--no-ledger', log]);
    const strip = (s: string) => {
      const o = JSON.parse(s);
      delete o.live;
      return o;
    };
    assert.deepEqual(strip(b.stdout), strip(local.stdout));
    const runs = runCli(['runs', '--json', '--ledger', db, '--host', 'firedup-test']);
    assert.equal(JSON.parse(runs.stdout).launches.length, 3, runs.stdout);
  });
});
