/**
 * Sweeps one can trust, with the scripted SGLang server (known pace, real processes): repeated runs ranked by
 * their median with a spread, a TPOT limit filtering levels, an unstreamed answer's TPOT n/a rather than 0, and
 * `sweep report --json` carrying the figures the run printed (issue 24.8). And a sweep killed outright (kill -9)
 * mid-point: `--resume` stops the server it left, re-runs the point instead of recording it crashed, and a
 * worker that left the server's process group (setsid) is stopped with it (issue 25.4).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ledger } from '../../src/store/ledger.js';
import { freePort, SCRIPTED_SGLANG } from '../engines.js';
import { BIN, tmpDir } from '../helpers.js';
import { type SweepRun, spawnSweep, sweepPoints } from '../sweep-run.js';

const sweep = (args: string[], ledger: string, cwd: string): SweepRun =>
  spawnSweep(args, ledger, cwd, { env: { COLUMNS: '220' }, killAfterMs: 120_000 });

const rows = sweepPoints;

/** Running: a zombie is dead, only not yet reaped (an orphan waits for this machine's init to do it). */
const alive = (pid: number) => {
  try {
    const st = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\S+ \(.*\) [ZX] /s.test(st);
  } catch {
    return false;
  }
};

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

const until = async (what: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return what();
};

/** The pid the scripted server wrote to `file`, once it is all there. */
async function pidIn(file: string): Promise<number> {
  const read = () => {
    try {
      return Number(fs.readFileSync(file, 'utf8'));
    } catch {
      return 0;
    }
  };
  assert.ok(await until(() => read() > 0, 5000), `no pid in ${file}`);
  return read();
}

const command = (port: number) =>
  `command = "${process.execPath} ${SCRIPTED_SGLANG} --model-path m --host 127.0.0.1 --port ${port} --shards 1 --tick-ms 10"`;

