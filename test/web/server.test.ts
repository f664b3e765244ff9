import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadServeConfig } from '../../src/app/fleet-config.js';
import { Ledger } from '../../src/store/ledger.js';
import { recordFromReport } from '../../src/store/record.js';
import type { BenchResult, LaunchRecord } from '../../src/store/types.js';
import { analyzeBytes, BIN, ROOT, SCENARIOS, SHARED, tmpDir } from '../helpers.js';
import { startSshd } from '../ssh.js';
import { openEvents, request, type Served, serve } from './serve-helpers.js';

const LOGS = [
  path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'),
  path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'),
  path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'),
  path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log'),
  path.join(SHARED, 'corpus', 'vllm', '002.log'),
  path.join(SHARED, 'corpus', 'vllm', '005.log'),
];

/** Values that must never leave the server: none has a token's shape, so only key-based masking hides them. */
const SECRETS = {
  config: 'pssst-config-value-1',
  env: 'pssst-env-value-2',
  argv: 'pssst-argv-value-3',
  argvEq: 'pssst-argv-value-4',
  flag: 'pssst-flag-value-5',
};

function bench(over: Partial<BenchResult>): BenchResult {
  const none = { mean: null, median: null, p99: null };
  return {
    tool: 'sglang',
    backend: 'sglang',
    model: null,
    host: '127.0.0.1',
    port: 30000,
    finishedAt: null,
    durationS: 60,
    completed: 100,
    maxConcurrency: 64,
    requestRate: null,
    requestTputReqS: 1.6,
    outputTokS: 900,
    totalTokS: 1800,
    inputTokS: 900,
    ttft: { mean: 200, median: 180, p99: 900 },
    tpot: { mean: 30, median: 28, p99: 60 },
    itl: { mean: 30, median: 27, p99: 70 },
    e2e: none,
    fingerprint: 'f'.repeat(16),
    source: 'test',
    ...over,
  };
}

/** A ledger with the scenario logs' launches, a secret-laden launch, two benches and targets. */
function fillLedger(file: string): { all: LaunchRecord[]; secret: LaunchRecord } {
  const ledger = Ledger.open(file);
  const recs: LaunchRecord[] = [];
  for (const f of LOGS) {
    const st = fs.statSync(f);
    const rep = analyzeBytes(fs.readFileSync(f));
    for (const l of rep.launches)
      recs.push(
        recordFromReport(l, {
          host: 'localhost',
          path: f,
          fileId: `${st.dev}:${st.ino}`,
          now: 1_771_000_000,
        }),
      );
  }
  const base = recs.find((r) => r.outcome === 'shutdown')!;
  const secret: LaunchRecord = structuredClone({
    ...base,
    id: 'abcdef0123456789',
    host: 'secret-box',
    path: '/srv/secret.log',
    // The newest launch of all, by a day.
    startTs: Math.max(...recs.map((r) => r.startTs ?? 0)) + 86400,
  });
  secret.report.config = { ...secret.report.config, api_key: SECRETS.config, tp_size: 4 };
  secret.intended = {
    argv: [
      'python3',
      '-m',
      'sglang.launch_server',
      '--api-key',
      SECRETS.argv,
      `--admin-api-key=${SECRETS.argvEq}`,
    ],
    cwd: '/srv',
    env: { HF_TOKEN: SECRETS.env, CUDA_VISIBLE_DEVICES: '0,1,2,3' },
    engineVersion: '0.5.9',
    git: null,
    flags: { api_key: SECRETS.flag, tp_size: 4 },
    mismatches: [],
    pid: 4242,
    startedAt: 1_771_000_000,
  };
  recs.push(secret);
  ledger.upsertLaunches(recs);
  ledger.addBench(
    base.id,
    bench({ finishedAt: 1_771_000_100, outputTokS: 800, fingerprint: '1'.repeat(16) }),
  );
  ledger.addBench(
    base.id,
    bench({ finishedAt: 1_771_000_200, outputTokS: 950, fingerprint: '2'.repeat(16) }),
  );
  ledger.addTarget({
    model: null,
    metric: 'output_tok_s',
    op: '>=',
    value: 900,
    expr: 'output_tok_s >= 900',
  });
  ledger.addTarget({ model: 'other/model', metric: 'load_s', op: '<=', value: 60, expr: 'load_s <= 60' });
  const all = ledger.list({});
  ledger.close();
  return { all, secret };
}

function headTail(file: string, n: number): [string, string] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  return [`${lines.slice(0, n).join('\n')}\n`, lines.slice(n).join('\n')];
}

