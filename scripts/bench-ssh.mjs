#!/usr/bin/env node
// `npm run bench:ssh`: what does watching a remote log cost, firedup's way against the seeds' way?
//
// usage: node scripts/bench-ssh.mjs [--bytes N] [--seconds S] [--rate BYTES_PER_MIN]
//   --bytes N     size of the "remote" log's history before the window (default 1e9; cached in bench-data/)
//   --seconds S   measurement window (default 60)
//   --rate R      how fast the writer grows the log, bytes per minute (default 2e6)
//
// Needs the build (`npm run build`: dist/test/ssh.js starts a throwaway sshd on 127.0.0.1; run as root,
// like the tests). The "remote" log is a copy of the cached serving log in a temp dir on this machine,
// reached through ssh as firedup-test:<path>. During the window a writer appends a realistic SGLang serving
// log (Decode/Prefill batch and access lines) and, every 0.5 s, a tqdm bar line whose count K is a unique id:
// `firedup watch --json` emits {"type":"progress","done":K} for it, which gives the write-to-event latency.
//
//   firedup's way: `firedup watch --json --no-gpu --ssh-config CFG firedup-test:LOG` for the whole window.
//   the seeds' way: every 10 s, `ssh -F CFG firedup-test grep -c PATTERN LOG` on a fresh connection.
//
// Bytes over the wire: each method reaches the sshd through its own counting TCP relay in this process
// (ssh_config's Port points at the relay, which forwards to the sshd). The relay counts every TCP payload
// byte in both directions, i.e. exactly what the SSH connection puts on the wire (handshake, encryption and
// MAC overhead included, TCP/IP headers excluded). That is simpler and more exact than summing wchar from
// /proc/<pid>/io (which also counts sshd's internal pipes) or ss counters (gone once a connection closes).
//
// Remote CPU: each method gets its own sshd (startSshd twice), so every remote process of a method is a
// descendant of that method's sshd listener. The kernel adds a reaped child's utime+stime (and its own
// cutime+cstime) to its parent's cutime+cstime, so the CPU of the whole tree, dead or alive, is
//   sum over the live processes of the tree of (utime+stime+cutime+cstime), minus the listener's own
//   utime+stime (accepting connections is not a method's work) and its cutime+cstime at the start.
// That is read after the window, once firedup has been stopped; it needs no sampling race against short
// grep sessions. (firedup's ssh master stays up for ControlPersist; its live sshd session is counted.)
//
// Exits 0 whatever the figures say; 1 when it cannot measure (bad options, sshd or firedup failed).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GENERATOR_VERSION, generateServingLog } from './gen-serving-log.mjs';
import { useThrowawayLedger } from './lib/measure.mjs';

useThrowawayLedger();

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SEED = 1;
const GREP_PATTERN = 'Load weight end\\|error\\|Error\\|autotune\\|Memory pool\\|fired up';
const SEED_EVERY_MS = 10_000;
const BAR_EVERY_MS = 500;
const WRITE_EVERY_MS = 100;
const GOAL_WIRE_RATIO = 1.2;
const GOAL_P95_MS = 2000;

