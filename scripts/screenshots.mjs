#!/usr/bin/env node
// `npm run screenshots`: the dashboard's pages as PNGs (1400×900) in docs/, for docs/dashboard.md.
//
// Needs the build (`npm run build`; FIREDUP_DIST=dist-x uses another compiled tree) and Debian's chromium
// (/usr/bin/chromium; the tests install it). Starts `firedup serve` on a temp ledger holding the scenario
// launches (with the bench fixtures attached and two targets) and three watched logs that `firedup replay`
// writes while the pictures are taken: one loading its weights, one crashing in CUDA-graph capture, one serving. The GPU
// figures come from test/fixtures/fake-bin/nvidia-smi (a captured H200 nvidia-smi, state "busy").
//
//   docs/dashboard-table.png     #/               the launches table (the watched launches too)
//   docs/dashboard-detail.png    #/launch/ID      the crashed launch: timeline, the cuda_graph bar's evidence
//   docs/dashboard-throughput.png                a serving launch's throughput chart and load breakdown
//   docs/dashboard-stalled.png   #/launch/ID      a launch a live look left stalled: why, next, quiet
//   docs/dashboard-compare.png   #/compare/A,B,C  config diff, throughput since ready, phase durations
//   docs/dashboard-live.png      #/live           the three watched logs, live: charts from the event stream

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import {
  BIN,
  chromiumOptions,
  loadDist,
  REPO,
  SCENARIOS,
  scenarioLedger,
  startServe,
} from './lib/dashboard-fixtures.mjs';

const DOCS = path.join(REPO, 'docs');
const VIEWPORT = { width: 1400, height: 900 };
const log = (msg) => process.stderr.write(`screenshots: ${msg}\n`);

function replay(log, speed, out) {
  return spawn(
    process.execPath,
    [BIN, 'replay', path.join(SCENARIOS, log), '--speed', String(speed), '--out', out],
    {
      stdio: 'ignore',
    },
  );
}

async function main() {
  const CHROMIUM = await chromiumOptions();
  if (!fs.existsSync(CHROMIUM.executablePath))
    throw new Error(
      `${CHROMIUM.executablePath} is missing: apt-get install chromium (the tests install it too)`,
    );
  const mods = await loadDist();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'firedup-screens-'));
  const ledgerFile = path.join(dir, 'ledger.db');
  const recs = scenarioLedger(mods, ledgerFile);
  // The launch stuck at 48%, as a live look left it: stalled, with the verdict's reason.
  const stuck = recs.find((r) => r.path.includes('relaunch') && r.outcome === 'in_progress');
  const kept = mods.Ledger.open(ledgerFile);
  try {
    kept.setLive(stuck.id, {
      state: 'stalled',
      at: (stuck.endTs ?? Math.floor(Date.now() / 1000)) + 2811,
      why: 'no progress in loading_weights for 2811 s, over the 600 s this phase gets (shards were arriving at 1.41/s); GPUs idle',
      phase: 'loading_weights',
      evidence: [],
    });
  } finally {
    kept.close();
  }
  const loading = path.join(dir, 'glm5-node-a.log');
  const crashing = path.join(dir, 'glm5-node-b.log');
  const bench = path.join(dir, 'glm5-node-c.log');
  for (const f of [loading, crashing, bench]) fs.writeFileSync(f, '');
  fs.mkdirSync(DOCS, { recursive: true });
  const fakeBin = path.join(REPO, 'test', 'fixtures', 'fake-bin');
  const served = await startServe(
    ['--ledger', ledgerFile, '--watch', loading, '--watch', crashing, '--watch', bench],
    {
      PATH: `${fakeBin}:${process.env.PATH}`,
      FAKE_GPU_STATE: 'busy',
      FIREDUP_BUDGET_SCALE: '0.1',
    },
  );
  const browser = await chromium.launch(CHROMIUM);
  const children = [];
  try {
    const page = await browser.newPage({ viewport: VIEWPORT });
    page.on('pageerror', (e) => log(`page error: ${e.message}`));
    const shot = async (name) => {
      const file = path.join(DOCS, name);
      await page.screenshot({ path: file });
      log(`wrote ${path.relative(REPO, file)}`);
    };
    const find = (part, outcome) =>
      recs.find((r) => r.path.includes(part) && (!outcome || r.outcome === outcome));

    const crashed = find('trtllm-oom');
    await page.goto(`${served.base}/#/launch/${crashed.id}`);
    await page.locator('svg.gantt .bar[data-phase="cuda_graph"]').click();
    await page.locator('.phase-evidence li').first().waitFor();
    await shot('dashboard-detail.png');

    // Hash routes change pages within one document: wait for what the new page draws, not for a mark.
    const serving = find('cutlass');
    await page.goto(`${served.base}/#/launch/${serving.id}`);
    await page.locator(`.detail .kv .v:text-is("${serving.id}")`).waitFor();
    await page.locator('.detail .uplot canvas').last().waitFor();
    await page.evaluate(() => {
      const h = [...document.querySelectorAll('h2')].find((x) => x.textContent === 'Weight loading');
      window.scrollTo(0, h.getBoundingClientRect().top + window.scrollY - 60);
    });
    await shot('dashboard-throughput.png');

    await page.goto(`${served.base}/#/launch/${stuck.id}`);
    await page.locator('.detail section.last-look').waitFor();
    await shot('dashboard-stalled.png');

    const ids = [
      (find('relaunch', 'serving') ?? find('relaunch', 'ended') ?? find('relaunch')).id,
      serving.id,
      crashed.id,
    ];
    await page.goto(`${served.base}/#/compare/${ids.join(',')}`);
    await page.locator('.compare table.phasecmp').waitFor();
    await page.locator('.compare .uplot canvas').waitFor();
    await shot('dashboard-compare.png');

    // Live: one launch loading its weights (about half-way when the picture is taken), one that crashes.
    await page.goto(`${served.base}/#/live`);
    await page.locator('.live-card').first().waitFor();
    children.push(replay('glm5-silent-after-load-weight-end.log', 4, loading));
    children.push(replay('glm5-trtllm-oom-in-cuda-graph.log', 40, crashing));
    children.push(replay('glm5-cutlass-bench-then-shutdown.log', 100, bench));
    const card = page.locator('.live-card[data-target="glm5-node-a.log"] .progress');
    await page.waitForFunction(
      () => {
        const bars = document.querySelectorAll('.live-card[data-target="glm5-node-a.log"] .progress');
        const crashedCard = document.querySelector(
          '.live-card[data-target="glm5-node-b.log"] [data-state="crashed"]',
        );
        const pct = bars.length ? Number(bars[0].getAttribute('aria-valuenow')) : 0;
        const tok = document.querySelector(
          '.live-card[data-target="glm5-node-c.log"] [data-chart="throughput"] svg.spark',
        );
        const served = tok && Number(tok.getAttribute('data-points')) > 10;
        return crashedCard && served && pct >= 40 && pct <= 75;
      },
      null,
      { timeout: 120_000, polling: 100 },
    );
    await card.waitFor();
    await shot('dashboard-live.png');

    // Last, so that the table also holds the two watched launches, recorded as they ran.
    await page.goto(`${served.base}/#/`);
    await page.locator('tbody tr[data-id]').first().waitFor();
    await shot('dashboard-table.png');
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await browser.close();
    await served.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  log(e.message);
  process.exit(1);
});
