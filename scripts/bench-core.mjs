#!/usr/bin/env node
// `npm run bench`: how much slower than `grep -c` is `firedup runs --json` on a big serving log,
// and how much memory does it take? Goals: ratio <= 1.5, peak RSS <= 150 MiB.
//
// Then the same side by side for every engine's serving format (issue 15): SGLang `.` decode lines, vLLM V1,
// TGI and llama-server serving logs of BENCH_MB megabytes each (default 1000: the goal size; BENCH_MB=200 for a
// quick run, the ratios are printed either way), a log of 100k launches (goal: <= 5 s, <= 300 MiB; read with
// FIREDUP_LEDGER=off, as the goal was measured, then with a ledger: a first read into a new one, and re-reads of
// the unchanged log by `runs --json` and by `status --json`, goal <= 1 s for the latter) and random bytes
// (goal: >= 100 MB/s). Then one log per serving-time line shape the corpus holds, built from its real lines
// (issue 23: scripts/bench-seeds/, scripts/gen-shape-logs.mjs), BENCH_SHAPE_MB megabytes each (default 300),
// among them a mixed one and logs no engine rule knows, each read with the ledger off (goal: <= 1.5x grep -c,
// <= 150 MiB). BENCH_FORMATS=a,b picks some (sglang-comma, sglang-dot, vllm-v1, tgi, llamacpp, launches,
// random, shape:NAME, or `shapes` for all of them); BENCH_RUNS sets the runs per tool.
//
// firedup's output is checked on one run of its own; the timed runs send it to /dev/null, as hyperfine times a
// command (the 235 MB of JSON the 100k launches print, read by this process, took CPU from the command on the
// same cores, and written to a file, the kernel's writeback of it did).
//
// usage: node scripts/bench-core.mjs [--bytes N] [--keep] [--file PATH]
//   --bytes N    size of the generated SGLang `,` log (default BENCH_MB, else 1e9)
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
import { FORMAT_GENERATOR_VERSION, generateFormatLog } from './gen-format-logs.mjs';
import { GENERATOR_VERSION, generateServingLog } from './gen-serving-log.mjs';
import { generateShapeLog, readSeed, SHAPE_GENERATOR_VERSION, shapeNames } from './gen-shape-logs.mjs';
import { timeCommand } from './lib/measure.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(process.env.BENCH_RUNS) > 0 ? Math.floor(Number(process.env.BENCH_RUNS)) : 3;
const BENCH_BYTES = Number(process.env.BENCH_MB) > 0 ? Math.floor(Number(process.env.BENCH_MB) * 1e6) : 1e9;
const SHAPES = shapeNames();
const SHAPE_BYTES =
  Number(process.env.BENCH_SHAPE_MB) > 0 ? Math.floor(Number(process.env.BENCH_SHAPE_MB) * 1e6) : 3e8;
const ALL_FORMATS = [
  'sglang-comma',
  'sglang-dot',
  'vllm-v1',
  'tgi',
  'llamacpp',
  'launches',
  'random',
  ...SHAPES.map((s) => `shape:${s}`),
];
// `shapes` stands for every real-line shape (scripts/bench-seeds/)
const FORMATS_WANTED = process.env.BENCH_FORMATS
  ? process.env.BENCH_FORMATS.split(',').flatMap((f) =>
      f === 'shapes' ? SHAPES.map((s) => `shape:${s}`) : [f],
    )
  : ALL_FORMATS;
const SEED = 1;
// The seeds' milestone pattern: what a person would grep a launch log for.
const GREP_PATTERN = 'Load weight end\\|error\\|Error\\|autotune\\|Memory pool\\|fired up';
const GOAL_RATIO = 1.5;
const GOAL_RSS_MIB = 150;

class BenchError extends Error {}

const mb = (bytes) => (bytes >= 1e7 ? `${(bytes / 1e6).toFixed(0)} MB` : `${bytes} byte`);
const log = (msg) => process.stderr.write(`bench: ${msg}\n`);

