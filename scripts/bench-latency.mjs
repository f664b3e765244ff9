#!/usr/bin/env node
// `npm run bench:latency`: how fast do `firedup wait` and `firedup watch` notice what happens to a
// server, and can `watch` follow a very busy log?
//
//   1. Detection latency (goal: p95 <= 1 s): a ready line written, a crash traceback written, the
//      server process killed (kill -9); time from the event to firedup's `verdict` JSON event.
//   2. Follow throughput (goal: never more than 1 s behind, at most one core): a writer appends
//      SGLang `Decode batch` lines at 50,000 lines/s with a tqdm bar line every 250 ms; the lag is the
//      time from writing bar K to firedup's `progress` event with done >= K. firedup's CPU use comes
//      from /proc/<pid>/stat (utime + stime).
//
// usage: node scripts/bench-latency.mjs [--rounds N] [--seconds S] [--parallel P] [--rate L]
//   --rounds N    rounds per event and command (default 10)
//   --seconds S   length of the throughput run (default 20)
//   --parallel P  latency rounds in flight at once (default 3). Only their idle stretches overlap: a
//                 lock keeps every firedup start-up and every event-to-verdict window to itself.
//   --rate L      lines/s for the throughput run (default 50000)
//
// The firedup under test is this checkout's bin/firedup.js (build first: npm run build).
// Exits 0 whatever the figures say (a bench reports, it does not gate); 1 when it cannot measure.
// Linux only (/proc).

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { useThrowawayLedger } from './lib/measure.mjs';

const SELF = fileURLToPath(import.meta.url);
useThrowawayLedger();

const REPO = path.resolve(path.dirname(SELF), '..');
const BIN = path.join(REPO, 'bin/firedup.js');
const SCENARIOS = path.join(REPO, 'test/fixtures/scenarios');
const READY_TEXT = 'The server is fired up and ready to roll!';
const GOAL_LATENCY_S = 1;
const GOAL_LAG_S = 1;
const GOAL_CORES = 1;
const EVENT_TIMEOUT_MS = 10_000;
const BAR_EVERY_MS = 250;
const BAR_TOTAL = 1000;

class BenchError extends Error {}

const abs = () => performance.timeOrigin + performance.now(); // ms since the epoch, shared across processes
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const note = (msg) => process.stderr.write(`bench: ${msg}\n`);

// ---------------------------------------------------------------------------------------------------
// Log content

const PAD2 = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : `${i}`));

function stamp(epochSec) {
  const d = new Date(epochSec * 1000);
  return `${d.getUTCFullYear()}-${PAD2[d.getUTCMonth() + 1]}-${PAD2[d.getUTCDate()]} ${PAD2[d.getUTCHours()]}:${PAD2[d.getUTCMinutes()]}:${PAD2[d.getUTCSeconds()]}`;
}

function readLines(file) {
  return fs.readFileSync(file, 'utf8').split('\n');
}

