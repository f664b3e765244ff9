/**
 * `firedup sweep` with the real llama-server (CPU build, tiny model): a 2×2 grid launched, benchmarked, stopped
 * and ranked; --resume skipping what is done and a plain rerun kept apart as run 2; a point with a bad flag
 * crashing while the sweep goes on; Ctrl-C mid-bench (the server stopped, no orphan, the ledger consistent);
 * a stand-in SGLang that logs other flags than asked (marked, never benchmarked); --dry-run and bad files.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ledger } from '../../src/store/ledger.js';
import { openLedger } from '../../src/store/open.js';
import { Api } from '../../src/web/api.js';
import { launchBrowser } from '../browser.js';
import { BIN, tmpDir } from '../helpers.js';
import { ensureLlama, freePort } from '../llama.js';
import { type SweepRun, spawnSweep, sweepPoints } from '../sweep-run.js';
import { serve } from '../web/serve-helpers.js';

const skip = process.env.FIREDUP_NO_LLAMA === '1' ? 'FIREDUP_NO_LLAMA=1' : false;
const noPython = spawnSync('python3', ['-c', '0']).status === 0 ? false : 'python3 not found';

const sweep = (args: string[], ledger: string, cwd: string): SweepRun =>
  spawnSweep(args, ledger, cwd, { killAfterMs: 90_000 });

const points = sweepPoints;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
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

describe('firedup sweep with a real llama-server', { timeout: 120_000, skip }, () => {
  let work: string;
  let ledger: string;
  const pids: number[] = [];

  before(() => {
    const dir = ensureLlama();
    work = tmpDir();
    ledger = path.join(work, 'ledger.db');
    // Relative paths in a sweep file are relative to it: the servers run in its directory.
    fs.symlinkSync(path.join(dir, 'llama-server'), path.join(work, 'llama-server'));
    fs.symlinkSync(path.join(dir, 'tiny.gguf'), path.join(work, 'tiny.gguf'));
  });
  after(() => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(work, { recursive: true, force: true });
  });

  const file = (name: string, text: string) => {
    const f = path.join(work, name);
    fs.writeFileSync(f, text);
    return f;
  };

  let grid: string;
  let port: number;
  before(async () => {
    port = await freePort();
    grid = file(
      'grid.toml',
      [
        'name = "np-ctx"',
        `command = "./llama-server -m tiny.gguf --host 127.0.0.1 --port ${port} -t 1"`,
        'targets = ["output_tok_s >= 1", "single_stream_tok_s >= 1"]',
        '[grid]',
        'parallel = [1, 2]',
        'ctx_size = [512, 1024]',
        '[bench]',
        'concurrency = [1, 2]',
        'input_len = 16',
        'output_len = 8',
        'requests = 4',
        '[timeouts]',
        'ready = "30s"',
        'stop = "5s"',
        '',
      ].join('\n'),
    );
  });

  it('--dry-run prints every point with its command and the bench plan, and launches nothing', () => {
    const r = spawnSync(process.execPath, [BIN, 'sweep', '--dry-run', grid], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^sweep np-ctx: 4 points = parallel \(2\) × ctx_size \(2\)$/m);
    assert.match(r.stdout, /bench: concurrency 1,2 · 4 requests per level · random 16 in \/ 8 out/);
    assert.match(r.stdout, /targets: output_tok_s >= 1 · single_stream_tok_s >= 1/);
    for (const [np, c] of [
      [1, 512],
      [1, 1024],
      [2, 512],
      [2, 1024],
    ])
      assert.match(r.stdout, new RegExp(`-t 1 --parallel ${np} --ctx-size ${c}\\n`));
    assert.equal(fs.existsSync(path.join(work, 'np-ctx-logs')), false, 'no log written');
    assert.equal(fs.existsSync(ledger), false, 'no ledger written');
  });

  it('runs the 2×2 grid: each point ready, benchmarked, recorded, stopped; the best ranked first', async () => {
    const r = sweep(['--json', grid], ledger, work);
    const code = await r.done;
    assert.equal(code, 0, r.stderr());
    const starts = r.events.filter((e) => e.type === 'start');
    pids.push(...starts.map((e) => e.pid));
    assert.equal(starts.length, 4);
    assert.deepEqual(
      r.events.filter((e) => e.type === 'end').map((e) => e.status),
      ['done', 'done', 'done', 'done'],
    );
    // Every server gone before the next one started, and none left after.
    for (const s of starts) assert.equal(alive(s.pid), false, `pid ${s.pid} still alive`);
    assert.equal(await portOpen(port), false);
    const rows = points(ledger, 'np-ctx');
    assert.equal(rows.length, 4);
    const l = Ledger.open(ledger);
    try {
      for (const row of rows) {
        assert.equal(row.status, 'done');
        assert.equal(row.run, 1);
        const launch = l.getLaunch(row.launchId!);
        assert.ok(launch, 'the launch is recorded');
        assert.equal(launch!.outcome, 'shutdown');
        assert.deepEqual(launch!.intended?.flags.parallel, row.flags.parallel);
        const benches = l.benches(row.launchId!);
        assert.deepEqual(
          benches.map((b) => b.maxConcurrency),
          [1, 2],
        );
        assert.ok(benches.every((b) => (b.outputTokS ?? 0) > 0));
        assert.deepEqual(
          row.detail.benchIds,
          benches.map((b) => b.id),
        );
        assert.ok(typeof row.detail.timings?.ready === 'number');
      }
    } finally {
      l.close();
    }
    const report = r.events.find((e) => e.type === 'report')!.report;
    assert.equal(report.ranked.length, 4);
    assert.equal(report.best.index, report.ranked[0].index);
    assert.ok(report.ranked.every((p: any) => p.pass === true));
    assert.equal(report.differences.length, 3);

    const text = spawnSync(process.execPath, [BIN, 'sweep', 'report', '--ledger', ledger], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' },
    });
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^sweep np-ctx: 4 points, 4 runs · targets/m);
    assert.match(text.stdout, /rank +point +parallel +ctx_size +status/);
    assert.match(
      text.stdout,
      /^ {2}best: #\d parallel=\d ctx_size=\d+ — [\d.]+ output tok\/s at concurrency \d/m,
    );
    assert.equal((text.stdout.match(/ pass /g) ?? []).length, 4);

    // The dashboard's sweep page reads the same ranking, with each point's levels for its two charts.
    const db = await openLedger(ledger);
    try {
      const api = new Api(db, () => []);
      assert.deepEqual(
        (await api.sweeps()).sweeps.map((x) => [x.name, x.points, x.runs]),
        [['np-ctx', 4, 4]],
      );
      const page = (await api.sweep('np-ctx')) as any;
      assert.equal(page.best.index, report.best.index);
      for (const p of page.ranked)
        assert.deepEqual(
          p.levels.map((x: any) => x.concurrency),
          [1, 2],
        );
      await assert.rejects(() => api.sweep('nope'), /no sweep named nope/);
    } finally {
      await db.close();
    }

    // And the page itself, in headless Chromium: the ranked table and its two charts, no script error.
    const served = await serve(['--ledger', ledger]);
    const browser = await launchBrowser();
    try {
      const errors: string[] = [];
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${served.base}/#/sweeps`);
      await page.locator('a[href="#/sweep/np-ctx"]').click();
      await page.locator('table.sweep-table tbody tr').first().waitFor();
      assert.equal(await page.locator('table.sweep-table tbody tr').count(), 4);
      assert.equal(await page.locator('svg.sweep-chart').count(), 2);
      assert.deepEqual(errors, []);
      await page.close();
    } finally {
      await browser.close();
      await served.stop();
    }
  });

  it('a secret grid axis never shows: progress, ranking, report, --json, stored flags, log file names', async () => {
    // Issue 25.3: llama-server's --api-key as a grid axis. The bench gets 401s (it sends no key): what is
    // checked is that neither value leaves the sweep file, whatever the points' results.
    const secrets = ['sk-live-AAAA1111SECRETONE', 'sk-live-BBBB2222SECRETTWO'];
    const p2 = await freePort();
    const f = file(
      'secret.toml',
      [
        'name = "secret-axis"',
        `command = "./llama-server -m tiny.gguf --host 127.0.0.1 --port ${p2} -t 1"`,
        '[grid]',
        `api_key = ["${secrets[0]}", "${secrets[1]}"]`,
        '[bench]',
        'concurrency = [1]',
        'input_len = 8',
        'output_len = 4',
        'requests = 2',
        '[timeouts]',
        'ready = "30s"',
        'stop = "5s"',
        '',
      ].join('\n'),
    );
    const before = new Set(fs.readdirSync(work, { recursive: true }) as string[]);
    const json = sweep(['--json', f], ledger, work);
    assert.notEqual(await json.done, null, json.stderr());
    pids.push(...json.events.filter((e) => e.type === 'start').map((e) => e.pid));
    assert.equal(json.events.filter((e) => e.type === 'start').length, 2, json.stderr());
    const outputs = [json.stdout(), json.stderr()];
    for (const args of [
      ['report', 'secret-axis'],
      ['report', 'secret-axis', '--json'],
    ]) {
      const r = spawnSync(process.execPath, [BIN, 'sweep', ...args, '--ledger', ledger], {
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' },
      });
      assert.equal(r.status, 0, r.stderr);
      outputs.push(r.stdout, r.stderr);
    }
    const rows = points(ledger, 'secret-axis');
    assert.equal(rows.length, 2);
    outputs.push(JSON.stringify(rows));
    const made = (fs.readdirSync(work, { recursive: true }) as string[]).filter((n) => !before.has(n));
    outputs.push(made.join('\n'));
    for (const out of outputs)
      for (const secret of secrets)
        assert.ok(!out.includes(secret), `${secret} shown in:\n${out.slice(0, 2000)}`);
  });

  it('--resume skips the points done; a plain rerun is run 2 of each point, kept apart and summarised', async () => {
    const resumed = sweep(['--json', '--resume', grid], ledger, work);
    assert.equal(await resumed.done, 0, resumed.stderr());
    assert.equal(resumed.events.filter((e) => e.type === 'start').length, 0);
    assert.equal(resumed.events.filter((e) => e.type === 'skip').length, 4);
    assert.equal(points(ledger, 'np-ctx').length, 4);

    const again = sweep(['--json', grid], ledger, work);
    assert.equal(await again.done, 0, again.stderr());
    pids.push(...again.events.filter((e) => e.type === 'start').map((e) => e.pid));
    const rows = points(ledger, 'np-ctx');
    assert.equal(rows.length, 8);
    assert.deepEqual(
      rows.map((x) => x.run),
      [1, 2, 1, 2, 1, 2, 1, 2],
    );
    assert.equal(new Set(rows.map((x) => x.launchId)).size, 8, 'each run its own launch');
    const report = again.events.find((e) => e.type === 'report')!.report;
    assert.ok(report.ranked.every((p: any) => p.runs === 2 && p.doneRuns === 2 && p.spread !== null));
  });

  it('a point with a bad flag crashes, is recorded as crashed with its evidence, and the sweep goes on', async () => {
    const p2 = await freePort();
    const f = file(
      'bad.toml',
      [
        'name = "bad-flag"',
        `command = "./llama-server -m tiny.gguf --host 127.0.0.1 --port ${p2} -t 1 -c 256"`,
        '[[variant]]',
        'name = "typo"',
        'args = "--no-such-flag 3"',
        '[[variant]]',
        'name = "good"',
        'args = "--parallel 2"',
        '[bench]',
        'concurrency = [2]',
        'input_len = 16',
        'output_len = 8',
        'requests = 4',
        '',
      ].join('\n'),
    );
    const r = sweep([f], ledger, work);
    assert.equal(await r.done, 0, r.stderr());
    assert.match(r.stdout(), /\[1\/2\] crashed: config_error: error: invalid argument: --no-such-flag/);
    assert.match(r.stdout(), /\[2\/2\] done/);
    assert.match(r.stdout(), /#1 variant=typo \(best good\): crashed: config_error/);
    const [typo, good] = points(ledger, 'bad-flag');
    assert.equal(typo!.status, 'crashed');
    assert.equal(typo!.detail.failureClass, 'config_error');
    assert.ok(typo!.detail.evidence!.some((e) => /--no-such-flag/.test(e.text)));
    assert.equal(typo!.detail.benchIds, undefined, 'never benchmarked');
    assert.equal(good!.status, 'done');
  });

  it('Ctrl-C mid-bench stops the server (no orphan), marks the point interrupted, starts no other', async () => {
    const p3 = await freePort();
    const f = file(
      'long.toml',
      [
        'name = "long"',
        `command = "./llama-server -m tiny.gguf --host 127.0.0.1 --port ${p3} -t 1 -c 256"`,
        '[grid]',
        'parallel = [1, 2]',
        '[bench]',
        'concurrency = [1]',
        'input_len = 16',
        'output_len = 32',
        'requests = 1000000',
        '',
      ].join('\n'),
    );
    const r = sweep(['--json', f], ledger, work);
    const t0 = Date.now();
    while (!r.events.some((e) => e.type === 'checked') && Date.now() - t0 < 30_000)
      await new Promise((res) => setTimeout(res, 50));
    const start = r.events.find((e) => e.type === 'start')!;
    pids.push(start.pid);
    await new Promise((res) => setTimeout(res, 500));
    r.child.kill('SIGINT');
    assert.equal(await r.done, 130, r.stderr());
    assert.equal(alive(start.pid), false, 'the server is gone');
    assert.equal(await portOpen(p3), false, 'its port is closed');
    assert.equal(r.events.filter((e) => e.type === 'start').length, 1, 'no other point started');
    const rows = points(ledger, 'long');
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.status, 'interrupted');
    assert.match(rows[0]!.detail.cause!, /during the bench/);
    assert.ok(rows[0]!.endedAt !== null);
    const l = Ledger.open(ledger);
    try {
      assert.equal(l.getLaunch(rows[0]!.launchId!)!.outcome, 'shutdown');
      assert.equal(l.benches(rows[0]!.launchId!).length, 0, 'an interrupted bench is not recorded');
    } finally {
      l.close();
    }
  });
});

describe('firedup sweep with a stand-in SGLang that logs other flags than asked', {
  timeout: 60_000,
  skip: noPython,
}, () => {
  it('the point is marked mismatch as soon as the config is logged, stopped, never benchmarked', async () => {
    const work = tmpDir();
    try {
      const server = path.join(work, 'launch_server.py');
      // Logs its config as SGLang does, with tp_size 4 whatever it was given, then loads for ever.
      fs.writeFileSync(
        server,
        [
          'import sys, time',
          'print("[2026-03-01 10:00:00] server_args=ServerArgs(model_path=\'m\', tp_size=4, port=30000)", flush=True)',
          'print("[2026-03-01 10:00:05 TP0] Load weight begin. avail mem=70.00 GB", flush=True)',
          'time.sleep(60)',
          '',
        ].join('\n'),
      );
      const f = path.join(work, 'sg.toml');
      fs.writeFileSync(
        f,
        [
          'name = "sg"',
          'command = "python3 launch_server.py --model-path m --port 30000"',
          'engine = "sglang"',
          '[grid]',
          'tp_size = [4, 8]',
          '[timeouts]',
          'ready = "3s"',
          'stop = "5s"',
          '',
        ].join('\n'),
      );
      const ledger = path.join(work, 'ledger.db');
      const r = sweep(['--json', f], ledger, work);
      const code = await r.done;
      assert.equal(code, 3, r.stderr());
      const [four, eight] = points(ledger, 'sg');
      // tp 4 is what it logs, so it loads on (for ever: the ready timeout ends it); tp 8 is caught at once.
      assert.equal(eight!.status, 'mismatch');
      assert.deepEqual(
        eight!.detail.mismatches!.map((m) => [m.key, m.intended, m.observed]),
        [['tp_size', 8, 4]],
      );
      assert.match(eight!.detail.cause!, /tp_size asked 8, logged 4/);
      assert.equal(eight!.detail.benchIds, undefined);
      assert.equal(four!.status, 'timeout');
      for (const e of r.events.filter((x) => x.type === 'start')) assert.equal(alive(e.pid), false);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('firedup sweep: a bad sweep file is one line naming the file:line and the fix', () => {
  const cases: Array<[string, RegExp]> = [
    ['[grid]\nparallel = [1, 2]\n', /sweep\.toml:1: command is missing: command = "llama-server/],
    ['command = "x"\n[grid]\nparallel = []\n', /sweep\.toml:3: parallel = \[\]: give at least one value/],
    [
      'command = "x"\ntargets = ["output_tok_s >= fast"]\n',
      /sweep\.toml:2: target "output_tok_s >= fast": fast is not a number/,
    ],
    [
      'command = "x"\n[bench]\nconcurrency = [0]\n',
      /sweep\.toml:3: concurrency must be whole numbers of at least 1/,
    ],
    ['command = "x"\n[bench]\nconcurency = [1]\n', /sweep\.toml:3: unknown bench setting concurency/],
    ['command = "x"\n[timeouts]\nready = "soon"\n', /sweep\.toml:3: ready must be a duration/],
    [
      'command = "x"\n[server]\n',
      /sweep\.toml:2: only \[grid\], \[bench\], \[timeouts\], \[\[variant\]\] tables are known here/,
    ],
    ['command = "x \'y"\n', /sweep\.toml:1: command: unclosed ' quote/],
    [
      'command = "no-such-server-xyz --port 1"\n',
      /sweep\.toml: command: no-such-server-xyz: command not found on PATH/,
    ],
  ];
  for (const [text, re] of cases)
    it(re.source.slice(0, 60), () => {
      const dir = tmpDir();
      try {
        const f = path.join(dir, 'sweep.toml');
        fs.writeFileSync(f, text);
        const r = spawnSync(process.execPath, [BIN, 'sweep', '--ledger', path.join(dir, 'l.db'), f], {
          encoding: 'utf8',
        });
        assert.equal(r.status, 1, r.stderr);
        const lines = r.stderr.trimEnd().split('\n');
        assert.equal(lines.length, 1, r.stderr);
        assert.match(lines[0]!, re);
        assert.equal(fs.existsSync(path.join(dir, 'l.db')), false);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
});
