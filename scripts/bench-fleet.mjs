#!/usr/bin/env node
// `npm run bench:fleet`: what does one `firedup serve` cost watching a fleet of 50 servers starting up?
//
// usage: node scripts/bench-fleet.mjs [--targets N] [--remote R] [--seconds S] [--every S]
//   --targets N   targets watched (default 50)
//   --remote R    of them, read over ssh (default 10), through a throwaway sshd on 127.0.0.1 (dist/test/ssh.js,
//                 as the tests start it; run as root, like the tests)
//   --seconds S   measurement window (default 60)
//   --every S     seconds between two shards of one target (default 2)
//
// Needs the build (`npm run build`). Each target's log is replayed live by this process: the SGLang launch of
// examples/glm5-relaunch-stuck-at-48pct.log (args, server_args, distributed init, load weight begin) written
// with today's stamps, then its real tqdm shard bar, one shard every --every seconds per target (targets
// offset from each other so writes spread over time). `firedup serve --config FLEET --no-gpu` watches all of
// them (the remote ones as firedup-test:/path, all on one host: one ssh connection) and this process scrapes
// /metrics every 200 ms, as a fast Prometheus would.
//
//   CPU     serve's own utime+stime over the window / the window's wall time, in cores (from /proc/PID/stat);
//           its ssh client processes are reported next to it (their CPU is not serve's)
//   memory  serve's RSS, the highest sample (every second) and at the end
//   latency a shard line written → `firedup_load_progress_ratio{target=...}` on /metrics showing it; p50, p95
//           (the 200 ms scrape period is part of the figure)
//
// Goals: CPU <= 0.5 core, RSS <= 300 MB, p95 <= 2 s. Exits 0 whatever the figures say; 1 when it cannot measure.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startServe } from './lib/dashboard-fixtures.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(REPO, 'dist', 'src', 'cli', 'bin.js');
const SOURCE = path.join(REPO, 'examples', 'glm5-relaunch-stuck-at-48pct.log');
const GOAL_CORES = 0.5;
const GOAL_RSS_MB = 300;
const GOAL_P95_MS = 2000;
const SCRAPE_MS = 200;
const SHARDS = 83;
const CLK_TCK = 100;

class BenchError extends Error {}
const log = (msg) => process.stderr.write(`bench:fleet: ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const opts = { targets: 50, remote: 10, seconds: 60, every: 2 };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in opts))
      throw new BenchError(`unknown option ${argv[i]} (--targets N, --remote R, --seconds S, --every S)`);
    const v = Number(argv[++i]);
    if (!Number.isFinite(v) || v < 0) throw new BenchError(`${argv[i - 1]} needs a number >= 0`);
    opts[key] = v;
  }
  if (opts.remote > opts.targets) throw new BenchError('--remote cannot exceed --targets');
  return opts;
}

/** The launch's head (up to the first shard bar), each line restamped to now as the server would print it. */
function launchHead() {
  const lines = fs.readFileSync(SOURCE, 'utf8').split('\n');
  // The second launch of the file starts at line 322; its shard bar at 350.
  return lines.slice(321, 349);
}

const stamp = (line) => {
  const now = new Date();
  const s = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')} ${now.toTimeString().slice(0, 8)}`;
  return line.replace(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/, `[${s}`);
};

