/** Damaged and hostile input through the real CLI (issue 15): one line naming the thing, never a trace. */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, assertOneLine as oneLine, ROOT, runCli, spawnCli, tmpDir } from '../helpers.js';

describe('hardening', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a firedup.toml escape past Unicode is one file:line error', () => {
    const f = path.join(dir, 'bad.toml');
    fs.writeFileSync(f, '[[target]]\nname = "a"\nlog = "x\\UFFFFFFFF.log"\n');
    const r = runCli(['serve', '--config', f, '--port', '0']);
    assert.ok(r.code === 1 || r.code === 2, `exit ${r.code}`);
    oneLine(r.stderr);
    assert.match(r.stderr, /bad\.toml:3: .*not a Unicode scalar value/);
  });
});

describe('a log rewritten past its head', () => {
  it('is read afresh: the same report as a read without the ledger', () => {
    const dir = tmpDir();
    const file = path.join(dir, 'server.log');
    const ledger = path.join(dir, 'ledger.db');
    const head: string[] = ["[2026-03-01 10:00:00] server_args=ServerArgs(model_path='m', tp_size=1)"];
    for (let i = 0; head.join('\n').length < 70_000; i++)
      head.push(
        `[2026-03-01 10:00:01] Using default HuggingFace chat template with detected content format: string ${i}`,
      );
    const first = `${head.join('\n')}\n[2026-03-01 10:00:05 TP0] RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n[2026-03-01 10:00:06] padding line one\n`;
    fs.writeFileSync(file, first);
    const a = JSON.parse(runCli(['status', '--json', '--ledger', ledger, file]).stdout);
    assert.equal(a.failure.class, 'oom');
    // Truncated in place and written again: the same head, then a launch that gets ready, and longer.
    fs.truncateSync(file, 0);
    fs.writeFileSync(
      file,
      `${head.join('\n')}\n[2026-03-01 10:00:05] The server is fired up and ready to roll!\n[2026-03-01 10:00:06] ${'x'.repeat(200)}\n`,
    );
    const b = JSON.parse(runCli(['runs', '--json', '--ledger', ledger, file]).stdout);
    const fresh = JSON.parse(runCli(['runs', '--json', '--no-ledger', file]).stdout);
    assert.equal(b.launches.at(-1).outcome, 'ready');
    assert.equal(b.launches.at(-1).failure, null);
    assert.deepEqual(
      b.launches.map((l: { outcome: string }) => l.outcome),
      fresh.launches.map((l: { outcome: string }) => l.outcome),
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('a damaged checkpoint in a valid ledger', () => {
  it('is dropped with one warning, and the report is right', async () => {
    const Database = (await import('better-sqlite3')).default;
    const dir = tmpDir();
    const file = path.join(dir, 'server.log');
    const ledger = path.join(dir, 'ledger.db');
    const lines = ["[2026-03-01 10:00:00] server_args=ServerArgs(model_path='m', tp_size=1)"];
    lines.push('[2026-03-01 10:00:01 TP0] Load weight begin. avail mem=60.00 GB');
    fs.writeFileSync(file, `${lines.join('\n')}\n`);
    assert.equal(runCli(['runs', '--ledger', ledger, file]).code, 0);
    fs.appendFileSync(file, '[2026-03-01 10:00:09] The server is fired up and ready to roll!\n');
    const fresh = JSON.parse(runCli(['runs', '--json', '--no-ledger', file]).stdout);
    // Damage the saved state the way a disk or a hand edit would: flip bytes inside it, keep it JSON-ish.
    let seed = 7;
    for (let round = 0; round < 25; round++) {
      const db = new Database(ledger);
      const row = db.prepare('SELECT id, checkpoint FROM logs').get() as
        | { id: number; checkpoint: Buffer }
        | undefined;
      if (row?.checkpoint) {
        const cp = Buffer.from(row.checkpoint);
        for (let k = 0; k < 3; k++) {
          seed = (seed * 1103515245 + 12345) & 0x7fffffff;
          const at = seed % cp.length;
          cp[at] = 0x20 + (seed % 90);
        }
        db.prepare('UPDATE logs SET checkpoint = ? WHERE id = ?').run(cp, row.id);
      }
      db.close();
      const r = runCli(['runs', '--json', '--ledger', ledger, file]);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!/\n\s+at /.test(r.stderr), r.stderr);
      const got = JSON.parse(r.stdout);
      assert.deepEqual(
        got.launches.map((l: { outcome: string; phase: string }) => [l.outcome, l.phase]),
        fresh.launches.map((l: { outcome: string; phase: string }) => [l.outcome, l.phase]),
        `round ${round}: ${r.stderr}`,
      );
      if (row?.checkpoint) assert.match(r.stderr, /saved state was damaged|^$/);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

/** Resolves once the child has written something matching `re` (stdout or stderr), or has exited. */
function said(child: ChildProcess, re: RegExp): Promise<void> {
  return new Promise((resolve) => {
    let out = '';
    const see = (d: Buffer) => {
      out += d.toString();
      if (re.test(out)) resolve();
    };
    child.stdout!.on('data', see);
    child.stderr!.on('data', see);
    child.once('exit', () => resolve());
  });
}

describe('FIFOs, process substitutions and devices', () => {
  const serving = () => fs.readFileSync(path.join(ROOT, 'examples', 'glm5-serving.log'));

  it('a FIFO is read as a stream once its writer comes, and a writerless one says so and honours SIGTERM', async () => {
    const dir = tmpDir();
    const fifo = path.join(dir, 'server.fifo');
    execFileSync('mkfifo', [fifo]);
    const run = spawnCli(['status', '--no-ledger', fifo]);
    setTimeout(() => fs.writeFileSync(fifo, serving()), 300);
    const r = await run.done;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /serving/);

    const idle = spawnCli(['runs', '--no-ledger', fifo]);
    // Said after a second with no writer, however long the process took to start (a loaded machine).
    await said(idle.child, /a FIFO with no writer yet/);
    idle.child.kill('SIGTERM');
    const i = await idle.done;
    assert.notEqual(i.code, 0);
    assert.match(i.stderr, /a FIFO with no writer yet/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('watch, wait, serve --watch and launch --log refuse a FIFO at once instead of blocking on its open', () => {
    const dir = tmpDir();
    const fifo = path.join(dir, 'server.fifo');
    execFileSync('mkfifo', [fifo]);
    const ledger = path.join(dir, 'l.db');
    for (const args of [
      ['watch', fifo, '--timeout', '5s'],
      ['wait', fifo, '--timeout', '5s'],
      ['serve', '--watch', fifo, '--port', '0', '--ledger', ledger],
      ['launch', '--log', fifo, '--ledger', ledger, '--', 'sleep', '1'],
    ]) {
      const r = runCli(args);
      assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
      assert.match(r.stderr, /^firedup: .*server\.fifo.*(FIFO|not a regular file)/, args[0]);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a process substitution (a /dev/fd link to a pipe) is read, not called missing', () => {
    const out = execFileSync(
      'bash',
      [
        '-c',
        `"${process.execPath}" "${BIN}" status --no-ledger <(cat "${path.join(ROOT, 'examples', 'glm5-serving.log')}")`,
      ],
      { encoding: 'utf8' },
    );
    assert.match(out, /serving/);
  });

  it('a device is refused in one line', () => {
    const r = runCli(['status', '/dev/zero']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^firedup: \/dev\/zero: a device, not a log file/);
  });

  it('a kernel pseudo-file (size 0, content made up on read) is refused, not called an empty file', () => {
    for (const args of [
      ['status', '/proc/self/status'],
      ['watch', '/proc/version'],
    ]) {
      const r = runCli(args);
      assert.equal(r.code, 1);
      assert.match(
        r.stderr,
        /^firedup: \/proc\/[a-z/]+: a kernel pseudo-file \(\/proc, \/sys\), not a log file/,
      );
      oneLine(r.stderr);
    }
  });

  it('an empty log that exists is not "does not exist yet"; wait --json always ends with an exit line', () => {
    const file = path.join(tmpDir(), 'empty.log');
    fs.writeFileSync(file, '');
    const r = runCli(['wait', file, '--json', '--timeout', '4s', '--no-gpu']);
    assert.equal(r.code, 6);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const last = lines.at(-1);
    assert.equal(last.type, 'exit');
    assert.equal(last.code, 6);
    assert.match(last.why, /timed out after 4s/);
    assert.doesNotMatch(r.stdout, /does not exist/);
  });

  it('a bad %-escape in an ssh:// target names the target', () => {
    const r = runCli(['status', 'ssh://gpu-box/var/log/%zz.log']);
    assert.match(r.stderr, /^firedup: ssh:\/\/gpu-box\/var\/log\/%zz\.log: bad %-escape/);
  });
});

describe('ledgers that cannot be used as they are', () => {
  const sha = (f: string) => createHash('sha256').update(fs.readFileSync(f)).digest('hex');
  const log = path.join(ROOT, 'examples', 'glm5-serving.log');

  it('a damaged ledger: every command refuses it in one line and leaves it byte-identical', () => {
    const dir = tmpDir();
    const ledger = path.join(dir, 'ledger.db');
    assert.equal(runCli(['runs', '--ledger', ledger, log]).code, 0);
    const b = fs.readFileSync(ledger);
    // the third page (a table's), whatever the page size (the header's bytes 16-17)
    const at = 2 * b.readUInt16BE(16);
    for (let i = at; i < at + 600 && i < b.length; i++) b[i] = (b[i]! * 7 + 13) & 255;
    fs.writeFileSync(ledger, b);
    const before = sha(ledger);
    for (const args of [
      ['status', log],
      ['runs', log],
      ['runs'],
      ['show', 'last'],
      ['target', 'add', 'output_tok_s >= 1', '--model', 'x'],
      ['target', 'list'],
      ['forget', 'last'],
    ]) {
      const r = runCli([...args, '--ledger', ledger]);
      assert.ok(!/\n\s+at /.test(r.stderr), `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /ledger .* is damaged/, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(sha(ledger), before, `${args.join(' ')} changed the ledger`);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('huge offsets, limits and too many filters are one line, never an SQLite error', () => {
    const dir = tmpDir();
    const ledger = path.join(dir, 'ledger.db');
    runCli(['runs', '--ledger', ledger, log]);
    const show = runCli(['show', 'last~99999999999999999999', '--ledger', ledger]);
    assert.match(show.stderr, /^firedup: no launch last~99999999999999999999/);
    const limit = runCli(['runs', '--limit', '99999999999999999999', '--ledger', ledger]);
    assert.match(limit.stderr, /^firedup: runs: --limit 99999999999999999999: expected a count/);
    const where = Array.from({ length: 1200 }, (_, i) => ['--where', `k${i}=v`]).flat();
    const many = runCli(['runs', ...where, '--ledger', ledger]);
    assert.match(many.stderr, /^firedup: at most 64 --where filters/);
    for (const r of [show, limit, many]) assert.ok(!/SqliteError|\n\s+at /.test(r.stderr), r.stderr);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a read-only ledger is read; a device or a URL is refused; replay never appends to its own input', () => {
    const dir = tmpDir();
    const ledger = path.join(dir, 'ledger.db');
    runCli(['runs', '--ledger', ledger, log]);
    fs.chmodSync(ledger, 0o444);
    fs.chmodSync(dir, 0o555);
    try {
      // root ignores file modes: the read-only path is taken through a directory we make unwritable for
      // everyone but root; as root, opening writable still works, so only check the listing is right.
      const r = runCli(['runs', '--ledger', ledger]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /GLM-5/);
    } finally {
      fs.chmodSync(dir, 0o755);
      fs.chmodSync(ledger, 0o644);
    }
    const dev = runCli(['runs', '--ledger', '/dev/null']);
    assert.match(dev.stderr, /^firedup: .*\/dev\/null.*not a regular file/);
    assert.ok(!fs.existsSync('/dev/null-journal'));
    // A URL of a scheme firedup keeps no ledger at is refused, never taken for a file name (issue 15).
    const url = runCli(['runs', '--ledger', 'mysql://svc:pw@db/firedup']);
    assert.match(
      url.stderr,
      /^firedup: --ledger mysql:\/\/svc:<redacted>@db\/firedup: a URL firedup cannot keep a ledger at/,
    );
    assert.ok(!fs.existsSync('mysql:'));
    // A Postgres one that cannot be reached: one line naming it, password masked.
    const pg = runCli(['runs', '--ledger', 'postgres://svc:pw@127.0.0.1:1/firedup']);
    assert.equal(pg.code, 1);
    assert.match(
      pg.stderr,
      /^firedup: cannot reach ledger postgres:\/\/svc:<redacted>@127\.0\.0\.1:1\/firedup: .*ECONNREFUSED/,
    );
    assert.equal(pg.stderr.trim().split('\n').length, 1, pg.stderr);
    assert.ok(!fs.existsSync('postgres:'));
    const src = path.join(dir, 'x.log');
    fs.copyFileSync(log, src);
    const size = fs.statSync(src).size;
    const rp = runCli(['replay', src, '--speed', '1000', '--out', src]);
    assert.notEqual(rp.code, 0);
    assert.match(rp.stderr, /^firedup: replay: .*the same file/);
    assert.equal(fs.statSync(src).size, size);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('a watched local log rotated and recreated', () => {
  it('records each launch once (no duplicates across the rotation)', async () => {
    const dir = tmpDir();
    const log = path.join(dir, 'server.log');
    const ledger = path.join(dir, 'l.db');
    const serving = fs.readFileSync(path.join(ROOT, 'examples', 'glm5-serving.log'), 'utf8').split('\n');
    const relaunch = fs
      .readFileSync(path.join(ROOT, 'examples', 'glm5-relaunch-stuck-at-48pct.log'), 'utf8')
      .split('\n');
    fs.writeFileSync(log, `${serving.slice(0, 150).join('\n')}\n`);
    const watch = spawnCli(['watch', log, '--json', '--no-gpu', '--timeout', '6s', '--ledger', ledger]);
    // Rotated once the watch has read the first launch (not after a fixed time: a loaded machine starts late).
    await said(watch.child, /"phase":"serving"/);
    // logrotate's create mode: the old file moved aside (and still written to), a new one at the path.
    fs.renameSync(log, `${log}.1`);
    fs.writeFileSync(log, `${relaunch.slice(321, 360).join('\n')}\n`);
    // The relaunch read (only what is printed from now on is looked at) before the old file grows.
    await said(watch.child, /"phase":"loading_weights"/);
    fs.appendFileSync(`${log}.1`, `${serving.slice(150, 200).join('\n')}\n`);
    await watch.done;
    const listed = JSON.parse(runCli(['runs', '--json', '--ledger', ledger]).stdout);
    const launches = Array.isArray(listed) ? listed : listed.launches;
    assert.equal(launches.length, 2, JSON.stringify(launches.map((l: { id: string }) => l.id)));
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
