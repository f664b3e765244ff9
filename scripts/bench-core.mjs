#!/usr/bin/env node
// `npm run bench`: how much slower than `grep -c` is `firedup runs --json` on a big serving log,
// and how much memory does it take? Goals: ratio <= 1.5, peak RSS <= 150 MiB.
//
// usage: node scripts/bench-core.mjs [--bytes N] [--keep] [--file PATH]
//   --bytes N    size of the generated log (default 1e9)
//   --keep       generate into bench-data/ and keep it there; later runs with the same --bytes reuse it
//   --file PATH  bench on PATH; if it does not exist it is generated there (and kept)
//
// Exits 0 whatever the timings say (a bench reports, it does not gate CI); 1 when it cannot
// produce a measurement (bad options, generation failed, firedup failed or printed a wrong report).

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATOR_VERSION, generateServingLog } from './gen-serving-log.mjs';
import { timeCommand } from './lib/measure.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 3;
const SEED = 1;
// The seeds' milestone pattern: what a person would grep a launch log for.
const GREP_PATTERN = 'Load weight end\\|error\\|Error\\|autotune\\|Memory pool\\|fired up';
const GOAL_RATIO = 1.5;
const GOAL_RSS_MIB = 150;

class BenchError extends Error {}

const mb = (bytes) => (bytes >= 1e7 ? `${(bytes / 1e6).toFixed(0)} MB` : `${bytes} byte`);
const log = (msg) => process.stderr.write(`bench: ${msg}\n`);

function parseArgs(argv) {
  const opts = { bytes: 1e9, keep: false, file: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--keep') opts.keep = true;
    else if (a === '--bytes') {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new BenchError('--bytes needs a positive number (e.g. 5e7)');
      opts.bytes = Math.floor(v);
    } else if (a === '--file') {
      if (argv[i + 1] === undefined) throw new BenchError('--file needs a path');
      opts.file = path.resolve(argv[++i]);
    } else
      throw new BenchError(`unknown option ${a} (usage: bench-core.mjs [--bytes N] [--keep] [--file PATH])`);
  }
  return opts;
}

function ensureRoom(dir, bytes) {
  // Running out of disk mid-write gives an obscure ENOSPC from deep inside the generator.
  const st = fs.statfsSync(dir);
  const free = st.bavail * st.bsize;
  if (free < bytes * 1.05) {
    throw new BenchError(
      `not enough disk in ${dir}: ${(free / 1e9).toFixed(1)} GB free, need ${(bytes / 1e9).toFixed(1)} GB`,
    );
  }
}