class BenchError extends Error {}
const log = (msg) => process.stderr.write(`bench:ssh: ${msg}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const opts = { bytes: 1e9, seconds: 60, rate: 2e6 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--bytes' || a === '--seconds' || a === '--rate') {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v <= 0) throw new BenchError(`${a} needs a positive number`);
      opts[a.slice(2)] = a === '--bytes' ? Math.floor(v) : v;
    } else
      throw new BenchError(`unknown option ${a} (usage: bench-ssh.mjs [--bytes N] [--seconds S] [--rate R])`);
  }
  return opts;
}

/** The cached history (as bench-core.mjs keeps it), copied to a temp dir so the writer can append to it. */
function prepareLog(bytes, dir) {
  const cacheDir = path.join(REPO, 'bench-data');
  const cached = path.join(cacheDir, `sglang-serving-${bytes}-g${GENERATOR_VERSION}.log`);
  if (!(fs.existsSync(cached) && fs.statSync(cached).size === bytes)) {
    fs.mkdirSync(cacheDir, { recursive: true });
    log(`generating ${(bytes / 1e6).toFixed(0)} MB serving log into ${path.relative(REPO, cached)} ...`);
    try {
      generateServingLog(cached, { bytes, seed: SEED });
    } catch (err) {
      throw new BenchError(`generating the log failed: ${err.message}`);
    }
  } else log(`using cached ${path.relative(REPO, cached)}`);
  const remote = path.join(dir, 'remote', 'server.log');
  fs.mkdirSync(path.dirname(remote), { recursive: true });
  execFileSync('cp', ['--reflink=auto', cached, remote]);
  // Both methods should read history from memory, not pay for the disk.
  execFileSync('sh', ['-c', 'cat "$1" >/dev/null', 'sh', remote]);
  return remote;
}

/** Serving lines to append: the body of a small generated log, replayed in a loop. */
function servingLines(dir) {
  const f = path.join(dir, 'lines.log');
  generateServingLog(f, { bytes: 2e6, seed: 7 });
  const text = fs.readFileSync(f, 'utf8');
  fs.rmSync(f);
  const lines = text.split('\n').filter((l) => /Decode batch|Prefill batch|INFO: {5}\d/.test(l));
  return lines.map((l) => `${l}\n`);
}

/** A TCP relay to the sshd that counts the bytes it carries. */
function countingRelay(targetPort) {
  const counts = { up: 0, down: 0, connections: 0 };
  const server = net.createServer((client) => {
    counts.connections++;
    client.setNoDelay(true);
    const upstream = net.connect(targetPort, '127.0.0.1');
    upstream.setNoDelay(true);
    client.on('data', (b) => {
      counts.up += b.length;
      upstream.write(b);
    });
    upstream.on('data', (b) => {
      counts.down += b.length;
      client.write(b);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  return new Promise((resolve, reject) => {
    server.listen(0, '127.0.0.1', () => resolve({ port: server.address().port, counts, server }));
    server.on('error', reject);
  });
}

function clientConfig(sshd, relayPort, name) {
  const file = path.join(sshd.dir, `${name}_ssh_config`);
  fs.writeFileSync(
    file,
    [
      'Host firedup-test',
      '  HostName 127.0.0.1',
      `  Port ${relayPort}`,
      '  User root',
      `  IdentityFile ${sshd.dir}/user_key`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${sshd.dir}/known_hosts_${name}`,
      '  StrictHostKeyChecking accept-new',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  );
  return file;
}

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** utime, stime, cutime, cstime (ticks) and ppid of a pid, or null once it is gone. */
function procStat(pid) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // comm may hold spaces and parens: the fields after it start after the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // f[0] is field 3 (state); utime is field 14 → f[11].
  const comm = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
  return {
    comm,
    ppid: Number(f[1]),
    utime: Number(f[11]),
    stime: Number(f[12]),
    cutime: Number(f[13]),
    cstime: Number(f[14]),
  };
}

/** All live descendants of root (not root itself). */
function descendants(root) {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const st = procStat(Number(name));
    if (!st) continue;
    if (!children.has(st.ppid)) children.set(st.ppid, []);
    children.get(st.ppid).push(Number(name));
  }
  const out = [];
  const todo = [root];
  while (todo.length) {
    for (const c of children.get(todo.pop()) ?? []) {
      out.push(c);
      todo.push(c);
    }
  }
  return out;
}

function sshdPid(sshd) {
  return Number(fs.readFileSync(path.join(sshd.dir, 'sshd.pid'), 'utf8').trim());
}

/** CPU ticks of the sshd's tree beyond the listener's own work (see the header). */
function treeTicks(listener) {
  const l = procStat(listener);
  if (!l) throw new BenchError(`sshd ${listener} is gone`);
  let ticks = l.cutime + l.cstime;
  for (const pid of descendants(listener)) {
    const s = procStat(pid);
    if (s) ticks += s.utime + s.stime + s.cutime + s.cstime;
  }
  return ticks;
}

/**
 * The exact totals say how much, not what: a sampler (every 100 ms) keeps each live tree process's latest
 * utime+stime by command, to split the total into sshd, the tools a method runs (sh, tail, stat, cat, grep,
 * ...), and the rest (the remote user's login shell: bash sourcing ~/.bashrc for every command). Processes
 * that live under 100 ms, or the last ticks before a process exits, fall into "unsampled".
 */
