import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LaunchRecord } from '../../src/core/campaign/records.js';
import { Ledger } from '../../src/store/ledger.js';
import { spawnCli, tmpDir } from '../helpers.js';
import { scenarioRecords } from '../ledger-fixtures.js';
import { freePort } from '../llama.js';
import { type ScriptedServer, startScripted } from '../scripted-openai.js';

const dir = tmpDir();
let server: ScriptedServer;
let port: number;
before(async () => {
  server = await startScripted((i) =>
    i === 3 ? { kind: 'http500' } : { kind: 'ok', ttftMs: 5, itlMs: 1, tokens: 8 },
  );
  port = Number(new URL(server.url).port);
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A ledger holding one launch serving on this test server's port since an hour ago (wall clock as UTC). */
function ledgerServingHere(
  name: string,
  over: Partial<LaunchRecord> = { model: 'scripted-model' },
): { file: string; id: string } {
  const file = path.join(dir, `${name}.db`);
  const [rec] = scenarioRecords('glm5-cutlass-bench-then-shutdown.log');
  const nowWall = Date.now() / 1000 - new Date().getTimezoneOffset() * 60;
  const l = Ledger.open(file);
  l.upsertLaunches([{ ...rec!, port, startTs: nowWall - 3600, endTs: null, outcome: 'serving', ...over }]);
  l.close();
  return { file, id: rec!.id };
}

const run = (args: string[]) => spawnCli(['bench', 'run', ...args]).done;

describe('bench run (CLI)', () => {
  it('--json: every level with its metrics and failures; recorded on the launch serving at that URL', async () => {
    const { file, id } = ledgerServingHere('json');
    const r = await run([
      '--url',
      server.url,
      '--concurrency',
      '1,2',
      '--requests',
      '4',
      '--input-len',
      '8',
      '--output-len',
      '8',
      '--slo',
      'ttft_ms=1000',
      '--json',
      '--ledger',
      file,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '');
    const j = JSON.parse(r.stdout);
    assert.equal(j.url, server.url);
    assert.equal(j.model, 'scripted-model', 'asked of /v1/models');
    assert.equal(j.endpoint, 'completions');
    assert.equal(j.levels.length, 2);
    const [a, b] = j.levels;
    assert.deepEqual(a.level, { concurrency: 1, rate: null });
    assert.equal(a.completed + b.completed, 7);
    assert.equal(a.failed + b.failed, 1);
    const failed = a.failed ? a : b;
    assert.deepEqual(failed.errors, [
      { kind: 'http', message: 'HTTP 500: scripted internal error', count: 1 },
    ]);
    for (const k of ['ttft', 'tpot', 'itl', 'e2e'])
      assert.deepEqual(Object.keys(a[k]), ['mean', 'median', 'p90', 'p99', 'max']);
    for (const k of [
      'requestTputReqS',
      'inputTokS',
      'outputTokS',
      'totalTokS',
      'peakOutputTokS',
      'goodputReqS',
      'durationS',
    ])
      assert.equal(typeof a[k], 'number', k);
    assert.equal(a.tokenSource, 'usage');
    assert.equal(j.ledger.launch, id);
    assert.equal(j.ledger.benches.length, 2);
    const l = Ledger.open(file);
    const benches = l.benches(id);
    l.close();
    assert.equal(benches.length, 2);
    assert.equal(benches[0]!.tool, 'firedup');
    assert.equal(benches[0]!.maxConcurrency, 1);
    assert.equal(benches[1]!.maxConcurrency, 2);
    assert.equal(benches[0]!.port, port);
    assert.ok(benches.some((x) => x.failed === 1 && x.errors![0]!.message.includes('HTTP 500')));
  });

  it('the table; not recorded when no launch serves there; --launch attaches', async () => {
    const file = path.join(dir, 'empty.db');
    const [rec] = scenarioRecords('glm5-trtllm-oom-in-cuda-graph.log');
    const l = Ledger.open(file);
    l.upsertLaunches([rec!]);
    l.close();
    const r = await run([
      '--url',
      server.url,
      '--requests',
      '3',
      '--output-len',
      '4',
      '--no-color',
      '--ledger',
      file,
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^http:\/\/127\.0\.0\.1:\d+ · scripted-model · \/v1\/completions · random 256 in \/ 4 out/,
    );
    assert.match(
      r.stdout,
      /level +ok +failed +seconds +req\/s +in tok\/s +out tok\/s +total tok\/s +peak out tok\/s/,
    );
    assert.match(r.stdout, /^ {2}c=1 +\d+ +\d+ +/m);
    assert.match(r.stdout, /single-stream output: [\d.]+ tok\/s \(concurrency 1\)/);
    assert.match(r.stdout, /ms +mean +median +p90 +p99 +max/);
    assert.match(r.stdout, /TTFT +[\d.]+ +[\d.]+/);
    assert.match(
      r.stdout,
      /not attached: no launch serving on localhost:\d+ in the ledger\n.*kept as bench #\d+ without a launch: firedup bench attach \d+ LAUNCH/,
    );
    const forced = await run([
      '--url',
      server.url,
      '--requests',
      '2',
      '--launch',
      rec!.id.slice(0, 8),
      '--ledger',
      file,
      '--no-color',
    ]);
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, new RegExp(`recorded: bench #\\d+ → launch ${rec!.id.slice(0, 8)}`));
  });

  it('issue 24.2: a launch with no port, or another model on the port, never takes the bench', async () => {
    const args = [
      '--url',
      server.url,
      '--concurrency',
      '1',
      '--requests',
      '2',
      '--input-len',
      '8',
      '--output-len',
      '8',
    ];
    // A day-old vLLM launch whose port the log never said: its port is vLLM's default 8000, not this one.
    const noPort = ledgerServingHere('no-port', {
      port: null,
      engine: 'vllm',
      model: 'Qwen/Qwen3-235B-A22B-FP8',
      startTs: Date.now() / 1000 - new Date().getTimezoneOffset() * 60 - 86400,
    });
    const a = await run([...args, '--ledger', noPort.file]);
    assert.equal(a.code, 0, a.stderr);
    assert.match(a.stdout, /not attached: no launch serving on localhost:\d+ in the ledger/);
    assert.ok(!a.stdout.includes(`→ launch ${noPort.id.slice(0, 8)}`), a.stdout);
    // A launch on this very port, of another model: the server that answered is not that launch's.
    const other = ledgerServingHere('other-model', { model: 'lukealonso/GLM-5-NVFP4' });
    const b = await run([...args, '--ledger', other.file]);
    assert.equal(b.code, 0, b.stderr);
    assert.match(
      b.stdout,
      new RegExp(
        `not attached: the server on localhost:${port} is not launch ${other.id.slice(0, 8)}'s: it serves scripted-model, the launch lukealonso/GLM-5-NVFP4`,
      ),
    );
    const l = Ledger.open(other.file);
    assert.equal(l.benches(other.id).length, 0);
    l.close();
    // Mistakes corrected: a bench forced onto a launch moves, or goes.
    const forced = await run([...args, '--ledger', other.file, '--launch', other.id]);
    const n = /recorded: bench #(\d+)/.exec(forced.stdout)![1]!;
    const [recNoPort] = [noPort.id];
    const into = (await spawnCli(['bench', 'attach', n, recNoPort, '--ledger', other.file]).done).stdout;
    assert.match(into, /no launch|→ launch/);
    const rm = await spawnCli(['bench', 'rm', n, '--ledger', other.file]).done;
    assert.equal(rm.code, 0, rm.stderr);
    assert.equal(rm.stdout, `removed bench #${n}\n`);
    const again = await spawnCli(['bench', 'rm', n, '--ledger', other.file]).done;
    assert.equal(again.code, 1, again.stderr);
    assert.match(again.stderr, new RegExp(`no bench #${n} in the ledger`));
  });

  it("bad input: one line naming the flag or URL, exit 1 as every command's usage errors", async () => {
    const closed = await freePort();
    const cases: Array<[string[], RegExp]> = [
      [[], /bench run: --url is required/],
      [['--url', 'ftp://x'], /--url ftp:\/\/x: only http/],
      [['--url', server.url, '--concurrency', '0'], /--concurrency 0: expected whole numbers above 0/],
      [['--url', server.url, '--requests', '3', '--duration', '5s'], /--requests and --duration both set/],
      [['--url', server.url, '--slo', 'ttft=5'], /--slo ttft=5: expected key=milliseconds pairs/],
      [['--url', server.url, '--duration', 'soon'], /--duration soon: not a duration/],
      [['--url', server.url, '--frob'], /bench run: unknown option --frob/],
      [
        ['--url', server.url, '--dataset', path.join(dir, 'nope.json')],
        /--dataset \S+nope\.json: no such file/,
      ],
      [['--url', server.url, '--endpoint', 'embeddings'], /--endpoint embeddings: expected completions/],
      [
        ['--url', `http://127.0.0.1:${closed}`],
        new RegExp(`--url http://127\\.0\\.0\\.1:${closed}: .*ECONNREFUSED; is the server up`),
      ],
    ];
    for (const [args, re] of cases) {
      const r = await run([...args, '--no-ledger']);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, re);
      assert.doesNotMatch(r.stderr, /at .*\.js:\d+/);
    }
  });
});