describe('sweep: repeats, noise, latency limits and TPOT (scripted SGLang)', { timeout: 180_000 }, () => {
  let work: string;
  const pids: number[] = [];
  before(() => {
    work = tmpDir();
  });
  after(() => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('repeat = 2: medians and spreads; tpot_ms <= 20 filters; an unstreamed answer is TPOT n/a; report agrees', async () => {
    const port = await freePort();
    const f = path.join(work, 'trust.toml');
    fs.writeFileSync(
      f,
      [
        'name = "trust"',
        command(port),
        'engine = "sglang"',
        'repeat = 2',
        'targets = ["tpot_ms <= 20"]',
        '[[variant]]',
        'name = "fast"',
        'args = "--itl-ms 2"',
        '[[variant]]',
        'name = "slow"',
        'args = "--itl-ms 60"',
        '[[variant]]',
        'name = "buffered"',
        'args = "--itl-ms 2 --one-chunk"',
        '[bench]',
        'concurrency = [1, 2]',
        'input_len = 16',
        'output_len = 6',
        'requests = 4',
        '[timeouts]',
        'ready = "30s"',
        'stop = "5s"',
        '',
      ].join('\n'),
    );
    const ledger = path.join(work, 'trust.db');
    const r = sweep(['--json', f], ledger, work);
    assert.equal(await r.done, 0, r.stderr());
    pids.push(...r.events.filter((e) => e.type === 'start').map((e) => e.pid));
    assert.deepEqual(
      r.events.filter((e) => e.type === 'end').map((e) => e.status),
      ['done', 'done', 'done', 'done', 'done', 'done'],
    );
    const report = r.events.find((e) => e.type === 'report')!.report;
    assert.deepEqual(report.targets, ['tpot_median_ms <= 20']);
    const by = Object.fromEntries(report.ranked.map((p: any) => [p.values.variant, p]));
    const fast = by.fast;
    assert.equal(fast.runs, 2);
    assert.equal(fast.sampleRuns, 2);
    assert.ok(
      fast.spread[0] <= fast.outputTokS && fast.outputTokS <= fast.spread[1],
      'the median within its range',
    );
    assert.ok(fast.tpotMs > 0 && fast.tpotMs < 20, `fast TPOT ${fast.tpotMs}`);
    assert.equal(fast.pass, true);
    // slow: 60 ms a token at every level, over the limit: no level stands, the point fails the limit
    assert.equal(by.slow.pass, false);
    assert.equal(by.slow.outputTokS, null);
    assert.ok(by.slow.levels.every((l: any) => l.withinLimits === false && l.tpotMs > 20));
    assert.match(by.slow.cause, /no concurrency level within the limits/);
    // buffered: the answer in one chunk, no pace seen: TPOT n/a (null), never 0, and the limit is not met
    assert.ok(by.buffered.levels.length === 2 && by.buffered.levels.every((l: any) => l.tpotMs === null));
    assert.equal(by.buffered.pass, false);
    assert.match(by.buffered.cause, /tpot_median_ms n\/a/);
    const l = Ledger.open(ledger);
    try {
      const b = rows(ledger, 'trust').filter((x) => x.flags.variant === 'buffered');
      for (const x of b) for (const bench of l.benches(x.launchId!)) assert.equal(bench.tpot.median, null);
    } finally {
      l.close();
    }
    assert.equal(report.best.values.variant, 'fast');
    assert.equal(report.leader.index, report.best.index);
    assert.deepEqual(report.tied, []);
    assert.equal(report.noiseMeasured, true);

    // `sweep report --json` carries the same figures as the run's closing report.
    const j = spawnSync(process.execPath, [BIN, 'sweep', 'report', '--json', '--ledger', ledger], {
      encoding: 'utf8',
    });
    assert.equal(j.status, 0, j.stderr);
    const again = JSON.parse(j.stdout);
    for (const k of ['ranked', 'best', 'leader', 'tied', 'noiseMeasured', 'differences', 'targets'])
      assert.deepEqual(again[k], report[k], k);

    const text = spawnSync(process.execPath, [BIN, 'sweep', 'report', '--ledger', ledger], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '220' },
    });
    assert.equal(text.status, 0, text.stderr);
    assert.match(
      text.stdout,
      /^ {2}best: #1 variant=fast — [\d.]+ output tok\/s at concurrency \d \(median of 2 runs, [\d.]+–[\d.]+\), TPOT [\d.]+ ms$/m,
    );
    assert.match(text.stdout, /#2 variant=slow \(best fast\): no concurrency level within the limits/);
    assert.match(text.stdout, /fail tpot_median_ms/);
    assert.doesNotMatch(text.stdout, /TPOT 0\.00/);
  });
});

