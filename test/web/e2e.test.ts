/**
 * The dashboard's pages in a real headless Chromium, against a real `firedup serve` (the CLI of this tree)
 * on a real ledger holding the scenario launches, with a watched log that the test grows.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { Ledger } from '../../src/store/ledger.js';
import { recordFromReport } from '../../src/store/record.js';
import type { LaunchRecord } from '../../src/store/types.js';
import { launchBrowser } from '../browser.js';
import { analyzeText, SCENARIOS, tmpDir } from '../helpers.js';
import { type Served, serve } from './serve-helpers.js';

const TOKEN = 'e2e-token-0123456789abcdef';
/** Log text and config values are untrusted: markup in them must reach the page as text. */
const MARKUP = '<img src=x onerror="window.__pwned=1"><b>bold</b>';
const HOSTILE_ID = 'feedface00c0ffee';

/** Every launch of the scenario logs, recorded as the ledger would hold them, and one target. */
function fillLedger(file: string): LaunchRecord[] {
  const recs: LaunchRecord[] = [];
  for (const name of fs.readdirSync(SCENARIOS).sort()) {
    const log = path.join(SCENARIOS, name);
    const host = name.includes('trtllm') ? 'gpu-b' : 'localhost';
    for (const l of analyzeText(fs.readFileSync(log, 'utf8')).launches)
      recs.push(recordFromReport(l, { host, path: log, fileId: null, now: 1_771_600_000 }));
  }
  const hostile = structuredClone(recs.find((r) => r.outcome === 'crashed')!);
  Object.assign(hostile, { id: HOSTILE_ID, path: '/srv/hostile.log', model: `model ${MARKUP}` });
  hostile.report.phases[0]!.text = `[2026-02-20 11:30:00] ${MARKUP}`;
  // A launch of its own: with the crashed launch's first line it would be that launch read at another path.
  hostile.report.startText = `[2026-02-20 11:30:00] ${MARKUP}`;
  hostile.report.config.served_model_name = MARKUP;
  recs.push(hostile);
  const ledger = Ledger.open(file);
  try {
    ledger.upsertLaunches(recs);
    ledger.addTarget({
      model: null,
      metric: 'peak_tok_s',
      op: '>=',
      value: 1000,
      expr: 'peak_tok_s >= 1000',
    });
  } finally {
    ledger.close();
  }
  return recs;
}

/** The text as rendered (Playwright's Locator.innerText: layout-aware, cells apart), not the DOM property. */
function shown(l: Locator): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText, not the DOM's
  return l.innerText();
}

