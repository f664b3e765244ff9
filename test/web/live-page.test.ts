/**
 * The live page worth a second monitor (issue 28), in headless Chromium against a real `firedup serve`: each
 * watched target's card draws its load curve, throughput and GPU history from the event stream; a launch a
 * live look left stalled or dead says why, what next and how long it was quiet; the table's outcome filter
 * offers every state, fits more than 8 launches on a 1440×900 screen and cuts long model names in the middle.
 * With FIREDUP_SCREENSHOTS=1 it also writes docs/dashboard-live.png.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { STATE_ORDER } from '../../src/core/base/types.js';
import { Ledger } from '../../src/store/ledger.js';
import { recordFromReport } from '../../src/store/record.js';
import type { LaunchRecord } from '../../src/store/types.js';
import { launchBrowser } from '../browser.js';
import { analyzeText, ROOT, SCENARIOS, tmpDir } from '../helpers.js';
import { type Served, serve } from './serve-helpers.js';

const LONG_MODEL = 'deepseek-ai/DeepSeek-V3-0324-FP8';

/** The scenario launches, copies of them (a table longer than a screen) and one with a long model name. */
function fillLedger(file: string): { recs: LaunchRecord[]; stalled: LaunchRecord; dead: LaunchRecord } {
  const recs: LaunchRecord[] = [];
  for (const name of fs.readdirSync(SCENARIOS).sort()) {
    const log = path.join(SCENARIOS, name);
    for (const l of analyzeText(fs.readFileSync(log, 'utf8')).launches)
      recs.push(recordFromReport(l, { host: 'localhost', path: log, fileId: null, now: 1_771_600_000 }));
  }
  const copies: LaunchRecord[] = [];
  for (let i = 0; copies.length < 14; i++) {
    const c = structuredClone(recs[i % recs.length]!);
    const id = (0xc0de0000 + i).toString(16).padStart(16, '0');
    Object.assign(c, { id, path: `/srv/copy-${i}.log`, fingerprint: null });
    c.report.startText = `copy ${i}`;
    if (i === 0) c.model = LONG_MODEL;
    copies.push(c);
  }
  const open = recs.filter((r) => r.outcome === 'in_progress');
  assert.ok(open.length >= 1, 'a scenario launch the log leaves open');
  const stalled = open[0]!;
  const dead = copies.find((c) => c.outcome === 'in_progress' && c.id !== stalled.id) ?? copies[0]!;
  const all = [...recs, ...copies];
  const ledger = Ledger.open(file);
  try {
    ledger.upsertLaunches(all);
    ledger.setLive(stalled.id, {
      state: 'stalled',
      at: (stalled.endTs ?? 1_771_600_000) + 2811,
      why: 'no progress in loading_weights for 2811 s, over the 600 s this phase gets',
      phase: 'loading_weights',
      evidence: [],
    });
    ledger.setLive(dead.id, {
      state: 'dead',
      at: (dead.endTs ?? 1_771_600_000) + 95,
      why: 'the process (pid 4242) is gone and the log says nothing about it',
      phase: dead.phase,
      evidence: [],
      final: true,
    });
  } finally {
    ledger.close();
  }
  return { recs: all, stalled, dead };
}

// biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText, not the DOM's
const shown = (l: Locator): Promise<string> => l.innerText();