/** The SGLang launch header (up to, not including, the ready line), the ready line, and what follows. */
function loadFixtures() {
  const serving = readLines(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'));
  const at = serving.findIndex((l) => l.includes(READY_TEXT));
  if (at < 0) throw new BenchError('no ready line in glm5-cutlass-bench-then-shutdown.log');
  const header = `${serving.slice(0, at).join('\n')}\n`;
  const ready = `${serving[at]}\n`;
  // A few lines of a serving server after the ready line: Decode batches and access lines.
  const after = serving.slice(at + 1, at + 12).filter((l) => / Decode batch, |INFO: /.test(l));
  if (!after.some((l) => l.includes('Decode batch')))
    throw new BenchError('no Decode batch lines after ready');
  const decode = `${after.join('\n')}\n`;
  const oom = readLines(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'));
  const tb = oom.findIndex((l) => l.includes('Scheduler hit an exception: Traceback'));
  if (tb < 0) throw new BenchError('no traceback in glm5-trtllm-oom-in-cuda-graph.log');
  let crash = oom.slice(tb).join('\n');
  if (!crash.endsWith('\n')) crash += '\n';
  const lastStamp = /^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/.exec(serving[at])?.[1] ?? '2026-02-19 13:03:46';
  return { header, ready, decode, crash, readyEpoch: Date.parse(`${lastStamp.replace(' ', 'T')}Z`) / 1000 };
}

// ---------------------------------------------------------------------------------------------------
// Children: every one is tracked and killed at the end, on errors and on Ctrl-C.

const children = new Set();
let tmpDir = null;

function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

function cleanup() {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {}
  }
  children.clear();
  if (tmpDir) {
    fs.rmSync(tmpDir, { recursive: true, force: true });
    tmpDir = null;
  }
}

/** A running firedup whose `--json` events are time-stamped on arrival. */
class Firedup {
  constructor(args) {
    this.args = args;
    this.events = []; // {t: performance.now() at arrival, e}
    this.stderr = '';
    this.junk = []; // stdout lines that are not JSON
    this.exit = null; // {code, signal, t}
    this.waiters = new Set();
    this.t0 = performance.now();
    this.child = track(spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
    this.pid = this.child.pid;
    let buf = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (s) => {
      const t = performance.now();
      buf += s;
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        nl = buf.indexOf('\n');
        if (!line) continue;
        let e;
        try {
          e = JSON.parse(line);
        } catch {
          this.junk.push(line);
          continue;
        }
        this.events.push({ t, e });
        for (const w of this.waiters) w.check();
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (s) => {
      if (this.stderr.length < 10_000) this.stderr += s;
    });
    this.closed = new Promise((resolve) => {
      this.child.on('error', (err) => {
        this.exit = { code: null, signal: null, t: performance.now(), error: err };
        resolve(this.exit);
        for (const w of this.waiters) w.check();
      });
      this.child.on('close', (code, signal) => {
        this.exit ??= { code, signal, t: performance.now() };
        resolve(this.exit);
        for (const w of this.waiters) w.check();
      });
    });
  }

  get lastVerdict() {
    for (let i = this.events.length - 1; i >= 0; i--)
      if (this.events[i].e.type === 'verdict') return this.events[i].e;
    return null;
  }

  /** The first event at index >= from that matches; null on timeout or when firedup exits first. */
  waitFor(pred, { from = 0, timeoutMs = EVENT_TIMEOUT_MS } = {}) {
    return new Promise((resolve) => {
      let i = from;
      const w = {
        check: () => {
          for (; i < this.events.length; i++) {
            if (pred(this.events[i].e)) return done(this.events[i]);
          }
          if (this.exit) done(null);
        },
      };
      const timer = setTimeout(() => done(null), timeoutMs);
      const done = (hit) => {
        clearTimeout(timer);
        this.waiters.delete(w);
        resolve(hit);
      };
      this.waiters.add(w);
      w.check();
    });
  }

  /** Stop it (SIGTERM, then SIGKILL after graceMs); resolves with how long the exit took, in ms. */
  async stop(graceMs = 3000) {
    if (this.exit) return 0;
    const t = performance.now();
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.closed;
    clearTimeout(timer);
    return performance.now() - t;
  }

  /** Wait for it to exit by itself, killing it after ms. */
  async exited(ms) {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), ms);
    const x = await this.closed;
    clearTimeout(timer);
    return x;
  }

  describe() {
    const err = this.stderr.trim().split('\n').slice(-3).join(' | ');
    return `firedup ${this.args.join(' ')}${err ? `: ${err}` : ''}`;
  }
}

/** One holder at a time: keeps the latency-critical windows of parallel rounds apart. */
class Lock {
  tail = Promise.resolve();
  acquire() {
    let release;
    const held = new Promise((r) => {
      release = r;
    });
    const prev = this.tail;
    this.tail = prev.then(() => held);
    return prev.then(() => release);
  }
}

// ---------------------------------------------------------------------------------------------------
// 1. Detection latency

const KINDS = [
  { kind: 'ready', label: 'ready line written', target: 'ready', exitCode: 0 },
  { kind: 'crashed', label: 'crash traceback written', target: 'crashed', exitCode: 2 },
  { kind: 'killed', label: 'process killed (-9)', target: 'dead', exitCode: 5 },
];
const COMMANDS = ['wait', 'watch'];

