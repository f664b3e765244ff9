#!/usr/bin/env node
// `npm run bench:startup`: how close to a bare Node start are the commands a person runs again and again?
// Each is timed next to `node -e 0` in the same run, interleaved round by round, and the medians compared:
//   firedup --version, firedup --help                              goal <= 1.2x node -e 0
//   firedup status --json on a 1 GB log after 1 MB was appended    goal <= 1.5x node -e 0 (record, checkpoint
//                                                                   and all: each round restores the ledger
//                                                                   the first read left, then appends)
//   firedup runs --json cold on the 1 GB log (fresh ledger)        next to grep -c with the seeds' pattern
//                                                                   (goal <= 1.0x), peak RSS <= 150 MB
// The wall time is what a person waits for; on a busy machine it is noisy, hence the medians of many rounds.
// Every command runs without NODE_EXTRA_CA_CERTS: with it, Node reads and parses that file of certificates at
// every start (about 28 ms on the 2-core dev machine, whose environment sets it, against 17 ms for the rest of
// `node -e 0`), which pads the baseline and flatters every ratio. Where the environment sets it, `node -e 0`
// and the incremental status are also timed with it, and printed apart, for comparison (--env-as-is times
// everything with the environment as given).
// Where `perf` works, each run is also measured in CPU time (task-clock: all threads, which waiting for a
// core does not inflate), and the wall time is perf's own count of the child's.
//
// usage: node scripts/bench-startup.mjs [--runs N] [--cold-runs N] [--bytes N] [--append N] [--bin PATH]...
//   --runs N       rounds of the short commands (default 21)
//   --cold-runs N  rounds of the cold read and grep (default 3; 0 leaves them out)
//   --bytes N      size of the generated log (default 1e9; cached in bench-data/ as by bench:incremental --keep)
//   --append N     bytes appended before each incremental status (default 1e6)
//   --bin PATH     the command to time (default bin/firedup.js); several --bin are timed side by side, e.g.
//                  a checkout of the previous version's bin/firedup.js for before/after figures
//   --env-as-is    keep NODE_EXTRA_CA_CERTS in the environment of every command (see above)
//
// Exits 0 whatever the timings say; 1 when it cannot produce a measurement.

import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATOR_VERSION, generateServingLog } from './gen-serving-log.mjs';
import { timeCommand } from './lib/measure.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The seeds' milestone pattern (as scripts/bench-core.mjs and bench-incremental.mjs).
const GREP_PATTERN = 'Load weight end\\|error\\|Error\\|autotune\\|Memory pool\\|fired up';
const READY = 'The server is fired up and ready to roll!';
const RSS_GOAL_MB = 150;