describe('firedup serve', () => {
  let dir: string;
  let ledgerFile: string;
  let all: LaunchRecord[];
  let secret: LaunchRecord;
  let watched: string;
  let rest: string;
  let s: Served;

  before(async () => {
    dir = tmpDir();
    ledgerFile = path.join(dir, 'ledger.db');
    ({ all, secret } = fillLedger(ledgerFile));
    // A live target: the first part of a launch, loading; the rest is appended by a test.
    watched = path.join(dir, 'live-glm5.log');
    const [head, tail] = headTail(path.join(ROOT, 'examples', 'glm5-serving.log'), 120);
    fs.writeFileSync(watched, head);
    rest = tail;
    s = await serve(['--ledger', ledgerFile, '--watch', watched]);
  });

  after(async () => {
    const code = await s?.stop();
    assert.equal(code, 0, 'SIGTERM: clean shutdown');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prints one URL per line, loopback without a token', () => {
    assert.deepEqual(s.urls, [`http://127.0.0.1:${s.port}/`]);
  });

  it('/api/launches: every launch newest first, as summaries with phases, key flags, latest bench, targets', async () => {
    const r = await request(s.base, '/api/launches');
    assert.equal(r.status, 200);
    assert.match(r.headers['content-type']!, /^application\/json/);
    const body = r.json();
    const mine = body.launches.filter((l: any) => l.path !== watched);
    assert.deepEqual(
      mine.map((l: any) => l.id),
      all.map((l) => l.id),
    );
    assert.deepEqual(
      body.targets.map((t: any) => t.expr),
      ['output_tok_s >= 900', 'load_s <= 60'],
    );
    const withBench = body.launches.find((l: any) => l.bench !== null);
    assert.equal(withBench.report, undefined, 'no report in a summary');
    assert.equal(withBench.bench.outputTokS, 950, 'the latest bench');
    assert.equal(withBench.bench.ttftMedianMs, 180);
    assert.equal(withBench.bench.ttftP99Ms, 900);
    assert.deepEqual(withBench.targets, [
      { expr: 'output_tok_s >= 900', actual: 950, pass: true, from: withBench.targets[0].from },
    ]);
    assert.equal(withBench.keyFlags.tp, 8);
    assert.ok(withBench.phases.length >= 5);
    assert.deepEqual(Object.keys(withBench.phases[0]).sort(), ['at', 'duration', 'phase']);
    const noBench = body.launches.find((l: any) => l.bench === null && l.model === withBench.model);
    assert.deepEqual(noBench.targets, [
      { expr: 'output_tok_s >= 900', actual: null, pass: null, from: null },
    ]);
    const crashed = body.launches.find((l: any) => l.outcome === 'crashed');
    assert.equal(crashed.failure.class, 'oom');
    assert.equal(typeof crashed.failure.message, 'string');
    // What a row shows of the report is the report's own (read from the ledger's summary column).
    for (const rec of all.filter((r) => r.id !== secret.id)) {
      const row = body.launches.find((l: any) => l.id === rec.id);
      const rep = rec.report;
      assert.deepEqual(
        row.phases,
        rep.phases.map((p) => ({ phase: p.phase, at: p.at, duration: p.duration })),
      );
      assert.deepEqual(row.keyFlags, rep.configSummary);
      assert.deepEqual(
        row.failure,
        rep.failure ? { class: rep.failure.class, message: rep.failure.message } : null,
      );
    }
  });

  it('/api/launches filters: outcome, model, where, since, host, limit; bad values are 400 with one line', async () => {
    const get = async (q: string) => (await request(s.base, `/api/launches?${q}`)).json().launches;
    const crashed = await get('outcome=crashed');
    assert.deepEqual(
      crashed.map((l: any) => l.id),
      all.filter((l) => l.outcome === 'crashed').map((l) => l.id),
    );
    const tp4 = await get('where=tp_size=4');
    assert.deepEqual(
      tp4.map((l: any) => l.id),
      [secret.id],
    );
    assert.deepEqual(
      (await get('host=secret-box')).map((l: any) => l.id),
      [secret.id],
    );
    assert.equal((await get('limit=2')).length, 2);
    const vllm = all.filter((l) => l.engine === 'vllm');
    assert.ok(vllm.length > 0);
    const byModel = await get(`model=${encodeURIComponent(vllm[0]!.model!)}`);
    assert.ok(byModel.every((l: any) => l.model === vllm[0]!.model));
    const since = await get(`since=${(secret.startTs ?? 0) - 1}`);
    assert.deepEqual(
      since.filter((l: any) => l.path !== watched).map((l: any) => l.id),
      [secret.id],
    );
    for (const q of [
      'since=yesterday',
      'limit=0',
      'limit=x',
      'limit=100000',
      'limit=501',
      'offset=-1',
      'offset=1.5',
      'sort=flags',
      'dir=up',
      'outcome=exploded',
      'where=tp_size',
      `q=${Array.from({ length: 17 }, (_, i) => `w${i}`).join('+')}`,
    ]) {
      const r = await request(s.base, `/api/launches?${q}`);
      assert.equal(r.status, 400, q);
      const e = r.json();
      assert.deepEqual(Object.keys(e), ['error']);
      assert.ok(!e.error.includes('\n'), q);
    }
  });

  it('/api/launches pages: total, offset and limit; sort by a column either way; search; facets on request', async () => {
    const get = async (q: string) => (await request(s.base, `/api/launches?${q}`)).json();
    const full = await get('limit=500');
    const n = full.total;
    assert.equal(full.launches.length, n);
    assert.equal(full.offset, 0);
    assert.equal(full.limit, 500);
    assert.equal(full.facets, undefined, 'no facets unless asked');
    assert.equal((await get('')).limit, 100, 'one page of 100 by default');
    // Page after page: the same launches in the same order, none twice, and every page says the total.
    const paged: string[] = [];
    for (let off = 0; off < n; off += 2) {
      const p = await get(`limit=2&offset=${off}`);
      assert.equal(p.total, n);
      assert.equal(p.offset, off);
      paged.push(...p.launches.map((l: any) => l.id));
    }
    assert.deepEqual(
      paged,
      full.launches.map((l: any) => l.id),
    );
    assert.deepEqual((await get(`offset=${n + 5}`)).launches, []);
    assert.equal((await get(`offset=${n + 5}`)).total, n);
    // Sorted by the ledger: peak tok/s high to low, unknown last either way.
    const peaks = (q: string) => get(q).then((b) => b.launches.map((l: any) => l.peakTokS));
    const known = (xs: Array<number | null>) => xs.filter((x) => x !== null) as number[];
    const desc = await peaks('sort=peak&dir=desc&limit=500');
    const asc = await peaks('sort=peak&dir=asc&limit=500');
    assert.deepEqual(
      known(desc),
      [...known(desc)].sort((a, b) => b - a),
    );
    assert.deepEqual(
      known(asc),
      [...known(asc)].sort((a, b) => a - b),
    );
    assert.ok(known(desc).length > 1 && desc.at(-1) === null && asc.at(-1) === null);
    assert.equal(desc[0], Math.max(...known(desc)));
    // The bench column sorts on the latest bench's output tok/s.
    assert.equal((await get('sort=bench&dir=desc&limit=1')).launches[0].bench.outputTokS, 950);
    for (const key of ['id', 'start', 'host', 'model', 'engine', 'outcome', 'load', 'median'])
      assert.equal((await get(`sort=${key}&dir=asc&limit=500`)).launches.length, n, key);
    // Search: every word in the launch's text (its key flags and failure too); key=value is a config filter.
    const oom = await get('q=OOM');
    assert.ok(oom.total >= 1);
    assert.ok(oom.launches.every((l: any) => l.failure?.class === 'oom'));
    assert.deepEqual(
      (await get('q=secret-box+tp=4')).launches.map((l: any) => l.id),
      [secret.id],
    );
    assert.equal((await get('q=secret-box+tp=8')).total, 0);
    assert.equal((await get('q=no-such-word-anywhere')).total, 0);
    // Facets: the filters' values, from the whole ledger.
    const f = (await get('facets=1&limit=1')).facets;
    assert.ok(f.hosts.includes('secret-box'));
    assert.ok(f.states.includes('crashed'));
    assert.deepEqual(f.models, [...f.models].sort());
  });

  it('/api/launches/:id: the full record with report, benches and targets; a prefix works; unknown is 404', async () => {
    const one = all.find((l) => l.outcome === 'crashed')!;
    const r = await request(s.base, `/api/launches/${one.id}`);
    assert.equal(r.status, 200);
    const body = r.json();
    assert.equal(body.launch.id, one.id);
    assert.equal(body.launch.report.failure.class, 'oom');
    assert.ok(body.launch.report.failure.evidence.length > 0);
    assert.ok(
      body.launch.report.phases.every((p: any) => typeof p.line === 'number' && typeof p.text === 'string'),
    );
    assert.deepEqual(body.benches, []);
    assert.equal(one.report.throughput, null);
    assert.equal(body.series, null, 'never served: no series');
    const serving = all.find((l) => l.report.throughput !== null)!;
    const full = (await request(s.base, `/api/launches/${serving.id.slice(0, 8)}`)).json();
    assert.equal(full.launch.id, serving.id);
    // The series comes as two columns beside the record, not as one pair per point inside it.
    const points = serving.report.throughput!.series;
    assert.ok(points.length > 3);
    assert.equal(full.launch.report.throughput.series, undefined);
    assert.equal(full.launch.report.throughput.peak, serving.report.throughput!.peak);
    assert.deepEqual(full.series, { ts: points.map((p) => p[0]), tokS: points.map((p) => p[1]) });
    const withBench = all.find((l) => l.outcome === 'shutdown' && l.host === 'localhost')!;
    const b = (await request(s.base, `/api/launches/${withBench.id}`)).json();
    assert.deepEqual(
      b.benches.map((x: any) => x.outputTokS),
      [800, 950],
    );
    assert.equal(b.targets[0].pass, true);
    for (const bad of ['0000000000000000', 'nothex', '%zz']) {
      const nf = await request(s.base, `/api/launches/${bad}`);
      assert.equal(nf.status, 404, bad);
      assert.equal(typeof nf.json().error, 'string');
    }
  });

  it('/api/compare: the differing config fields, volatile ones excluded, grouped; bad ids are 400/404', async () => {
    const shutdown = all.find((l) => l.outcome === 'shutdown' && l.host === 'localhost')!;
    const crashed = all.find((l) => l.outcome === 'crashed')!;
    const r = await request(s.base, `/api/compare?ids=${shutdown.id},${crashed.id.slice(0, 6)},${secret.id}`);
    assert.equal(r.status, 200, r.body);
    const body = r.json();
    assert.deepEqual(
      body.launches.map((l: any) => l.id),
      [shutdown.id, crashed.id, secret.id],
    );
    // One series (columns) per launch, in the same order; the records carry none.
    assert.equal(body.series.length, 3);
    assert.deepEqual(
      body.series[0].ts,
      shutdown.report.throughput!.series.map((p) => p[0]),
    );
    assert.deepEqual(
      body.series[0].tokS,
      shutdown.report.throughput!.series.map((p) => p[1]),
    );
    assert.equal(body.series[1], null);
    assert.ok(body.launches.every((l: any) => l.report.throughput?.series === undefined));
    const keys = body.changes.map((c: any) => c.key);
    assert.deepEqual(
      keys,
      [...keys].sort((a: string, b: string) => a.localeCompare(b)),
    );
    assert.ok(!keys.includes('random_seed'));
    const tp = body.changes.find((c: any) => c.key === 'tp_size');
    assert.deepEqual(tp.values, [8, crashed.report.config.tp_size ?? null, 4]);
    assert.ok(body.groups.parallelism.includes('tp_size'));
    const grouped = Object.values(body.groups).flat();
    assert.deepEqual([...grouped].sort(), [...keys].sort(), 'every changed key is in one group');
    assert.equal((await request(s.base, `/api/compare?ids=${shutdown.id}`)).status, 400);
    assert.equal((await request(s.base, '/api/compare')).status, 400);
    assert.equal((await request(s.base, `/api/compare?ids=${shutdown.id},0000000000000000`)).status, 404);
  });

  it('/api/live: the watched target with its verdict and latest launch', async () => {
    let t: any;
    for (let i = 0; i < 100; i++) {
      t = (await request(s.base, '/api/live')).json().targets[0];
      if (t?.launch) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(t.name, 'live-glm5.log');
    assert.equal(t.target, watched);
    assert.equal(t.verdict.engine, 'sglang');
    assert.equal(t.launch.engine, 'sglang');
    assert.equal(t.gpus, null, '--no-gpu');
    assert.ok(t.updatedAt > 1_700_000_000);
  });

  it('SSE: the current state on connect, then a live event and a launch event after lines are appended', async () => {
    const es = await openEvents(s.base, '/api/events?targets=live-glm5.log');
    assert.equal(es.status, 200);
    assert.match(es.headers['content-type']!, /^text\/event-stream/);
    const first = await es.waitFor((e) => e.event === 'live');
    assert.equal(first.data.name, 'live-glm5.log');
    // Wait for the state to settle, then append: the next live event shows the new lines.
    await new Promise((r) => setTimeout(r, 1500));
    const endLine = (await request(s.base, '/api/live')).json().targets[0].launch.endLine;
    const n = es.events.length;
    fs.appendFileSync(watched, rest);
    const live = await es.waitFor((e) => e.event === 'live' && e.data.launch?.endLine > endLine, 20_000, n);
    assert.equal(live.data.target, watched);
    const launch = await es.waitFor((e) => e.event === 'launch' && e.data.path === watched, 20_000, n);
    assert.equal(launch.data.report, undefined, 'launch events carry summaries');
    assert.ok(Array.isArray(launch.data.phases));
    es.close();
    // And the ledger has it.
    const listed = (await request(s.base, `/api/launches?limit=100`)).json().launches;
    // The watched file is a copy of a log already recorded: one launch, read at both paths.
    assert.ok(listed.some((l: any) => l.path === watched || l.paths.some((p: any) => p.path === watched)));
  });

  it('SSE: a client gets the cards it asks for; asking for none, a summary of states, never a card', async () => {
    const none = await openEvents(s.base);
    const all = await openEvents(s.base, '/api/events?targets=*');
    const other = await openEvents(s.base, '/api/events?targets=some-other-target');
    const summary = await none.waitFor((e) => e.event === 'summary');
    assert.equal(summary.data.targets, 1);
    assert.equal(
      Object.values(summary.data.states as Record<string, number>).reduce((a, b) => a + b, 0),
      1,
    );
    assert.equal((await all.waitFor((e) => e.event === 'live')).data.name, 'live-glm5.log');
    await other.waitFor((e) => e.event === 'summary');
    // The card changes (a launch event or two) while these wait: still none for the others.
    await new Promise((r) => setTimeout(r, 2500));
    assert.deepEqual(
      none.events.filter((e) => e.event === 'live'),
      [],
    );
    assert.deepEqual(
      other.events.filter((e) => e.event === 'live'),
      [],
    );
    for (const c of [none, all, other]) c.close();
    const bad = await request(
      s.base,
      `/api/events?targets=${Array.from({ length: 1001 }, (_, i) => i).join(',')}`,
    );
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.json()), ['error']);
  });

  it('/metrics: Prometheus text with the watched target', async () => {
    const r = await request(s.base, '/metrics');
    assert.equal(r.status, 200);
    assert.match(r.headers['content-type']!, /^text\/plain; version=0\.0\.4/);
    assert.match(r.body, /^# HELP firedup_up /m);
    assert.match(r.body, /^firedup_up\{target="live-glm5\.log",host="localhost"[^}]*\} 1$/m);
  });

  it('static files from the whitelist only, with the security headers', async () => {
    const js = await request(s.base, '/assets/uplot.js');
    assert.equal(js.status, 200);
    assert.match(js.headers['content-type']!, /^text\/javascript/);
    const css = await request(s.base, '/assets/uplot.css');
    assert.match(css.headers['content-type']!, /^text\/css/);
    for (const [p, type] of [
      ['/', /^text\/html/],
      ['/assets/app.js', /^text\/javascript/],
      ['/assets/app.css', /^text\/css/],
    ] as const) {
      const r = await request(s.base, p);
      // The pages are another engineer's files: present in a full tree, a clean 404 JSON without them.
      if (fs.existsSync(path.join(ROOT, 'web'))) assert.equal(r.status, 200, p);
      if (r.status === 200) assert.match(r.headers['content-type']!, type, p);
    }
    for (const p of ['/', '/api/live', '/metrics', '/nope']) {
      const r = await request(s.base, p);
      const csp = String(r.headers['content-security-policy']);
      assert.match(csp, /script-src 'self'/);
      assert.match(csp, /style-src 'self'/);
      assert.ok(!csp.includes('unsafe-inline'), csp);
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.equal(r.headers['referrer-policy'], 'no-referrer');
    }
  });

  it('unknown paths are 404 JSON; methods other than GET and HEAD are 405; HEAD has no body', async () => {
    for (const p of [
      '/nope',
      '/api',
      '/api/launches/',
      '/api/launches/a/b',
      '/assets/',
      '/assets/other.js',
      '/index.html',
    ]) {
      const r = await request(s.base, p);
      assert.equal(r.status, 404, p);
      assert.equal(typeof r.json().error, 'string', p);
    }
    for (const m of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const r = await request(s.base, '/api/launches', { method: m });
      assert.equal(r.status, 405, m);
      assert.equal(r.headers.allow, 'GET, HEAD');
      assert.equal(typeof r.json().error, 'string');
    }
    const head = await request(s.base, '/api/launches', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
    assert.ok(Number(head.headers['content-length']) > 100);
  });

  it('no request reads a file outside the whitelist: 15 paths of .., encoded dots and slashes, absolute forms', async () => {
    for (const p of [
      '/assets/../../package.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/assets/%2E%2E/%2E%2E/package.json',
      '/assets/..%2f..%2fpackage.json',
      '/%2e%2e/etc/passwd',
      '/../../../../etc/passwd',
      '//etc/passwd',
      '/assets/..\\..\\package.json',
      '/assets/app.js/../../../package.json',
      '/x/../assets/app.js',
      'http://127.0.0.1/etc/passwd',
      '/assets/%252e%252e/%252e%252e/package.json',
      '/assets/.%2e/.%2e/package.json',
      '/assets/%2e%2e%5c%2e%2e%5cpackage.json',
      '/assets/%2fetc%2fpasswd',
    ]) {
      const r = await request(s.base, p);
      assert.equal(r.status, 404, p);
      assert.ok(!r.body.includes('"name": "firedup"') && !r.body.includes('root:'), p);
    }
  });

  it('a loopback server refuses a foreign Host name (DNS rebinding)', async () => {
    const r = await request(s.base, '/api/live', { headers: { Host: 'evil.example:80' } });
    assert.equal(r.status, 403);
    assert.equal(typeof r.json().error, 'string');
    const ok = await request(s.base, '/api/live', { headers: { Host: `localhost:${s.port}` } });
    assert.equal(ok.status, 200);
  });

  it('secrets never leave: config api_key, IntendedLaunch env, argv and flags are masked everywhere', async () => {
    const bodies: string[] = [];
    for (const p of [
      '/api/launches',
      `/api/launches?host=secret-box`,
      `/api/launches/${secret.id}`,
      `/api/compare?ids=${secret.id},${all.find((l) => l.id !== secret.id)!.id}`,
      '/api/live',
      '/metrics',
    ]) {
      const r = await request(s.base, p);
      assert.equal(r.status, 200, p);
      bodies.push(r.body);
    }
    const detail = JSON.parse(bodies[2]!).launch;
    for (const [what, v] of Object.entries(SECRETS))
      for (const b of bodies) assert.ok(!b.includes(v), `${what} leaked`);
    assert.equal(detail.report.config.api_key, '<redacted>');
    assert.equal(detail.intended.env.HF_TOKEN, '<redacted>');
    assert.equal(detail.intended.env.CUDA_VISIBLE_DEVICES, '0,1,2,3', 'harmless variables stay');
    assert.deepEqual(detail.intended.argv, [
      'python3',
      '-m',
      'sglang.launch_server',
      '--api-key',
      '<redacted>',
      '--admin-api-key=<redacted>',
    ]);
    assert.equal(detail.intended.flags.api_key, '<redacted>');
    assert.equal(detail.intended.flags.tp_size, 4);
  });
});