async function latencyRound(fx, job, lock, anomalies) {
  const { cmd, k, round } = job;
  const log = path.join(tmpDir, `${cmd}-${k.kind}-${round}.log`);
  const tag = `${k.kind}/${cmd}#${round + 1}`;
  const result = { cmd, kind: k.kind, latency: null };
  let standIn = null;
  let f = null;
  let release = await lock.acquire();
  try {
    // A serving launch for watch; wait returns 0 as soon as it sees one, so for wait the process
    // dies while its launch is still starting (the same header, no ready line).
    let text = fx.header;
    if (k.kind === 'killed') {
      standIn = track(spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }));
      if (cmd === 'watch') text += fx.ready + fx.decode;
    }
    fs.writeFileSync(log, text);
    const args = [cmd, log, '--no-gpu', '--json'];
    if (standIn) args.push('--pid', String(standIn.pid));
    f = new Firedup(args);
    const first = await f.waitFor((e) => e.type === 'verdict');
    if (!first)
      throw new BenchError(
        `${tag}: no first verdict within ${EVENT_TIMEOUT_MS / 1000} s from ${f.describe()}`,
      );
    if (k.kind === 'killed') {
      const up = (e) =>
        e.type === 'verdict' &&
        (cmd === 'watch' ? e.state === 'serving' || e.state === 'ready' : e.state !== 'waiting');
      const hit = await f.waitFor(up);
      if (!hit) {
        throw new BenchError(
          `${tag}: no ${cmd === 'watch' ? 'serving/ready' : 'starting'} verdict before the kill (last: ${f.lastVerdict?.state}) from ${f.describe()}`,
        );
      }
    }
    release();
    release = null;

    // Let it settle (1.5 s after the start), then act at a random moment in the next second: firedup
    // polls the log every 100 ms and probes the process every 1 s, and a fixed delay would always hit
    // the same phase of those timers.
    await sleep(Math.max(0, 1500 + Math.random() * 1000 - (performance.now() - f.t0)));
    release = await lock.acquire();
    const before = f.lastVerdict?.state;
    const from = f.events.length;
    let tAct;
    if (k.kind === 'ready') {
      fs.appendFileSync(log, fx.ready);
      tAct = performance.now();
    } else if (k.kind === 'crashed') {
      fs.appendFileSync(log, fx.crash);
      tAct = performance.now();
    } else {
      tAct = performance.now();
      standIn.kill('SIGKILL');
    }
    const hit = await f.waitFor((e) => e.type === 'verdict' && (e.state === k.target || e.final === true), {
      from,
    });
    if (!hit) {
      const after = f.events
        .slice(from)
        .filter((x) => x.e.type === 'verdict')
        .map((x) => x.e.state);
      anomalies.push(
        `${tag}: no '${k.target}' verdict within ${EVENT_TIMEOUT_MS / 1000} s (state before: ${before}; verdicts after: ${after.join(', ') || 'none'}${f.exit ? `; firedup exited ${f.exit.code ?? f.exit.signal}` : ''})`,
      );
    } else if (hit.e.state !== k.target) {
      anomalies.push(`${tag}: verdict '${hit.e.state}' instead of '${k.target}' (${hit.e.why})`);
    } else {
      result.latency = (hit.t - tAct) / 1000;
      if (before === 'waiting') anomalies.push(`${tag}: still 'waiting' when the event happened`);
      if (k.kind === 'crashed') result.failureClass = hit.e.failure?.class ?? null;
    }

    // How it ends: wait exits with the verdict's code; watch exits on a final verdict, else is stopped.
    if (cmd === 'wait' || k.target !== 'ready') {
      const x = await f.exited(3000);
      if (x.code !== k.exitCode) {
        anomalies.push(`${tag}: exit ${x.code ?? x.signal}, expected ${k.exitCode}`);
      } else if (hit) {
        result.exitAfter = (x.t - hit.t) / 1000;
      }
    } else {
      result.stopMs = await f.stop();
    }
    if (f.junk.length) anomalies.push(`${tag}: non-JSON output: ${f.junk[0].slice(0, 120)}`);
    return result;
  } finally {
    if (f && !f.exit) f.child.kill('SIGKILL');
    if (standIn && standIn.exitCode === null && standIn.signalCode === null) standIn.kill('SIGKILL');
    release?.();
    fs.rmSync(log, { force: true });
  }
}

