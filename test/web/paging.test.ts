/**
 * The dashboard on a fleet's ledger (100,000 launches): one page of the table is one page's worth of bytes
 * whatever the ledger holds, sorted, searched and counted by the ledger; nobody gets the whole ledger.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Ledger } from '../../src/store/ledger.js';
import { recordFromReport } from '../../src/store/record.js';
import type { LaunchRecord } from '../../src/store/types.js';
import { analyzeText, SCENARIOS, tmpDir } from '../helpers.js';
import { request, type Served, serve } from './serve-helpers.js';

const N = 100_000;
const HOSTS = 50;

const SEED = 1000;

/**
 * N launches (copies of a crashed scenario launch, one a minute, on HOSTS hosts; every tenth crashed for
 * another reason, for the search to find). SEED go through the store; the rest are those rows copied in SQL,
 * in one transaction: the store's upsert (twin lookups per launch) would take minutes for 100k.
 */
function fleetLedger(file: string): void {
  const log = fs.readFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'), 'utf8');
  const base = recordFromReport(analyzeText(log).launches[0]!, {
    host: 'gpu-00',
    path: '/var/log/sglang.log',
    fileId: null,
    now: 1_771_600_000,
  });
  const recs: LaunchRecord[] = [];
  for (let i = 0; i < SEED; i++) {
    const startTs = 1_700_000_000 + i * 60;
    recs.push({
      ...base,
      id: i.toString(16).padStart(16, '0'),
      host: `gpu-${String(i % HOSTS).padStart(2, '0')}`,
      startOffset: i,
      startTs,
      failureClass: i % 10 === 0 ? 'port_in_use' : base.failureClass,
      report: { ...base.report, startTs },
    });
  }
  const ledger = Ledger.open(file);
  try {
    ledger.upsertLaunches(recs);
  } finally {
    ledger.close();
  }
  const db = new Database(file);
  try {
    const cols = (db.prepare('PRAGMA table_info(launches)').all() as Array<{ name: string }>).map(
      (c) => c.name,
    );
    // Copy k of seed launch i is launch k*SEED+i: its id, offset, host and start follow from that number.
    const n = `(k.k * ${SEED} + start_offset)`;
    const set: Record<string, string> = {
      id: `printf('%016x', ${n})`,
      start_offset: n,
      host: `printf('gpu-%02d', ${n} % ${HOSTS})`,
      start_ts: `1700000000 + ${n} * 60`,
      fingerprint: 'NULL',
    };
    const copy = db.prepare(
      `WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < ${N / SEED - 1})
       INSERT INTO launches (${cols.join(', ')})
       SELECT ${cols.map((c) => set[c] ?? c).join(', ')} FROM launches, k`,
    );
    const paths = db.prepare(
      `INSERT INTO launch_paths (launch_id, host, path, file_id, start_offset, start_line, first_seen, last_seen)
       SELECT id, host, path, file_id, start_offset, start_line, first_seen, updated_at FROM launches
       WHERE id NOT IN (SELECT launch_id FROM launch_paths)`,
    );
    db.transaction(() => {
      copy.run();
      paths.run();
    })();
  } finally {
    db.close();
  }
}

describe('the dashboard on a 100k-launch ledger', () => {
  let dir: string;
  let s: Served;

  before(async () => {
    dir = tmpDir();
    const file = path.join(dir, 'fleet.db');
    fleetLedger(file);
    s = await serve(['--ledger', file]);
  });

  after(async () => {
    await s?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const get = async (q: string) => {
    const r = await request(s.base, `/api/launches?${q}`);
    return { status: r.status, bytes: Buffer.byteLength(r.body), body: r.json() };
  };

  it('one page: its rows, the total, a few hundred KB at most, newest first', async () => {
    const { status, bytes, body } = await get('');
    assert.equal(status, 200);
    assert.equal(body.launches.length, 100);
    assert.equal(body.total, N);
    const perRow = bytes / body.launches.length;
    // The old full load sent every one of the N rows: the page is 1/1000 of it.
    assert.ok(bytes < 100 * perRow + 10_000, `${bytes} bytes`);
    assert.ok(bytes < 1 << 20, `${bytes} bytes for one page`);
    assert.equal(body.launches[0].startTs, 1_700_000_000 + (N - 1) * 60);
    const biggest = await get('limit=500');
    assert.equal(biggest.body.launches.length, 500);
    assert.ok(biggest.bytes < 5 << 20, `${biggest.bytes} bytes for 500 rows`);
  });

  it('the whole ledger is refused with one line; the last page and past the end are pages too', async () => {
    for (const q of ['limit=100000', 'limit=501']) {
      const r = await get(q);
      assert.equal(r.status, 400, q);
      assert.match(r.body.error, /^limit=\d+: a whole number from 1 to 500 expected$/);
    }
    const last = await get(`offset=${N - 30}&limit=100`);
    assert.equal(last.body.launches.length, 30);
    assert.equal(last.body.total, N);
    assert.equal(last.body.launches.at(-1).startTs, 1_700_000_000);
    const past = await get(`offset=${N}`);
    assert.deepEqual(past.body.launches, []);
    assert.equal(past.body.total, N);
  });

  it('filter, search and sort are the ledger query: counts over all N, one page back', async () => {
    const host = await get('host=gpu-07&limit=50');
    assert.equal(host.body.total, N / HOSTS);
    assert.equal(host.body.launches.length, 50);
    assert.ok(host.body.launches.every((l: any) => l.host === 'gpu-07'));
    const found = await get('q=port_in_use+gpu-00');
    // i % 10 === 0 and i % 50 === 0: every 50th launch.
    assert.equal(found.body.total, N / 50);
    assert.equal(found.body.launches.length, 100);
    const oldest = await get('sort=start&dir=asc&limit=3');
    assert.deepEqual(
      oldest.body.launches.map((l: any) => l.startOffset),
      [0, 1, 2],
    );
    const byHost = await get('sort=host&dir=desc&limit=1&offset=0');
    assert.equal(byHost.body.launches[0].host, `gpu-${HOSTS - 1}`);
    const facets = (await get('facets=1&limit=1')).body.facets;
    assert.equal(facets.hosts.length, HOSTS);
    assert.deepEqual(facets.states, ['crashed']);
  });
});
