#!/usr/bin/env node
// `npm run bench:incremental`: how fast is `firedup status` on a big log that grew a little since the
// last look, next to the first full read and to `grep -c` on the whole file? Goals: the incremental read
// at least 100x faster than the grep, and `firedup status` (the installed command, bin/firedup.js) after
// the append at most 1.5x `node -e 0`, a bare Node start. Each run times the incremental status REPEAT
// times (the ledger and file put back as the first read left them each time), interleaved with node -e 0.
//
// usage: node scripts/bench-incremental.mjs [--bytes N] [--append N] [--keep] [--file PATH] [--dist DIR]
//   --bytes N    size of the generated log (default 1e9)
//   --append N   bytes appended before the incremental read (default 1e6)
//   --keep       generate into bench-data/ and keep it there (shared with `npm run bench`)
//   --file PATH  bench on a copy of PATH (generated there first when missing)
//   --dist DIR   the compiled tree to run (default dist, through bin/firedup.js; another DIR: its
//                src/cli/bin.js)
//
// The base log is never modified: each run works on a private copy in a temp directory, with a fresh
// ledger. When `firedup status` does not record into the ledger yet, the same work is timed through
// `ingestLocal` (the function status is to call) in a child process, and the report says so.
// Exits 0 whatever the timings say; 1 when it cannot produce a measurement.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GENERATOR_VERSION, generateServingLog } from './gen-serving-log.mjs';
import { hasGnuTime, timeCommand } from './lib/measure.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = 3;
/** Incremental status reads per run (each next to a node -e 0): short commands need many samples. */
const REPEAT = 7;
const NODE_GOAL = 1.5;
const SEED = 1;
// The seeds' milestone pattern (as scripts/bench-core.mjs): what a person would grep a launch log for.
const GREP_PATTERN = 'Load weight end\\|error\\|Error\\|autotune\\|Memory pool\\|fired up';
const GOAL = 100;
const READY = 'The server is fired up and ready to roll!';

class BenchError extends Error {}

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);
const mb = (bytes) => `${(bytes / 1e6).toFixed(bytes >= 1e7 ? 0 : 1)} MB`;
const ms = (x) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(x < 10 ? 1 : 0)} ms`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function parseArgs(argv) {
  const opts = { bytes: 1e9, append: 1e6, keep: false, file: null, dist: path.join(REPO, 'dist') };
  const num = (a, v) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new BenchError(`${a} needs a positive number (e.g. 5e7)`);
    return Math.floor(n);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--keep') opts.keep = true;
    else if (a === '--bytes' || a === '--append') opts[a.slice(2)] = num(a, argv[++i]);
    else if (a === '--file' || a === '--dist') {
      if (argv[i + 1] === undefined) throw new BenchError(`${a} needs a path`);
      opts[a.slice(2)] = path.resolve(argv[++i]);
    } else
      throw new BenchError(
        `unknown option ${a} (see the usage at the top of ${path.basename(import.meta.url)})`,
      );
  }
  return opts;
}

function generate(file, bytes, seed = SEED) {
  const free = fs.statfsSync(path.dirname(file));
  if (free.bavail * free.bsize < bytes * 2.1)
    throw new BenchError(`not enough disk in ${path.dirname(file)} for the log and its working copy`);
  log(`generating ${mb(bytes)} SGLang serving log into ${file} ...`);
  try {
    generateServingLog(file, { bytes, seed });
  } catch (err) {
    throw new BenchError(`generating the log failed: ${err.message}`);
  }
}

const CPU_MARK = '@@firedup-bench cpu s: ';

/**
 * Wall time, and CPU time (user + system, all threads) when GNU time is there: on a shared machine the
 * wall time of a short command is mostly waiting for a core, its CPU time is not.
 */
async function timed(argv) {
  if (!hasGnuTime()) return { ...(await timeCommand(argv)), cpuMs: null };
  const r = await timeCommand(['/usr/bin/time', '-f', `${CPU_MARK}%U %S`, ...argv]);
  const at = r.stderr.lastIndexOf(CPU_MARK);
  if (at < 0) return { ...r, cpuMs: null };
  const [u, sys] = r.stderr
    .slice(at + CPU_MARK.length)
    .trim()
    .split(' ')
    .map(Number);
  // time reports a failing child on a line of its own before its format: that line is time's too.
  const stderr = r.stderr
    .slice(0, at)
    .replace(/Command (?:exited with non-zero status|terminated by signal) \d+\n$/, '');
  return { ...r, stderr, cpuMs: (u + sys) * 1000 };
}

/** The base log (read only) and the directory the runs work in. */
function prepare(opts) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-incremental-'));
  // Ctrl-C must not leave a gigabyte behind in /tmp.
  for (const sig of ['SIGINT', 'SIGTERM'])
    process.on(sig, () => {
      fs.rmSync(work, { recursive: true, force: true });
      process.exit(130);
    });
  let base = opts.file;
  if (base) {
    if (!fs.existsSync(base)) generate(base, opts.bytes);
  } else {
    const cached = path.join(REPO, 'bench-data', `sglang-serving-${opts.bytes}-g${GENERATOR_VERSION}.log`);
    if (fs.existsSync(cached) && fs.statSync(cached).size === opts.bytes) {
      log(`using cached ${path.relative(REPO, cached)}`);
      base = cached;
    } else if (opts.keep) {
      fs.mkdirSync(path.dirname(cached), { recursive: true });
      generate(cached, opts.bytes);
      base = cached;
    } else {
      base = path.join(work, 'base.log');
      generate(base, opts.bytes);
    }
  }
  return { base, work };
}

/** `n` bytes of serving lines (whole lines) from another generated log: what the server wrote meanwhile. */
function appendix(work, n) {
  const file = path.join(work, 'more.log');
  generateServingLog(file, { bytes: n + 200_000, seed: SEED + 1 });
  const text = fs.readFileSync(file);
  fs.rmSync(file);
  const ready = text.indexOf(READY);
  const start = text.indexOf(10, ready) + 1;
  const end = text.indexOf(10, start + n) + 1;
  return text.subarray(start, end);
}

/** A child that does what `status` does with the ledger, through ingestLocal, and prints what it read. */
function ingestScript(work, dist) {
  const file = path.join(work, 'ingest.mjs');
  const mod = (rel) => JSON.stringify(pathToFileURL(path.join(dist, rel)).href);
  fs.writeFileSync(
    file,
    `import { ingestLocal } from ${mod('src/app/ingest.js')};
