/**
 * Issue 11, items 4 and 8 and "show me the lines", through the real CLI on real files and a real ledger:
 * a launch relaunched over without an exit line is `ended`; the same launch read at two paths is one launch;
 * `forget`; `show --lines`; the live verdict `status` gave is kept and filtered on.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli, SCENARIOS, tmpDir } from '../helpers.js';

const RELAUNCH = path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log');

function json(args: string[]): any {
  const r = runCli([...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** A copy of the relaunch log whose last write was an hour ago: its stuck launch is stalled now. */
function staleCopy(dir: string, name: string): string {
  const f = path.join(dir, name);
  fs.copyFileSync(RELAUNCH, f);
  const old = new Date(Date.now() - 3600_000);
  fs.utimesSync(f, old, old);
  return f;
}

describe('launch 1 served, then a relaunch without an exit line', () => {
  it('launch 1 is ended (no exit line) in runs LOG, the ledger and its filter; the last launch is untouched', () => {
    const dir = tmpDir();
    const db = path.join(dir, 'l.db');
    const log = staleCopy(dir, 'server.log');
    const file = json(['runs', '--ledger', db, log]);
    assert.deepEqual(
      file.launches.map((l: any) => [l.outcome, l.phase]),
      [
        ['ended', 'serving'],
        ['in_progress', 'loading_weights'],
      ],
    );
    const ledger = json(['runs', '--ledger', db]);
    const first = ledger.launches.find((l: any) => l.startLine === 1);
    assert.equal(first.outcome, 'ended');
    assert.equal(first.state, 'ended');
    const ended = json(['runs', '--ledger', db, '--outcome', 'ended']).launches;
    assert.deepEqual(
      ended.map((l: any) => l.id),
      [first.id],
    );
    assert.equal(json(['runs', '--ledger', db, '--outcome', 'serving']).launches.length, 0);
    const text = runCli(['runs', '--ledger', db, '--no-color']).stdout;
    assert.match(text, /ended \(no exit line\) +\S*server\.log/);
    const show = runCli(['show', first.id.slice(0, 8), '--ledger', db, '--no-color']).stdout;
    assert.match(show, /ended \(no exit line\) · phase serving/);
  });
});

describe('the live verdict is kept', () => {
  it('a launch `status` called stalled is listed stalled, and `runs --outcome stalled` finds it', () => {
    const dir = tmpDir();
    const db = path.join(dir, 'l.db');
    const log = staleCopy(dir, 'server.log');
    const r = runCli(['status', '--ledger', db, log, '--no-color']);
    assert.equal(r.code, 4, r.stdout + r.stderr);
    const stalled = json(['runs', '--ledger', db, '--outcome', 'stalled']).launches;
    assert.equal(stalled.length, 1);
    assert.equal(stalled[0].outcome, 'in_progress', 'the log alone still says in progress');
    assert.equal(stalled[0].live.state, 'stalled');
    assert.equal(stalled[0].live.phase, 'loading_weights');
    assert.ok(stalled[0].live.evidence.length > 0);
    assert.ok(Math.abs(stalled[0].live.at - Date.now() / 1000) < 120);
    assert.equal(json(['runs', '--ledger', db, '--outcome', 'in_progress']).launches.length, 0);
    const text = runCli(['runs', '--ledger', db, '--no-color']).stdout;
    assert.match(text, /stalled in loading_weights/);
    // The log moves on: one more shard. The kept verdict is history; this read's verdict stands.
    fs.appendFileSync(
      log,
      'Loading safetensors checkpoint shards:  49% Completed | 41/83 [00:14<00:14,  3.03it/s]\n',
    );
    assert.equal(runCli(['status', '--ledger', db, log]).code, 3);
    assert.equal(json(['runs', '--ledger', db, '--outcome', 'stalled']).launches.length, 0);
    assert.equal(json(['runs', '--ledger', db, '--outcome', 'in_progress']).launches.length, 1);
  });

  it('every state is a valid --outcome; a typo is one line naming them', () => {
    const dir = tmpDir();
    const db = path.join(dir, 'l.db');
    runCli(['runs', '--ledger', db, staleCopy(dir, 'x.log')]);
    for (const s of [
      'crashed',
      'shutdown',
      'serving',
      'ready',
      'in_progress',
      'ended',
      'stalled',
      'dead',
      'exited',
    ])
      assert.equal(runCli(['runs', '--ledger', db, '--outcome', s]).code, 0, s);
    const bad = runCli(['runs', '--ledger', db, '--outcome', 'stuck']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--outcome stuck: not a state \(one of .*ended, stalled, dead, exited\)/);
  });
});

