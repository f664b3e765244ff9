import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FollowEvent } from '../../src/sources/follow.js';
import { SshFollower } from '../../src/sources/ssh/follow.js';
import { remoteArgv } from '../../src/sources/ssh/remote.js';
import { SshSession } from '../../src/sources/ssh/session.js';
import { tmpDir } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';

let sshd: TestSshd;
let session: SshSession;
let dir: string;

before(async () => {
  sshd = await startSshd();
  session = new SshSession({ user: null, host: 'firedup-test', port: null }, { config: sshd.config });
  dir = tmpDir();
});
after(async () => {
  await session.close();
  sshd.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, what: string, ms = 8000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

class Recorder {
  events: FollowEvent[] = [];
  readonly f: SshFollower;
  constructor(file: string) {
    this.f = new SshFollower(session, file, { pollMs: 200, minBackoffMs: 100 });
    this.f.start((e) => this.events.push(e.kind === 'data' ? { ...e, chunk: Buffer.from(e.chunk) } : e));
  }
  /** Bytes since the last reset. */
  text(): string {
    let out = '';
    for (const e of this.events) {
      if (e.kind === 'reset') out = '';
      if (e.kind === 'data') out += e.chunk.toString();
    }
    return out;
  }
  kinds(): string[] {
    return this.events
      .filter((e) => e.kind !== 'data')
      .map((e) => (e.kind === 'reset' ? `reset:${e.reason}` : e.kind));
  }
}

describe('ssh session', () => {
  it('reads a remote file fully with cat', async () => {
    const file = path.join(dir, 'full.log');
    const body = Buffer.from(Array.from({ length: 5000 }, (_, i) => `line ${i}\n`).join(''));
    fs.writeFileSync(file, body);
    const res = await session.run(remoteArgv('cat', file));
    assert.equal(res.code, 0, res.stderr);
    assert.ok(res.stdout.equals(body));
  });

  it('reads a hostile file name as a file name, never as a command', async () => {
    const file = "/tmp/a b/$(touch /tmp/pwned)'x;y.log";
    fs.rmSync('/tmp/pwned', { force: true });
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'payload\n');
    try {
      const res = await session.run(remoteArgv('cat', file));
      assert.equal(res.code, 0, res.stderr);
      assert.equal(res.stdout.toString(), 'payload\n');
      const st = await session.run(remoteArgv('stat', file));
      // inode, size, mtime (epoch seconds: the silence clock of a remote log)
      assert.match(st.stdout.toString(), /^\d+ 8 \d{10}\n$/);
      assert.equal(fs.existsSync('/tmp/pwned'), false);
    } finally {
      fs.rmSync('/tmp/a b', { recursive: true, force: true });
    }
  });
});

/**
 * Shell syntax of every kind a file name can carry (no `/`, no NUL): substitutions, separators, quotes,
 * globs, expansions, redirections, escapes, option-like starts, blanks and newlines, non-ASCII.
 */
const HOSTILE = [
  '$(touch CANARY)',
  '`touch CANARY`',
  '; touch CANARY',
  '| touch CANARY',
  '&& touch CANARY',
  "' ; touch CANARY ; '",
  '" ; touch CANARY ; "',
  '\ntouch CANARY\n',
  '\ttab',
  '  spaces  ',
  '*',
  '?',
  '[a-z]',
  '~root',
  '-n',
  '--',
  '\\',
  '{a,b}',
  '!!',
  '#comment',
  '<in >out',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion in a file name, on purpose
  '${IFS}touch${IFS}CANARY',
  '%s%n',
  'ünï©ødé ✓',
];

describe('ssh: 72 hostile remote file names (held since hardening round 3)', () => {
  it('each is read as a file name, never as a command: cat and stat read its bytes, nothing runs', async () => {
    const base = path.join(tmpDir(), 'hostile');
    fs.mkdirSync(base);
    // A name run as a command would leave this file where the remote shell runs (the login's home, /).
    const token = `firedup-canary-${process.pid}`;
    const names = HOSTILE.flatMap((h) => [h, `${h}.log`, `x${h}y.log`]).map((n) =>
      n.replaceAll('CANARY', token),
    );
    assert.equal(new Set(names).size, 72);
    try {
      for (const [i, name] of names.entries()) {
        const file = path.join(base, name);
        const body = `payload ${i}\n`;
        fs.writeFileSync(file, body);
        const cat = await session.run(remoteArgv('cat', file));
        assert.equal(cat.code, 0, `${JSON.stringify(name)}: ${cat.stderr}`);
        assert.equal(cat.stdout.toString(), body, JSON.stringify(name));
        const st = await session.run(remoteArgv('stat', file));
        assert.match(
          st.stdout.toString(),
          new RegExp(`^\\d+ ${body.length} \\d{10}\\n$`),
          JSON.stringify(name),
        );
        const missing = await session.run(remoteArgv('stat', `${file}.gone`));
        assert.equal(session.classify(missing, `${file}.gone`)?.kind, 'missing', JSON.stringify(name));
      }
      // Nothing ran: no canary where the remote shell or this one runs, nor beside the files.
      for (const where of [os.homedir(), '/', '/tmp', process.cwd(), base])
        assert.equal(fs.existsSync(path.join(where, token)), false, where);
      assert.equal(fs.readdirSync(base).length, names.length);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});

describe('SshFollower', () => {
  it('delivers the existing content, then appends', async () => {
    const file = path.join(dir, 'grow.log');
    fs.writeFileSync(file, 'one\n');
    const r = new Recorder(file);
    try {
      await until(() => r.text() === 'one\n', 'initial content');
      fs.appendFileSync(file, 'two\n');
      await until(() => r.text() === 'one\ntwo\n', 'appended line');
      assert.deepEqual(r.kinds(), []);
    } finally {
      r.f.stop();
    }
  });

  it('resumes after the master connection is killed, losing and doubling nothing', async () => {
    const file = path.join(dir, 'drop.log');
    fs.writeFileSync(file, '');
    const r = new Recorder(file);
    let n = 0;
    const writer = setInterval(() => fs.appendFileSync(file, `seq ${n++} ${'x'.repeat(n % 50)}\n`), 3);
    try {
      await until(() => r.text().length > 2000, 'first lines');
      const pid = await session.masterPid();
      assert.ok(pid, 'a master connection is up');
      process.kill(pid, 'SIGKILL');
      await sleep(300);
      clearInterval(writer);
      const want = fs.readFileSync(file);
      await until(() => r.text().length >= want.length, 'everything after the reconnect');
      const got = Buffer.from(r.text());
      assert.equal(got.length, want.length);
      assert.equal(
        createHash('sha256').update(got).digest('hex'),
        createHash('sha256').update(want).digest('hex'),
      );
      assert.ok(r.kinds().includes('error'), 'the drop was reported');
      assert.ok(!r.kinds().some((k) => k.startsWith('reset')), 'no reset for a dropped connection');
    } finally {
      clearInterval(writer);
      r.f.stop();
    }
  });

  it('announces a remote truncation and restarts from byte 0', async () => {
    const file = path.join(dir, 'trunc.log');
    fs.writeFileSync(file, 'old line 1\nold line 2\n');
    const r = new Recorder(file);
    try {
      await until(() => r.text() === 'old line 1\nold line 2\n', 'old content');
      fs.truncateSync(file, 0);
      await sleep(600);
      fs.appendFileSync(file, 'new\n');
      await until(() => r.kinds().includes('reset:truncated') && r.text() === 'new\n', 'truncation');
    } finally {
      r.f.stop();
    }
  });

  it('follows a rotation to the new file', async () => {
    const file = path.join(dir, 'rot.log');
    fs.writeFileSync(file, 'before\n');
    const r = new Recorder(file);
    try {
      await until(() => r.text() === 'before\n', 'first file');
      fs.renameSync(file, `${file}.1`);
      fs.appendFileSync(`${file}.1`, 'late write to the old file\n');
      fs.writeFileSync(file, 'after\n');
      await until(() => r.kinds().includes('reset:rotated') && r.text() === 'after\n', 'rotation');
      // The old file's last line came before the reset, not lost.
      const all = r.events.flatMap((e) => (e.kind === 'data' ? [e.chunk.toString()] : [])).join('');
      assert.ok(all.includes('late write to the old file\n'));
    } finally {
      r.f.stop();
    }
  });

  it('announces a deleted and recreated file', async () => {
    const file = path.join(dir, 'recreate.log');
    fs.writeFileSync(file, 'first\n');
    const r = new Recorder(file);
    try {
      await until(() => r.text() === 'first\n', 'first file');
      fs.unlinkSync(file);
      await until(() => r.kinds().includes('missing'), 'missing');
      fs.writeFileSync(file, 'second\n');
      await until(() => r.text() === 'second\n', 'recreated file');
      assert.deepEqual(r.kinds(), ['missing', 'appeared', 'reset:recreated']);
    } finally {
      r.f.stop();
    }
  });

  it('waits for a missing file and announces it when it appears', async () => {
    const file = path.join(dir, 'later.log');
    const r = new Recorder(file);
    try {
      await until(() => r.kinds().includes('missing'), 'missing');
      fs.writeFileSync(file, 'hello\n');
      await until(() => r.text() === 'hello\n', 'appeared');
      assert.deepEqual(r.kinds(), ['missing', 'appeared']);
    } finally {
      r.f.stop();
    }
  });
});
