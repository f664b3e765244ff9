// Ledgers for the dashboard scripts (`npm run screenshots`, `npm run bench:dashboard`), built the way the
// ledger is filled for real: the scenario logs analysed, recorded with recordFromReport, upserted; the bench
// fixtures parsed and attached; targets added. Runs on the compiled tree: dist/ (`npm run build`), or the
// one FIREDUP_DIST names (relative to the repository).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = path.resolve(REPO, process.env.FIREDUP_DIST ?? 'dist');
export const BIN = path.join(DIST, 'src', 'cli', 'bin.js');
export const SCENARIOS = path.join(REPO, 'test', 'fixtures', 'scenarios');
const BENCH = path.join(REPO, 'test', 'fixtures', 'bench');

/** Chromium exactly as the tests start it (test/browser.ts): Debian's package, never a downloaded browser. */
export async function chromiumOptions() {
  const browser = path.join(DIST, 'test', 'browser.js');
  if (!fs.existsSync(browser)) throw new Error(`${browser} is missing: run \`npm run build\` first`);
  const { CHROMIUM, CHROMIUM_ARGS } = await import(browser);
  return { executablePath: CHROMIUM, args: CHROMIUM_ARGS };
}

export async function loadDist() {
  if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` first`);
  const imp = (rel) => import(path.join(DIST, 'src', rel));
  const [{ Ledger }, { recordFromReport }, { LogAnalyzer }, { parseBenchOutput }, { parseTarget }] =
    await Promise.all([
      imp('store/ledger.js'),
      imp('store/record.js'),
      imp('core/reading/analyzer.js'),
      imp('core/campaign/bench/index.js'),
      imp('core/campaign/targets.js'),
    ]);
  return { Ledger, recordFromReport, LogAnalyzer, parseBenchOutput, parseTarget };
}

function analyze(mods, file) {
  const a = new mods.LogAnalyzer({ year: 2026 });
  a.push(fs.readFileSync(file));
  return a.end();
}

/** Every launch of every scenario log, as a LaunchRecord (host localhost, or gpu-b for the TRT-LLM OOM). */
export function scenarioRecords(mods, now = Math.floor(Date.now() / 1000)) {
  const recs = [];
  for (const name of fs.readdirSync(SCENARIOS).sort()) {
    const file = path.join(SCENARIOS, name);
    const st = fs.statSync(file);
    const host = name.includes('trtllm') ? 'gpu-b' : 'localhost';
    for (const l of analyze(mods, file).launches)
      recs.push(mods.recordFromReport(l, { host, path: file, fileId: `${st.dev}:${st.ino}`, now }));
  }
  return recs;
}

function fingerprinted({ runText, ...rest }) {
  return { ...rest, fingerprint: createHash('sha256').update(runText).digest('hex').slice(0, 16) };
}

/** The bench fixtures attached to the serving launches, and two targets. */
export function addBenchesAndTargets(mods, ledger, recs) {
  const cutlass = recs.find((r) => r.path.includes('cutlass') && r.peakTokS !== null);
  const relaunch = recs.find((r) => r.path.includes('relaunch') && r.peakTokS !== null);
  const read = (f) =>
    mods.parseBenchOutput(fs.readFileSync(path.join(BENCH, f), 'utf8'), f).map(fingerprinted);
  if (cutlass) for (const b of read('vllm-save-result.json')) ledger.addBench(cutlass.id, b);
  if (relaunch) for (const b of read('sglang-bench-serving.txt')) ledger.addBench(relaunch.id, b);
  for (const expr of ['output_tok_s >= 1000', 'load_s <= 120']) {
    const t = mods.parseTarget(expr);
    ledger.addTarget({ model: null, metric: t.metric, op: t.op, value: t.value, expr: t.expr });
  }
}

/** A ledger at `file` holding the scenario launches, their benches and targets; returns the records. */
export function scenarioLedger(mods, file) {
  const ledger = mods.Ledger.open(file);
  try {
    const recs = scenarioRecords(mods);
    ledger.upsertLaunches(recs);
    addBenchesAndTargets(mods, ledger, recs);
    return recs;
  } finally {
    ledger.close();
  }
}

/**
 * `count` launches made from the scenario launches with varied ids, hosts, start times and flags, one of
 * which (returned) carries a `points`-point throughput series: the bench's worst case.
 */
export function bigLedger(mods, file, count = 1000, points = 100_000) {
  const base = scenarioRecords(mods);
  const ledger = mods.Ledger.open(file);
  const backends = ['flashinfer_cutlass', 'flashinfer_trtllm', 'triton', 'deep_gemm'];
  const recs = [];
  for (let i = 0; i < count; i++) {
    const r = structuredClone(base[i % base.length]);
    r.id = createHash('sha256').update(`bench-${i}`).digest('hex').slice(0, 16);
    r.host = `gpu-${String(i % 17).padStart(2, '0')}`;
    r.startOffset = i;
    const shift = (count - i) * 3600;
    r.startTs = r.startTs === null ? null : r.startTs - shift;
    r.endTs = r.endTs === null ? null : r.endTs - shift;
    const cfg = r.report.config;
    cfg.max_running_requests = [64, 128, 256, 1024][i % 4];
    cfg.moe_runner_backend = backends[(i >> 2) % 4];
    cfg.tp_size = i % 5 === 0 ? 4 : 8;
    r.report.configSummary.max_running_requests = cfg.max_running_requests;
    r.report.configSummary.moe_runner_backend = cfg.moe_runner_backend;
    r.report.configSummary.tp = cfg.tp_size;
    recs.push(r);
  }
  const big = recs.find((r) => r.report.throughput !== null);
  const t0 = big.report.startTs ?? 1_771_000_000;
  const series = new Array(points);
  // Engines print throughput with two decimals (`gen throughput (token/s): 1791.20`): so do these points.
  for (let i = 0; i < points; i++) {
    const tokS = 900 + 300 * Math.sin(i / 2000) + ((i * 7919) % 97);
    series[i] = [t0 + 120 + i * 0.5, Math.round(tokS * 100) / 100];
  }
  big.report.throughput = { ...big.report.throughput, series, samples: points };
  try {
    ledger.upsertLaunches(recs);
  } finally {
    ledger.close();
  }
  return { ids: recs.map((r) => r.id), bigId: big.id };
}

/** `firedup serve` of the compiled tree on a free port; resolves once it printed its URL. */
export function startServe(args, env = {}) {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      if (child.exitCode !== null || Date.now() - started > 30_000) {
        clearInterval(poll);
        child.kill('SIGKILL');
        reject(new Error(`firedup serve did not start: ${err.trim()}`));
      } else if (out.includes('\n') && err.includes('Ctrl-C')) {
        clearInterval(poll);
        const url = out.trim().split('\n')[0];
        resolve({
          child,
          url,
          base: `http://127.0.0.1:${new URL(url).port}`,
          stop: () =>
            new Promise((r) => {
              if (child.exitCode !== null) return r();
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    }, 25);
  });
}
