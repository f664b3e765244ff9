/**
 * Issue 24.5: one launch read at several places (the log, a copy of it, a copy made while it was still being
 * written) is one record, and reading the places in any order never loses what one of them saw. Each test
 * spawns the CLI on real files with a real ledger (a SQLite file, or a database on the test Postgres).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, SCENARIOS, tmpDir } from '../helpers.js';
import { BACKENDS, stopBackends } from '../store/backends.js';

after(stopBackends);

const CUTLASS = fs.readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'), 'utf8');
const lines = CUTLASS.split('\n');
/** The first `n` lines, as a copy taken while the server was loading its weights (before ready). */
const head = (n: number) => `${lines.slice(0, n).join('\n')}\n`;

interface Row {
  id: string;
  path: string;
  outcome: string;
  loadSeconds: number | null;
  peakTokS: number | null;
  paths: Array<{ path: string }>;
}

function ledgerRuns(ledger: string): Row[] {
  const r = runCli(['runs', '--ledger', ledger, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout).launches;
}

function read(ledger: string, log: string): void {
  const r = runCli(['runs', '--ledger', ledger, log]);
  assert.equal(r.code, 0, r.stderr);
}

for (const b of BACKENDS)
  describe(`copies of a launch (${b.name})`, () => {
    it('a copy that saw less never replaces the fuller record, in whichever order they are read', () => {
      const dir = tmpDir();
      const full = path.join(dir, 'server.log');
      const part = path.join(dir, 'copy-while-loading.log');
      fs.writeFileSync(full, CUTLASS);
      fs.writeFileSync(part, head(100));
      for (const order of [
        [part, full],
        [full, part],
      ]) {
        const ledger = b.fresh();
        for (const log of order) read(ledger, log);
        // The copy grows by a line (it was still being copied): read again, it still saw less.
        fs.appendFileSync(part, `${lines[100]}\n`);
        read(ledger, part);
        fs.writeFileSync(part, head(100));
        const [rec, ...more] = ledgerRuns(ledger);
        assert.equal(more.length, 0, 'one launch, however many places');
        assert.equal(rec!.path, full);
        assert.equal(rec!.outcome, 'shutdown');
        assert.equal(rec!.loadSeconds, 95);
        assert.equal(rec!.peakTokS, 1993.71);
        assert.deepEqual(rec!.paths.map((p) => p.path).sort(), [part, full].sort());
      }
    });

    it('forget --path COPY forgets the copy, not the launch its original holds; --everywhere forgets both', () => {
      const dir = tmpDir();
      const ledger = b.fresh();
      const log = path.join(dir, 'server.log');
      const replay = path.join(dir, 'replay.log');
      const only = path.join(dir, 'only-here.log');
      fs.writeFileSync(log, CUTLASS);
      fs.copyFileSync(log, replay);
      fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), only);
      // The copy read first: the record is made from it, and must move to the original when it goes.
      for (const l of [replay, log, only]) read(ledger, l);
      const [first] = ledgerRuns(ledger).filter((r) => r.outcome === 'shutdown');
      assert.equal(first!.path, replay);
      const r = runCli(['forget', '--ledger', ledger, '--path', replay]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stdout,
        /^forgot 0 launches read at .*replay\.log; kept 1 launch \([0-9a-f]{8}\) also read elsewhere/,
      );
      const left = ledgerRuns(ledger);
      assert.equal(left.length, 3, 'the original and the other log keep their launches');
      const kept = left.find((x) => x.id === first!.id)!;
      assert.equal(kept.path, log);
      assert.deepEqual(
        kept.paths.map((p) => p.path),
        [log],
      );
      assert.equal(kept.peakTokS, 1993.71);
      // A log no other place holds: its launches go.
      const o = runCli(['forget', '--ledger', ledger, '--path', only, '--json']);
      assert.equal(o.code, 0, o.stderr);
      assert.equal(JSON.parse(o.stdout).launches, 2);
      assert.equal(ledgerRuns(ledger).length, 1);
      // --everywhere: the launch the log holds, from every place.
      read(ledger, replay);
      const all = runCli(['forget', '--ledger', ledger, '--path', replay, '--everywhere']);
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, /^forgot 1 launch \([0-9a-f]{8}\) read at .*replay\.log, from every place/);
      assert.equal(ledgerRuns(ledger).length, 0);
    });

    it('runs LOG and diff LOG show LOG: its lines and its path, whichever copy the records were made from', () => {
      const dir = tmpDir();
      const ledger = b.fresh();
      const log = path.join(dir, 'server.log');
      const replay = path.join(dir, 'replay.log');
      fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), log);
      // A replay that holds an earlier launch first: the same two launches, 386 lines further down.
      fs.writeFileSync(replay, CUTLASS + fs.readFileSync(log, 'utf8'));
      read(ledger, replay);
      const r = runCli(['runs', '--ledger', ledger, log, '--json']);
      assert.equal(r.code, 0, r.stderr);
      const got = JSON.parse(r.stdout).launches;
      assert.deepEqual(
        got.map((l: { startLine: number; endLine: number }) => [l.startLine, l.endLine]),
        [
          [1, 321],
          [322, 390],
        ],
      );
      assert.equal(got[0].phases.at(-1).line, 166);
      const d = runCli(['diff', '--ledger', ledger, log, '--json']);
      assert.equal(d.code, 0, d.stderr);
      const { a, b: bb } = JSON.parse(d.stdout);
      assert.deepEqual([a.path, a.startLine, bb.path, bb.startLine], [log, 1, log, 322]);
      // The launches are still one record each, with both places.
      assert.equal(ledgerRuns(ledger).length, 3);
    });
  });
