#!/usr/bin/env node
/**
 * Runs the compiled suite (dist/test/) as `npm test` does: most files several at a time, then the few that
 * measure wall-clock latency one at a time.
 *
 * Why several at a time: `node --test` runs `os.availableParallelism() - 1` files at once, one on a 2-core
 * machine, while most files spend their time waiting (on sshd, Postgres, dockerd, Chromium, llama-server, a
 * CLI child, a timer). Each file is isolated (its own temp dirs, ports picked by the kernel, names with its pid),
 * so they can overlap. Why some alone: the files in ALONE assert how soon something happens (a verdict within
 * 2 s of a container's death, a client's ITL within 15 ms of the server's) or meet a product deadline (ps's
 * 15 s for a target to settle), which other files' CPU and docker calls would delay.
 *
 *   node scripts/run-tests.mjs [node --test options, e.g. --test-reporter=spec] [files or dirs]
 * FIREDUP_TEST_CONCURRENCY=N sets the files run at once (default 2: a run of one file at a time took 18-20 min on
 * a 2-core machine, over the suite's 15-minute budget, two at a time 10.4 min on a quiet one; two at a time passed whole on a clean clone with four other
 * processes busy on the same two cores (load 10-12), the ALONE files still one at a time. Four at a time found
 * races in tests that wait on a clock (fixed); 1 runs every file in turn).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist', 'test');

/** Files (under dist/test/) that assert latencies or hang on a product deadline, run after the rest, one at a time. */
const ALONE = [
  'bench/loadgen-scripted.test.js', // client timings within 15 ms of the scripted server's own stamps
  'cli/docker-live.test.js', // an OOM kill said within 2 s of the container's exit
  'bench/bounds.test.js', // bench run ends within its --duration and cut-off, whatever the server does
  // ps gives each target 15 s to settle (SETTLE_MS, src/cli/ps.ts): with the other docker files driving
  // dockerd at once, a container's first inspect can come after it, and its row has no container yet.
  'cli/docker-ps.test.js',
  // reads 100,000 launches while the relaunch's loading phase has 300 s of quiet before it is called stalled:
  // starved of CPU by three other files, the read itself outlasted that budget
  'cli/wait-many.test.js',
];

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 10)) {
  process.stderr.write(
    `run-tests: node ${process.versions.node} has no --test-concurrency (added in 20.10): install Node 20.10 or later\n`,
  );
  process.exit(1);
}

const concurrency = Number(process.env.FIREDUP_TEST_CONCURRENCY ?? 2);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  process.stderr.write(
    `run-tests: FIREDUP_TEST_CONCURRENCY=${process.env.FIREDUP_TEST_CONCURRENCY} is not a whole number ≥ 1: unset it or give e.g. 4\n`,
  );
  process.exit(1);
}

const options = process.argv.slice(2).filter((a) => a.startsWith('-'));
const named = process.argv.slice(2).filter((a) => !a.startsWith('-'));

/** Every *.test.js under `dir`, sorted. */
function testFiles(dir) {
  return fs
    .readdirSync(dir, { recursive: true })
    .filter((f) => f.endsWith('.test.js'))
    .map((f) => path.join(dir, f))
    .sort();
}

const files = (named.length ? named : [dist]).flatMap((p) => {
  const abs = path.resolve(p);
  if (!fs.existsSync(abs)) {
    process.stderr.write(
      `run-tests: ${p} does not exist: build first (npm run build) or name a file under dist/test/\n`,
    );
    process.exit(1);
  }
  return fs.statSync(abs).isDirectory() ? testFiles(abs) : [abs];
});
const rel = (f) => path.relative(dist, f);
const alone = files.filter((f) => ALONE.includes(rel(f)));
const together = files.filter((f) => !ALONE.includes(rel(f)));

let running = null;
let stopped = false;
function nodeTest(list, n) {
  if (!list.length) return Promise.resolve(0);
  return new Promise((resolve) => {
    running = spawn(process.execPath, ['--test', `--test-concurrency=${n}`, ...options, ...list], {
      stdio: 'inherit',
    });
    running.on('exit', (code, signal) => {
      // Killed (not stopped through this script, which sets `stopped` itself): the run is over.
      if (signal) stopped = true;
      resolve(code ?? 1);
    });
  });
}

// Stopped (Ctrl-C, or with-decoy passing on a SIGTERM): node --test stops its files on SIGINT (a SIGTERM
// leaves them running), and the files not started yet are not started.
for (const s of ['SIGINT', 'SIGTERM'])
  process.on(s, () => {
    stopped = true;
    running?.kill('SIGINT');
  });
// The files run alone start after the rest, whatever the rest's result: a run reports every failure.
const togetherCode = await nodeTest(together, concurrency);
const aloneCode = stopped ? 130 : await nodeTest(alone, 1);
process.exit(togetherCode || aloneCode);
