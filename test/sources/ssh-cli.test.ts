import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
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
      assert.match(
        r.stderr,
        /^firedup: firedup-test:\S+: a (device|kernel pseudo-file \(\/proc, \/sys\)), not a log file/,
        f,
      );
      assert.ok(r.seconds < 15, `${f} took ${r.seconds} s`);
    }
    const left = spawnSync('pgrep', ['-f', 'tail -c \\+[0-9]+ (-f )?-- /(dev|proc|sys)/'], {
      encoding: 'utf8',
    });
    assert.equal(left.stdout.trim(), '', 'remote readers left running');
  });

  it('a path that is there but is no readable log says what it is, as a local read does, never "no such file"', async () => {
    const dir = fs.mkdtempSync('/tmp/firedup-kinds-');
    fs.chmodSync(dir, 0o755);
    const fifo = path.join(dir, 'server.fifo');
    spawnSync('mkfifo', [fifo]);
    const sock = path.join(dir, 'server.sock');
    const server = net.createServer().listen(sock);
    await new Promise((r) => server.once('listening', r));
    // A directory nobody may enter: the file in it is there, unreadable, not missing.
    const closed = path.join(dir, 'closed');
    fs.mkdirSync(closed, { mode: 0o700 });
    fs.writeFileSync(path.join(closed, 'server.log'), 'x\n', { mode: 0o644 });
    // Write-only, as /proc/sysrq-trigger is (mode 0200).
    const writeOnly = path.join(dir, 'write-only.log');
    fs.writeFileSync(writeOnly, 'x\n', { mode: 0o200 });
    const nobody = path.join(sshd.dir, 'ssh_config_nobody_kinds');
    fs.writeFileSync(nobody, fs.readFileSync(sshd.config, 'utf8').replace('/user_key', '/nobody_key'));
    const PSEUDO = 'a kernel pseudo-file (/proc, /sys), not a log file';
    // /proc/sysrq-trigger where the kernel has one; /proc/sys/vm/drop_caches is its kind (write-only, size 0).
    const pseudo = ['/proc/sysrq-trigger', '/proc/sys/vm/drop_caches'].filter((f) => fs.existsSync(f));
    const cases: Array<[string, string, string]> = [
      [dir, sshd.config, 'is a directory, not a log file'],
      ['/dev/null', sshd.config, 'a device, not a log file'],
      ...pseudo.map((f): [string, string, string] => [f, sshd.config, PSEUDO]),
      [fifo, sshd.config, 'is a FIFO, not a regular file'],
      [sock, sshd.config, 'is a socket, not a regular file'],
      [
        path.join(closed, 'server.log'),
        nobody,
        'permission denied on firedup-test (log in as a user who can read it)',
      ],
      [writeOnly, nobody, 'permission denied on firedup-test (log in as a user who can read it)'],
      [path.join(closed, 'gone.log'), nobody, 'permission denied on firedup-test'],
    ];
    try {
      assert.ok(pseudo.length > 0, 'a write-only /proc file to try');
      for (const [file, config, words] of cases) {
        const r = await spawnCli(['status', '--ssh-config', config, `firedup-test:${file}`], {}, 20_000).done;
        assert.equal(r.code, 1, `${file}: ${r.stderr}`);
        assert.ok(r.stderr.startsWith(`firedup: firedup-test:${file}`), r.stderr);
        assert.ok(r.stderr.includes(words), `${file}: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, /no such file/);
        assert.equal(r.stderr.split('\n').length, 2, `one line: ${r.stderr}`);
        // The same words as a local read of the same path, where root reads it (a FIFO is read there as a pipe).
        if (config === sshd.config && !file.endsWith('.fifo')) {
          const local = await spawnCli(['status', file], {}, 20_000).done;
          assert.ok(local.stderr.includes(words), `local ${file}: ${local.stderr}`);
        }
      }
      // A missing file in a directory the login may enter is still missing.
      const gone = await spawnCli(['status', '--ssh-config', nobody, `firedup-test:${dir}/gone.log`]).done;
      assert.equal(gone.stderr, `firedup: firedup-test:${dir}/gone.log: no such file on firedup-test\n`);
    } finally {
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
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