function parseArgs(argv) {
  const opts = { bytes: BENCH_BYTES, keep: false, file: null };
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

function checkFiredupRun(run, want = { launches: 1, throughput: true }) {
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
  else if (want.launches !== null) {
    if (launches.length !== want.launches)
      problems.push(`${launches.length} launches, want ${want.launches}`);
    const l = want.launches === 1 ? launches[0] : null;
    if (l) {
      if (l.outcome !== 'serving' && l.outcome !== 'ready') {
        problems.push(`outcome ${JSON.stringify(l.outcome)}, want "serving" or "ready"`);
      }
      if (
        want.throughput &&
        (typeof l.throughput?.peak !== 'number' || !Number.isFinite(l.throughput.peak))
      ) {
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

/**
 * `reread`: the ledger is filled by a read before the timed runs, which each read the unchanged log again
 * from it. `cmd`: `runs` (the report of every launch) or `status` (the last one).
 */
async function bench(file, want, { ledger = true, reread = false, cmd = 'runs' } = {}) {
  const grepArgv = ['grep', '-c', GREP_PATTERN, file];
  const firedupArgv = [process.execPath, path.join(REPO, 'bin/firedup.js'), cmd, '--json', file];
  const db = path.join(os.tmpdir(), `firedup-bench-core-${process.pid}.db`);
  const dropDb = () => {
    for (const sfx of ['', '-wal', '-shm']) fs.rmSync(`${db}${sfx}`, { force: true });
  };
  const dbBytes = () =>
    ['', '-wal'].reduce(
      (n, sfx) => n + (fs.existsSync(`${db}${sfx}`) ? fs.statSync(`${db}${sfx}`).size : 0),
      0,
    );
  const env = { ...process.env, FIREDUP_LEDGER: ledger ? db : 'off' };
  let ledgerBytes = null;
  dropDb();
  // The output is checked on a run of its own; the timed runs send it to /dev/null, as hyperfine does.
  const check = await timeCommand(firedupArgv, { cwd: REPO, env });
  checkRun(cmd, check, want);
  if (reread) ledgerBytes = dbBytes();
  else dropDb();
  const grepMs = [];
  const firedupMs = [];
  const grepCpu = [];
  const firedupCpu = [];
  let peakKb = null;
  let rssMethod = null;
  // Alternate the two so drift on the machine (thermal, other load) hits both alike.
  for (let i = 0; i < RUNS; i++) {
    // grep runs under the same RSS wrapper as firedup so that both carry the same (small) overhead.
    const g = await timeCommand(grepArgv, { measureRss: true });
    if (g.code !== 0 && g.code !== 1)
      throw new BenchError(`grep failed (exit ${g.code ?? g.signal}): ${tail(g.stderr)}`);
    grepMs.push(g.wallMs);
    if (g.cpuMs !== null) grepCpu.push(g.cpuMs);

    // A first read, as a user gets it: recorded into a ledger (every command records), but a fresh one, so
    // the run does not continue from the previous run's checkpoint (see bench:incremental for that); or,
    // with `reread`, the same ledger each time.
    const f = await timeCommand(firedupArgv, { measureRss: true, cwd: REPO, env, discardStdout: true });
    if (!reread) {
      if (ledger) ledgerBytes = dbBytes();
      dropDb();
    }
    if (f.code !== 0) checkRun(cmd, f, want);
    firedupMs.push(f.wallMs);
    if (f.cpuMs !== null) firedupCpu.push(f.cpuMs);
    rssMethod = f.rssMethod;
    if (f.peakRssKb !== null) peakKb = Math.max(peakKb ?? 0, f.peakRssKb);
    log(
      `run ${i + 1}/${RUNS}: grep ${(g.wallMs / 1000).toFixed(2)} s, firedup ${(f.wallMs / 1000).toFixed(2)} s`,
    );
  }
  dropDb();
  // CPU time too: on a machine whose cores other work shares, wall times stretch with the load
  const cpuRatio =
    grepCpu.length && firedupCpu.length ? median(firedupCpu) / Math.max(median(grepCpu), 1) : null;
  return { grepMs: median(grepMs), firedupMs: median(firedupMs), peakKb, rssMethod, ledgerBytes, cpuRatio };
}

/** `status --json` prints the last launch and how many there are; `runs --json` every launch. */
function checkRun(cmd, run, want) {
  if (cmd === 'runs') return checkFiredupRun(run, want);
  if (run.code !== 0)
    throw new BenchError(`firedup status exited with ${run.code ?? run.signal}\n${tail(run.stderr)}`);
  let got;
  try {
    got = JSON.parse(run.stdout).launchCount;
  } catch (err) {
    throw new BenchError(`firedup status's output is not JSON (${err.message}):\n${tail(run.stdout, 5)}`);
  }
  if (got !== want.launches)
    throw new BenchError(`firedup status counts ${got} launches, want ${want.launches}`);
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

/** The other formats: generated (cached in bench-data/ with --keep), each benched like the SGLang `,` log. */
const FORMAT_SPECS = {
  'sglang-dot': { label: "SGLang '.' decode (older)", want: { launches: 1, throughput: true } },
  'vllm-v1': { label: 'vLLM V1 serving', want: { launches: 1, throughput: true } },
  tgi: { label: 'TGI serving', want: { launches: 1, throughput: false } },
  llamacpp: { label: 'llama-server serving', want: { launches: 1, throughput: true } },
  launches: { label: '100k launches', want: { launches: 100000, throughput: false }, ledger: false },
  random: { label: 'random bytes', want: { launches: 0, throughput: false }, ledger: false },
};

/** The 100k-launch log again with a ledger (issue 15), as a user's every command reads it: after its row. */
const LEDGER_ROWS = [
  { label: '100k launches, first read', goal: { s: 5, rss: 300 } },
  { label: '100k launches, re-read', goal: { s: 5, rss: 300 }, reread: true },
  { label: '100k launches, status re-read', goal: { s: 1, rss: 300 }, reread: true, cmd: 'status' },
];

function formatFile(format, bytes, keep) {
  const dir = keep ? path.join(REPO, 'bench-data') : fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-bench-'));
  fs.mkdirSync(dir, { recursive: true });
  const size = format === 'launches' ? 'n100000' : String(bytes);
  const file = path.join(dir, `${format}-${size}-g${FORMAT_GENERATOR_VERSION}.log`);
  const cleanup = keep ? () => {} : () => fs.rmSync(dir, { recursive: true, force: true });
  if (!fs.existsSync(file)) {
    ensureRoom(dir, format === 'launches' ? 5e7 : bytes);
    log(`generating ${format === 'launches' ? '100k launches' : mb(bytes)} ${format} log ...`);
    const t0 = performance.now();
    try {
      generateFormatLog(format, file, { bytes, seed: SEED });
    } catch (err) {
      cleanup();
      throw new BenchError(`generating the ${format} log failed: ${err.message}`);
    }
    log(`generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return { file, cleanup };
}

/** A shape's log built from its real lines (gen-shape-logs.mjs), cached in bench-data/ with --keep. */
function shapeFile(name, bytes, keep) {
  const dir = keep ? path.join(REPO, 'bench-data') : fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-bench-'));
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `shape-${name}-${bytes}-g${SHAPE_GENERATOR_VERSION}.log`);
  const cleanup = keep ? () => {} : () => fs.rmSync(dir, { recursive: true, force: true });
  if (!fs.existsSync(file)) {
    ensureRoom(dir, bytes);
    log(`generating ${mb(bytes)} ${name} log from its real lines ...`);
    try {
      generateShapeLog(name, file, { bytes, seed: SEED });
    } catch (err) {
      cleanup();
      throw new BenchError(`generating the ${name} log failed: ${err.message}`);
    }
  }
  return { file, cleanup };
}

/** What a shape's report must say: one serving launch of its engine (a log no rule knows: any). */
function shapeWant(name) {
  const seed = readSeed(name);
  return seed.engine === null
    ? { launches: null, throughput: false }
    : { launches: 1, throughput: seed.sample };
}

const rows = [];

function addRow(label, file, r, ledger, goal = null) {
  const size = fs.statSync(file).size;
  rows.push({
    label,
    goal,
    ledgerBytes: r.ledgerBytes ?? null,
    size,
    firedup: r.firedupMs / 1000,
    grep: r.grepMs / 1000,
    ratio: r.firedupMs / r.grepMs,
    mbps: size / 1e6 / (r.firedupMs / 1000),
    rss: r.peakKb === null ? null : r.peakKb / 1024,
    cpuRatio: r.cpuRatio ?? null,
    ledger,
  });
}

function printTable() {
  const head = ['format', 'size', 'firedup s', 'grep -c s', 'ratio', 'cpu ratio', 'MB/s', 'peak RSS', 'goal'];
  const goal = (r) => {
    if (r.goal)
      return `<= ${r.goal.s} s, <= ${r.goal.rss} MiB: ${r.firedup <= r.goal.s && r.rss <= r.goal.rss ? 'PASS' : 'FAIL'}`;
    if (r.label === '100k launches')
      return `<= 5 s, <= 300 MiB: ${r.firedup <= 5 && r.rss <= 300 ? 'PASS' : 'FAIL'}`;
    if (r.label === 'random bytes') return `>= 100 MB/s: ${r.mbps >= 100 ? 'PASS' : 'FAIL'}`;
    return `<= ${GOAL_RATIO}x, <= ${GOAL_RSS_MIB} MiB: ${r.ratio <= GOAL_RATIO && r.rss <= GOAL_RSS_MIB ? 'PASS' : 'FAIL'}`;
  };
  const body = rows.map((r) => [
    r.label + (r.ledger ? '' : ' (ledger off)'),
    mb(r.size),
    r.firedup.toFixed(2),
    r.grep.toFixed(2),
    `${r.ratio.toFixed(2)}x`,
    r.cpuRatio === null ? 'n/a' : `${r.cpuRatio.toFixed(2)}x`,
    r.mbps.toFixed(0),
    r.rss === null ? 'n/a' : `${r.rss.toFixed(0)} MiB`,
    goal(r),
  ]);
  const w = head.map((_, c) => Math.max(head[c].length, ...body.map((b) => b[c].length)));
  const line = (cells) =>
    cells
      .map((x, c) => (c === 0 || c === 8 ? x.padEnd(w[c]) : x.padStart(w[c])))
      .join('  ')
      .trimEnd();
  process.stdout.write(`\nfiredup runs --json vs grep -c, median of ${RUNS} runs each, page cache warm\n`);
  process.stdout.write(`  ${line(head)}\n${body.map((b) => `  ${line(b)}`).join('\n')}\n`);
  for (const r of rows)
    if (r.ledgerBytes !== null && r.label === LEDGER_ROWS[0].label)
      process.stdout.write(
        `  ${r.label}: ledger ${(r.ledgerBytes / 1e6).toFixed(0)} MB (${(r.ledgerBytes / 1e5).toFixed(0)} bytes per launch)\n`,
      );
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (FORMATS_WANTED.includes('sglang-comma') || opts.file) {
    const { file, cleanup } = prepareLog(opts);
    try {
      warmPageCache(file);
      const result = await bench(file);
      report(file, result);
      addRow("SGLang ',' decode (0.5)", file, result, true);
    } finally {
      cleanup();
    }
  }
  if (opts.file) return;
  for (const format of FORMATS_WANTED) {
    if (format.startsWith('shape:')) {
      const name = format.slice(6);
      if (!SHAPES.includes(name)) throw new BenchError(`unknown shape ${name} (one of ${SHAPES.join(', ')})`);
      const { file, cleanup } = shapeFile(name, Math.min(opts.bytes, SHAPE_BYTES), opts.keep);
      try {
        warmPageCache(file);
        log(`${name}:`);
        const unknown = readSeed(name).engine === null;
        addRow(
          `${readSeed(name).label} [${name}]`,
          file,
          await bench(file, shapeWant(name), { ledger: false }),
          false,
        );
        if (unknown) rows.at(-1).unknown = true;
      } finally {
        cleanup();
      }
      continue;
    }
    const spec = FORMAT_SPECS[format];
    if (!spec) {
      if (format !== 'sglang-comma')
        throw new BenchError(`unknown format ${format} (one of ${ALL_FORMATS.join(', ')})`);
      continue;
    }
    const { file, cleanup } = formatFile(
      format,
      format === 'random' ? Math.min(opts.bytes, 2e8) : opts.bytes,
      opts.keep,
    );
    try {
      warmPageCache(file);
      log(`${format}:`);
      addRow(
        spec.label,
        file,
        await bench(file, spec.want, { ledger: spec.ledger !== false }),
        spec.ledger !== false,
      );
      if (format === 'launches')
        for (const row of LEDGER_ROWS) {
          log(`${row.label}, with a ledger:`);
          const r = await bench(file, spec.want, { ledger: true, reread: row.reread, cmd: row.cmd });
          addRow(row.label, file, r, true, row.goal);
        }
    } finally {
      cleanup();
    }
  }
  printTable();
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
