/**
 * Several firedup processes share one ledger (a `watch` per server, `runs` and the dashboard at once), and
 * any of them may be killed mid-write. Real child processes, real SQLite files.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Ledger } from '../../src/store/ledger.js';
import { tmpDir } from '../helpers.js';
import { scenarioRecords } from './fixtures.js';

/** The compiled ledger next to this compiled test, whichever --outDir the tree was built into. */
const LEDGER_JS = new URL('../../src/store/ledger.js', import.meta.url).href;
const RECORD_JS = new URL('../../src/store/record.js', import.meta.url).href;

/**
 * Saves progress on one log in a loop: transaction i consumes 100 more bytes, records launch i (starting
 * at byte i*100) as in progress and marks launch i-1, which it replaced, as shut down. Prints i after each
 * commit, so the parent knows how far it got.
 */
const WRITER = `
import fs from 'node:fs';
import { Ledger } from ${JSON.stringify(LEDGER_JS)};
import { launchId } from ${JSON.stringify(RECORD_JS)};
const [file, logPath, baseFile, countArg] = process.argv.slice(2);
const base = JSON.parse(fs.readFileSync(baseFile, 'utf8'));
const count = Number(countArg);
const ledger = Ledger.open(file);
const launch = (i, outcome) => ({
  ...base,
  id: launchId(base.host, logPath, '1:1', i * 100),
  path: logPath,
  startOffset: i * 100,
  outcome,
  // Launch i of each file is a launch of its own: its first line says so (the ledger matches copies by it).
  report: { ...base.report, startText: logPath + ' launch ' + i },
});
for (let i = 0; count < 0 || i < count; i++) {
  const launches = [launch(i, 'in_progress')];
  if (i > 0) launches.push(launch(i - 1, 'shutdown'));
  ledger.saveProgress(
    { host: base.host, path: logPath, fileId: '1:1', headHash: null, headLen: 0, offset: (i + 1) * 100, lines: i + 1,
      checkpoint: new Uint8Array(64 * 1024).fill(i % 256) },
    launches,
  );
  process.stdout.write(i + '\\n');
}
ledger.close();
`;

interface Child {
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  /** Resolves once the child has committed at least `n` transactions. */
  committed(n: number): Promise<void>;
  kill(): void;
}

function writer(dir: string, ledgerFile: string, logPath: string, count: number): Child {
  const script = path.join(dir, 'writer.mjs');
  fs.writeFileSync(script, WRITER);
  const baseFile = path.join(dir, 'base.json');
  if (!fs.existsSync(baseFile)) {
    // A real record, throughput series and all, so each transaction writes a realistic amount.
    const base = scenarioRecords().get('glm5-cutlass-bench-then-shutdown.log#1')!;
    fs.writeFileSync(baseFile, JSON.stringify(base));
  }
  const child = spawn(process.execPath, [script, ledgerFile, logPath, baseFile, String(count)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let done = -1;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.setEncoding('utf8');
  let pending = '';
  child.stdout!.on('data', (d: string) => {
    pending += d;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    if (lines.length) done = Number(lines.at(-1));
    for (const w of [...waiters]) {
      if (done + 1 < w.n) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    exited,
    committed: (n) =>
      new Promise<void>((resolve, reject) => {
        if (done + 1 >= n) return resolve();
        waiters.push({ n, resolve });
        exited.then((r) => reject(new Error(`writer exited (${r.code ?? r.signal}) early: ${r.stderr}`)));
      }),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

describe('ledger: several processes', () => {
  it('two writers at once on a new ledger: no SQLITE_BUSY, every row there', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'shared', 'ledger.db');
    const a = writer(dir, file, '/logs/a.log', 300);
    const b = writer(dir, file, '/logs/b.log', 300);
    const [ra, rb] = await Promise.all([a.exited, b.exited]);
    assert.deepEqual([ra.code, ra.stderr], [0, '']);
    assert.deepEqual([rb.code, rb.stderr], [0, '']);
    const l = Ledger.open(file);
    for (const p of ['/logs/a.log', '/logs/b.log']) {
      assert.equal(l.getLog({ host: 'gpu-a', path: p })?.offset, 300 * 100, p);
      const launches = l.list({ path: p });
      assert.equal(launches.length, 300, p);
      assert.equal(launches.filter((r) => r.outcome === 'in_progress').length, 1);
    }
    l.close();
  });

  it('ten writers at once on a new ledger: 3,000 rows, no SQLITE_BUSY (held since hardening round 3)', async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'shared', 'ledger.db');
    const logs = Array.from({ length: 10 }, (_, i) => `/logs/w${i}.log`);
    const runs = await Promise.all(logs.map((p) => writer(dir, file, p, 300).exited));
    for (const r of runs) assert.deepEqual([r.code, r.stderr], [0, '']);
    const l = Ledger.open(file);
    let rows = 0;
    for (const p of logs) {
      assert.equal(l.getLog({ host: 'gpu-a', path: p })?.offset, 300 * 100, p);
      const launches = l.list({ path: p });
      assert.equal(launches.filter((r) => r.outcome === 'in_progress').length, 1, p);
      rows += launches.length;
    }
    l.close();
    assert.equal(rows, 3000);
  });

  it('a writer killed with -9 mid-loop leaves the offset and its launches consistent', async (t) => {
    const dir = tmpDir();
    const file = path.join(dir, 'ledger.db');
    const w = writer(dir, file, '/logs/k.log', -1);
    t.after(() => w.kill());
    await w.committed(50);
    w.kill();
    const r = await w.exited;
    assert.equal(r.signal, 'SIGKILL');

    const db = new Database(file);
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    db.close();
    const l = Ledger.open(file);
    const log = l.getLog({ host: 'gpu-a', path: '/logs/k.log' })!;
    const n = log.offset / 100;
    assert.ok(n >= 50, `${n} transactions committed`);
    assert.equal(log.lines, n);
    assert.deepEqual(
      new Set(log.checkpoint),
      new Set([(n - 1) % 256]),
      'the checkpoint of that same transaction',
    );
    const launches = l.list({ path: '/logs/k.log' });
    // Launches 0..n-1 exactly: all of the last committed transaction's, none of the one that was cut off.
    assert.deepEqual(
      launches.map((x) => x.startOffset).sort((x, y) => x - y),
      Array.from({ length: n }, (_, i) => i * 100),
    );
    const live = launches.filter((x) => x.outcome === 'in_progress');
    assert.deepEqual(
      live.map((x) => x.startOffset),
      [(n - 1) * 100],
    );
    l.close();
  });

  it('resolves its own compiled ledger from its location', () => {
    assert.ok(fs.existsSync(fileURLToPath(LEDGER_JS)), LEDGER_JS);
  });
});