describe('firedup serve: token on a non-loopback bind', () => {
  let dir: string;
  let s: Served;
  let token: string;

  before(async () => {
    dir = tmpDir();
    const log = path.join(dir, 'a.log');
    fs.writeFileSync(log, '');
    s = await serve(['--host', '0.0.0.0', '--ledger', path.join(dir, 'l.db'), '--watch', log]);
    token = new URL(s.urls[0]!).searchParams.get('token')!;
  });

  after(async () => {
    assert.equal(await s.stop(), 0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a generated token is printed in every URL', () => {
    assert.match(token, /^[A-Za-z0-9_-]{20,}$/);
    assert.ok(s.urls.length >= 1);
    for (const u of s.urls) assert.equal(new URL(u).searchParams.get('token'), token, u);
    assert.ok(
      s.urls.some((u) => new URL(u).hostname === '127.0.0.1'),
      s.urls.join(' '),
    );
  });

  it('401 without the token on every route: pages, assets, API, events, metrics', async () => {
    for (const p of [
      '/',
      '/assets/uplot.js',
      '/api/launches',
      '/api/live',
      '/api/events',
      '/metrics',
      '/nope',
    ]) {
      const r = await request(s.base, p);
      assert.equal(r.status, 401, p);
      assert.match(r.body, /firedup serve/, p);
      if (p.startsWith('/api/') || p === '/metrics') assert.equal(typeof r.json().error, 'string');
    }
    const wrong = await request(s.base, '/api/live', { headers: { Authorization: `Bearer ${token}x` } });
    assert.equal(wrong.status, 401);
    assert.equal((await request(s.base, `/api/live?token=${token.slice(1)}`)).status, 401);
    assert.equal(
      (await request(s.base, '/api/live', { headers: { Cookie: 'firedup_token=nope' } })).status,
      401,
    );
  });

  it('200 with the token: Authorization header, ?token= (which sets the cookie), or the cookie', async () => {
    const bearer = { Authorization: `Bearer ${token}` };
    for (const p of ['/api/launches', '/api/live', '/metrics', '/assets/uplot.js'])
      assert.equal((await request(s.base, p, { headers: bearer })).status, 200, p);
    const q = await request(s.base, `/api/live?token=${token}`);
    assert.equal(q.status, 200);
    const cookie = q.headers['set-cookie']![0]!;
    assert.match(cookie, /^firedup_token=/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    const jar = cookie.split(';')[0]!;
    for (const p of ['/api/launches', '/metrics'])
      assert.equal((await request(s.base, p, { headers: { Cookie: `other=1; ${jar}` } })).status, 200, p);
    // The page's URL with the token: the cookie is set and the token leaves the address bar.
    const page = await request(s.base, `/?token=${token}`);
    assert.equal(page.status, 303);
    assert.equal(page.headers.location, '/');
    assert.match(page.headers['set-cookie']![0]!, /^firedup_token=/);
    const home = await request(s.base, '/', { headers: { Cookie: jar } });
    if (fs.existsSync(path.join(ROOT, 'web', 'index.html'))) assert.equal(home.status, 200);
    // The event stream too.
    const denied = await openEvents(s.base);
    assert.equal(denied.status, 401);
    denied.close();
    const es = await openEvents(s.base, `/api/events?token=${token}&targets=*`);
    assert.equal(es.status, 200);
    await es.waitFor((e) => e.event === 'live');
    es.close();
    const es2 = await openEvents(s.base, '/api/events', { Cookie: jar });
    assert.equal(es2.status, 200);
    es2.close();
  });

  it('a given --token is used; a malformed one is refused with one line', async () => {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--host', '0.0.0.0', '--token', 'short'], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 1);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /--token/);
    const t = 'given-token-0123456789';
    const g = await serve(['--host', '127.0.0.1', '--token', t, '--ledger', path.join(dir, 'g.db')]);
    try {
      assert.deepEqual(g.urls, [`http://127.0.0.1:${g.port}/?token=${t}`]);
      assert.equal(
        (await request(g.base, '/api/live')).status,
        401,
        'a token given is required even on loopback',
      );
      assert.equal(
        (await request(g.base, '/api/live', { headers: { Authorization: `Bearer ${t}` } })).status,
        200,
      );
    } finally {
      assert.equal(await g.stop(), 0);
    }
  });
});

describe('firedup serve: startup errors and the config file', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a port in use is one clear line, exit 1', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = spawnSync(
        process.execPath,
        [BIN, 'serve', '--port', String(port), '--ledger', path.join(dir, 'p.db'), '--no-gpu'],
        { encoding: 'utf8', timeout: 30_000 },
      );
      assert.equal(r.status, 1);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use.*--port`));
    } finally {
      blocker.close();
    }
  });

  it('firedup.toml: targets with name, log (relative to the file), url, pid; settings', async () => {
    const conf = path.join(dir, 'conf');
    fs.mkdirSync(conf);
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'), path.join(conf, 'oom.log'));
    const toml = path.join(conf, 'firedup.toml');
    fs.writeFileSync(
      toml,
      [
        '# the dashboard',
        'host = "127.0.0.1"  # loopback',
        "ledger = 'ledger.db'",
        'ssh_options = ["ConnectTimeout=5", "ServerAliveInterval=10"]',
        '',
        '[[target]]',
        'name = "glm5 \\"oom\\""',
        'log = "oom.log"',
        'url = "http://127.0.0.1:1"',
        'pid = 999999',
        '',
        '[[target]]',
        'log = "missing-yet.log"',
        'engine = "vllm"',
        '',
      ].join('\n'),
    );
    const s = await serve(['--config', toml]);
    try {
      let targets: any[] = [];
      for (let i = 0; i < 100; i++) {
        targets = (await request(s.base, '/api/live')).json().targets;
        if (targets[0]?.verdict?.state === 'crashed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(
        targets.map((t) => t.name),
        ['glm5 "oom"', 'missing-yet.log'],
      );
      assert.equal(targets[0].target, path.join(conf, 'oom.log'));
      assert.equal(targets[0].verdict.state, 'crashed');
      assert.ok(fs.existsSync(path.join(conf, 'ledger.db')), 'ledger relative to the file');
      const m = (await request(s.base, '/metrics')).body;
      assert.match(m, /^firedup_crashed\{target="glm5 \\"oom\\"",[^}]*\} 1$/m);
      assert.match(m, /^firedup_up\{target="missing-yet\.log",host="localhost",engine="vllm"\} 0$/m);
    } finally {
      assert.equal(await s.stop(), 0);
    }
  });

  it('config mistakes are one line naming the file and the line', () => {
    const cases: Array<[string, RegExp]> = [
      ['[[target]]\nlog = 5\n', /firedup\.toml:2: log must be a string/],
      ['port = "x"\n', /firedup\.toml:1: port must be a number/],
      ['colour = "red"\n', /firedup\.toml:1: unknown setting colour/],
      ['[[target]]\nname = "a"\n', /firedup\.toml:1: \[\[target\]\] needs log/],
      ['[server]\n', /firedup\.toml:1: only \[\[target\]\] tables/],
      ['[[target]]\nlog = "a.log\n', /firedup\.toml:2: unterminated string/],
      ['[[target]]\nlog = "a.log"\nlog = "b.log"\n', /firedup\.toml:3: log is set twice \(first on line 2\)/],
      ['[[target]]\nlog = "a.log"\nwhat = 1\n', /firedup\.toml:3: unknown target setting what/],
    ];
    for (const [text, re] of cases) {
      const f = path.join(dir, 'firedup.toml');
      fs.writeFileSync(f, text);
      const r = spawnSync(
        process.execPath,
        [BIN, 'serve', '--config', f, '--ledger', path.join(dir, 'c.db')],
        {
          encoding: 'utf8',
          timeout: 30_000,
        },
      );
      assert.equal(r.status, 1, text);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, re, text);
    }
    const missing = spawnSync(process.execPath, [BIN, 'serve', '--config', path.join(dir, 'nope.toml')], {
      encoding: 'utf8',
    });
    assert.match(missing.stderr, /^firedup: --config .*nope\.toml: no such file\n$/);
  });

  it('examples/firedup.toml reads; remote logs stay as written, local ones are relative to the file', () => {
    const cfg = loadServeConfig(path.join(ROOT, 'examples', 'firedup.toml'));
    assert.equal(cfg.host, '127.0.0.1');
    assert.equal(cfg.port, 7070);
    assert.deepEqual(
      cfg.targets.map((t) => [t.name, t.log]),
      [['glm5-demo', path.join(ROOT, 'examples', 'glm5-relaunch-stuck-at-48pct.log')]],
    );
    const f = path.join(dir, 'remote.toml');
    fs.writeFileSync(
      f,
      '[[target]]\nlog = "root@gpu-a:/root/x.log"\n[[target]]\nlog = \'ssh://u@h:2222/var/log/y.log\'\n[[target]]\nlog = "logs/z.log"\n',
    );
    assert.deepEqual(
      loadServeConfig(f).targets.map((t) => t.log),
      ['root@gpu-a:/root/x.log', 'ssh://u@h:2222/var/log/y.log', path.join(dir, 'logs', 'z.log')],
    );
  });

  it('an ssh target: followed over ssh, its launches recorded under the remote host', async () => {
    const sshd = await startSshd();
    const remoteLog = path.join(sshd.dir, 'server.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'), remoteLog);
    const s = await serve([
      '--ledger',
      path.join(dir, 'ssh.db'),
      '--ssh-config',
      sshd.config,
      '--watch',
      `firedup-test:${remoteLog}`,
    ]);
    try {
      let t: any;
      for (let i = 0; i < 200; i++) {
        t = (await request(s.base, '/api/live')).json().targets[0];
        if (t.verdict?.state === 'crashed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(t.name, 'firedup-test:server.log');
      assert.equal(t.verdict.state, 'crashed');
      let launches: any[] = [];
      for (let i = 0; i < 50 && launches.length === 0; i++) {
        launches = (await request(s.base, '/api/launches?host=firedup-test')).json().launches;
        if (!launches.length) await new Promise((r) => setTimeout(r, 100));
      }
      assert.equal(launches.length, 1);
      assert.equal(launches[0].path, remoteLog);
      assert.equal(launches[0].outcome, 'crashed');
      assert.match(
        (await request(s.base, '/metrics')).body,
        /^firedup_up\{target="firedup-test:server\.log",host="firedup-test"[^}]*\} 1$/m,
      );
    } finally {
      const code = await s.stop();
      sshd.stop();
      assert.equal(code, 0, s.stderr());
    }
  });

  it('--help lists the options', () => {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--help'], { encoding: 'utf8' });
    assert.equal(r.status, 0);
    for (const f of ['--port', '--host', '--token', '--ledger', '--watch', '--config'])
      assert.ok(r.stdout.includes(f), f);
  });
});