async function benchLatency(fx, { rounds, parallel }) {
  const jobs = [];
  for (let round = 0; round < rounds; round++)
    for (const k of KINDS) for (const cmd of COMMANDS) jobs.push({ cmd, k, round });
  const lock = new Lock();
  const anomalies = [];
  const results = [];
  let next = 0;
  let failed = null;
  const lane = async () => {
    while (next < jobs.length && !failed) {
      const job = jobs[next++];
      try {
        results.push(await latencyRound(fx, job, lock, anomalies));
      } catch (err) {
        failed ??= err;
      }
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, lane));
  if (failed) throw failed;
  return { results, anomalies, wallS: (performance.now() - t0) / 1000, total: jobs.length };
}

/** Nearest-rank percentile of a sorted array. */
function pct(sorted, p) {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

const sec = (v) =>
  Number.isFinite(v) ? `${v.toFixed(3)} s` : v === Number.POSITIVE_INFINITY ? 'missed' : '-';

function reportLatency({ results, anomalies, wallS, total }, rounds) {
  const out = [];
  out.push(
    `1. Detection latency: event written/done -> firedup verdict event (goal: p95 <= ${GOAL_LATENCY_S} s)`,
  );
  out.push(
    `   ${rounds} rounds per event and command, ${total} in all, ${wallS.toFixed(0)} s; each event 1.5-2.5 s (uniform) after firedup starts`,
  );
  out.push(
    `   ${'event'.padEnd(26)}${'command'.padEnd(9)}${'n'.padStart(4)}${'median'.padStart(10)}${'p95'.padStart(10)}${'max'.padStart(10)}`,
  );
  const all = [];
  for (const k of KINDS) {
    for (const cmd of COMMANDS) {
      const rs = results.filter((r) => r.kind === k.kind && r.cmd === cmd);
      // A round without the right verdict counts as infinitely late.
      const lat = rs.map((r) => r.latency ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
      all.push(...lat);
      const missed = lat.filter((v) => !Number.isFinite(v)).length;
      out.push(
        `   ${k.label.padEnd(26)}${cmd.padEnd(9)}${String(lat.length).padStart(4)}${sec(pct(lat, 50)).padStart(10)}${sec(pct(lat, 95)).padStart(10)}${sec(lat[lat.length - 1]).padStart(10)}${missed ? `  (${missed} missed)` : ''}`,
      );
    }
  }
  all.sort((a, b) => a - b);
  const p95 = pct(all, 95);
  const pass = p95 <= GOAL_LATENCY_S;
  out.push(
    `   overall: p95 ${sec(p95)}, median ${sec(pct(all, 50))}, max ${sec(all[all.length - 1])} over ${all.length}  goal p95 <= ${GOAL_LATENCY_S} s  ${pass ? 'PASS' : 'FAIL'}`,
  );
  const over = all.filter((v) => v > GOAL_LATENCY_S).length;
  if (over) out.push(`   ${over} of ${all.length} detections took more than ${GOAL_LATENCY_S} s`);
  const classes = [
    ...new Set(results.filter((r) => r.kind === 'crashed' && r.latency !== null).map((r) => r.failureClass)),
  ];
  if (classes.length) out.push(`   crash verdicts' failure class: ${classes.join(', ')}`);
  const stops = results.map((r) => r.stopMs).filter((v) => v !== undefined);
  if (stops.length) {
    out.push(
      `   watch exit after SIGTERM: max ${(Math.max(...stops) / 1000).toFixed(2)} s (median ${(
        pct(
          stops.sort((a, b) => a - b),
          50,
        ) / 1000
      ).toFixed(2)} s)`,
    );
  }
  const exits = results
    .map((r) => r.exitAfter)
    .filter((v) => v !== undefined)
    .sort((a, b) => a - b);
  if (exits.length)
    out.push(
      `   exit after a final verdict: median ${sec(pct(exits, 50))}, max ${sec(exits[exits.length - 1])}`,
    );
  for (const a of anomalies) out.push(`   ! ${a}`);
  return { text: out.join('\n'), pass };
}

// ---------------------------------------------------------------------------------------------------
// 2. Follow throughput

function barLine(k) {
  const p = String(Math.floor((k * 100) / BAR_TOTAL)).padStart(3);
  return `Loading safetensors checkpoint shards: ${p}% Completed | ${k}/${BAR_TOTAL} [00:01<00:01,  3.00it/s]\n`;
}

/**
 * The writer child (`--writer LOG SECONDS RATE EPOCH`): appends Decode batch lines at RATE lines/s in
 * batches every ~10 ms, and bar line K every 250 ms; prints one JSON line with what it did at the end.
 */
async function writerMain([log, secondsArg, rateArg, epochArg]) {
  const seconds = Number(secondsArg);
  const rate = Number(rateArg);
  const logSec = Math.floor(Number(epochArg)) + 1;
  const fd = fs.openSync(log, 'a');
  // mulberry32, as in gen-serving-log.mjs: cheap, seeded noise for the numbers.
  let a = 7;
  const r = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let running = 600;
  let queue = 30;
  const decode = (prefix) => {
    running = Math.max(1, Math.min(1024, running + Math.round((r() - 0.5) * 8)));
    queue = Math.max(0, Math.min(400, queue + Math.round((r() - 0.5) * 6)));
    const tokens = Math.round(running * (900 + r() * 400));
    const usage = Math.min(99, Math.round(tokens / 8256));
    const tput = Math.round((200 + running * 1.7) * (90 + r() * 20));
    return `${prefix} Decode batch, #running-req: ${running}, #token: ${tokens}, token usage: 0.${PAD2[usage]}, cuda graph: True, gen throughput (token/s): ${Math.floor(tput / 100)}.${PAD2[tput % 100]}, #queue-req: ${queue}\n`;
  };
  const bars = [];
  let lines = 0;
  let bytes = 0;
  let maxBehind = 0; // lines behind the schedule just before a batch, at worst
  let maxGap = 0; // ms between two writes, at worst
  const start = abs();
  let last = start;
  let nextBar = BAR_EVERY_MS;
  let k = 0;
  const endMs = seconds * 1000;
  process.stdout.write(`${JSON.stringify({ start })}\n`);
  for (;;) {
    const now = abs();
    const el = now - start;
    const target = Math.floor((rate * Math.min(el, endMs)) / 1000);
    maxBehind = Math.max(maxBehind, target - lines);
    maxGap = Math.max(maxGap, now - last);
    last = now;
    const sNow = logSec + Math.floor(el / 1000);
    const prefix = `[${stamp(sNow)} TP0]`;
    let chunk = '';
    for (; lines < target; lines++) chunk += decode(prefix);
    let bar = 0;
    if (el >= nextBar && k < BAR_TOTAL && el < endMs) {
      bar = ++k;
      chunk += barLine(bar);
      nextBar += BAR_EVERY_MS;
    }
    if (chunk) {
      fs.writeSync(fd, chunk);
      bytes += chunk.length;
      if (bar) bars.push([bar, abs()]);
    }
    if (el >= endMs) break;
    await sleep(10);
  }
  fs.closeSync(fd);
  const end = abs();
  process.stdout.write(
    `${JSON.stringify({ done: true, start, end, lines, bytes, bars, maxBehind, maxGap })}\n`,
  );
}

function clkTck() {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/** utime + stime of pid, in clock ticks; null when gone. */
function cpuTicks(pid) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return Number(rest[11]) + Number(rest[12]); // fields 14 and 15
}

async function benchThroughput(fx, { seconds, rate }) {
  const log = path.join(tmpDir, 'follow.log');
  fs.writeFileSync(log, fx.header + fx.ready);
  const hz = clkTck();
  const f = new Firedup(['watch', log, '--no-gpu', '--json']);
  const samples = []; // [abs ms, ticks]
  const sample = () => {
    const t = cpuTicks(f.pid);
    if (t !== null) samples.push([abs(), t]);
  };
  sample();
  const sampler = setInterval(sample, 500);
  try {
    const first = await f.waitFor((e) => e.type === 'verdict');
    if (!first) throw new BenchError(`throughput: no first verdict from ${f.describe()}`);
    if (first.e.state !== 'ready') note(`throughput: first verdict is '${first.e.state}', not 'ready'`);
    await sleep(500);

    const writer = track(
      spawn(process.execPath, [SELF, '--writer', log, String(seconds), String(rate), String(fx.readyEpoch)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    );
    let wout = '';
    writer.stdout.setEncoding('utf8');
    writer.stdout.on('data', (s) => {
      wout += s;
    });
    const code = await new Promise((resolve) => writer.on('close', resolve));
    const msgs = wout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const w = msgs.find((m) => m.done);
    if (code !== 0 || !w) throw new BenchError(`throughput: the writer failed (exit ${code})`);
    // Give firedup up to 3 s to show the last bar.
    const lastK = w.bars.length ? w.bars[w.bars.length - 1][0] : 0;
    const drainFrom = abs();
    await f.waitFor((e) => e.type === 'progress' && e.done >= lastK, { timeoutMs: 3000 });
    const drainS = (abs() - drainFrom) / 1000;
    sample();
    clearInterval(sampler);
    if (f.exit)
      throw new BenchError(`throughput: firedup exited during the run (${f.exit.code}) ${f.describe()}`);

    // Lag per bar: its write to the first progress event that shows it (or a later bar).
    const prog = f.events
      .filter((x) => x.e.type === 'progress')
      .map((x) => ({ at: performance.timeOrigin + x.t, done: x.e.done }));
    const lags = [];
    let own = 0;
    const unseen = [];
    for (const [k, wt] of w.bars) {
      const p = prog.find((x) => x.done >= k && x.at >= wt - 1);
      if (!p) {
        unseen.push(k);
        lags.push(Number.POSITIVE_INFINITY);
        continue;
      }
      if (p.done === k) own++;
      lags.push((p.at - wt) / 1000);
    }
    lags.sort((a, b) => a - b);

    // CPU: the writer's window, and the worst 1-second window in it.
    const inRun = samples.filter(([t]) => t >= w.start - 600 && t <= w.end + 600);
    const span = (a, b) => (b[1] - a[1]) / hz / ((b[0] - a[0]) / 1000);
    const avg = inRun.length >= 2 ? span(inRun[0], inRun[inRun.length - 1]) : Number.NaN;
    let peak = 0;
    for (let i = 0; i < inRun.length; i++) {
      let j = i + 1;
      while (j < inRun.length && inRun[j][0] - inRun[i][0] < 950) j++;
      if (j < inRun.length) peak = Math.max(peak, span(inRun[i], inRun[j]));
    }
    const lastVerdict = f.lastVerdict;
    const stopMs = await f.stop();
    return {
      lastVerdict,
      w,
      lags,
      own,
      unseen,
      avg,
      peak,
      drainS,
      stopMs,
      rate,
      seconds,
      events: prog.length,
      hz,
    };
  } finally {
    clearInterval(sampler);
    if (!f.exit) f.child.kill('SIGKILL');
  }
}

function reportThroughput(t) {
  const { w, lags } = t;
  const dur = (w.end - w.start) / 1000;
  const achieved = w.lines / dur;
  const out = [];
  out.push(
    `2. Follow throughput: watch --json on a log growing by ${t.rate.toLocaleString('en-US')} Decode lines/s (goal: lag <= ${GOAL_LAG_S} s, CPU <= ${GOAL_CORES} core)`,
  );
  const sustained = achieved >= t.rate * 0.98 && w.maxBehind <= t.rate * 0.1;
  out.push(
    `   writer: ${w.lines.toLocaleString('en-US')} lines, ${(w.bytes / 1e6).toFixed(0)} MB in ${dur.toFixed(1)} s = ${Math.round(achieved).toLocaleString('en-US')} lines/s, ${(w.bytes / 1e6 / dur).toFixed(1)} MB/s (worst gap between writes ${w.maxGap.toFixed(0)} ms)${sustained ? '' : '  !! DID NOT SUSTAIN the target rate: figures below understate the load'}`,
  );
  const maxLag = lags[lags.length - 1];
  const lagPass = maxLag <= GOAL_LAG_S;
  out.push(
    `   lag of ${lags.length} bar lines (write -> progress event): median ${sec(pct(lags, 50))}, p95 ${sec(pct(lags, 95))}, max ${sec(maxLag)}  goal max <= ${GOAL_LAG_S} s  ${lagPass ? 'PASS' : 'FAIL'}`,
  );
  if (t.own < lags.length - t.unseen.length) {
    out.push(
      `   ${lags.length - t.unseen.length - t.own} bars had no progress event of their own (shown only by a later one)`,
    );
  }
  if (t.unseen.length)
    out.push(
      `   ! ${t.unseen.length} bars never shown: K = ${t.unseen.slice(0, 10).join(', ')}${t.unseen.length > 10 ? ', ...' : ''}`,
    );
  const cpuPass = t.peak <= GOAL_CORES;
  out.push(
    `   firedup CPU (utime+stime, /proc every 500 ms, CLK_TCK ${t.hz}): average ${t.avg.toFixed(2)} cores, peak ${t.peak.toFixed(2)} cores over 1 s  goal <= ${GOAL_CORES.toFixed(1)}  ${cpuPass ? 'PASS' : 'FAIL'}`,
  );
  const v = t.lastVerdict;
  out.push(
    `   ${t.events} progress events; last verdict: ${v ? `${v.state} (${v.why})` : 'none'}; watch exit after SIGTERM: ${(t.stopMs / 1000).toFixed(2)} s`,
  );
  return { text: out.join('\n'), pass: lagPass && cpuPass };
}

// ---------------------------------------------------------------------------------------------------

function parseArgs(argv) {
  const opts = { rounds: 10, seconds: 20, parallel: 3, rate: 50_000 };
  const usage = 'usage: bench-latency.mjs [--rounds N] [--seconds S] [--parallel P] [--rate L]';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    }
    const key = { '--rounds': 'rounds', '--seconds': 'seconds', '--parallel': 'parallel', '--rate': 'rate' }[
      a
    ];
    if (!key) throw new BenchError(`unknown option ${a} (${usage})`);
    const v = Number(argv[++i]);
    if (!Number.isFinite(v) || v <= 0) throw new BenchError(`${a} needs a positive number`);
    opts[key] = key === 'seconds' ? v : Math.floor(v);
  }
  if (opts.seconds * (1000 / BAR_EVERY_MS) >= BAR_TOTAL)
    throw new BenchError(`--seconds must be under ${BAR_TOTAL / 4}`);
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(REPO, 'dist/src/cli/main.js'))) {
    throw new BenchError('dist/ is missing: build first (npm run build)');
  }
  const fx = loadFixtures();
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-bench-latency-'));
  console.log(
    `firedup bench:latency · node ${process.version} · ${os.cpus().length} CPUs · ${os.cpus()[0]?.model?.trim() ?? ''}`,
  );
  note(`detection latency: ${opts.rounds} rounds x ${KINDS.length} events x ${COMMANDS.length} commands ...`);
  const lat = reportLatency(await benchLatency(fx, opts), opts.rounds);
  console.log(lat.text);
  note(`follow throughput: ${opts.seconds} s at ${opts.rate} lines/s ...`);
  const thr = reportThroughput(await benchThroughput(fx, opts));
  console.log(thr.text);
  console.log(`overall: latency ${lat.pass ? 'PASS' : 'FAIL'}, throughput ${thr.pass ? 'PASS' : 'FAIL'}`);
}

if (process.argv[2] === '--writer') {
  writerMain(process.argv.slice(3)).catch((err) => {
    process.stderr.write(`bench writer: ${err.stack ?? err}\n`);
    process.exit(1);
  });
} else {
  const interrupted = (sig) => {
    cleanup();
    process.stderr.write(`bench: ${sig}, children killed\n`);
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  main()
    .catch((err) => {
      process.stderr.write(`bench: ${err instanceof BenchError ? err.message : (err.stack ?? err)}\n`);
      process.exitCode = 1;
    })
    .finally(cleanup);
}