describe('one launch, however it is read', () => {
  it('the same log at two paths is one launch with both paths; history counts it once', () => {
    const dir = tmpDir();
    const db = path.join(dir, 'l.db');
    const a = staleCopy(dir, 'a.log');
    const b = path.join(dir, 'copy', 'b.log');
    fs.mkdirSync(path.dirname(b));
    fs.copyFileSync(a, b);
    runCli(['status', '--ledger', db, a]);
    runCli(['status', '--ledger', db, b]);
    runCli(['runs', '--ledger', db, b]);
    const all = json(['runs', '--ledger', db]).launches;
    assert.equal(all.length, 2, 'two launches in the file, each once');
    for (const l of all)
      assert.deepEqual(
        l.paths.map((p: any) => p.path).sort(),
        [fs.realpathSync(a), fs.realpathSync(b)].sort(),
      );
    // The row shows where it was read last, and how many other places.
    assert.match(runCli(['runs', '--ledger', db, '--no-color']).stdout, /[ab]\.log \+1/);
    const show = runCli(['show', 'last', '--ledger', db, '--no-color']).stdout;
    assert.match(show, /also read at .*(\/a\.log|copy\/b\.log) \(line 322\)/);
  });

  it('the ids `diff a.log b.log` prints are the ones `show` accepts', () => {
    const dir = tmpDir();
    const db = path.join(dir, 'l.db');
    const a = staleCopy(dir, 'a.log');
    const b = path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log');
    runCli(['status', '--ledger', db, a]);
    const d = json(['diff', a, b, '--ledger', db]);
    for (const id of [d.a.id, d.b.id]) {
      const r = runCli(['show', id, '--ledger', db, '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).id, id);
    }
    const text = runCli(['diff', a, b, '--ledger', db, '--no-color']).stdout;
    assert.ok(text.includes(d.a.id.slice(0, 8)) && text.includes(d.b.id.slice(0, 8)), text);
  });
});

describe('forget', () => {
  it('by id, and by path; each says in one line what it removed', () => {
    const dir = tmpDir();
    const db = path.join(dir, 'l.db');
    const a = staleCopy(dir, 'a.log');
    const c = path.join(dir, 'c.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'), c);
    runCli(['runs', '--ledger', db, a]);
    runCli(['runs', '--ledger', db, c]);
    const before = json(['runs', '--ledger', db]).launches;
    assert.equal(before.length, 3);
    const cut = before.find((l: any) => l.path === fs.realpathSync(c));
    const one = runCli(['forget', cut.id.slice(0, 8), '--ledger', db]);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout, `forgot 1 launch (${cut.id.slice(0, 8)})\n`);
    assert.equal(json(['runs', '--ledger', db]).launches.length, 2);
    const gone = runCli(['show', cut.id, '--ledger', db]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /no launch/);
    const byPath = runCli(['forget', '--path', a, '--ledger', db]);
    assert.equal(byPath.code, 0, byPath.stderr);
    assert.match(byPath.stdout, /^forgot 2 launches \([0-9a-f]{8}, [0-9a-f]{8}\) read at .*a\.log\n$/);
    assert.equal(json(['runs', '--ledger', db]).launches.length, 0);
    // Where reading stopped is forgotten too: the next read starts afresh and records both again.
    runCli(['status', '--ledger', db, a]);
    assert.equal(json(['runs', '--ledger', db]).launches.length, 2);
    const bad = runCli(['forget', '--ledger', db]);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr.split('\n').length, 2, bad.stderr);
  });
});

describe('show me the lines', () => {
  it('show ID --lines N: the raw lines around each piece of evidence, numbered, with `less +N path`', () => {
    const dir = tmpDir();
    const db = path.join(dir, 'l.db');
    const oom = path.join(dir, 'oom.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'), oom);
    runCli(['status', '--ledger', db, oom]);
    const rec = json(['show', 'last', '--ledger', db]);
    const r = runCli(['show', 'last', '--lines', '2', '--ledger', db, '--no-color']);
    assert.equal(r.code, 0, r.stderr);
    const raw = fs.readFileSync(oom, 'utf8').split('\n');
    const f = rec.report.failure.line as number;
    assert.match(
      r.stdout,
      new RegExp(
        `failure \\(oom\\).* · line ${f} · less \\+${f} ${oom.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`,
      ),
    );
    // Each shown line is the file's line at that number; the evidence line is marked, 2 lines around it.
    const shown = [...r.stdout.matchAll(/^ {2}([> ]) +(\d+) {2}(.*)$/gm)];
    assert.ok(shown.length > 5);
    for (const [, , n, text] of shown) {
      const want = raw[Number(n) - 1]!;
      assert.ok(text!.endsWith('…') ? want.startsWith(text!.slice(0, -1)) : want === text, `line ${n}`);
    }
    assert.ok(shown.some(([, mark, n]) => mark === '>' && Number(n) === f));
    assert.ok(shown.some(([, mark, n]) => mark === ' ' && Number(n) === f - 2));
    // Default context is 3.
    const three = runCli(['show', 'last', '--lines', '--ledger', db, '--no-color']).stdout;
    assert.ok([...three.matchAll(/^ {2}[> ] +(\d+) /gm)].some(([, n]) => Number(n) === f - 3));
    // The log changed: one line says so. The log is gone: one line says so.
    fs.writeFileSync(oom, 'something else entirely\n'.repeat(300));
    const changed = runCli(['show', 'last', '--lines', '--ledger', db]);
    assert.equal(changed.code, 1);
    assert.match(
      changed.stderr,
      /^firedup: cannot show the lines of this launch: .*oom\.log has changed since the launch was read.*\n$/,
    );
    fs.rmSync(oom);
    const gone = runCli(['show', 'last', '--lines', '--ledger', db]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /^firedup: cannot show the lines of this launch: .*oom\.log is gone\n$/);
  });

  it('status --lines on a file: the same, for its latest launch', () => {
    const dir = tmpDir();
    const log = staleCopy(dir, 'server.log');
    const r = runCli(['status', '--no-ledger', '--lines', '1', log, '--no-color']);
    assert.equal(r.code, 4, r.stderr);
    assert.match(r.stdout, /progress \(40\/83\).* · line 390 · less \+390 /);
    assert.match(
      r.stdout,
      /^ {2}> 390 {2}Loading safetensors checkpoint shards: {2}48% Completed \| 40\/83/m,
    );
    assert.match(r.stdout, /^ {4}389 {2}Loading safetensors checkpoint shards: {2}46%/m);
    const bad = runCli(['status', '--lines', 'x', log]);
    assert.equal(bad.code, 1);
  });
});