/** Polls `check` until it returns true (or throws after `ms`, with `what` in the message). */
async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('dashboard pages (headless Chromium, firedup serve)', () => {
  let dir: string;
  let ledgerFile: string;
  let watched: string;
  let recs: LaunchRecord[];
  let served: Served;
  let browser: Browser;
  const pageErrors: string[] = [];

  before(async () => {
    dir = tmpDir();
    ledgerFile = path.join(dir, 'ledger.db');
    recs = fillLedger(ledgerFile);
    // Empty until the live test writes to it: its launch must not be in the table before then.
    watched = path.join(dir, 'server.log');
    fs.writeFileSync(watched, '');
    served = await serve(['--ledger', ledgerFile, '--watch', watched]);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await served?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(pageErrors, [], 'no uncaught error in the pages');
  });

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(`${url}: ${e.message}`));
    await page.goto(url);
    return page;
  }

  const byPath = (part: string, outcome?: string) =>
    recs.find((r) => r.path.includes(part) && (outcome === undefined || r.outcome === outcome))!;

  it('the table lists every recorded launch, sorts on a header click and filters', async () => {
    const page = await open(`${served.base}/#/`);
    const rows = page.locator('tbody tr[data-id]');
    await rows.first().waitFor();
    const ids = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));
    assert.deepEqual([...ids].sort(), recs.map((r) => r.id).sort());

    const crashed = byPath('trtllm-oom');
    const crashedRow = page.locator(`tbody tr[data-id="${crashed.id}"]`);
    assert.match(await shown(crashedRow), /crashed[\s\S]*cuda_graph[\s\S]*oom/);
    assert.equal(await shown(crashedRow.locator('td.id a')), crashed.id.slice(0, 8));
    // The first launch of the relaunch log differs from the cutlass one in max_running_requests.
    assert.match(
      await shown(page.locator(`tbody tr[data-id="${byPath('relaunch', 'ended').id}"]`)),
      /max_running=64/,
    );
    // peak_tok_s >= 1000: the cutlass launch (1,993 tok/s) meets it, the first relaunch (939) does not.
    assert.equal(await shown(page.locator(`tbody tr[data-id="${byPath('cutlass').id}"] td.target`)), '✓');
    assert.equal(
      await shown(page.locator(`tbody tr[data-id="${byPath('relaunch', 'ended').id}"] td.target`)),
      '✗',
    );
    const marks = await page.evaluate("performance.getEntriesByName('firedup:table-rendered').length");
    assert.ok((marks as number) >= 1, 'the table sets its performance mark');

    // Highest peak tok/s first, then lowest first on a second click (launches without one stay last).
    const peak = page.locator('thead th button', { hasText: 'peak' });
    // The ledger sorts: the rows come with the answer to the click.
    const firstIs = (id: string) => async () => (await rows.first().getAttribute('data-id')) === id;
    await peak.click();
    await until('highest peak first', firstIs(byPath('cutlass').id));
    await peak.click();
    await until('lowest peak first', firstIs(byPath('relaunch', 'ended').id));

    // Free text matches full flag names too, not only the short ones the cells show.
    await page.getByLabel('free-text filter').fill('max_running_requests=1024');
    await until('the filter to leave one row', async () => (await rows.count()) === 1);
    assert.equal(await rows.first().getAttribute('data-id'), byPath('cutlass').id);
    await page.getByLabel('free-text filter').fill('');
    await page.getByLabel('outcome').selectOption('in_progress');
    await until('the outcome filter', async () => (await rows.count()) === 2);
    await page.close();
  });

  it('the detail timeline has a bar per phase, and a click shows the evidence line of that phase', async () => {
    const rec = byPath('trtllm-oom');
    const page = await open(`${served.base}/#/launch/${rec.id.slice(0, 8)}`);
    const bars = page.locator('svg.gantt .bar');
    await bars.first().waitFor();
    const phases = rec.report.phases;
    assert.deepEqual(
      await bars.evaluateAll((els) => els.map((e) => e.getAttribute('data-phase'))),
      phases.map((p) => p.phase),
    );
    assert.deepEqual(
      await page.locator('svg.gantt .pname').allTextContents(),
      phases.map((p) => p.phase),
    );

    const loading = phases.find((p) => p.phase === 'loading_weights')!;
    await page.locator('svg.gantt .bar[data-phase="loading_weights"]').click();
    const ev = page.locator('.phase-evidence');
    await ev.locator('li').first().waitFor();
    const first = ev.locator('li').first();
    assert.equal(await shown(first.locator('.ln')), `line ${loading.line}`);
    assert.equal(await first.locator('code').textContent(), loading.text);

    // The phase it crashed in carries the failure's evidence lines.
    await page.locator('svg.gantt .bar[data-phase="cuda_graph"]').click();
    await until('the cuda_graph evidence', async () => (await shown(ev)).includes('CUDA out of memory'));
    const failure = rec.report.failure!;
    const failureCard = page.locator('section.card', { has: page.locator('h2', { hasText: 'Failure' }) });
    assert.match(await shown(failureCard), /oom/);
    assert.ok((await shown(failureCard)).includes(failure.message));
    assert.ok((await shown(page.locator('.detail-head'))).includes(failure.message));
    await page.close();
  });

  it('markup in log lines and config values is shown as text, never run', async () => {
    const page = await open(`${served.base}/#/launch/${HOSTILE_ID}`);
    await page.locator('svg.gantt .bar').first().click();
    const code = page.locator('.phase-evidence li code').first();
    await code.waitFor();
    assert.equal(await code.textContent(), `[2026-02-20 11:30:00] ${MARKUP}`);
    await page.getByLabel('search config').fill('served_model_name');
    const row = page.locator('.config tr:not([hidden])', { hasText: 'served_model_name' });
    assert.equal(await row.locator('td.val').textContent(), MARKUP);
    assert.equal((await page.locator('h1').textContent())?.includes(MARKUP), true);
    await page.goto(`${served.base}/#/`);
    await page.locator(`tbody tr[data-id="${HOSTILE_ID}"]`).waitFor();
    assert.equal(await page.locator('main img, main b').count(), 0);
    assert.equal(await page.evaluate('window.__pwned'), undefined);
    await page.close();
  });

  it('the detail of a serving launch plots its load curve and its throughput', async () => {
    const rec = byPath('cutlass');
    const page = await open(`${served.base}/#/launch/${rec.id}`);
    await page.locator('.uplot canvas').first().waitFor();
    // Two charts: shards done over time while loading (83 of them), then generation tok/s.
    await page.locator('.uplot').nth(1).waitFor();
    assert.match(await shown(page.locator('.load')), /Loading safetensors checkpoint shards done \(of 83\)/);
    const marks = await page.evaluate("performance.getEntriesByName('firedup:chart-rendered').length");
    assert.ok((marks as number) >= 1);
    assert.match(await shown(page.locator('.detail')), /peak\s+1,993\.\d+ tok\/s/);
    await page.close();
  });

  it('picking two launches and Compare shows the config diff, throughput and phase durations', async () => {
    const a = byPath('relaunch', 'ended');
    const b = byPath('cutlass');
    const page = await open(`${served.base}/#/`);
    await page.locator('tbody tr[data-id]').first().waitFor();
    const compare = page.locator('button.primary');
    assert.equal(await compare.isDisabled(), true);
    await page.locator(`tbody tr[data-id="${a.id}"] input[type=checkbox]`).check();
    await page.locator(`tbody tr[data-id="${b.id}"] input[type=checkbox]`).check();
    await compare.click();
    await page.locator('table.diff').waitFor();
    assert.equal(new URL(page.url()).hash, `#/compare/${a.id},${b.id}`);
    const diff = await shown(page.locator('table.diff'));
    assert.match(diff, /max_running_requests\s+64\s+1024/);
    assert.match(diff, /disable_cuda_graph\s+False\s+True/);
    assert.doesNotMatch(diff, /random_seed/);
    const phases = await shown(page.locator('table.phasecmp'));
    assert.match(phases, /loading_weights/);
    assert.match(phases, /cuda_graph/);
    await page.locator('.uplot canvas').first().waitFor();
    await page.close();
  });

  it('a launch the live verdict called stalled is stalled in the table, with no ETA in its detail and no delta in compare', async () => {
    const stuck = byPath('relaunch', 'in_progress');
    const before = byPath('relaunch', 'ended');
    const l = Ledger.open(ledgerFile);
    try {
      l.setLive(stuck.id, {
        state: 'stalled',
        at: 1_771_600_100,
        why: 'no progress in loading_weights for 2811 s',
        phase: 'loading_weights',
        evidence: [],
      });
    } finally {
      l.close();
    }
    const page = await open(`${served.base}/#/`);
    const row = page.locator(`tbody tr[data-id="${stuck.id}"]`);
    await until('the stalled row', async () => /stalled/.test(await shown(row)));
    assert.doesNotMatch(await shown(row), /in progress|ETA/);
    await page.goto(`${served.base}/#/launch/${stuck.id}`);
    await page.locator('svg').first().waitFor();
    await until('the detail', async () => /stalled/.test(await shown(page.locator('body'))));
    assert.doesNotMatch(await shown(page.locator('body')), /ETA/);
    await page.goto(`${served.base}/#/compare/${before.id},${stuck.id}`);
    await page.locator('table.phasecmp').waitFor();
    const phases = await shown(page.locator('table.phasecmp'));
    const loading = phases.split('\n').filter((x) => x.includes('so far'));
    assert.ok(loading.length > 0, phases);
    // A phase still running has no duration to compare: no green (or red) delta next to it.
    for (const x of loading) assert.doesNotMatch(x, /[−+]\d/, x);
    await page.close();
  });

  it('the live page and the table follow the watched log as it grows, without a reload', async () => {
    // Two days later than the recorded scenario launch: a launch of its own, not that one read again.
    const lines = fs
      .readFileSync(path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log'), 'utf8')
      .replaceAll('2026-02-20', '2026-02-22')
      .split('\n');
    const live = await open(`${served.base}/#/live`);
    const table = await open(`${served.base}/#/`);
    await table.locator('tbody tr[data-id]').first().waitFor();
    const card = live.locator('.live-card[data-target="server.log"]');
    await card.waitFor();
    // A reload would drop these.
    await live.evaluate('window.__stillHere = 1');
    await table.evaluate('window.__stillHere = 1');
    const before = await table.locator('tbody tr[data-id]').count();

    fs.appendFileSync(watched, `${lines.slice(0, 19).join('\n')}\n`);
    await until(
      'the card to show dist_init',
      async () => (await card.locator('.phase-name').textContent()) === 'dist_init',
    );
    assert.match(await shown(card), /lukealonso\/GLM-5-NVFP4/);

    // Up to shard 40 of 83.
    fs.appendFileSync(watched, `${lines.slice(19, 69).join('\n')}\n`);
    await until(
      'the progress bar at 48%',
      async () =>
        (await card
          .locator('.progress')
          .getAttribute('aria-valuenow')
          .catch(() => null)) === '48',
    );
    assert.equal(await card.locator('.phase-name').textContent(), 'loading_weights');
    assert.match(await shown(card.locator('.progress')), /40\/83/);
    assert.equal(await card.locator('[data-state]').getAttribute('data-state'), 'loading');

    // The table got the watched launch as a new row from a `launch` event.
    await until(
      'a new row in the table',
      async () => (await table.locator('tbody tr[data-id]').count()) === before + 1,
    );
    const row = table
      .locator('tbody tr[data-id]', { hasText: 'loading_weights' })
      .filter({ hasNotText: 'gpu-b' });
    assert.ok((await row.count()) >= 1);
    assert.equal(await live.evaluate('window.__stillHere'), 1);
    assert.equal(await table.evaluate('window.__stillHere'), 1);
    await live.close();
    await table.close();
  });

  it('on a non-loopback bind a wrong token is refused and the right one opens the table', async () => {
    const guarded = await serve(['--host', '0.0.0.0', '--token', TOKEN, '--ledger', ledgerFile]);
    const ctx = await browser.newContext();
    try {
      const page = await ctx.newPage();
      page.on('pageerror', (e) => pageErrors.push(`token page: ${e.message}`));
      const wrong = await page.goto(`${guarded.base}/?token=wrong-token-0000000000`);
      assert.equal(wrong?.status(), 401);
      assert.match(await shown(page.locator('body')), /open the URL printed by firedup serve/);

      await page.goto(`${guarded.base}/?token=${TOKEN}`);
      await page.locator('tbody tr[data-id]').first().waitFor();
      // The scenario launches, and the watched log's launch that the live test recorded.
      assert.ok((await page.locator('tbody tr[data-id]').count()) >= recs.length);
      // The token became a cookie and left the address bar.
      assert.equal(new URL(page.url()).search, '');

      // The cookie gone (a restarted server with a new token): the page says how to get in again.
      await ctx.clearCookies();
      await page.evaluate("location.hash = '#/live'");
      const msg = page.locator('.auth-error');
      await msg.waitFor();
      assert.match(await shown(msg), /401[\s\S]*firedup serve/);
    } finally {
      await ctx.close();
      await guarded.stop();
    }
  });

  it('a table of 250 launches pages on the server: 100 rows a page, page controls, a sort over all of them', async () => {
    // Copies of the scenario launches, an hour apart: more than one page.
    const many: LaunchRecord[] = Array.from({ length: 250 }, (_, i) => {
      const r = structuredClone(recs[i % recs.length]!);
      r.id = (0xa000000000000000n + BigInt(i)).toString(16);
      r.startTs = 1_771_000_000 + i * 3600;
      return r;
    });
    const file = path.join(dir, 'many.db');
    const ledger = Ledger.open(file);
    try {
      ledger.upsertLaunches(many);
    } finally {
      ledger.close();
    }
    const big = await serve(['--ledger', file]);
    try {
      const page = await open(`${big.base}/#/`);
      const requests: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/launches')) requests.push(r.url());
      });
      await page.waitForFunction(() => performance.getEntriesByName('firedup:table-complete').length > 0);
      const rows = page.locator('tbody tr[data-id]');
      const ids = () => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));
      const newest = [...many].sort((a, b) => b.startTs! - a.startTs!).map((r) => r.id);
      assert.deepEqual(await ids(), newest.slice(0, 100));
      assert.match(await shown(page.locator('.count')), /1–100 of 250 launches/);
      assert.match(await shown(page.locator('.page-note')), /page 1 of 3/);
      assert.equal(await page.getByLabel('previous page').isDisabled(), true);

      await page.getByLabel('next page').click();
      await until('page 2', async () => (await rows.first().getAttribute('data-id')) === newest[100]);
      assert.deepEqual(await ids(), newest.slice(100, 200));
      assert.match(await shown(page.locator('.count')), /101–200 of 250 launches/);
      await page.getByLabel('last page').click();
      await until('the last page', async () => (await rows.count()) === 50);
      assert.deepEqual(await ids(), newest.slice(200));
      assert.equal(await page.getByLabel('next page').isDisabled(), true);

      // A sort is the ledger's, over every launch, and starts again at the first page.
      await page.locator('thead th button', { hasText: 'start' }).click();
      await until('oldest first', async () => (await rows.first().getAttribute('data-id')) === newest.at(-1));
      assert.deepEqual(await ids(), [...newest].reverse().slice(0, 100));
      // Rows per page.
      await page.getByLabel('rows per page').selectOption('500');
      await until('one page of all', async () => (await rows.count()) === 250);
      assert.match(await shown(page.locator('.count')), /^250 launches$/);
      // Never the whole ledger: every request asked for one page.
      assert.ok(requests.length >= 4);
      for (const u of requests) assert.ok(Number(new URL(u).searchParams.get('limit')) <= 500, u);
      await page.close();
    } finally {
      await big.stop();
    }
  });
});
