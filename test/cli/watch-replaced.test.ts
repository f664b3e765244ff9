/**
 * A watched log whose path comes to name something else (issue 25, items 7 and 9): a FIFO put in its place
 * must not freeze watch or serve --watch (it is refused in one line, and the timeout and signals still work);
 * a symlink repointed to another file is a rotation, and that file's launches are recorded as its own.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { FileFollower, type FollowEvent } from '../../src/sources/follow.js';
import { Ledger } from '../../src/store/ledger.js';
import { runCli, SCENARIOS, spawnCli, tmpDir } from '../helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LOG = path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log');

/** Resolves once the child has printed something matching `re` on stdout (or after `ms`, to fail later). */
function printed(child: ChildProcess, re: RegExp, ms = 20_000): Promise<void> {
  return new Promise((resolve) => {
    let out = '';
    const t = setTimeout(resolve, ms);
    const see = (d: Buffer) => {
      out += d.toString();
      if (re.test(out)) {
        clearTimeout(t);
        resolve();
      }
    };
    child.stdout!.on('data', see);
    child.stderr!.on('data', see);
  });
}

describe('a watched log replaced by a FIFO', () => {
  it('the follower reports it once and never blocks the event loop', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'server.log');
    fs.writeFileSync(file, 'line one\n');
    const f = new FileFollower(file, { pollMs: 10 });
    const events: FollowEvent[] = [];
    f.start((e) => events.push(e.kind === 'data' ? { ...e, chunk: Buffer.from(e.chunk) } : e));
    await sleep(100);
    fs.rmSync(file);
    execFileSync('mkfifo', [file]);
    // A writer that comes after 3 s ends a blocked open or read (so that a failure is a failure, not a hung test).
    const writer = spawn('sh', ['-c', `sleep 3; echo late > '${file}'`], { stdio: 'ignore' });
    const t0 = Date.now();
    await sleep(300);
    const waited = Date.now() - t0;
    writer.kill('SIGKILL');
    f.stop();
    assert.ok(waited < 1500, `the event loop was blocked for ${waited} ms`);
    const errors = events.filter((e) => e.kind === 'error');
    assert.equal(errors.length, 1, JSON.stringify(events));
    assert.match((errors[0] as { message: string }).message, /server\.log is a FIFO, not a regular file/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const [name, args, exit] of [
    ['watch --timeout', ['watch', '--no-ledger', '--no-gpu', '--timeout', '3s'], 6],
    ['watch, then SIGTERM', ['watch', '--no-ledger', '--no-gpu'], 130],
  ] as const) {
    it(`${name}: ends on time, naming the FIFO`, async () => {
      const dir = tmpDir();
      const file = path.join(dir, 'server.log');
      fs.copyFileSync(LOG, file);
      const run = spawnCli([...args, file], {}, 30_000);
      // The log is being followed once its first launch is told.
      await printed(run.child, /loading_weights/);
      await sleep(300);
      fs.rmSync(file);
      execFileSync('mkfifo', [file]);
      if (exit === 130) {
        await sleep(1500);
        run.child.kill('SIGTERM');
      }
      const r = await run.done;
      assert.equal(r.code, exit, `${r.stdout}\n${r.stderr}`);
      assert.ok(r.seconds < 10, `took ${r.seconds} s`);
      assert.match(r.stdout, /server\.log is a FIFO, not a regular file/);
      fs.rmSync(dir, { recursive: true, force: true });
    });
  }

  it('serve --watch stays answerable and ends on SIGTERM', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'server.log');
    fs.copyFileSync(LOG, file);
    const run = spawnCli(
      ['serve', '--watch', file, '--port', '0', '--ledger', path.join(dir, 'l.db')],
      {},
      30_000,
    );
    await printed(run.child, /firedup serve: /);
    await sleep(1000);
    fs.rmSync(file);
    execFileSync('mkfifo', [file]);
    await sleep(1500);
    run.child.kill('SIGTERM');
    const r = await run.done;
    assert.ok(r.seconds < 10, `took ${r.seconds} s: ${r.stderr}`);
    assert.notEqual(r.code, null, `killed by the test's timeout: ${r.stderr}`);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('a watched symlink repointed to another file', () => {
  it("is a rotation: the new file's launch is recorded under its own path and inode, and show --lines reads it", async () => {
    const dir = tmpDir();
    const a = path.join(dir, 'a.log');
    const b = path.join(dir, 'b.log');
    const cur = path.join(dir, 'cur.log');
    const ledger = path.join(dir, 'l.db');
    fs.copyFileSync(LOG, a);
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'), b);
    fs.symlinkSync('a.log', cur);
    const run = spawnCli(['watch', '--json', '--no-gpu', '--ledger', ledger, cur], {}, 40_000);
    await printed(run.child, /loading_weights/);
    await sleep(1500);
    // As `ln -sfn b.log cur.log` does it, atomically: a new link renamed over the old.
    fs.symlinkSync('b.log', `${cur}.new`);
    fs.renameSync(`${cur}.new`, cur);
    // b's launch crashed: the watch ends on its own once it reads it.
    const r = await run.done;
    assert.equal(r.code, 2, `${r.stdout}\n${r.stderr}`);
    assert.ok(
      r.events.some((e) => e.type === 'source' && e.kind === 'reset' && e.detail === 'rotated'),
      r.stdout,
    );
    const l = Ledger.open(ledger);
    const recs = l.list();
    l.close();
    const sb = fs.statSync(b);
    const sa = fs.statSync(a);
    const ofB = recs.filter((x) => x.path === b);
    assert.equal(ofB.length, 1, JSON.stringify(recs.map((x) => [x.path, x.fileId, x.startOffset])));
    assert.equal(ofB[0]!.fileId, `${sb.dev}:${sb.ino}`);
    assert.equal(ofB[0]!.outcome, 'crashed');
    for (const x of recs.filter((y) => y.path === a)) assert.equal(x.fileId, `${sa.dev}:${sa.ino}`);
    assert.ok(
      recs.every((x) => x.path === a || x.path === b),
      JSON.stringify(recs.map((x) => x.path)),
    );
    const show = runCli(['show', ofB[0]!.id.slice(0, 8), '--lines', '--ledger', ledger, '--no-color']);
    assert.equal(show.code, 0, show.stderr);
    assert.doesNotMatch(`${show.stdout}${show.stderr}`, /has changed/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
