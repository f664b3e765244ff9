import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ingestRemote, type RemoteIngestResult } from '../../src/app/ingest-remote.js';
import type { LaunchReport } from '../../src/core/reading/report.js';
import { SshSession } from '../../src/sources/ssh/session.js';
import { Ledger } from '../../src/store/ledger.js';
import { analyzeBytes, runCli, SCENARIOS, tmpDir } from '../helpers.js';
import { logOf } from '../many-launches.js';
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

/** A read's whole report: the closed launches the ledger keeps (`earlier`) read back before the report's own. */
async function whole(r: RemoteIngestResult) {
  const before: LaunchReport[] = [];
  if (r.earlier)
    for await (const page of r.earlier.reportTexts()) before.push(...page.map((t) => JSON.parse(t)));
  assert.equal(before.length, r.earlier?.count ?? 0);
  return { ...r.report, launches: [...before, ...r.report.launches] };
}

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
        assert.deepEqual(await whole(second), analyzeBytes(text));
        const recorded = await ledger.list({ path: log });
        assert.equal(recorded.length, analyzeBytes(text).launches.length);
        // Nothing new: nothing but the stat and the checksums crosses.
        const third = await ingestRemote(ledger, session, key, { year: 2026 });
        assert.equal(third.bytesRead, 0);
        assert.deepEqual(await whole(third), await whole(second));
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
    assert.deepEqual(await whole(after), analyzeBytes(small.subarray(0, cut)));
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

  for (const b of BACKENDS)
    it(`closed launches are written as they close, and the checkpoint holds only the open one (${b.name})`, async () => {
      const ledger = await b.open();
      try {
        const log = path.join(dir, `many-${b.name}.log`);
        const data = Buffer.from(logOf(0, 300));
        // The last line unterminated, and starting a launch: it is not recorded until its line is whole.
        const lastStart = Buffer.byteLength(logOf(0, 299));
        const cut = data.indexOf(10, lastStart) - 3;
        fs.writeFileSync(log, data.subarray(0, cut));
        const key = { host: 'firedup-test', path: log };
        const settled: LaunchReport[] = [];
        const first = await ingestRemote(ledger, session, key, {
          year: 2026,
          saveEvery: 4096,
          onSettled: (r) => settled.push(r),
        });
        // Handed over as they closed, in order, before the report's own; none was read back from the ledger.
        assert.equal(first.earlier, null);
        const all = analyzeBytes(data.subarray(0, cut));
        assert.equal(all.launches.length, 300);
        assert.deepEqual([...settled, ...first.report.launches], all.launches);
        assert.ok(first.report.launches.length <= 2);
        const state = await ledger.getLog(key);
        assert.equal(state!.offset, lastStart);
        assert.ok(state!.checkpoint!.length < 16 << 10, `checkpoint of ${state!.checkpoint!.length} bytes`);
        // The launch whose first line is cut is not recorded yet; every other is, once.
        const recorded = await ledger.list({ path: log });
        assert.equal(recorded.length, all.launches.length - 1);
        assert.equal(new Set(recorded.map((r) => r.startOffset)).size, recorded.length);
        assert.ok(recorded.every((r) => r.startOffset < state!.offset));

        fs.writeFileSync(log, data);
        const second = await ingestRemote(ledger, session, key, { year: 2026 });
        assert.equal(second.resumedFrom, state!.offset);
        assert.equal(second.reset, false);
        assert.deepEqual(await whole(second), analyzeBytes(data));
        assert.equal((await ledger.list({ path: log })).length, 300);
      } finally {
        await ledger.close();
      }
    });

  for (const b of BACKENDS)
    it(`a rotated log's launches are not counted with the new file's (${b.name})`, async () => {
      const ledger = await b.open();
      try {
        const log = path.join(dir, `rotated-${b.name}.log`);
        fs.writeFileSync(log, logOf(0, 40));
        const key = { host: 'firedup-test', path: log };
        await ingestRemote(ledger, session, key, { year: 2026 });
        // Rotated: a new file under the name, with other launches at other offsets.
        const next = logOf(1000, 1025);
        fs.writeFileSync(`${log}.new`, next);
        fs.renameSync(`${log}.new`, log);
        const r1 = await ingestRemote(ledger, session, key, { year: 2026 });
        assert.equal(r1.reset, true);
        assert.deepEqual(await whole(r1), analyzeBytes(Buffer.from(next)));
        // and resumed from there, with one launch more
        fs.appendFileSync(log, logOf(1025, 1026));
        const r2 = await ingestRemote(ledger, session, key, { year: 2026 });
        assert.equal(r2.reset, false);
        assert.ok(r2.resumedFrom > 0);
        assert.deepEqual(await whole(r2), analyzeBytes(Buffer.from(logOf(1000, 1026))));
        // Both files' launches stay recorded: they happened.
        assert.equal((await ledger.list({ path: log })).length, 40 + 26);
      } finally {
        await ledger.close();
      }
    });
});