class BenchError extends Error {}
const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(1)} ms`);

function parseArgs(argv) {
  const opts = { runs: 21, coldRuns: 3, bytes: 1e9, append: 1e6, bins: [], envAsIs: false };
  const num = (a, v, min) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new BenchError(`${a} needs a number >= ${min}`);
    return Math.floor(n);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') opts.runs = num(a, argv[++i], 1);
    else if (a === '--cold-runs') opts.coldRuns = num(a, argv[++i], 0);
    else if (a === '--bytes') opts.bytes = num(a, argv[++i], 1e6);
    else if (a === '--append') opts.append = num(a, argv[++i], 1);
    else if (a === '--env-as-is') opts.envAsIs = true;
    else if (a === '--bin') {
      if (!argv[i + 1]) throw new BenchError('--bin needs a path');
      opts.bins.push(path.resolve(argv[++i]));
    } else
      throw new BenchError(
        `unknown option ${a} (see the usage at the top of ${path.basename(import.meta.url)})`,
      );
  }
  if (!opts.bins.length) opts.bins.push(path.join(REPO, 'bin', 'firedup.js'));
  for (const b of opts.bins) if (!fs.existsSync(b)) throw new BenchError(`${b}: no such file`);
  return opts;
}

/** The generated base log, cached in bench-data/ under the name bench:incremental --keep uses. */
function baseLog(bytes) {
  const file = path.join(REPO, 'bench-data', `sglang-serving-${bytes}-g${GENERATOR_VERSION}.log`);
  if (fs.existsSync(file) && fs.statSync(file).size === bytes) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  log(`generating a ${bytes / 1e6} MB SGLang serving log into ${path.relative(REPO, file)} ...`);
  generateServingLog(file, { bytes, seed: 1 });
  return file;
}

/** `n` bytes of whole serving lines from another generated log: what the server wrote meanwhile. */
function appendix(work, n) {
  const file = path.join(work, 'more.log');
  generateServingLog(file, { bytes: n + 200_000, seed: 2 });
  const text = fs.readFileSync(file);
  fs.rmSync(file);
  const start = text.indexOf(10, text.indexOf(READY)) + 1;
  return text.subarray(start, text.indexOf(10, start + n) + 1);
}

/** The environment the commands run in: the caller's, without the certificates Node would parse at start. */
function benchEnv(opts) {
  if (opts.envAsIs) return process.env;
  const { NODE_EXTRA_CA_CERTS: _, ...env } = process.env;
  return env;
}
/** Whether the caller's environment makes Node parse extra certificates at start (timed apart, see above). */
const caCerts = (opts) => !opts.envAsIs && Boolean(process.env.NODE_EXTRA_CA_CERTS);

let perfOk;
function hasPerf() {
  perfOk ??= spawnSync('perf', ['stat', '-e', 'task-clock', 'true'], { stdio: 'ignore' }).status === 0;
  return perfOk;
}

/** Wall time (and CPU time, with perf) of one run, in ms; the command must exit with one of `codes`. */
function run(argv, env, codes = [0]) {
  const cmd = hasPerf() ? ['perf', 'stat', '-e', 'task-clock', ...argv] : argv;
  const t0 = performance.now();
  const r = spawnSync(cmd[0], cmd.slice(1), { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  let wall = performance.now() - t0;
  if (!codes.includes(r.status))
    throw new BenchError(
      `${argv.slice(1).join(' ')} exited with ${r.status ?? r.signal}: ${r.stderr.slice(-1000)}`,
    );
  let cpu = null;
  const task = /([\d.,]+) msec task-clock/.exec(r.stderr);
  const elapsed = /([\d.]+) seconds time elapsed/.exec(r.stderr);
  if (task && elapsed) {
    cpu = Number(task[1].replace(/,/g, ''));
    wall = Number(elapsed[1]) * 1000;
  }
  return { wall, cpu };
}

/** Ledger files (the database and its WAL, when there is one) copied from `from` to `to`. */
function copyLedger(from, to) {
  for (const sfx of ['', '-wal', '-shm']) {
    fs.rmSync(to + sfx, { force: true });
    if (fs.existsSync(from + sfx)) fs.copyFileSync(from + sfx, to + sfx);
  }
}

function bench(opts, work) {
  const base = baseLog(opts.bytes);
  const logFile = path.join(work, 'server.log');
  log(`copying ${path.relative(REPO, base)} to ${logFile} ...`);
  fs.copyFileSync(base, logFile);
  const size = fs.statSync(logFile).size;
  const more = appendix(work, opts.append);
  // Every tool reads from memory, or whichever runs first pays for the disk.
  execFileSync('cat', [logFile], { stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 0 });

  const node = process.execPath;
  const clean = benchEnv(opts);
  const env = (ledger) => ({ ...clean, FIREDUP_LEDGER: ledger });
  // status exits 0 (serving) or 3/4/5 by what it makes of the file's age; 1 and 70 are failures.
  const STATUS_CODES = [0, 2, 3, 4, 5];
  const rows = [{ label: 'node -e 0 (baseline)', argv: [node, '-e', '0'], t: [], c: [], env: clean }];
  for (const bin of opts.bins) {
    const name = opts.bins.length > 1 ? `${path.relative(process.cwd(), bin)} ` : 'firedup ';
    // The ledger as the first full read leaves it, restored before each incremental status.
    const snapshot = path.join(work, `snapshot-${rows.length}.db`);
    const ledger = path.join(work, `ledger-${rows.length}.db`);
    log(`${name}status: the first, full read of ${size / 1e6} MB ...`);
    // The untimed runs of the --bin before this one left the appendix on the file: without it, or this
    // snapshot would already hold the appended MB and every timed status of this --bin read nothing.
    fs.truncateSync(logFile, size);
    run([node, bin, 'status', '--json', logFile], env(snapshot), STATUS_CODES);
    const statusArgv = [node, bin, 'status', '--json', logFile];
    rows.push(
      { label: `${name}--version`, argv: [node, bin, '--version'], t: [], c: [], goal: 1.2, env: clean },
      { label: `${name}--help`, argv: [node, bin, '--help'], t: [], c: [], goal: 1.2, env: clean },
      {
        label: `${name}status, ${opts.append / 1e6} MB appended`,
        argv: statusArgv,
        t: [],
        c: [],
        goal: 1.5,
        codes: STATUS_CODES,
        env: env(ledger),
        before: () => {
          fs.truncateSync(logFile, size);
          fs.appendFileSync(logFile, more);
          copyLedger(snapshot, ledger);
        },
      },
    );
    if (caCerts(opts)) {
      const as = { ...process.env, FIREDUP_LEDGER: ledger };
      const last = rows.at(-1);
      rows.push({
        ...last,
        label: `${last.label}, NODE_EXTRA_CA_CERTS as set`,
        t: [],
        c: [],
        env: as,
        aside: true,
      });
    }
    // One untimed run of each, so that every command's code cache exists before the rounds (as after first use).
    for (const r of rows.slice(caCerts(opts) ? -4 : -3)) {
      r.before?.();
      run(r.argv, r.env, r.codes);
    }
  }
  if (caCerts(opts))
    rows.push({
      label: 'node -e 0, NODE_EXTRA_CA_CERTS as set',
      argv: [node, '-e', '0'],
      t: [],
      c: [],
      env: process.env,
      aside: true,
    });
  for (let i = 0; i < opts.runs; i++) {
    for (const r of rows) {
      r.before?.();
      const { wall, cpu } = run(r.argv, r.env, r.codes);
      r.t.push(wall);
      if (cpu !== null) r.c.push(cpu);
    }
    if ((i + 1) % 5 === 0 || i + 1 === opts.runs) log(`round ${i + 1}/${opts.runs}`);
  }
  fs.truncateSync(logFile, size);
  return { rows, cold: opts.coldRuns ? coldRead(opts, work, logFile) : null };
}

/** `runs --json` on the whole file with a fresh ledger each time, next to grep -c, with peak RSS. */
function coldRead(opts, work, logFile) {
  const grep = { label: 'grep -c (the seeds\u2019 pattern)', t: [] };
  const rows = [grep];
  for (const bin of opts.bins)
    rows.push({
      label: `${opts.bins.length > 1 ? path.relative(process.cwd(), bin) : 'firedup'} runs --json`,
      bin,
      t: [],
      rss: [],
    });
  return (async () => {
    for (let i = 0; i < opts.coldRuns; i++) {
      const g = await timeCommand(['grep', '-c', GREP_PATTERN, logFile], { measureRss: true });
      if (g.code !== 0) throw new BenchError(`grep failed: ${g.stderr}`);
      grep.t.push(g.wallMs);
      for (const r of rows.slice(1)) {
        const ledger = path.join(work, 'cold.db');
        for (const sfx of ['', '-wal', '-shm']) fs.rmSync(ledger + sfx, { force: true });
        const f = await timeCommand([process.execPath, r.bin, 'runs', '--json', logFile], {
          measureRss: true,
          env: { ...benchEnv(opts), FIREDUP_LEDGER: ledger },
        });
        if (f.code !== 0)
          throw new BenchError(`runs --json exited with ${f.code ?? f.signal}: ${f.stderr.slice(-1000)}`);
        r.t.push(f.wallMs);
        r.rss.push(f.peakRssKb / 1024);
      }
      log(
        `cold read ${i + 1}/${opts.coldRuns}: ${rows.map((r) => `${r.label} ${ms(r.t.at(-1))}`).join(', ')}`,
      );
    }
    return rows;
  })();
}

function report(opts, rows, cold) {
  const base = median(rows[0].t);
  const baseCpu = rows[0].c.length ? median(rows[0].c) : null;
  const verdict = (x, goal) => (goal ? `goal <= ${goal}x: ${x <= goal ? 'PASS' : 'FAIL'}` : '');
  const w = Math.max(...rows.map((r) => r.label.length), ...(cold ?? []).map((r) => r.label.length));
  const out = [
    `firedup startup bench (${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}): medians of ${opts.runs} interleaved rounds, wall time (the goals) and CPU time`,
  ];
  for (const r of rows.filter((x) => !x.aside)) {
    const m = median(r.t);
    const spread = `${ms(Math.min(...r.t))}..${ms(Math.max(...r.t))}`;
    const c = r.c.length ? median(r.c) : null;
    const cpu = c !== null && baseCpu ? `  CPU ${ms(c).padStart(8)} ${(c / baseCpu).toFixed(2)}x` : '';
    out.push(
      `  ${r.label.padEnd(w)}  ${ms(m).padStart(9)}  ${(m / base).toFixed(2)}x  ${verdict(m / base, r.goal).padEnd(18)}${cpu}  (wall ${spread})`,
    );
  }
  const aside = rows.filter((x) => x.aside);
  if (aside.length) {
    const padded = median(aside.at(-1).t);
    out.push(
      `with NODE_EXTRA_CA_CERTS as this environment sets it, Node parses those certificates at every start (+${ms(padded - base)} to node -e 0): ratios against that padded baseline, for comparison only:`,
    );
    for (const r of aside) {
      const m = median(r.t);
      out.push(`  ${r.label.padEnd(w)}  ${ms(m).padStart(9)}  ${(m / padded).toFixed(2)}x`);
    }
  }
  if (cold) {
    const g = median(cold[0].t);
    out.push(`cold read of the whole ${opts.bytes / 1e6} MB log, fresh ledger, median of ${opts.coldRuns}:`);
    for (const r of cold) {
      const m = median(r.t);
      const rss = r.rss
        ? `, peak RSS ${median(r.rss).toFixed(0)} MB (goal <= ${RSS_GOAL_MB}: ${median(r.rss) <= RSS_GOAL_MB ? 'PASS' : 'FAIL'})`
        : '';
      out.push(
        `  ${r.label.padEnd(w)}  ${ms(m).padStart(9)}  ${(m / g).toFixed(2)}x grep${r.rss ? ` (goal <= 1.0x: ${m <= g ? 'PASS' : 'FAIL'})` : ''}${rss}`,
      );
    }
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-startup-'));
  for (const sig of ['SIGINT', 'SIGTERM'])
    process.on(sig, () => {
      fs.rmSync(work, { recursive: true, force: true });
      process.exit(130);
    });
  try {
    const { rows, cold } = bench(opts, work);
    report(opts, rows, await cold);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(
    err instanceof BenchError ? `bench: FAILED: ${err.message}\n` : `bench: FAILED: ${err?.stack ?? err}\n`,
  );
  process.exitCode = 1;
});