describe('sweep killed outright (kill -9) mid-point, then --resume', { timeout: 180_000 }, () => {
  it('stops the server it left (and its setsid child), re-runs the point, records nothing as crashed', async () => {
    const work = tmpDir();
    const strays: number[] = [];
    const sweeps: SweepRun[] = [];
    try {
      const port = await freePort();
      const pidfile = path.join(work, 'child.pid');
      const f = path.join(work, 'killed.toml');
      fs.writeFileSync(
        f,
        [
          'name = "killed"',
          command(port),
          'engine = "sglang"',
          '[[variant]]',
          'name = "a"',
          `args = "--itl-ms 5 --setsid-child ${pidfile}"`,
          '[[variant]]',
          'name = "b"',
          'args = "--itl-ms 5"',
          '[bench]',
          'concurrency = [1]',
          'input_len = 16',
          'output_len = 4',
          'requests = 1000000',
          '[timeouts]',
          'ready = "30s"',
          'bench = "2s"',
          'stop = "5s"',
          '',
        ].join('\n'),
      );
      const ledger = path.join(work, 'l.db');
      const first = sweep(['--json', f], ledger, work);
      sweeps.push(first);
      assert.ok(await until(() => first.events.some((e) => e.type === 'checked'), 60_000), first.stderr());
      const server = first.events.find((e) => e.type === 'start')!.pid as number;
      const child1 = await pidIn(pidfile);
      strays.push(server, child1);
      await new Promise((res) => setTimeout(res, 300));
      first.child.kill('SIGKILL');
      await first.done;
      // What the bug left: the server (its own session) and its setsid child outlive the sweep.
      assert.equal(alive(server), true, 'the server outlived kill -9 of its sweep');
      assert.equal(alive(child1), true);
      const left = rows(ledger, 'killed');
      assert.equal(left[0]!.status, 'running');
      assert.equal(left[0]!.detail.server!.pid, server);
      assert.ok(left[0]!.detail.server!.startTime! > 0, 'its start time kept against pid reuse');

      const resumed = sweep(['--json', '--resume', f], ledger, work);
      sweeps.push(resumed);
      assert.equal(await resumed.done, 0, resumed.stderr());
      strays.push(...resumed.events.filter((e) => e.type === 'start').map((e) => e.pid));
      assert.match(
        resumed.stderr(),
        /point 1: the sweep that ran it ended without stopping its server \(pid [\d, ]+\): stopping it/,
      );
      assert.equal(alive(server), false, 'the old server is gone');
      assert.equal(alive(child1), false, 'its setsid child is gone');
      const child2 = await pidIn(pidfile);
      strays.push(child2);
      assert.notEqual(child2, child1);
      assert.equal(alive(child2), false, "the rerun's setsid child is stopped with its server");
      assert.match(
        resumed.stderr(),
        /point 1: stopped \d+ process(es)? its server left running \(pid [\d, ]*\b/,
      );
      assert.equal(await portOpen(port), false);
      const after = rows(ledger, 'killed');
      assert.deepEqual(
        after.map((x) => [x.pointIndex, x.run, x.status]),
        [
          [1, 1, 'interrupted'],
          [1, 2, 'done'],
          [2, 1, 'done'],
        ],
      );
      assert.match(after[0]!.detail.cause!, /the sweep process ended before this point did/);
      assert.ok(after[1]!.detail.stray!.includes(child2));
    } finally {
      // A failed assertion leaves a sweep running: SIGTERM lets it stop its own server.
      for (const w of sweeps)
        if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
      await Promise.all(sweeps.map((w) => w.done));
      for (const pid of strays) if (alive(pid)) process.kill(pid, 'SIGKILL');
      fs.rmSync(work, { recursive: true, force: true });
    }
  });

  it('SIGHUP (the terminal closed) stops the current server and its setsid child as Ctrl-C does', async () => {
    const work = tmpDir();
    const strays: number[] = [];
    const sweeps: SweepRun[] = [];
    try {
      const port = await freePort();
      const pidfile = path.join(work, 'child.pid');
      const f = path.join(work, 'hup.toml');
      fs.writeFileSync(
        f,
        [
          'name = "hup"',
          command(port),
          'engine = "sglang"',
          `[[variant]]\nname = "a"\nargs = "--itl-ms 5 --setsid-child ${pidfile}"`,
          '[[variant]]\nname = "b"\nargs = "--itl-ms 5"',
          '[bench]\nconcurrency = [1]\ninput_len = 16\noutput_len = 4\nrequests = 1000000',
          '[timeouts]\nready = "30s"\nstop = "5s"',
          '',
        ].join('\n'),
      );
      const ledger = path.join(work, 'l.db');
      const r = sweep(['--json', f], ledger, work);
      sweeps.push(r);
      assert.ok(await until(() => r.events.some((e) => e.type === 'checked'), 60_000), r.stderr());
      const server = r.events.find((e) => e.type === 'start')!.pid as number;
      const child = await pidIn(pidfile);
      strays.push(server, child);
      r.child.kill('SIGHUP');
      assert.equal(await r.done, 130, r.stderr());
      assert.equal(alive(server), false, 'the server is gone');
      assert.equal(alive(child), false, 'its setsid child is gone');
      assert.equal(await portOpen(port), false);
      assert.deepEqual(
        rows(ledger, 'hup').map((x) => x.status),
        ['interrupted'],
      );
    } finally {
      // A failed assertion leaves a sweep running: SIGTERM lets it stop its own server.
      for (const w of sweeps)
        if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
      await Promise.all(sweeps.map((w) => w.done));
      for (const pid of strays) if (alive(pid)) process.kill(pid, 'SIGKILL');
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