function generate(file, bytes) {
  ensureRoom(path.dirname(file), bytes);
  log(`generating ${mb(bytes)} SGLang serving log into ${file} ...`);
  const t0 = performance.now();
  try {
    generateServingLog(file, { bytes, seed: SEED });
  } catch (err) {
    // Its errors are about the request (too small) or the disk, not bugs worth a stack trace.
    throw new BenchError(`generating the log failed: ${err.message}`);
  }
  log(`generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

/** Decide which file to bench on; returns the path and a cleanup that deletes it if it was throwaway. */
function prepareLog(opts) {
  if (opts.file) {
    if (fs.existsSync(opts.file)) {
      log(`using ${opts.file} (${fs.statSync(opts.file).size} bytes)`);
    } else {
      generate(opts.file, opts.bytes);
    }
    return { file: opts.file, cleanup: () => {} };
  }

  const cacheDir = path.join(REPO, 'bench-data');
  const cached = path.join(cacheDir, `sglang-serving-${opts.bytes}-g${GENERATOR_VERSION}.log`);
  if (fs.existsSync(cached) && fs.statSync(cached).size === opts.bytes) {
    log(`using cached ${path.relative(REPO, cached)}`);
    return { file: cached, cleanup: () => {} };
  }
  if (opts.keep) {
    fs.mkdirSync(cacheDir, { recursive: true });
    generate(cached, opts.bytes);
    return { file: cached, cleanup: () => {} };
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-bench-'));
  const file = path.join(dir, `sglang-serving-${opts.bytes}.log`);
  const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
  // Ctrl-C must not leave a gigabyte behind in /tmp.
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      cleanup();
      process.exit(130);
    });
  }
  try {
    generate(file, opts.bytes);
  } catch (err) {
    cleanup();
    throw err;
  }
  return { file, cleanup };
}

function warmPageCache(file) {
  // Both tools must read from memory, or whichever runs first pays for the disk.
  log('warming the page cache ...');
  const r = spawnSync('cat', [file], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.error || r.status !== 0)
    throw new BenchError(`cat ${file} failed: ${r.error?.message ?? `exit ${r.status}`}`);
}

function tail(text, n = 15) {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

function checkFiredupRun(run) {
  if (run.code !== 0) {
    const built = fs.existsSync(path.join(REPO, 'dist/src/cli/main.js'));
    throw new BenchError(
      `firedup exited with ${run.code ?? run.signal}${built ? '' : ' (dist/ is missing: run `npm run build`)'}\n${tail(run.stderr)}`,
    );
  }
  let rep;
  try {
    rep = JSON.parse(run.stdout);
  } catch (err) {
    throw new BenchError(`firedup's output is not JSON (${err.message}):\n${tail(run.stdout, 5)}`);
  }
  const launches = rep?.launches;
  const problems = [];
  if (!Array.isArray(launches)) problems.push('no `launches` array');
  else {
    if (launches.length !== 1) problems.push(`${launches.length} launches, want 1`);
    const l = launches[0];
    if (l) {
      if (l.outcome !== 'serving' && l.outcome !== 'ready') {
        problems.push(`outcome ${JSON.stringify(l.outcome)}, want "serving" or "ready"`);
      }
      if (typeof l.throughput?.peak !== 'number' || !Number.isFinite(l.throughput.peak)) {
        problems.push(`throughput.peak is ${JSON.stringify(l.throughput?.peak)}, want a number`);
      }
    }
  }
  if (problems.length) {
    throw new BenchError(`firedup's report is wrong: ${problems.join('; ')}\n${tail(run.stdout, 20)}`);
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function bench(file) {
  const grepArgv = ['grep', '-c', GREP_PATTERN, file];
  const firedupArgv = [process.execPath, path.join(REPO, 'bin/firedup.js'), 'runs', '--json', file];
  const grepMs = [];
  const firedupMs = [];
  let peakKb = null;
  let rssMethod = null;
  // Alternate the two so drift on the machine (thermal, other load) hits both alike.
  for (let i = 0; i < RUNS; i++) {
    // grep runs under the same RSS wrapper as firedup so that both carry the same (small) overhead.
    const g = await timeCommand(grepArgv, { measureRss: true });
    if (g.code !== 0 && g.code !== 1)
      throw new BenchError(`grep failed (exit ${g.code ?? g.signal}): ${tail(g.stderr)}`);
    grepMs.push(g.wallMs);

    // A first read, as a user gets it: recorded into a ledger (every command records), but a fresh one, so
    // the run does not continue from the previous run's checkpoint (see bench:incremental for that).
    const ledger = path.join(os.tmpdir(), `firedup-bench-core-${process.pid}.db`);
    for (const sfx of ['', '-wal', '-shm']) fs.rmSync(`${ledger}${sfx}`, { force: true });
    const f = await timeCommand(firedupArgv, {
      measureRss: true,
      cwd: REPO,
      env: { ...process.env, FIREDUP_LEDGER: ledger },
    });
    for (const sfx of ['', '-wal', '-shm']) fs.rmSync(`${ledger}${sfx}`, { force: true });
    checkFiredupRun(f);
    firedupMs.push(f.wallMs);
    rssMethod = f.rssMethod;
    if (f.peakRssKb !== null) peakKb = Math.max(peakKb ?? 0, f.peakRssKb);
    log(
      `run ${i + 1}/${RUNS}: grep ${(g.wallMs / 1000).toFixed(2)} s, firedup ${(f.wallMs / 1000).toFixed(2)} s`,
    );
  }
  return { grepMs: median(grepMs), firedupMs: median(firedupMs), peakKb, rssMethod };
}

function report(file, { grepMs, firedupMs, peakKb, rssMethod }) {
  const ratio = firedupMs / grepMs;
  const rssMib = peakKb === null ? null : peakKb / 1024;
  const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
  const rows = [
    ['grep -c median', `${(grepMs / 1000).toFixed(2)} s`, '', ''],
    ['firedup median', `${(firedupMs / 1000).toFixed(2)} s`, '', ''],
    ['ratio firedup/grep', ratio.toFixed(2), `<= ${GOAL_RATIO}`, verdict(ratio <= GOAL_RATIO)],
    [
      'firedup peak RSS',
      rssMib === null ? 'n/a' : `${rssMib.toFixed(1)} MiB`,
      `<= ${GOAL_RSS_MIB} MiB`,
      rssMib === null ? 'n/a' : verdict(rssMib <= GOAL_RSS_MIB),
    ],
  ];
  const w = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c].length)));
  const size = fs.statSync(file).size;
  const out = [
    `firedup bench: ${mb(size)} SGLang serving log, median of ${RUNS} runs each, page cache warm`,
    ...rows.map((r) =>
      `  ${r[0].padEnd(w[0])}  ${r[1].padStart(w[1])}  ${r[2].padEnd(w[2])}  ${r[3]}`.trimEnd(),
    ),
    `  (peak RSS: max over runs, ${rssMethod === 'time' ? 'from /usr/bin/time' : 'polled from /proc every 5 ms'})`,
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { file, cleanup } = prepareLog(opts);
  try {
    warmPageCache(file);
    const result = await bench(file);
    report(file, result);
  } finally {
    cleanup();
  }
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (err) => {
    process.stderr.write(
      err instanceof BenchError ? `bench: FAILED: ${err.message}\n` : `bench: FAILED: ${err?.stack ?? err}\n`,
    );
    process.exitCode = 1;
  },
);