async function until(what: string, check: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

describe('the live page, the stalled page and the table (headless Chromium, firedup serve)', () => {
  let dir: string;
  let ledgerFile: string;
  let loading: string;
  let serving: string;
  let fixture: ReturnType<typeof fillLedger>;
  let served: Served;
  let browser: Browser;
  const pageErrors: string[] = [];

  before(async () => {
    dir = tmpDir();
    ledgerFile = path.join(dir, 'ledger.db');
    fixture = fillLedger(ledgerFile);
    loading = path.join(dir, 'glm5-node-a.log');
    serving = path.join(dir, 'glm5-serving.log');
    fs.writeFileSync(loading, '');
    // A serving launch two days after the recorded one (a launch of its own): its throughput lines at once.
    fs.writeFileSync(
      serving,
      fs
        .readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'), 'utf8')
        .replaceAll('2026-02-', '2026-03-')
        .split('\n')
        .filter((l) => !/shut ?down|Shutting|Finished server process|Application shutdown/i.test(l))
        .join('\n'),
    );
    const fakeBin = path.join(ROOT, 'test', 'fixtures', 'fake-bin');
    served = await serve(
      ['--ledger', ledgerFile, '--watch', loading, '--watch', serving],
      { PATH: `${fakeBin}:${process.env.PATH}`, FAKE_GPU_STATE: 'busy' },
      { gpu: true },
    );
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await served?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(pageErrors, [], 'no uncaught error in the pages');
  });

  async function open(url: string, viewport = { width: 1400, height: 900 }): Promise<Page> {
    const page = await browser.newPage({ viewport });
    page.on('pageerror', (e) => pageErrors.push(`${url}: ${e.message}`));
    await page.goto(url);
    return page;
  }

  const points = async (l: Locator) => Number((await l.getAttribute('data-points').catch(() => '0')) ?? 0);

  it('each live card draws its load curve, throughput and GPU history from the stream, with the verdict', async () => {
    const lines = fs
      .readFileSync(path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log'), 'utf8')
      .replaceAll('2026-02-20', '2026-02-23')
      .split('\n');
    const page = await open(`${served.base}/#/live`);
    const card = page.locator(`.live-card[data-target="${path.basename(loading)}"]`);
    await card.waitFor();
    // Shards arrive in three steps: the curve gets points from the bar's own history and from the stream.
    fs.appendFileSync(loading, `${lines.slice(0, 40).join('\n')}\n`);
    await new Promise((r) => setTimeout(r, 1500));
    fs.appendFileSync(loading, `${lines.slice(40, 69).join('\n')}\n`);
    const load = card.locator('[data-chart="load"] svg.spark');
    await until('the load curve to have points', async () => (await points(load)) >= 2);
    assert.match(await shown(card.locator('[data-chart="load"] figcaption')), /\d+\/83/);
    assert.match(await shown(card.locator('.verdict')), /loading weights \d+\/83/);

    const srv = page.locator(`.live-card[data-target="${path.basename(serving)}"]`);
    const tok = srv.locator('[data-chart="throughput"] svg.spark');
    await until('the throughput sparkline to have points', async () => (await points(tok)) >= 2);
    assert.match(await shown(srv.locator('[data-chart="throughput"] figcaption')), /peak [\d,]+\.\d/);

    // The fake nvidia-smi's H200s: memory and utilisation bars, and a history strip per GPU.
    const gpu = card.locator('.gpu').first();
    await until('the GPU rows', async () => (await card.locator('.gpu').count()) >= 1);
    assert.equal(await gpu.locator('.membar .fill').count(), 1);
    assert.equal(await gpu.locator('.utilbar .fill').count(), 1);
    await until('a GPU history point', async () => (await points(gpu.locator('svg.gpu-hist'))) >= 1);

    if (process.env.FIREDUP_SCREENSHOTS === '1') {
      await page.setViewportSize({ width: 1400, height: 900 });
      await page.screenshot({ path: path.join(ROOT, 'docs', 'dashboard-live.png') });
    }
    await page.close();
  });

  it('a stalled launch and a dead one say why, what next and how long the log was quiet', async () => {
    const { stalled, dead } = fixture;
    const page = await open(`${served.base}/#/launch/${stalled.id}`);
    const look = page.locator('section.last-look');
    await look.waitFor();
    const text = await shown(look);
    assert.match(text, /Stalled in loading_weights/);
    assert.match(text, /why: no progress in loading_weights for 2811 s/);
    assert.match(text, /next: \S/);
    assert.match(text, /quiet 46m51s/);
    await page.goto(`${served.base}/#/launch/${dead.id}`);
    await until(
      'the dead launch page',
      async () => (await page.locator('section.last-look[data-state="dead"]').count()) === 1,
    );
    const d = await shown(page.locator('section.last-look'));
    assert.match(d, /why: the process \(pid 4242\) is gone/);
    assert.match(d, /next: it was killed from outside/);
    assert.match(d, /quiet 1m35s/);
    await page.close();
  });

  it('the outcome filter offers every state, the table fits more than 8 launches on 1440×900, names cut in the middle', async () => {
    const page = await open(`${served.base}/#/`, { width: 1440, height: 900 });
    const rows = page.locator('tbody tr[data-id]');
    await rows.first().waitFor();
    const options = await page
      .getByLabel('outcome')
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value));
    for (const s of STATE_ORDER) assert.ok(options.includes(s), `${s} in ${options.join(', ')}`);
    const visible = await rows.evaluateAll(
      (trs) =>
        trs.filter(
          (tr) =>
            tr.getBoundingClientRect().bottom <=
            (globalThis as unknown as { innerHeight: number }).innerHeight,
        ).length,
    );
    assert.ok(visible > 8, `${visible} rows on screen`);
    const long = page.locator('td.model', { hasText: '…' }).first();
    assert.equal(await shown(long), 'deepseek-ai/DeepSe…-V3-0324-FP8');
    assert.match((await long.getAttribute('title')) ?? '', new RegExp(`^${LONG_MODEL}\\n`));

    await page.getByLabel('outcome').selectOption('stalled');
    await until('only the stalled launch', async () => (await rows.count()) === 1);
    assert.equal(await rows.first().getAttribute('data-id'), fixture.stalled.id);
    await page.getByLabel('outcome').selectOption('dead');
    // The stalled answer is one row too: wait for the dead launch's.
    await until(
      'only the dead launch',
      async () =>
        (await rows.count()) === 1 && (await rows.first().getAttribute('data-id')) === fixture.dead.id,
    );
    await page.close();
  });

  it('uPlot legends show the latest values, and a time axis never prints one label twice', async () => {
    const serving = fixture.recs.find((r) => r.report.throughput && r.path.includes('cutlass'))!;
    const page = await open(`${served.base}/#/launch/${serving.id}`);
    await page.locator('.uplot canvas').first().waitFor();
    const values = await page.locator('.u-legend .u-value').allTextContents();
    assert.ok(values.length >= 2, values.join(' | '));
    for (const v of values) assert.ok(v !== '' && v !== '–' && v !== '--', `legend value '${v}'`);
    // Splits half a second apart over two seconds: whole-second labels, none repeated.
    const labels = (await page.evaluate(
      "import('./assets/js/charts.js').then((m) => m.timeAxis().values(null, [0, 0.5, 1, 1.5, 2], 0, 70, 0.5))",
    )) as string[];
    const shownLabels = labels.filter((l) => l !== '');
    assert.equal(new Set(shownLabels).size, shownLabels.length, labels.join(','));
    await page.close();
  });
});
