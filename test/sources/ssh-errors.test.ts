import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FollowEvent } from '../../src/sources/follow.js';
import { SshFollower } from '../../src/sources/ssh/follow.js';
import { remoteArgv } from '../../src/sources/ssh/remote.js';
import { type SshHost, SshSession } from '../../src/sources/ssh/session.js';
import { parseTarget } from '../../src/sources/target.js';
import { tmpDir } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';

let sshd: TestSshd;
let good: SshSession;
let dir: string;
const ALIAS: SshHost = { user: null, host: 'firedup-test', port: null };
// Error cases use their own connection: riding the good session's master would hide the failure.
const NO_MUX = ['ControlMaster=no', 'ControlPath=none'];

before(async () => {
  sshd = await startSshd();
  good = new SshSession(ALIAS, { config: sshd.config });
  dir = tmpDir();
});
after(async () => {
  await good.close();
  sshd.stop();
});

async function errorOf(s: SshSession, file: string) {
  return s.classify(await s.run(remoteArgv('stat', file)), file);
}

describe('ssh errors, one line naming host and path', () => {
  it('file missing', async () => {
    const err = await errorOf(good, '/nonexistent/x.log');
    assert.equal(err?.kind, 'missing');
    assert.equal(err?.message, 'firedup-test:/nonexistent/x.log: no such file on firedup-test');
  });

  it('a directory is not a log', async () => {
    assert.equal((await errorOf(good, dir))?.kind, 'not_file');
  });

  it('authentication failed (a key the server does not know)', async () => {
    const cfg = path.join(sshd.dir, 'ssh_config_wrong');
    fs.writeFileSync(cfg, fs.readFileSync(sshd.config, 'utf8').replace('/user_key', '/wrong_key'));
    const s = new SshSession(ALIAS, { config: cfg, options: NO_MUX });
    const err = await errorOf(s, '/etc/hostname');
    assert.equal(err?.kind, 'auth');
    assert.match(err!.message, /^firedup-test:\/etc\/hostname: authentication failed/);
    // A follower reports it as an error event rather than throwing.
    const events: FollowEvent[] = [];
    const f = new SshFollower(s, '/etc/hostname', { minBackoffMs: 5000 });
    f.start((e) => events.push(e));
    try {
      for (let i = 0; i < 300 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(events[0]?.kind, 'error');
      assert.match((events[0] as { message: string }).message, /authentication failed/);
    } finally {
      f.stop();
    }
  });

  it('host unreachable (connection refused on a closed port)', async () => {
    const t = parseTarget(`ssh://root@127.0.0.1:1/var/log/x.log`);
    assert.equal(t.kind, 'ssh');
    const s = new SshSession(t as SshHost, { config: sshd.config, options: NO_MUX });
    const err = await errorOf(s, '/var/log/x.log');
    assert.equal(err?.kind, 'unreachable');
    assert.match(err!.message, /^root@127\.0\.0\.1:1:\/var\/log\/x\.log: connection to 127\.0\.0\.1 refused/);
  });

  it('host key changed', async () => {
    const kh = path.join(sshd.dir, 'known_hosts_changed');
    const other = fs.readFileSync(`${sshd.wrongKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ');
    fs.writeFileSync(kh, `[127.0.0.1]:${sshd.port} ${other}\n`);
    const s = new SshSession(ALIAS, {
      config: sshd.config,
      options: [...NO_MUX, `UserKnownHostsFile=${kh}`],
    });
    const err = await errorOf(s, '/etc/hostname');
    assert.equal(err?.kind, 'hostkey');
    assert.match(err!.message, /host key of firedup-test has CHANGED/);
  });

  it('host key unknown (strict checking, empty known_hosts)', async () => {
    const kh = path.join(sshd.dir, 'known_hosts_empty');
    fs.writeFileSync(kh, '');
    const s = new SshSession(ALIAS, {
      config: sshd.config,
      options: [...NO_MUX, `UserKnownHostsFile=${kh}`, 'StrictHostKeyChecking=yes'],
    });
    const err = await errorOf(s, '/etc/hostname');
    assert.equal(err?.kind, 'hostkey');
    assert.match(err!.message, /unknown or not trusted/);
  });

  it('remote tool missing (a server without tail)', async () => {
    const cfg = path.join(sshd.dir, 'ssh_config_tool');
    fs.writeFileSync(cfg, fs.readFileSync(sshd.config, 'utf8').replace('/user_key', '/tool_key'));
    const s = new SshSession(ALIAS, { config: cfg, options: NO_MUX });
    // stat works there; streaming needs tail.
    assert.equal((await s.run(remoteArgv('stat', '/etc/hostname'))).code, 0);
    const err = s.classify(await s.run(remoteArgv('stream', '/etc/hostname')), '/etc/hostname');
    assert.equal(err?.kind, 'tool_missing');
    assert.match(err!.message, /^firedup-test:\/etc\/hostname: a remote tool is missing/);
  });

  it('permission denied (a root-only file read as nobody)', async () => {
    const cfg = path.join(sshd.dir, 'ssh_config_nobody');
    fs.writeFileSync(cfg, fs.readFileSync(sshd.config, 'utf8').replace('/user_key', '/nobody_key'));
    const s = new SshSession(ALIAS, { config: cfg, options: NO_MUX });
    // The directory must be traversable by nobody for the file to exist but be unreadable.
    const sub = fs.mkdtempSync('/tmp/firedup-denied-');
    fs.chmodSync(sub, 0o755);
    const file = path.join(sub, 'secret.log');
    fs.writeFileSync(file, 'x\n', { mode: 0o600 });
    try {
      const err = await errorOf(s, file);
      assert.equal(err?.kind, 'denied');
      assert.equal(
        err?.message,
        `firedup-test:${file}: permission denied on firedup-test (log in as a user who can read it)`,
      );
    } finally {
      fs.rmSync(sub, { recursive: true, force: true });
    }
  });

  it('rejects option-like hosts and malformed --ssh-option', () => {
    assert.throws(() => new SshSession({ user: null, host: '-oProxyCommand=x', port: null }), /bad host/);
    assert.throws(() => new SshSession(ALIAS, { options: ['-F/etc/x'] }), /KEY=VALUE/);
  });
});
