import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { FileFollower, type FollowEvent } from '../../src/sources/follow.js';
import { ROOT, tmpDir } from '../helpers.js';

/** What a follower reported, with data copied out (chunks are views into a reused buffer). */
class Recorder {
  events: FollowEvent[] = [];
  readonly follower: FileFollower;

  constructor(file: string, opts: { chunkBytes?: number } = {}) {
    this.follower = new FileFollower(file, { pollMs: 5, ...opts });
    this.follower.start((e) =>
      this.events.push(e.kind === 'data' ? { ...e, chunk: Buffer.from(e.chunk) } : e),
    );
  }

  /** Bytes delivered since the last reset, in order. */
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

  async until(what: string, ok: () => boolean, ms = 3000): Promise<void> {
    const end = Date.now() + ms;
    while (!ok()) {
      if (Date.now() > end)
        assert.fail(
          `timed out waiting for ${what}; events: ${JSON.stringify(this.kinds())}, text: ${JSON.stringify(this.text())}`,
        );
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

describe('FileFollower', () => {
  let dir: string;
  const followers: Recorder[] = [];
  const follow = (file: string, opts?: { chunkBytes?: number }) => {
    const r = new Recorder(file, opts);
    followers.push(r);
    return r;
  };
  before(() => {
    dir = tmpDir();
  });
  afterEach(() => {
    for (const r of followers.splice(0)) r.follower.stop();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('delivers the existing content in chunks, then each appended byte exactly once', async () => {
    const f = path.join(dir, 'grow.log');
    const first = `${'x'.repeat(1000)}\n`;
    fs.writeFileSync(f, first);
    const r = follow(f, { chunkBytes: 100 });
    await r.until('the existing content', () => r.text() === first);
    assert.ok(r.events.filter((e) => e.kind === 'data').length >= 10, 'read in chunks of 100 bytes');
    for (let i = 0; i < 50; i++) fs.appendFileSync(f, `line ${i}\rrefresh ${i}\n`);
    const want = fs.readFileSync(f, 'utf8');
    await r.until('the appended lines', () => r.text().length >= want.length);
    assert.equal(r.text(), want);
    assert.deepEqual(r.kinds(), []);
    // Offsets are contiguous: nothing skipped, nothing read twice.
    let next = 0;
    for (const e of r.events)
      if (e.kind === 'data') {
        assert.equal(e.offset, next);
        next += e.chunk.length;
      }
  });

  it('a partial line, then its rest', async () => {
    const f = path.join(dir, 'partial.log');
    fs.writeFileSync(f, 'Loading shards: 40/83');
    const r = follow(f);
    await r.until('the partial line', () => r.text() === 'Loading shards: 40/83');
    fs.appendFileSync(f, ' [00:13<00:14]\n');
    await r.until('its rest', () => r.text() === 'Loading shards: 40/83 [00:13<00:14]\n');
  });

  it('copytruncate: a reset, then the new content from 0', async () => {
    const f = path.join(dir, 'trunc.log');
    fs.writeFileSync(f, 'old line 1\nold line 2\n');
    const r = follow(f);
    await r.until('the old content', () => r.text() === 'old line 1\nold line 2\n');
    fs.truncateSync(f, 0);
    fs.appendFileSync(f, 'new\n');
    await r.until(
      'the reset and new data',
      () => r.kinds().includes('reset:truncated') && r.text() === 'new\n',
    );
  });

  it('copytruncate followed by more bytes than were read is still seen (the bytes before the offset changed)', async () => {
    const f = path.join(dir, 'trunc2.log');
    fs.writeFileSync(f, 'short\n');
    const r = follow(f);
    await r.until('the old content', () => r.text() === 'short\n');
    fs.truncateSync(f, 0);
    fs.appendFileSync(f, 'a much longer new first line\n');
    await r.until('the new content', () => r.text() === 'a much longer new first line\n');
    assert.deepEqual(r.kinds(), ['reset:truncated']);
  });

  it('truncated and refilled to the same size, ending as before, is seen (the first bytes changed), and its history is read before any verdict', async () => {
    const f = path.join(dir, 'refill.log');
    // The same last line (a server's "ready" line, longer than the bytes kept before the offset) and size.
    const launch = (n: number) =>
      `[2026-03-01 10:0${n}:00] server_args=ServerArgs(model_path='org/m-${n}')\n[2026-03-01 10:00:09] The server is fired up and ready to roll! (nothing more to say)\n`;
    fs.writeFileSync(f, launch(1));
    const r = follow(f);
    await r.until('the first launch', () => r.text() === launch(1));
    for (const n of [2, 3, 4]) {
      // Faster than a poll: the follower sees only the refilled file, of the old size.
      fs.writeFileSync(f, launch(n));
      await r.until(`refill ${n}`, () => r.text() === launch(n));
      assert.equal(r.follower.backlog(), null, 'nothing left to read once the refill is in');
      assert.equal(r.follower.file()?.generation, n - 1);
    }
    assert.deepEqual(r.kinds(), ['reset:truncated', 'reset:truncated', 'reset:truncated']);
    // A touch, or a write of the same bytes, is no refill.
    fs.writeFileSync(f, launch(4));
    fs.utimesSync(f, new Date(), new Date());
    await new Promise((res) => setTimeout(res, 100));
    assert.deepEqual(r.kinds(), ['reset:truncated', 'reset:truncated', 'reset:truncated']);
  });

  it('rotation: the old file is drained before the reset, then the new file from 0', async () => {
    const f = path.join(dir, 'rot.log');
    fs.writeFileSync(f, 'a1\n');
    const r = follow(f);
    await r.until('a1', () => r.text() === 'a1\n');
    const before = r.follower.identity;
    fs.renameSync(f, `${f}.1`);
    fs.appendFileSync(`${f}.1`, 'a2\n');
    fs.writeFileSync(f, 'b1\n');
    fs.appendFileSync(`${f}.1`, 'a3\n');
    await r.until('the new file', () => r.text() === 'b1\n');
    fs.appendFileSync(f, 'b2\n');
    await r.until('b2', () => r.text() === 'b1\nb2\n');
    const seq = r.events.map((e) =>
      e.kind === 'data' ? e.chunk.toString() : e.kind === 'reset' ? `reset:${e.reason}` : e.kind,
    );
    assert.deepEqual(seq.slice(seq.indexOf('reset:rotated') - 1), [
      'a2\na3\n',
      'reset:rotated',
      'b1\n',
      'b2\n',
    ]);
    assert.notDeepEqual(r.follower.identity, before);
    assert.equal(r.follower.identity?.ino, fs.statSync(f).ino);
  });

  it('delete and recreate: missing, then appeared and a reset', async () => {
    const f = path.join(dir, 'del.log');
    fs.writeFileSync(f, 'first life\n');
    const r = follow(f);
    await r.until('the first file', () => r.text() === 'first life\n');
    fs.unlinkSync(f);
    await r.until('missing', () => r.kinds().includes('missing'));
    assert.equal(r.follower.identity, null);
    fs.writeFileSync(f, 'second life\n');
    await r.until('the new file', () => r.text() === 'second life\n');
    assert.deepEqual(r.kinds(), ['missing', 'appeared', 'reset:recreated']);
  });

  it('a path that appears later: missing once, then appeared, no reset', async () => {
    const f = path.join(dir, 'later.log');
    const r = follow(f);
    await r.until('missing', () => r.kinds().includes('missing'));
    await new Promise((res) => setTimeout(res, 30));
    fs.writeFileSync(f, 'hello\n');
    await r.until('the file', () => r.text() === 'hello\n');
    assert.deepEqual(r.kinds(), ['missing', 'appeared']);
  });

  it('a directory is an error naming the path, reported once', async () => {
    const d = path.join(dir, 'adir');
    fs.mkdirSync(d);
    const r = follow(d);
    await r.until('an error', () => r.kinds().includes('error'));
    await new Promise((res) => setTimeout(res, 30));
    const errors = r.events.filter((e) => e.kind === 'error');
    assert.equal(errors.length, 1);
    assert.match((errors[0] as { message: string }).message, new RegExp(`^${d}: is a directory`));
  });

  it('permission denied is an error naming the path', async (t) => {
    if (process.getuid?.() === 0) return t.skip('root reads any file');
    const f = path.join(dir, 'secret.log');
    fs.writeFileSync(f, 'x\n');
    fs.chmodSync(f, 0o000);
    const r = follow(f);
    await r.until('an error', () => r.kinds().includes('error'));
    const e = r.events.find((e) => e.kind === 'error') as { message: string };
    assert.match(e.message, new RegExp(`^${f}: permission denied`));
  });

  it('stop() ends the polling and does not keep the process alive', async () => {
    const f = path.join(dir, 'stop.log');
    fs.writeFileSync(f, 'one\n');
    const r = follow(f);
    await r.until('one', () => r.text() === 'one\n');
    r.follower.stop();
    assert.equal(r.follower.identity, null);
    fs.appendFileSync(f, 'two\n');
    await new Promise((res) => setTimeout(res, 30));
    assert.equal(r.text(), 'one\n');
  });

  it('its timer never keeps the process alive', () => {
    const f = path.join(dir, 'alive.log');
    fs.writeFileSync(f, 'x\n');
    const mod = path.join(ROOT, 'dist', 'src', 'sources', 'follow.js');
    const code = `import { FileFollower } from ${JSON.stringify(mod)}; new FileFollower(${JSON.stringify(f)}).start(() => {});`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { timeout: 5000 });
    assert.equal(r.status, 0, String(r.stderr));
  });
});
