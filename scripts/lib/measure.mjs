// Wall time and peak RSS of a child process, for scripts/bench-core.mjs; a throwaway ledger for the benches.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const GNU_TIME = '/usr/bin/time';
const MARKER = '@@firedup-bench maxrss kB: ';
const TIME_REPORT =
  /(?:Command (?:exited with non-zero status|terminated by signal) \d+\n)?@@firedup-bench maxrss kB: (\d+)(?: ([\d.]+) ([\d.]+))?\n?$/;

let gnuTimeOk;
let outFiles = 0;
/** GNU time is optional (not in slim images); it is probed once rather than assumed from the path. */
export function hasGnuTime() {
  if (gnuTimeOk === undefined) {
    try {
      fs.accessSync(GNU_TIME, fs.constants.X_OK);
      gnuTimeOk = true;
    } catch {
      gnuTimeOk = false;
    }
  }
  return gnuTimeOk;
}

function readKb(pid, field) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0; // already gone
  }
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/**
 * Run argv[0] with argv[1..], capture stdout (through a file), and time it.
 *
 * With measureRss, peak RSS comes from GNU time's %M (the kernel's ru_maxrss, exact) when
 * /usr/bin/time exists, else from polling /proc/<pid>/status every 5 ms. The poll reads VmHWM,
 * the kernel's own high-water mark, so a spike between two polls is still seen by the next one;
 * only what happens after the last poll before exit is lost. Polling runs in this process
 * rather than a wrapper process, whose startup would land in the measured wall time.
 *
 * The wall time is taken around the whole spawn in both cases; GNU time adds ~1 ms to it.
 * Under GNU time a child killed by signal N shows as code 128+N rather than as `signal`.
 *
 * @param {string[]} argv
 * @param {{measureRss?: boolean, method?: 'auto'|'time'|'poll', cwd?: string, env?: NodeJS.ProcessEnv,
 *   discardStdout?: boolean}} [opts]
 *   method forces a way of measuring RSS, for testing the fallback; discardStdout sends stdout to /dev/null
 *   (`stdout` is then empty).
 * @returns {Promise<{wallMs: number, peakRssKb: number|null, stdout: string, stderr: string,
 *   code: number|null, signal: string|null, rssMethod: 'time'|'poll'|null}>}
 */
export async function timeCommand(
  argv,
  { measureRss = false, method = 'auto', cwd, env, discardStdout = false } = {},
) {
  let rssMethod = null;
  if (measureRss) rssMethod = method === 'auto' ? (hasGnuTime() ? 'time' : 'poll') : method;

  let cmd = argv;
  if (rssMethod === 'time') {
    // time's report is appended to the child's stderr under a marker and cut off again below.
    // `-o FILE` would need a temp file that a Ctrl-C leaves behind, and `-o /dev/fd/3` fails
    // because node's stdio pipes are sockets, which can't be reopened through /dev/fd.
    cmd = [GNU_TIME, '-f', `${MARKER}%M %U %S`, ...argv];
  }

  // The child's stdout goes to a file, as `cmd > out.json` sends it, or with `discardStdout` to /dev/null (as
  // hyperfine times a command): read through a pipe, the hundreds of MB a `runs --json` of many launches prints
  // cost this process CPU time on the cores the child runs on.
  const outFile = discardStdout
    ? '/dev/null'
    : path.join(os.tmpdir(), `firedup-bench-out-${process.pid}-${++outFiles}`);
  const outFd = fs.openSync(outFile, 'w');
  const t0 = performance.now();
  let child;
  try {
    child = spawn(cmd[0], cmd.slice(1), { cwd, env, stdio: ['ignore', outFd, 'pipe'] });
  } finally {
    fs.closeSync(outFd);
  }
  const err = [];
  child.stderr.on('data', (b) => err.push(b));

  let peak = 0;
  let timer = null;
  if (rssMethod === 'poll') {
    const sample = () => {
      const hwm = readKb(child.pid, 'VmHWM');
      const rss = readKb(child.pid, 'VmRSS');
      if (hwm > peak) peak = hwm;
      if (rss > peak) peak = rss;
    };
    timer = setInterval(sample, 5);
    sample();
  }

  const [code, signal] = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c, s) => resolve([c, s]));
  }).finally(() => {
    if (timer) clearInterval(timer);
  });
  const wallMs = performance.now() - t0;
  const stdout = discardStdout ? '' : fs.readFileSync(outFile, 'utf8');
  if (!discardStdout) fs.rmSync(outFile, { force: true });

  let peakRssKb = null;
  let cpuMs = null;
  if (rssMethod === 'poll') peakRssKb = peak || null;
  let stderr = Buffer.concat(err).toString('utf8');
  if (rssMethod === 'time') {
    // GNU time also reports a failing child ("Command exited with non-zero status N") just
    // before its format; that line is time's, not the child's, so it goes too.
    const m = TIME_REPORT.exec(stderr);
    if (m) {
      peakRssKb = Number(m[1]) || null;
      // user + system CPU seconds: what a command costs, whatever else the machine's cores run meanwhile
      if (m[2] !== undefined) cpuMs = (Number(m[2]) + Number(m[3])) * 1000;
      stderr = stderr.slice(0, m.index);
    }
  }

  return {
    wallMs,
    cpuMs,
    peakRssKb,
    stdout,
    stderr,
    code,
    signal,
    rssMethod,
  };
}

/** The firedup a bench runs records into a throwaway ledger (removed at exit), never the user's. */
export function useThrowawayLedger() {
  if (process.env.FIREDUP_LEDGER !== undefined) return;
  const ledger = path.join(os.tmpdir(), `firedup-bench-${process.pid}.db`);
  process.env.FIREDUP_LEDGER = ledger;
  process.on('exit', () => {
    for (const sfx of ['', '-wal', '-shm']) fs.rmSync(`${ledger}${sfx}`, { force: true });
  });
}