const TOOLS = new Set(['sh', 'dash', 'tail', 'stat', 'cat', 'grep', 'ls', 'getconf', 'sleep', 'head']);
function sampler(roots) {
  const byPid = roots.map(() => new Map()); // pid -> {kind, ticks}
  const tick = () => {
    const kids = new Map();
    const stats = new Map();
    for (const name of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      const st = procStat(Number(name));
      if (!st) continue;
      stats.set(Number(name), st);
      if (!kids.has(st.ppid)) kids.set(st.ppid, []);
      kids.get(st.ppid).push(Number(name));
    }
    roots.forEach((root, i) => {
      const todo = [root];
      while (todo.length) {
        for (const c of kids.get(todo.pop()) ?? []) {
          todo.push(c);
          const st = stats.get(c);
          const kind = st.comm.startsWith('sshd') ? 'sshd' : TOOLS.has(st.comm) ? 'tools' : 'login shell';
          const prev = byPid[i].get(c);
          // A process that execs (sh -> tail) keeps its pid and its ticks: the latest command names it.
          byPid[i].set(c, {
            kind,
            ticks: Math.max(prev?.ticks ?? 0, st.utime + st.stime),
            base: prev?.base ?? null,
          });
        }
      }
    });
  };
  let timer = null;
  return {
    start() {
      tick();
      // Ticks spent before the window are not the window's.
      for (const m of byPid) for (const v of m.values()) v.base = v.ticks;
      timer = setInterval(tick, 100);
    },
    stop() {
      clearInterval(timer);
      tick();
      return byPid.map((m) => {
        const out = { sshd: 0, tools: 0, 'login shell': 0 };
        for (const v of m.values()) out[v.kind] += v.ticks - (v.base ?? 0);
        return out;
      });
    },
  };
}

const pct = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