import { Ledger } from ${mod('src/store/ledger.js')};
const t0 = performance.now();
const ledger = Ledger.open(process.argv[2]);
const t1 = performance.now();
const r = await ingestLocal(ledger, process.argv[3]);
const t2 = performance.now();
ledger.close();
const last = r.report.launches.at(-1);
process.stdout.write(JSON.stringify({ bytesRead: r.bytesRead, resumedFrom: r.resumedFrom, reset: r.reset,
  launches: r.report.launches.length, outcome: last?.outcome ?? null, peak: last?.throughput?.peak ?? null,
  openMs: t1 - t0, ingestMs: t2 - t1 }));
`,
  );
  return file;
}

/** Whether `status` records into the ledger: then the bench goes through the CLI. */
async function statusRecords(work, dist) {
  const probe = path.join(work, 'probe.log');
  fs.writeFileSync(probe, fs.readFileSync(path.join(REPO, 'examples', 'glm5-serving.log')));
  const db = path.join(work, 'probe.db');
  process.env.FIREDUP_LEDGER = db;
  await timeCommand([process.execPath, path.join(dist, 'src', 'cli', 'bin.js'), 'status', '--json', probe]);
  if (!fs.existsSync(db)) return false;
  const { Ledger } = await import(pathToFileURL(path.join(dist, 'src', 'store', 'ledger.js')).href);
  const ledger = Ledger.open(db);
  try {
    return ledger.getLog({ host: 'localhost', path: fs.realpathSync(probe) }) !== null;
  } finally {
    ledger.close();
  }
}

function checkRun(what, r, cli) {
  // status exits 0 (serving), or 3/4/5 by what it makes of the file's age; 1 and 70 are failures.
  const ok = cli ? [0, 2, 3, 4, 5].includes(r.code) : r.code === 0;
  if (!ok) throw new BenchError(`${what} exited with ${r.code ?? r.signal}: ${r.stderr.trim().slice(-2000)}`);
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new BenchError(`${what} did not print JSON: ${r.stdout.slice(0, 500)}`);
  }
}

/** The first read of the base log and the read after the append, with a fresh ledger. */
async function pair(mode, argv, logFile, size, more, db) {
  fs.truncateSync(logFile, size);
  process.env.FIREDUP_LEDGER = db;
  const cli = mode === 'status';
  const f = await timed(argv(db));
  const first = checkRun(`the first ${mode}`, f, cli);
  // The ledger as the first read left it, put back before each repeat of the incremental read.
  const saved = `${db}.first`;
  for (const sfx of ['', '-wal']) if (fs.existsSync(db + sfx)) fs.copyFileSync(db + sfx, saved + sfx);
  fs.appendFileSync(logFile, more);
  const n = await timed(argv(db));
  const incr = checkRun(`the incremental ${mode}`, n, cli);
  const again = [];
  const node = [];
  for (let k = 1; cli && k < REPEAT; k++) {
    fs.truncateSync(logFile, size);
    fs.appendFileSync(logFile, more);
    for (const sfx of ['', '-wal', '-shm']) {
      fs.rmSync(db + sfx, { force: true });
      if (fs.existsSync(saved + sfx)) fs.copyFileSync(saved + sfx, db + sfx);
    }
    again.push((await timed(argv(db))).wallMs);
    node.push((await timed([process.execPath, '-e', '0'])).wallMs);
  }
  if (!cli && (incr.resumedFrom === 0 || incr.bytesRead > more.length + (1 << 20)))
    throw new BenchError(`the second read did not resume: ${n.stdout}`);
  if (!cli && (first.launches !== incr.launches || incr.outcome !== 'serving'))
    throw new BenchError(`unexpected reports: first ${f.stdout}, then ${n.stdout}`);
  for (const x of [db, saved]) for (const sfx of ['', '-wal', '-shm']) fs.rmSync(x + sfx, { force: true });
  return { full: f.wallMs, incr: n.wallMs, fullCpu: f.cpuMs, incrCpu: n.cpuMs, info: incr, again, node };
}

async function bench(base, work, opts) {
  const dist = opts.dist;
  if (!fs.existsSync(path.join(dist, 'src', 'app', 'ingest.js')))
    throw new BenchError(`${dist} has no src/app/ingest.js: run \`npm run build\` (or pass --dist)`);
  const cli = await statusRecords(work, dist);
  log(
    cli
      ? 'timing `firedup status` and ingestLocal'
      : '`firedup status` does not record yet: timing ingestLocal',
  );
  const script = ingestScript(work, dist);
  const logFile = path.join(work, 'server.log');
  log(`copying ${mb(fs.statSync(base).size)} to ${logFile} ...`);
  fs.copyFileSync(base, logFile);
  const size = fs.statSync(logFile).size;
  const more = appendix(work, opts.append);
  // Every tool reads from memory, or whichever runs first pays for the disk.
  spawnSync('cat', [logFile], { stdio: ['ignore', 'ignore', 'inherit'] });

  // The installed command (the bundle, with its code cache) for the default tree; another tree's own entry.
  const bin =
    dist === path.join(REPO, 'dist')
      ? path.join(REPO, 'bin', 'firedup.js')
      : path.join(dist, 'src', 'cli', 'bin.js');
  const modes = {
    status: (_db) => [process.execPath, bin, 'status', '--json', logFile],
    ingest: (db) => [process.execPath, script, db, logFile],
  };
  const used = cli ? ['status', 'ingest'] : ['ingest'];
  const t = { grep: [], node: [], call: [], open: [], grepCpu: [], nodeCpu: [], again: [], againNode: [] };
  for (const m of used) t[m] = { full: [], incr: [], fullCpu: [], incrCpu: [] };
  let info = null;
  for (let i = 0; i < RUNS; i++) {
    const line = [];
    for (const m of used) {
      const r = await pair(m, modes[m], logFile, size, more, path.join(work, `ledger-${m}-${i}.db`));
      t[m].full.push(r.full);
      t[m].incr.push(r.incr);
      t[m].fullCpu.push(r.fullCpu);
      t[m].incrCpu.push(r.incrCpu);
      t.again.push(...r.again);
      t.againNode.push(...r.node);
      line.push(`${m} ${ms(r.full)} then ${ms(r.incr)}`);
      if (m === 'ingest') {
        info = r.info;
        t.call.push(r.info.ingestMs);
        t.open.push(r.info.openMs);
      }
    }
    // The file as the incremental reads left it: base + appended.
    const g = await timed(['grep', '-c', GREP_PATTERN, logFile]);
    if (g.code !== 0) throw new BenchError(`grep failed (exit ${g.code ?? g.signal}): ${g.stderr}`);
    t.grep.push(g.wallMs);
    const z = await timed([process.execPath, '-e', '0']);
    t.node.push(z.wallMs);
    t.nodeCpu.push(z.cpuMs);
    t.grepCpu.push(g.cpuMs);
    log(`run ${i + 1}/${RUNS}: ${line.join(', ')}; grep -c ${ms(g.wallMs)}`);
  }
  const med = {};
  const cpu = (xs) => (xs.includes(null) ? null : median(xs));
  for (const m of used)
    med[m] = {
      full: median(t[m].full),
      incr: median(t[m].incr),
      fullCpu: cpu(t[m].fullCpu),
      incrCpu: cpu(t[m].incrCpu),
    };
  return {
    size,
    appended: more.length,
    info,
    med,
    grep: median(t.grep),
    node: median(t.node),
    grepCpu: cpu(t.grepCpu),
    nodeCpu: cpu(t.nodeCpu),
    call: median(t.call),
    open: median(t.open),
    again: t.again.length ? { status: median(t.again), node: median(t.againNode), n: t.again.length } : null,
  };
}

