import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertOneLine as oneLine, runCli, SCENARIOS, tmpDir } from '../helpers.js';

/** A user's mistake gets one clear line naming the file, never a stack trace, a crash or a hang. */
describe('bad input', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a missing file', () => {
    const r = runCli(['status', path.join(dir, 'nope.log')]);
    assert.equal(r.code, 1);
    oneLine(r.stderr);
    assert.match(r.stderr, /nope\.log: no such file/);
  });

  it('a directory', () => {
    const r = runCli(['runs', dir]);
    assert.equal(r.code, 1);
    oneLine(r.stderr);
    assert.match(r.stderr, /is a directory/);
  });

  it('an empty file', () => {
    const f = path.join(dir, 'empty.log');
    fs.writeFileSync(f, '');
    const r = runCli(['status', f]);
    assert.equal(r.code, 1);
    oneLine(r.stderr);
    assert.match(r.stderr, /empty\.log: empty file/);
    const j = runCli(['runs', '--json', f]);
    assert.equal(j.code, 0);
    assert.deepEqual(JSON.parse(j.stdout).launches, []);
  });

  it('a binary file', () => {
    const f = path.join(dir, 'model.bin');
    const bytes = Buffer.alloc(300_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    fs.writeFileSync(f, bytes);
    const r = runCli(['status', f]);
    assert.equal(r.code, 1);
    oneLine(r.stderr);
    assert.match(r.stderr, /binary file|no server launch/);
  });

  it('a log of no known engine gets an honest unknown', () => {
    const f = path.join(dir, 'nginx.log');
    fs.writeFileSync(f, '127.0.0.1 - - [29/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 612\nhello world\n');
    const r = runCli(['status', f]);
    assert.equal(r.code, 1);
    oneLine(r.stderr);
    assert.match(r.stderr, /no server launch recognised/);
    const j = runCli(['runs', '--json', f]);
    assert.equal(JSON.parse(j.stdout).engine, null);
  });

  it('a 200 MB single line, followed by real lines that are not lost', () => {
    const f = path.join(dir, 'huge.log');
    const fd = fs.openSync(f, 'w');
    const block = Buffer.alloc(8 << 20, 'x');
    fs.writeSync(fd, "[2026-02-19 04:10:03] server_args=ServerArgs(model_path='m', tp_size=2, ");
    for (let i = 0; i < 25; i++) fs.writeSync(fd, block);
    fs.writeSync(
      fd,
      ')\n[2026-02-19 04:10:11 TP0] Init torch distributed begin.\n[2026-02-19 04:10:16 TP0] Load weight begin. avail mem=93.12 GB\n',
    );
    fs.closeSync(fd);
    const r = runCli(['status', '--json', f]);
    assert.equal(r.code, 3, r.stderr);
    const l = JSON.parse(r.stdout);
    assert.equal(l.live.state, 'loading');
    assert.equal(l.phase, 'loading_weights');
    assert.equal(l.endLine, 3);
    assert.ok(r.stdout.length < 1_000_000, 'the huge line was kept whole');
  });

  it('an unknown flag, an unknown engine, an unknown command, no file', () => {
    const f = path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log');
    for (const args of [
      ['status', '--bogus', f],
      ['status', '--engine', 'foo', f],
      ['frobnicate'],
      ['status'],
      ['runs', f, f],
    ]) {
      const r = runCli(args);
      assert.equal(r.code, 1, args.join(' '));
      oneLine(r.stderr);
    }
  });

  it('stdin with -', () => {
    const data = fs.readFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'));
    const r = runCli(['status', '--json', '-'], data);
    assert.equal(r.code, 2);
    assert.equal(JSON.parse(r.stdout).failure.class, 'oom');
  });

  it('NUL bytes get the same message on standard input as in a file', () => {
    const bytes = Buffer.from('abc\0def\n\0\0\0\0\n');
    const f = path.join(dir, 'nul.log');
    fs.writeFileSync(f, bytes);
    const file = runCli(['status', f]);
    const stdin = runCli(['status', '-'], bytes);
    assert.equal(file.code, 1);
    assert.equal(stdin.code, 1);
    oneLine(stdin.stderr);
    assert.equal(stdin.stderr.replace('-:', 'F:'), file.stderr.replace(`${f}:`, 'F:'));
  });

  it('a UTF-16 log (LE or BE) and a UTF-8 log with a byte-order mark read as the plain UTF-8 log: same lines, same start, same fingerprint', () => {
    // SGLang's shapes (server_args.py's server_args=ServerArgs(...), model_runner.py's load_model lines).
    const text = [
      "[2026-02-19 13:02:11] server_args=ServerArgs(model_path='org/model', tp_size=1, port=30000)",
      '[2026-02-19 13:02:20] Load weight begin. avail mem=78.50 GB',
      '[2026-02-19 13:02:23] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB.',
      '',
    ].join('\n');
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const encodings: Array<[string, Buffer]> = [
      ['utf8', Buffer.from(text)],
      ['utf16le', le],
      ['utf16be', Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()])],
      ['utf8-bom', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
    ];
    const seen = encodings.map(([name, bytes]) => {
      const f = path.join(dir, `${name}.log`);
      fs.writeFileSync(f, bytes);
      const db = path.join(dir, `${name}.db`);
      const read = runCli(['runs', '--json', '--ledger', db, f]);
      assert.equal(read.code, 0, `${name}: ${read.stderr}`);
      const [l, ...more] = JSON.parse(read.stdout).launches;
      assert.equal(more.length, 0, name);
      const listed = runCli(['runs', '--json', '--ledger', db]);
      const [rec] = JSON.parse(listed.stdout).launches;
      return {
        startText: l.startText,
        lines: [l.startLine, l.endLine],
        outcome: l.outcome,
        model: l.model,
        failure: l.failure?.class,
        fingerprint: rec.fingerprint,
      };
    });
    assert.equal(seen[0]!.startText, text.split('\n')[0]);
    assert.deepEqual(seen[0]!.lines, [1, 3]);
    for (let i = 1; i < seen.length; i++) assert.deepEqual(seen[i], seen[0], encodings[i]![0]);
  });

  it('watch - on an empty standard input: one line, exit 1, not a timeout', () => {
    const r = runCli(['watch', '-', '--no-gpu'], '');
    assert.equal(r.code, 1, r.stdout + r.stderr);
    oneLine(r.stderr);
    assert.match(r.stderr, /standard input ended with no log lines/);
  });
});

