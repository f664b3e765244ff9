/**
 * Several processes saving progress into one Postgres ledger at once, one of them killed with -9 mid-loop
 * (as test/store/concurrency.test.ts does for SQLite): every committed transaction whole, nothing of the cut one.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openLedger } from '../../../src/store/open.js';
import { tmpDir } from '../../helpers.js';
import { stopBackends, testPostgres } from '../backends.js';
import { scenarioRecords } from '../fixtures.js';

after(stopBackends);

const OPEN_JS = new URL('../../../src/store/open.js', import.meta.url).href;
const RECORD_JS = new URL('../../../src/store/record.js', import.meta.url).href;

/** Transaction i records launch i in progress and launch i-1 shut down, then prints i (as concurrency.test.ts). */
const WRITER = `
import fs from 'node:fs';
import { openLedger } from ${JSON.stringify(OPEN_JS)};
import { launchId } from ${JSON.stringify(RECORD_JS)};
const [url, logPath, baseFile, countArg] = process.argv.slice(2);
const base = JSON.parse(fs.readFileSync(baseFile, 'utf8'));
const count = Number(countArg);
const ledger = await openLedger(url);
const launch = (i, outcome) => ({
  ...base,
  id: launchId(base.host, logPath, '1:1', i * 100),
  path: logPath,
  startOffset: i * 100,
  outcome,
  report: { ...base.report, startText: logPath + ' launch ' + i },
});
for (let i = 0; count < 0 || i < count; i++) {
  const launches = [launch(i, 'in_progress')];
  if (i > 0) launches.push(launch(i - 1, 'shutdown'));
  await ledger.saveProgress(
    { host: base.host, path: logPath, fileId: '1:1', headHash: null, headLen: 0, offset: (i + 1) * 100, lines: i + 1,
      checkpoint: new Uint8Array(64 * 1024).fill(i % 256) },
    launches,
  );
  process.stdout.write(i + '\\n');
}
await ledger.close();
`;

function writer(dir: string, url: string, logPath: string, count: number) {
  const script = path.join(dir, 'writer.mjs');
  fs.writeFileSync(script, WRITER);
  const baseFile = path.join(dir, 'base.json');
  if (!fs.existsSync(baseFile))
    fs.writeFileSync(
      baseFile,
      JSON.stringify(scenarioRecords().get('glm5-cutlass-bench-then-shutdown.log#1')!),
    );
  const child = spawn(process.execPath, [script, url, logPath, baseFile, String(count)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let done = 0;
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdout!.on('data', (d: Buffer) => (done += d.toString().split('\n').length - 1));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>(
    (resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })),
  );
  return {
    exited,
    async committed(n: number) {
      while (done < n) {
        if (child.exitCode !== null) throw new Error(`writer exited early: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    kill: () => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'),
  };
}

describe('shared ledger (postgres): several writers', () => {
  it('three writers at once, one killed with -9 mid-loop: each committed transaction whole, nothing else', async (t) => {
    const url = testPostgres().createDatabase();
    const dir = tmpDir();
    const a = writer(dir, url, '/logs/a.log', 100);
    const b = writer(dir, url, '/logs/b.log', 100);
    const k = writer(dir, url, '/logs/k.log', -1);
    t.after(() => k.kill());
    await k.committed(30);
    k.kill();
    const [ra, rb, rk] = await Promise.all([a.exited, b.exited, k.exited]);
    assert.deepEqual([ra.code, ra.stderr], [0, '']);
    assert.deepEqual([rb.code, rb.stderr], [0, '']);
    assert.equal(rk.signal, 'SIGKILL');
    const l = await openLedger(url);
    try {
      for (const p of ['/logs/a.log', '/logs/b.log']) {
        assert.equal((await l.getLog({ host: 'gpu-a', path: p }))?.offset, 100 * 100, p);
        const launches = await l.list({ path: p });
        assert.equal(launches.length, 100, p);
        assert.equal(launches.filter((r) => r.outcome === 'in_progress').length, 1);
      }
      const log = (await l.getLog({ host: 'gpu-a', path: '/logs/k.log' }))!;
      const n = log.offset / 100;
      assert.ok(n >= 30, `${n} transactions committed`);
      assert.equal(log.lines, n);
      assert.deepEqual(
        new Set(log.checkpoint),
        new Set([(n - 1) % 256]),
        'the checkpoint of that same transaction',
      );
      const launches = await l.list({ path: '/logs/k.log' });
      assert.deepEqual(
        launches.map((x) => x.startOffset).sort((x, y) => x - y),
        Array.from({ length: n }, (_, i) => i * 100),
      );
      assert.deepEqual(
        launches.filter((x) => x.outcome === 'in_progress').map((x) => x.startOffset),
        [(n - 1) * 100],
      );
    } finally {
      await l.close();
    }
  });
});