function report(r) {
  const verdict = (x) => `${x.toFixed(x < 10 ? 1 : 0)}x (goal >= ${GOAL}x: ${x >= GOAL ? 'PASS' : 'FAIL'})`;
  const cpu = (x) => (x === null || x === undefined ? '' : ms(x));
  const vs = (wall, cpuMs) =>
    `grep / this: ${verdict(r.grep / wall)}` +
    (cpuMs != null && r.grepCpu != null ? `, in CPU time ${(r.grepCpu / cpuMs).toFixed(1)}x` : '');
  const rows = [
    ['', 'wall', 'CPU', ''],
    ['grep -c on the whole file', ms(r.grep), cpu(r.grepCpu), ''],
  ];
  if (r.med.status) {
    const s = r.med.status;
    rows.push(
      [
        'firedup status, first (full read)',
        ms(s.full),
        cpu(s.fullCpu),
        `${(s.full / r.grep).toFixed(2)}x grep`,
      ],
      [`firedup status after appending ${mb(r.appended)}`, ms(s.incr), cpu(s.incrCpu), vs(s.incr, s.incrCpu)],
    );
  } else rows.push(['firedup status', 'n/a', '', 'does not record into the ledger yet']);
  const g = r.med.ingest;
  rows.push(
    [
      'ingestLocal process, first (full read)',
      ms(g.full),
      cpu(g.fullCpu),
      `${(g.full / r.grep).toFixed(2)}x grep`,
    ],
    ['ingestLocal process after appending', ms(g.incr), cpu(g.incrCpu), vs(g.incr, g.incrCpu)],
    ['  of which the ingestLocal call', ms(r.call), '', vs(r.call, null)],
    ['  of which opening the ledger', ms(r.open), '', ''],
    [
      'node -e 0 (a process start: the floor)',
      ms(r.node),
      cpu(r.nodeCpu),
      `grep / this: ${(r.grep / r.node).toFixed(1)}x`,
    ],
    [
      'bytes read by the incremental read',
      mb(r.info.bytesRead),
      '',
      `from offset ${r.info.resumedFrom}: ${(r.size / r.info.bytesRead).toFixed(0)}x fewer than grep`,
    ],
  );
  if (r.again) {
    const x = r.again.status / r.again.node;
    rows.push([
      `firedup status after appending, ${r.again.n} more reads`,
      ms(r.again.status),
      '',
      `/ node -e 0 (${ms(r.again.node)}, same rounds): ${x.toFixed(2)}x (goal <= ${NODE_GOAL}x: ${x <= NODE_GOAL ? 'PASS' : 'FAIL'})`,
    ]);
  }
  const w = [0, 1, 2].map((c) => Math.max(...rows.map((x) => x[c].length)));
  const out = [
    `firedup incremental bench: ${mb(r.size)} SGLang serving log + ${mb(r.appended)}, median of ${RUNS} runs, page cache warm, fresh ledger per run`,
    ...rows.map((x) =>
      `  ${x[0].padEnd(w[0])}  ${x[1].padStart(w[1])}  ${x[2].padStart(w[2])}  ${x[3]}`.trimEnd(),
    ),
    '  (CPU: user + system of all threads; the call: wall time of ingestLocal inside its process)',
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  // As bench:startup: with NODE_EXTRA_CA_CERTS set, Node parses those certificates at every start (about
  // 28 ms here), which pads node -e 0 and flatters the ratio against it. Every command runs without it.
  if (process.env.NODE_EXTRA_CA_CERTS) {
    log('NODE_EXTRA_CA_CERTS left out of every command (Node would parse those certificates at each start)');
    delete process.env.NODE_EXTRA_CA_CERTS;
  }
  const { base, work } = prepare(opts);
  try {
    report(await bench(base, work, opts));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
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