/** The real tqdm line for shard k of 83 (its shape as SGLang prints it). */
const shardLine = (k, elapsed) => {
  const pct = Math.floor((k / SHARDS) * 100);
  const mmss = (s) =>
    `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
  const rate = k / Math.max(elapsed, 0.1);
  return `Loading safetensors checkpoint shards: ${String(pct).padStart(3)}% Completed | ${k}/${SHARDS} [${mmss(elapsed)}<${mmss((SHARDS - k) / rate)}, ${rate.toFixed(2)}it/s]`;
};

function cpuTicks(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  // Fields 14-17 of stat (utime stime cutime cstime), counted from `state` as 0.
  return { own: Number(rest[11]) + Number(rest[12]), children: Number(rest[13]) + Number(rest[14]) };
}

function rssMb(pid) {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/**
 * utime+stime of serve's ssh processes, by pid: its live descendants (ssh clients riding the masters) and the
 * masters themselves, which ControlPersist detaches (their parent is init) but whose title names the control
 * directory serve's clients were given.
 */
function sshTicks(pid) {
  const procs = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').replaceAll('\0', ' ');
      procs.set(Number(d), { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]), cmd });
    } catch {}
  }
  const isDesc = (p) => {
    for (let q = procs.get(p)?.ppid; q; q = procs.get(q)?.ppid) if (q === pid) return true;
    return false;
  };
  const out = new Map();
  const dirs = new Set();
  for (const [p, v] of procs)
    if (isDesc(p)) {
      out.set(p, v.ticks);
      const m = /ControlPath=(\S+)\/%C/.exec(v.cmd);
      if (m) dirs.add(m[1]);
    }
  for (const [p, v] of procs) if ([...dirs].some((d) => v.cmd.includes(d))) out.set(p, v.ticks);
  return out;
}

const pct = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

/** `firedup serve` on the fleet's config (the dashboard bench's starter), its failure said as this bench's. */
const startFleetServe = (config, ledger) =>
  startServe(['--config', config, '--no-gpu', '--ledger', ledger]).catch((e) => {
    throw new BenchError(e.message);
  });

/** `firedup_load_progress_ratio` per target, and how many targets report firedup_up 1. */
async function scrape(base) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const ratio = new Map();
  let up = 0;
  for (const line of text.split('\n')) {
    let m = /^firedup_load_progress_ratio\{[^}]*target="([^"]+)"[^}]*\} ([\d.eE+-]+)/.exec(line);
    if (m) ratio.set(m[1], Number(m[2]));
    m = /^firedup_up\{[^}]*\} 1$/.exec(line);
    if (m) up++;
  }
  return { ratio, up };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(BIN)) throw new BenchError('dist/ is missing: run `npm run build` first');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-bench-fleet-'));
  const cleanups = [() => fs.rmSync(work, { recursive: true, force: true })];
  const cleanup = () => {
    for (const c of cleanups.reverse()) {
      try {
        c();
      } catch {}
    }
    cleanups.length = 0;
  };
  for (const sig of ['SIGINT', 'SIGTERM'])
    process.on(sig, () => {
      cleanup();
      process.exit(130);
    });
  try {
    let sshConfig = null;
    if (opts.remote > 0) {
      const sshMod = path.join(REPO, 'dist/test/ssh.js');
      if (!fs.existsSync(sshMod))
        throw new BenchError('dist/test/ssh.js is missing: run `npm run build` first');
      const sshd = await (await import(sshMod)).startSshd();
      cleanups.push(() => sshd.stop());
      sshConfig = sshd.config;
    }
    const head = launchHead();
    const targets = [];
    const toml = [`ledger = "${path.join(work, 'ledger.db')}"`];
    if (sshConfig) toml.push(`ssh_config = "${sshConfig}"`);
    for (let i = 0; i < opts.targets; i++) {
      const file = path.join(work, `server-${i}.log`);
      fs.writeFileSync(file, '');
      const remote = i < opts.remote;
      const name = `t${i}`;
      targets.push({ name, file, k: 0, fd: fs.openSync(file, 'a'), started: 0 });
      toml.push('', '[[target]]', `name = "${name}"`, `log = "${remote ? `firedup-test:${file}` : file}"`);
    }
    const config = path.join(work, 'fleet.toml');
    fs.writeFileSync(config, `${toml.join('\n')}\n`);

    const serve = await startFleetServe(config, path.join(work, 'ledger.db'));
    cleanups.push(() => serve.child.kill('SIGKILL'));
    const pid = serve.child.pid;
    log(`serve (pid ${pid}) watching ${opts.targets} targets, ${opts.remote} over ssh; launches start`);

    // Each launch begins: its head written at once, then shards on a schedule, offset per target.
    const writes = []; // { target, k, at }
    const t0 = Date.now();
    for (const t of targets) {
      fs.writeSync(t.fd, `${head.map(stamp).join('\n')}\n${shardLine(0, 0)}\n`);
      t.started = Date.now();
    }
    const everyMs = opts.every * 1000;
    let writing = true;
    const writer = (async () => {
      // One timer for all: the next due target is written, as 50 servers writing their logs would.
      const next = targets.map((_, i) => t0 + 3000 + (i * everyMs) / targets.length);
      while (writing) {
        const now = Date.now();
        for (let i = 0; i < targets.length; i++) {
          if (next[i] > now) continue;
          const t = targets[i];
          if (t.k >= SHARDS - 1) continue;
          t.k++;
          fs.writeSync(t.fd, `${shardLine(t.k, (now - t.started) / 1000)}\n`);
          writes.push({ target: t.name, k: t.k, at: Date.now() });
          next[i] += everyMs;
        }
        await sleep(10);
      }
    })();

    // Warm-up: every target up (its log read, its host connected).
    const warmUntil = Date.now() + 30_000;
    let seen = { up: 0 };
    while (Date.now() < warmUntil) {
      seen = await scrape(serve.base);
      if (seen.up >= opts.targets) break;
      await sleep(500);
    }
    if (seen.up < opts.targets) log(`warning: only ${seen.up}/${opts.targets} targets up after 30 s`);
    await sleep(2000);

    // The window.
    const winStart = Date.now();
    const firstWrite = writes.length;
    const cpu0 = cpuTicks(pid);
    const desc0 = sshTicks(pid);
    const rss = [];
    const shown = new Map(); // `${target}:${k}` -> ms seen
    let lastRss = 0;
    while (Date.now() - winStart < opts.seconds * 1000) {
      const { ratio } = await scrape(serve.base);
      const at = Date.now();
      for (const [name, r] of ratio) {
        const k = Math.round(r * SHARDS);
        for (let j = 1; j <= k; j++) if (!shown.has(`${name}:${j}`)) shown.set(`${name}:${j}`, at);
      }
      if (at - lastRss >= 1000) {
        rss.push(rssMb(pid));
        lastRss = at;
      }
      await sleep(Math.max(0, SCRAPE_MS - (Date.now() - at)));
    }
    const winMs = Date.now() - winStart;
    const cpu1 = cpuTicks(pid);
    const desc1 = sshTicks(pid);
    const rssEnd = rssMb(pid);
    writing = false;
    await writer;
    // Writes of the window whose scrape had time to come (the last 2 s may still be on their way).
    const measured = writes.slice(firstWrite).filter((w) => w.at <= winStart + winMs - GOAL_P95_MS);
    const lat = [];
    let missing = 0;
    for (const w of measured) {
      const s = shown.get(`${w.target}:${w.k}`);
      if (s === undefined) missing++;
      else lat.push(Math.max(0, s - w.at));
    }
    const cores = (cpu1.own - cpu0.own) / CLK_TCK / (winMs / 1000);
    let sshAll = cpu1.children - cpu0.children;
    for (const [p, tk] of desc1) sshAll += tk - (desc0.get(p) ?? 0);
    const sshCores = sshAll / CLK_TCK / (winMs / 1000);
    const rssMax = Math.max(...rss, rssEnd);
    const p50 = pct(lat, 50);
    const p95 = pct(lat, 95);
    const sshProcs = desc1.size;

    const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
    const rows = [
      ['measure', 'firedup serve', 'goal', ''],
      [
        'targets (over ssh)',
        `${opts.targets} (${opts.remote}), ${writes.length - firstWrite} shard lines in ${(winMs / 1000).toFixed(0)} s`,
        '',
        '',
      ],
      ['CPU', `${cores.toFixed(3)} cores`, `<= ${GOAL_CORES} core`, verdict(cores <= GOAL_CORES)],
      ['  its ssh clients', `${sshCores.toFixed(3)} cores (${sshProcs} processes)`, '', ''],
      [
        'RSS',
        `max ${rssMax.toFixed(0)} MB, end ${rssEnd.toFixed(0)} MB`,
        `<= ${GOAL_RSS_MB} MB`,
        verdict(rssMax <= GOAL_RSS_MB),
      ],
      [
        'line -> /metrics',
        p95 === null ? 'none' : `p50 ${(p50 / 1000).toFixed(3)} s, p95 ${(p95 / 1000).toFixed(3)} s`,
        `p95 <= ${GOAL_P95_MS / 1000} s`,
        verdict(p95 !== null && p95 <= GOAL_P95_MS && missing === 0),
      ],
      ['lines seen', `${lat.length}/${measured.length}`, 'all', ''],
    ];
    const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    process.stdout.write(
      `${rows
        .map((r) =>
          r
            .map((c, i) => c.padEnd(w[i]))
            .join('  ')
            .trimEnd(),
        )
        .join('\n')}\n`,
    );
    serve.child.kill('SIGTERM');
    await new Promise((r) => {
      if (serve.child.exitCode !== null) r();
      serve.child.once('exit', r);
      setTimeout(r, 5000).unref();
    });
  } finally {
    cleanup();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    log(e instanceof BenchError ? e.message : (e.stack ?? String(e)));
    process.exit(1);
  },
);
