import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SCENARIOS, spawnCli } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';

let sshd: TestSshd;
const LOG = path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log');

before(async () => {
  sshd = await startSshd();
});
after(() => sshd.stop());

describe('status and runs over ssh', () => {
  it('runs --json over ssh equals the local read', async () => {
    const local = await spawnCli(['runs', '--json', LOG]).done;
    const remote = await spawnCli(['runs', '--json', '--ssh-config', sshd.config, `firedup-test:${LOG}`])
      .done;
    assert.equal(remote.code, 0, remote.stderr);
    assert.deepEqual(remote.events, local.events);
    assert.equal(remote.events[0]!.launches.length, 2);
  });

  it('status over ssh:// with --ssh-option passthrough', async () => {
    const opts = [
      `IdentityFile=${sshd.dir}/user_key`,
      `UserKnownHostsFile=${sshd.dir}/known_hosts`,
      'StrictHostKeyChecking=accept-new',
    ].flatMap((o) => ['--ssh-option', o]);
    const r = await spawnCli(['status', '--json', ...opts, `ssh://root@127.0.0.1:${sshd.port}${LOG}`]).done;
    assert.equal(r.stderr, '');
    const s = r.events[0]!;
    assert.equal(s.launchCount, 2);
    assert.equal(s.outcome, 'in_progress');
    assert.equal(s.phase, 'loading_weights');
    // The remote file's mtime gives the launch an age, as a local file's does: loading, or stalled once old.
    assert.ok(['loading', 'stalled'].includes(s.live.state), s.live.state);
    assert.equal(r.code, s.live.state === 'stalled' ? 4 : 3);
  });

  it('a missing remote file is one line naming host and path', async () => {
    const r = await spawnCli(['status', '--ssh-config', sshd.config, 'firedup-test:/nope/server.log']).done;
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'firedup: firedup-test:/nope/server.log: no such file on firedup-test\n');
  });

  it('devices, /proc and /sys files are refused in one line, fast, and leave no process on the server', async () => {
    for (const f of [
      '/dev/zero',
      '/dev/urandom',
      '/proc/kmsg',
      '/proc/self/status',
      '/sys/kernel/uevent_seqnum',
    ]) {
      const r = await spawnCli(['status', '--ssh-config', sshd.config, `firedup-test:${f}`], {}, 20_000).done;
      assert.equal(r.code, 1, `${f}: ${r.stderr}`);
      assert.match(r.stderr, /^firedup: firedup-test:\S+: not a log file/, f);
      assert.ok(r.seconds < 15, `${f} took ${r.seconds} s`);
    }
    const left = spawnSync('pgrep', ['-f', 'tail -c \\+[0-9]+ (-f )?-- /(dev|proc|sys)/'], {
      encoding: 'utf8',
    });
    assert.equal(left.stdout.trim(), '', 'remote readers left running');
  });

  it('--pid on a remote log is refused rather than probing this machine', async () => {
    const r = await spawnCli(['status', '--pid', '1', 'firedup-test:/x.log']).done;
    assert.equal(r.code, 1);
    assert.match(r.stderr, /not supported for a remote log/);
  });

  it('a local file whose name looks like host:path is still read locally', async () => {
    const dir = fs.mkdtempSync('/tmp/firedup-cli-');
    fs.copyFileSync(LOG, path.join(dir, 'box:x.log'));
    const r = await spawnCli(['runs', '--json', path.join(dir, 'box:x.log')]).done;
    assert.equal(r.code, 0, r.stderr);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
