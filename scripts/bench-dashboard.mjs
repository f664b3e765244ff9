#!/usr/bin/env node
// `npm run bench:dashboard`: how fast do the dashboard's pages first render on a big ledger?
//
// usage: node scripts/bench-dashboard.mjs [--launches N] [--points P] [--loads K]
//   --launches N  launches in the ledger (default 1000), made from the scenario launches with varied ids,
//                 hosts, start times and flags
//   --points P    points in the throughput series of one of them (default 100000)
//   --loads K     page loads per figure; the median is reported (default 5)
//
// Needs the build (`npm run build`; FIREDUP_DIST=dist-x measures another compiled tree) and Debian's
// chromium (/usr/bin/chromium; the tests install it). Starts `firedup serve` on a temp ledger, then loads each
// page K times in headless Chromium, each in a fresh browser context (empty cache):
//   table   #/            navigation start → performance mark 'firedup:table-rendered' (the first rows in the
//                         DOM; the rest follow in later tasks: 'firedup:table-complete', reported too)
//   detail  #/launch/ID   navigation start → 'firedup:chart-rendered' (the 100k-point chart drawn)
// Baseline in the same run: in a page of the same origin, the time to fetch and JSON.parse the same API
// response (/api/launches?limit=100&facets=1: one page, as the table asks for it; /api/launches/ID) without
// rendering anything; the ratio says what the page adds to getting its data. Goal: first render ≤ 1 s.
//
// Exits 0 whatever the figures say; 1 when it cannot measure.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { bigLedger, chromiumOptions, loadDist, startServe } from './lib/dashboard-fixtures.mjs';

const GOAL_MS = 1000;
const log = (msg) => process.stderr.write(`bench:dashboard: ${msg}\n`);

function parseArgs(argv) {
  const opts = { launches: 1000, points: 100_000, loads: 5 };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in opts)) throw new Error(`unknown option ${argv[i]} (--launches N, --points P, --loads K)`);
    const v = Number(argv[++i]);
    if (!Number.isInteger(v) || v < 1) throw new Error(`${argv[i - 1]} needs a positive whole number`);
    opts[key] = v;
  }
  return opts;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Navigation start → the app's performance mark (and `complete`, when given), in a fresh context. */
async function firstRender(browser, url, mark, complete) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  try {
    const page = await ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(url);
    await page.waitForFunction((m) => performance.getEntriesByName(m).length > 0, mark, { timeout: 60_000 });
    if (complete)
      await page.waitForFunction((m) => performance.getEntriesByName(m).length > 0, complete, {
        timeout: 60_000,
      });
    if (errors.length) throw new Error(`page error: ${errors[0]}`);
    // The app's own marks split the figure: its script running, its data parsed, the page drawn.
    return await page.evaluate(
      ([m, c]) => ({
        total: performance.getEntriesByName(m)[0].startTime,
        start: performance.getEntriesByName('firedup:app-start')[0]?.startTime ?? Number.NaN,
        data: performance.getEntriesByName('firedup:data-ready')[0]?.startTime ?? Number.NaN,
        complete: c ? performance.getEntriesByName(c)[0].startTime : Number.NaN,
      }),
      [mark, complete],
    );
  } finally {
    await ctx.close();
  }
}

/** fetch + JSON.parse of one API response from a page of the same origin, nothing rendered. */
async function fetchParse(browser, base, apiPath) {
  const ctx = await browser.newContext();
  try {
    const page = await ctx.newPage();
    // A small same-origin document to run the fetch from (the API's smallest answer).
    await page.goto(`${base}/api/live`);
    return await page.evaluate(async (p) => {
      const t0 = performance.now();
      const res = await fetch(p);
      const text = await res.text();
      JSON.parse(text);
      return { ms: performance.now() - t0, bytes: text.length };
    }, apiPath);
  } finally {
    await ctx.close();
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const CHROMIUM = await chromiumOptions();
  if (!fs.existsSync(CHROMIUM.executablePath))
    throw new Error(
      `${CHROMIUM.executablePath} is missing: apt-get install chromium (the tests install it too)`,
    );
  const mods = await loadDist();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-bench-dashboard-'));
  const ledgerFile = path.join(dir, 'ledger.db');
  let served = null;
  let browser = null;
  try {
    log(`building a ledger of ${opts.launches} launches, one with a ${opts.points}-point series`);
    const { bigId } = bigLedger(mods, ledgerFile, opts.launches, opts.points);
    const ledgerMiB = fs.statSync(ledgerFile).size / 2 ** 20;
    served = await startServe(['--ledger', ledgerFile, '--no-gpu']);
    browser = await chromium.launch(CHROMIUM);
    const pages = [
      {
        name: 'table',
        hash: '#/',
        mark: 'firedup:table-rendered',
        complete: 'firedup:table-complete',
        api: '/api/launches?limit=100&facets=1',
      },
      {
        name: 'detail',
        hash: `#/launch/${bigId}`,
        mark: 'firedup:chart-rendered',
        api: `/api/launches/${bigId}`,
      },
    ];
    // One load of each first: the server's and the OS's caches warm, as for a dashboard in use.
    for (const p of pages) await firstRender(browser, `${served.base}/${p.hash}`, p.mark, p.complete);
    const rows = [];
    for (const p of pages) {
      const render = [];
      const base = [];
      let bytes = 0;
      for (let i = 0; i < opts.loads; i++) {
        render.push(await firstRender(browser, `${served.base}/${p.hash}`, p.mark, p.complete));
        const f = await fetchParse(browser, served.base, p.api);
        base.push(f.ms);
        bytes = f.bytes;
      }
      rows.push({
        ...p,
        render: median(render.map((r) => r.total)),
        start: median(render.map((r) => r.start)),
        data: median(render.map((r) => r.data)),
        draw: median(render.map((r) => r.total - r.data)),
        complete: median(render.map((r) => r.complete)),
        base: median(base),
        bytes,
        all: render.map((r) => r.total),
      });
    }
    const version = browser.version();
    console.log(
      `bench:dashboard: ${opts.launches} launches (one with a ${opts.points}-point throughput series), ledger ${ledgerMiB.toFixed(1)} MiB; ` +
        `Chromium ${version} headless; median of ${opts.loads} loads, each in a fresh context`,
    );
    const ms = (x) => `${Math.round(x)} ms`;
    for (const r of rows) {
      const verdict = r.render <= GOAL_MS ? 'met' : 'MISSED';
      console.log(
        `  ${r.name.padEnd(6)} ${r.hash.length > 14 ? `${r.hash.slice(0, 14)}…` : r.hash.padEnd(15)}` +
          ` first render ${ms(r.render)} (loads: ${r.all.map((x) => Math.round(x)).join(', ')}); goal ≤ ${GOAL_MS} ms: ${verdict}\n` +
          `         app running at ${ms(r.start)}, data parsed at ${ms(r.data)}, drawn ${ms(r.draw)} after that` +
          (Number.isNaN(r.complete) ? '\n' : `; every row in the DOM at ${ms(r.complete)}\n`) +
          `         baseline: fetch+parse of the same ${(r.bytes / 2 ** 20).toFixed(2)} MiB of JSON alone ${ms(r.base)};` +
          ` first render / baseline ${(r.render / r.base).toFixed(1)}×`,
      );
    }
    const [l1] = os.loadavg();
    if (l1 > os.cpus().length)
      console.log(
        `  note: load average ${l1.toFixed(1)} on ${os.cpus().length} CPUs during the run: other work shared the machine, the figures are inflated`,
      );
  } finally {
    await browser?.close();
    await served?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  log(e.message);
  process.exit(1);
});
