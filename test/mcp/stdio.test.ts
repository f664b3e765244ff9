/**
 * `firedup mcp` over stdio, driven by the SDK's own client on the real process: tools and their schemas, the
 * same verdicts as the CLI on the scenario logs, `wait` on a live replay with progress notifications, the
 * ledger tools, tool errors, resources, the prompt, and a benchmark of the real llama-server.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ROOT, SCENARIOS, tmpDir } from '../helpers.js';
import { ensureLlama, freePort, startLlama } from '../llama.js';
import { call, FIREDUP, stdioClient, text } from './client.js';

const EXAMPLES = path.join(ROOT, 'examples');

function cliStatus(log: string, ledger: string): { json: Record<string, unknown>; code: number | null } {
  const r = spawnSync(process.execPath, [FIREDUP, 'status', '--json', '--ledger', ledger, log], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  return { json: JSON.parse(r.stdout), code: r.status };
}

describe('firedup mcp over stdio', () => {
  const dir = tmpDir();
  const ledger = path.join(dir, 'ledger.db');
  let client: Client;
  before(async () => {
    client = await stdioClient(['--ledger', ledger]);
  });
  after(async () => {
    await client?.close();
  });

  it('lists its tools with input schemas; launch and sweep only with --allow-launch', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ['bench_run', 'diff', 'explain', 'runs', 'show', 'status', 'wait']);
    const wait = tools.find((t) => t.name === 'wait')!;
    assert.equal(wait.inputSchema.type, 'object');
    assert.ok(wait.inputSchema.required?.includes('timeout_s'), 'wait needs a timeout');
    assert.ok(wait.inputSchema.required?.includes('target'));
    const status = tools.find((t) => t.name === 'status')!;
    assert.ok(status.outputSchema, 'status declares its structured result');
    for (const t of tools) assert.ok((t.description ?? '').length > 40, `${t.name} says what it is for`);
    const allowed = await stdioClient(['--ledger', ledger, '--allow-launch']);
    try {
      const more = (await allowed.listTools()).tools.map((t) => t.name);
      assert.ok(more.includes('launch') && more.includes('sweep'), more.join(','));
    } finally {
      await allowed.close();
    }
    await assert.rejects(
      call(client, 'launch', { command: ['sleep', '1'], timeout_s: 5 }).then((r) => {
        if (r.isError) throw new Error(text(r));
      }),
      /launch not found|Tool launch/i,
    );
  });

  for (const [file, state] of [
    [path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'), 'crashed'],
    [path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), 'stalled'],
    [path.join(EXAMPLES, 'glm5-serving.log'), null],
  ] as const) {
    it(`status on ${path.basename(file)}: the CLI's verdict`, async () => {
      const r = await call(client, 'status', { target: file });
      assert.ok(!r.isError, text(r));
      const cli = cliStatus(file, path.join(dir, 'cli-ledger.db'));
      const got = r.structuredContent!;
      const live = got.live as Record<string, unknown>;
      const cliLive = cli.json.live as Record<string, unknown>;
      assert.equal(live.state, cliLive.state);
      if (state) assert.equal(live.state, state);
      assert.equal(got.outcome, cli.json.outcome);
      assert.equal(got.phase, cli.json.phase);
      assert.deepEqual(
        got.failure && (got.failure as Record<string, unknown>).class,
        cli.json.failure && (cli.json.failure as Record<string, unknown>).class,
      );
      assert.equal(got.exitCode, cli.code);
      const summary = r.content[0]!.type === 'text' ? (r.content[0] as { text: string }).text : '';
      assert.match(summary, new RegExp(`^${String(live.state)}`));
      if (state === 'crashed') assert.match(summary, /failure: oom at line \d+/);
      if (state === 'stalled') assert.match(summary, /40\/83/);
      assert.match(summary, /line \d+: /, 'the evidence lines with their numbers');
    });
  }

  it('explain: the lines behind the reading', async () => {
    const r = await call(client, 'explain', {
      target: path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'),
    });
    assert.ok(!r.isError, text(r));
    assert.ok(r.structuredContent!.failure, 'the failure and its evidence');
    assert.ok(Array.isArray(r.structuredContent!.phases));
  });

  it('runs, show and diff against the ledger', async () => {
    const log = path.join(EXAMPLES, 'glm5-relaunch-stuck-at-48pct.log');
    const inLog = await call(client, 'runs', { target: log });
    assert.ok(!inLog.isError, text(inLog));
    assert.equal((inLog.structuredContent!.launches as unknown[]).length, 2);
    const ledgerRuns = await call(client, 'runs', { model: 'GLM-5' });
    assert.ok(!ledgerRuns.isError, text(ledgerRuns));
    const launches = ledgerRuns.structuredContent!.launches as Array<Record<string, unknown>>;
    assert.ok(launches.length >= 2, `the ledger has the launches read so far: ${launches.length}`);
    const shown = await call(client, 'show', { id: String(launches[0]!.id).slice(0, 8) });
    assert.ok(!shown.isError, text(shown));
    assert.equal(shown.structuredContent!.id, launches[0]!.id);
    const d = await call(client, 'diff', { log });
    assert.ok(!d.isError, text(d));
    assert.match(text(d), /cuda_graph_max_bs|disable_cuda_graph|max_running_requests/);
    const d2 = await call(client, 'diff', { a: 'last~1', b: 'last' });
    assert.ok(!d2.isError, text(d2));
  });

  it("bad input is a tool error with the CLI's one line, and the server lives on", async () => {
    const missing = await call(client, 'status', { target: path.join(dir, 'nope.log') });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /nope\.log: no such file/);
    assert.equal(text(missing).split('\n').length, 1);
    const host = await call(client, 'status', {
      target: 'no-such-host.invalid:/var/log/x.log',
      timeout_s: 60,
    });
    assert.equal(host.isError, true);
    assert.match(text(host), /no-such-host\.invalid/);
    const bad = await call(client, 'wait', { target: 'x.log', timeout_s: -3 });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /timeout_s/);
    const noTimeout = await call(client, 'wait', { target: 'x.log' });
    assert.equal(noTimeout.isError, true);
    const flagLike = await call(client, 'status', { target: '--version' });
    assert.equal(flagLike.isError, true);
    assert.match(text(flagLike), /starts with '-'/);
    const id = await call(client, 'show', { id: 'deadbeefcafe' });
    assert.equal(id.isError, true);
    assert.match(text(id), /no launch deadbeefcafe/);
    // still answering
    assert.ok((await client.listTools()).tools.length > 0);
  });

  it('resources: a recorded launch and a log, and the diagnose prompt', async () => {
    const { resources } = await client.listResources();
    assert.ok(resources.length > 0 && resources.every((r) => r.uri.startsWith('firedup://launch/')));
    const launch = await client.readResource({ uri: resources[0]!.uri });
    const report = JSON.parse((launch.contents[0] as { text: string }).text);
    assert.ok(report.id && report.report, 'the show --json report');
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assert.ok(templates.includes('firedup://log/{+path}'), templates.join(','));
    const log = path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log');
    const read = await client.readResource({ uri: `firedup://log/${log}` });
    assert.equal(JSON.parse((read.contents[0] as { text: string }).text).live.state, 'crashed');
    const prompt = await client.getPrompt({ name: 'diagnose_launch', arguments: { target: log } });
    const msg = (prompt.messages[0]!.content as { text: string }).text;
    assert.match(msg, /status/);
    assert.match(msg, /evidence/);
    assert.ok(msg.includes(log));
  });
});

describe('firedup mcp: wait on a live replay, and a subscription', () => {
  const dir = tmpDir();
  let replay: ChildProcess | null = null;
  after(() => {
    if (replay && replay.exitCode === null) replay.kill('SIGKILL');
  });

  it('sends progress notifications as the phases go by, then ready; a subscriber hears of it', async () => {
    const client = await stdioClient(['--no-ledger']);
    try {
      const log = path.join(dir, 'live.log');
      fs.writeFileSync(log, '');
      const updates: string[] = [];
      client.setNotificationHandler(
        (await import('@modelcontextprotocol/sdk/types.js')).ResourceUpdatedNotificationSchema,
        (n) => {
          updates.push(n.params.uri);
        },
      );
      await client.subscribeResource({ uri: `firedup://log/${log}` });
      replay = spawn(
        process.execPath,
        [
          FIREDUP,
          'replay',
          path.join(EXAMPLES, 'glm5-serving.log'),
          '--speed',
          '20',
          '--max-gap',
          '1',
          '--out',
          log,
        ],
        { stdio: 'ignore' },
      );
      const progress: string[] = [];
      const r = await call(client, 'wait', { target: log, timeout_s: 120, gpu: false }, (p) =>
        progress.push(p.message ?? ''),
      );
      assert.ok(!r.isError, text(r));
      assert.ok(
        ['ready', 'serving'].includes(String(r.structuredContent!.state)),
        JSON.stringify(r.structuredContent),
      );
      assert.equal(r.structuredContent!.exitCode, 0);
      assert.ok(
        progress.some((m) => /phase loading_weights/.test(m)),
        progress.join('\n'),
      );
      assert.ok(
        progress.some((m) => /^phase ready|ready/.test(m)),
        progress.join('\n'),
      );
      // the subscription is polled each second; the log changed phase many times
      for (let i = 0; i < 30 && updates.length === 0; i++) await new Promise((res) => setTimeout(res, 200));
      assert.ok(updates.includes(`firedup://log/${log}`), `updates: ${updates.join(',')}`);
    } finally {
      await client.close();
    }
  });
});

describe('firedup mcp: bench_run against the real llama-server', () => {
  const dir = tmpDir();
  let llama: Awaited<ReturnType<typeof startLlama>> | null = null;
  after(async () => {
    await llama?.stop();
  });

  it('waits for it, benchmarks it and attaches the result to its launch', async () => {
    const llamaDir = ensureLlama();
    const port = await freePort();
    const log = path.join(dir, 'llama.log');
    llama = startLlama({ dir: llamaDir, log, port });
    const ledger = path.join(dir, 'ledger.db');
    const client = await stdioClient(['--ledger', ledger]);
    try {
      const w = await call(client, 'wait', {
        target: log,
        timeout_s: 120,
        gpu: false,
        url: `http://127.0.0.1:${port}`,
      });
      assert.equal(w.structuredContent?.exitCode, 0, text(w));
      const b = await call(client, 'bench_run', {
        url: `http://127.0.0.1:${port}`,
        concurrency: [1],
        requests: 3,
        input_len: 16,
        output_len: 8,
        timeout_s: 120,
      });
      assert.ok(!b.isError, text(b));
      const levels = b.structuredContent!.levels as Array<Record<string, unknown>>;
      assert.equal(levels[0]!.completed, 3);
      assert.match(text(b), /output tok\/s/);
      const tooMany = await call(client, 'bench_run', {
        url: `http://127.0.0.1:${port}`,
        concurrency: [1, 2, 3, 4, 5, 6, 7, 8, 9],
      });
      assert.equal(tooMany.isError, true, 'levels are bounded');
      const refused = await call(client, 'bench_run', {
        url: 'http://127.0.0.1:9',
        requests: 1,
        timeout_s: 30,
      });
      assert.equal(refused.isError, true);
      assert.match(text(refused), /127\.0\.0\.1:9/);
    } finally {
      await client.close();
    }
  });
});