function runSeedsGrep(cfg, logPath) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const p = spawn(
      'ssh',
      [
        '-F',
        cfg,
        '-o',
        'ControlMaster=no',
        '-o',
        'ControlPath=none',
        '-o',
        'BatchMode=yes',
        'firedup-test',
        'grep',
        '-c',
        `'${GREP_PATTERN}'`,
        logPath,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    p.stdout.on('data', (b) => (out += b));
    p.stderr.on('data', (b) => (err += b));
    p.on('close', (code) => resolve({ code, out: out.trim(), err: err.trim(), ms: performance.now() - t0 }));
  });
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const sshMod = path.join(REPO, 'dist/test/ssh.js');
  if (!fs.existsSync(sshMod)) throw new BenchError('dist/test/ssh.js is missing: run `npm run build` first');
  const { startSshd } = await import(sshMod);

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-bench-ssh-'));
  const cleanups = [() => fs.rmSync(work, { recursive: true, force: true })];
  const cleanup = () => {
    for (const c of cleanups.reverse()) {
      try {
        c();
      } catch {}
    }
    cleanups.length = 0;
  };
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      cleanup();
      process.exit(130);
    });
  }
  try {
    const logPath = prepareLog(opts.bytes, work);
    const lines = servingLines(work);

    // One sshd per method, so that each method's remote processes form their own tree.
    const sshdF = await startSshd();
    cleanups.push(() => sshdF.stop());
    const sshdS = await startSshd();
    cleanups.push(() => sshdS.stop());
    const relayF = await countingRelay(sshdF.port);
    const relayS = await countingRelay(sshdS.port);
    cleanups.push(
      () => relayF.server.close(),
      () => relayS.server.close(),
    );
    const cfgF = clientConfig(sshdF, relayF.port, 'firedup');
    const cfgS = clientConfig(sshdS, relayS.port, 'seeds');
    const pidF = sshdPid(sshdF);
    const pidS = sshdPid(sshdS);
    log(
      `sshd ${pidF} (firedup) and ${pidS} (seeds) on 127.0.0.1, via counting relays ${relayF.port}, ${relayS.port}`,
    );

    // Sanity: the seeds' command works before anything is counted; then zero the counters.
    const probe = await runSeedsGrep(cfgS, logPath);
    if (probe.code !== 0 && probe.code !== 1)
      throw new BenchError(`ssh grep failed (exit ${probe.code}): ${probe.err}`);
    log(`seeds' grep on the history: ${probe.out} matches in ${(probe.ms / 1000).toFixed(2)} s`);
    await sleep(300);

    const baseF = treeTicks(pidF);
    const baseS = treeTicks(pidS);
    relayF.counts.up = relayF.counts.down = relayF.counts.connections = 0;
    relayS.counts.up = relayS.counts.down = relayS.counts.connections = 0;

    // firedup starts first and catches up on the history; the window opens once it has (first progress
    // event for a bar written before the window, id 0), so the catch-up is reported on its own.
    const writes = new Map(); // id -> write time
    const events = new Map(); // id -> event time
    const t0 = performance.now();
    const fd = fs.openSync(logPath, 'a');
    cleanups.push(() => fs.closeSync(fd));
    const bar = (k) =>
      `Loading safetensors checkpoint shards: ${String(Math.floor(k / 1000)).padStart(3)}% Completed | ${k}/100000 [00:01<00:01,  3.00it/s]\n`;
    const writeBar = (k) => {
      fs.writeSync(fd, bar(k));
      writes.set(k, performance.now());
    };
    writeBar(1);

    const fired = spawn(
      process.execPath,
      [
        path.join(REPO, 'bin/firedup.js'),
        'watch',
        '--json',
        '--no-gpu',
        '--ssh-config',
        cfgF,
        `firedup-test:${logPath}`,
      ],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    cleanups.push(() => fired.exitCode === null && fired.kill('SIGKILL'));
    let ferr = '';
    fired.stderr.on('data', (b) => (ferr += b));
    let buf = '';
    let caughtUp = null;
    let onCaughtUp;
    const caughtUpP = new Promise((r) => (onCaughtUp = r));
    const eventCounts = {};
    fired.stdout.on('data', (b) => {
      const now = performance.now();
      buf += b;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let e;
        try {
          e = JSON.parse(line);
        } catch {
          continue;
        }
        eventCounts[e.type] = (eventCounts[e.type] ?? 0) + 1;
        // Reconnects, resets and errors explain odd figures.
        if (e.type === 'source' || e.type === 'launch')
          log(`firedup at ${((now - t0) / 1000).toFixed(1)} s: ${line.slice(0, 200)}`);
        if (e.type === 'progress' && typeof e.done === 'number' && !events.has(e.done)) {
          events.set(e.done, now);
          if (e.done === 1 && caughtUp === null) {
            caughtUp = now;
            onCaughtUp();
          }
        }
      }
    });
    const firedExit = new Promise((r) => fired.on('close', (c, s) => r(c ?? s)));
    const early = await Promise.race([
      caughtUpP.then(() => null),
      firedExit,
      new Promise((r) => setTimeout(() => r('timeout'), 600_000).unref()),
    ]);
    if (early !== null) {
      throw new BenchError(
        `firedup did not report the first bar (${early}); events ${JSON.stringify(eventCounts)}\n${ferr.slice(-2000)}`,
      );
    }
    const catchUp = {
      s: (caughtUp - t0) / 1000,
      bytes: relayF.counts.up + relayF.counts.down,
      ticks: treeTicks(pidF) - baseF,
    };
    log(
      `firedup caught up on ${(opts.bytes / 1e6).toFixed(0)} MB in ${catchUp.s.toFixed(1)} s; window of ${opts.seconds} s starts`,
    );

    // The window.
    const ticksF0 = treeTicks(pidF);
    const wireF0 = relayF.counts.up + relayF.counts.down;
    const size0 = fs.fstatSync(fd).size;
    const samp = sampler([pidF, pidS]);
    samp.start();
    const w0 = performance.now();
    const end = w0 + opts.seconds * 1000;
    const bytesPerTick = (opts.rate / 60_000) * WRITE_EVERY_MS;
    let li = 0;
    let owed = 0;
    let nextBar = w0;
    let nextId = 2;
    let nextSeed = w0;
    const seedRuns = [];
    const seedPromises = [];
    while (performance.now() < end) {
      const now = performance.now();
      if (now >= nextSeed) {
        seedPromises.push(runSeedsGrep(cfgS, logPath).then((r) => seedRuns.push(r)));
        nextSeed += SEED_EVERY_MS;
      }
      owed += bytesPerTick;
      let chunk = '';
      while (chunk.length < owed) {
        chunk += lines[li];
        li = (li + 1) % lines.length;
      }
      if (now >= nextBar) {
        if (chunk) fs.writeSync(fd, chunk);
        owed -= chunk.length;
        chunk = '';
        writeBar(nextId++);
        owed -= bar(0).length;
        nextBar += BAR_EVERY_MS;
      }
      if (chunk) {
        fs.writeSync(fd, chunk);
        owed -= chunk.length;
      }
      await sleep(WRITE_EVERY_MS);
    }
    const lastId = nextId - 1;
    const growth = fs.fstatSync(fd).size - size0;
    // Let the last bars arrive (up to 5 s), then stop firedup and the seeds.
    const grace = performance.now() + 5000;
    while (performance.now() < grace && !events.has(lastId)) await sleep(50);
    const windowS = (performance.now() - w0) / 1000;
    const wireF = relayF.counts.up + relayF.counts.down - wireF0;
    await Promise.all(seedPromises);
    fired.kill('SIGINT');
    await Promise.race([firedExit, new Promise((r) => setTimeout(r, 3000).unref())]);
    await sleep(500);
    const [splitF, splitS] = samp.stop();
    const cpuF = (treeTicks(pidF) - ticksF0) / CLK_TCK;
    const cpuS = (treeTicks(pidS) - baseS) / CLK_TCK;
    const wireS = relayS.counts.up + relayS.counts.down;

    const lat = [];
    let missing = 0;
    for (let k = 2; k <= lastId; k++) {
      if (events.has(k)) lat.push(events.get(k) - writes.get(k));
      else missing++;
    }
    const p50 = pct(lat, 50);
    const p95 = pct(lat, 95);
    const badSeeds = seedRuns.filter((r) => r.code !== 0 && r.code !== 1);
    if (badSeeds.length) log(`warning: ${badSeeds.length} seeds' ssh grep runs failed: ${badSeeds[0].err}`);

    const ratioF = wireF / growth;
    const ratioS = wireS / growth;
    const kb = (b) => `${(b / 1e3).toFixed(1)} kB`;
    const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
    const rows = [
      ['measure', 'firedup watch', 'seeds (ssh grep /10 s)', 'goal', 'firedup'],
      ['log growth in window', kb(growth), kb(growth), '', ''],
      [
        'bytes over the wire',
        `${kb(wireF)} (${ratioF.toFixed(2)}x)`,
        `${kb(wireS)} (${ratioS.toFixed(2)}x, ${seedRuns.length} runs)`,
        `<= ${GOAL_WIRE_RATIO}x growth`,
        verdict(ratioF <= GOAL_WIRE_RATIO),
      ],
      ['remote CPU (exact)', `${cpuF.toFixed(2)} s`, `${cpuS.toFixed(2)} s`, '', ''],
      ...['sshd', 'tools', 'login shell'].map((k) => [
        `  sampled: ${k}`,
        `${(splitF[k] / CLK_TCK).toFixed(2)} s`,
        `${(splitS[k] / CLK_TCK).toFixed(2)} s`,
        '',
        '',
      ]),
      [
        '  unsampled (short-lived)',
        `${(cpuF - (splitF.sshd + splitF.tools + splitF['login shell']) / CLK_TCK).toFixed(2)} s`,
        `${(cpuS - (splitS.sshd + splitS.tools + splitS['login shell']) / CLK_TCK).toFixed(2)} s`,
        '',
        '',
      ],
      [
        'bar -> event latency',
        p95 === null ? 'none' : `p50 ${(p50 / 1000).toFixed(3)} s, p95 ${(p95 / 1000).toFixed(3)} s`,
        `(every ${SEED_EVERY_MS / 1000} s, counts only)`,
        `p95 <= ${GOAL_P95_MS / 1000} s`,
        verdict(p95 !== null && p95 <= GOAL_P95_MS && missing === 0),
      ],
      ['bars seen', `${lat.length}/${lastId - 1}`, '', 'all', ''],
      [
        'catch-up (before window)',
        `${(opts.bytes / 1e6).toFixed(0)} MB: ${catchUp.s.toFixed(1)} s, ${(catchUp.bytes / 1e6).toFixed(1)} MB wire, ${(catchUp.ticks / CLK_TCK).toFixed(2)} s CPU`,
        `one grep: ${(probe.ms / 1000).toFixed(2)} s`,
        '',
        '',
      ],
    ];
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    process.stdout.write(
      `bench:ssh  history ${(opts.bytes / 1e6).toFixed(0)} MB, window ${windowS.toFixed(1)} s, writer ${(opts.rate / 1e6).toFixed(1)} MB/min, CLK_TCK ${CLK_TCK}\n`,
    );
    for (const r of rows)
      process.stdout.write(
        `${r
          .map((c, i) => c.padEnd(widths[i]))
          .join('  ')
          .trimEnd()}\n`,
      );
  } finally {
    cleanup();
  }
}

main().catch((err) => {
  process.stderr.write(`bench:ssh: ${err instanceof BenchError ? err.message : err.stack}\n`);
  process.exitCode = 1;
});
