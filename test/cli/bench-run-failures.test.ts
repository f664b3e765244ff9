/**
 * Failed requests count (issue 25, item 12): with 45 of 50 requests answered HTTP 500, the run reports its
 * failure rate, `show` lists the failures, and a throughput target is not met however fast the 5 others were.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ledger } from '../../src/store/ledger.js';
import { runCli, spawnCli, tmpDir } from '../helpers.js';
import { scenarioRecords } from '../ledger-fixtures.js';
import { type ScriptedServer, startScripted } from '../scripted-openai.js';

const dir = tmpDir();
let server: ScriptedServer;
before(async () => {
  server = await startScripted((i) =>
    i % 10 === 0 ? { kind: 'ok', ttftMs: 1, itlMs: 1, tokens: 8 } : { kind: 'http500' },
  );
});
after(async () => {
  await server.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('bench run: failed requests', () => {
  it('45 of 50 failed: the rate is reported, show lists the failures, the target is not met', async () => {
    const file = path.join(dir, 'l.db');
    const [rec] = scenarioRecords('glm5-trtllm-oom-in-cuda-graph.log');
    const l = Ledger.open(file);
    l.upsertLaunches([rec!]);
    l.close();
    assert.equal(runCli(['target', 'add', 'output_tok_s >= 1', '--ledger', file]).code, 0);
    const r = await spawnCli([
      'bench',
      'run',
      '--url',
      server.url,
      '--requests',
      '50',
      '--concurrency',
      '5',
      '--output-len',
      '8',
      '--launch',
      rec!.id.slice(0, 8),
      '--ledger',
      file,
      '--no-color',
    ]).done;
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /90 % of requests failed, over the 1 % allowed \(--max-failed\): this level meets no target/,
    );
    const show = runCli(['show', rec!.id.slice(0, 8), '--json', '--ledger', file]);
    const j = JSON.parse(show.stdout);
    assert.equal(j.benches[0].failed, 45);
    assert.equal(j.benches[0].completed, 5);
    const t = j.targets.find((x: { target: { expr: string } }) => x.target.expr === 'output_tok_s >= 1');
    assert.equal(t.pass, false, JSON.stringify(t));
    assert.match(t.from, /45 of 50 requests failed \(90 %, over the 1 % the run allows\)/);
    const text = runCli(['show', rec!.id.slice(0, 8), '--ledger', file, '--no-color']).stdout;
    assert.match(text, /failed/);
  });

  it('--max-failed raises the limit for one run; a bad value is one line', async () => {
    const file = path.join(dir, 'l2.db');
    const [rec] = scenarioRecords('glm5-trtllm-oom-in-cuda-graph.log');
    const l = Ledger.open(file);
    l.upsertLaunches([rec!]);
    l.close();
    assert.equal(runCli(['target', 'add', 'output_tok_s >= 1', '--ledger', file]).code, 0);
    const r = await spawnCli([
      'bench',
      'run',
      '--url',
      server.url,
      '--requests',
      '10',
      '--output-len',
      '8',
      '--max-failed',
      '95%',
      '--launch',
      rec!.id.slice(0, 8),
      '--ledger',
      file,
      '--json',
    ]).done;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).levels[0].failedRate, 0.9);
    const j = JSON.parse(runCli(['show', rec!.id.slice(0, 8), '--json', '--ledger', file]).stdout);
    assert.equal(j.targets[0].pass, true);
    const bad = await spawnCli(['bench', 'run', '--url', server.url, '--max-failed', 'lots']).done;
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--max-failed lots: a percentage from 0 to 100/);
  });
});