describe('exit codes and JSON contract of status and runs', () => {
  const cases: Array<[string, number, string]> = [
    // The log alone says in progress; its age (it was written long before this test) says stalled: exit 4.
    ['glm5-relaunch-stuck-at-48pct.log', 4, 'in_progress'],
    ['glm5-cutlass-bench-then-shutdown.log', 5, 'shutdown'],
    ['glm5-trtllm-oom-in-cuda-graph.log', 2, 'crashed'],
  ];
  /** A copy last written an hour ago: how old the log is decides whether a launch in progress is stalled. */
  const aged = (file: string) => {
    const copy = path.join(tmpDir(), file);
    fs.copyFileSync(path.join(SCENARIOS, file), copy);
    const hourAgo = new Date(Date.now() - 3600_000);
    fs.utimesSync(copy, hourAgo, hourAgo);
    return copy;
  };
  for (const [file, code, outcome] of cases) {
    it(`${file}: exit ${code}, outcome ${outcome}`, () => {
      const r = runCli(['status', '--json', aged(file)]);
      assert.equal(r.code, code);
      const l = JSON.parse(r.stdout);
      assert.equal(l.outcome, outcome);
      assert.equal(l.engine, 'sglang');
      for (const k of [
        'outcome',
        'phase',
        'failure',
        'progress',
        'startLine',
        'endLine',
        'config',
        'throughput',
      ])
        assert.ok(k in l, k);
    });
  }

  it('runs --json lists every launch with the contract fields', () => {
    const r = runCli(['runs', '--json', path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log')]);
    assert.equal(r.code, 0);
    const j = JSON.parse(r.stdout);
    assert.equal(j.engine, 'sglang');
    assert.equal(j.launches.length, 2);
    assert.deepEqual(j.launches[1].progress.done, 40);
    assert.equal(j.launches[0].startLine, 1);
  });

  it('a launch in progress whose log was written just now is still starting: exit 3', () => {
    const copy = path.join(tmpDir(), 'fresh.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), copy);
    const r = runCli(['status', '--json', copy]);
    assert.equal(r.code, 3);
    assert.equal(JSON.parse(r.stdout).live.state, 'loading');
  });

  it('human output names the phase, the progress and what changed', () => {
    const r = runCli(['status', '--no-color', aged('glm5-relaunch-stuck-at-48pct.log')]);
    assert.equal(r.code, 4);
    assert.match(r.stdout, /now: stalled/);
    assert.match(r.stdout, /loading_weights/);
    assert.match(r.stdout, /40\/83 \(48%\)/);
    assert.match(r.stdout, /max_running_requests: 64 → None/);
    assert.ok(!r.stdout.includes('\x1b['), 'colour without a TTY');
  });
});
