/**
 * firedup against a REAL inference engine: Debian's llama.cpp `llama-server` on the CPU with a tiny random GGUF
 * model (scripts/llama-server-setup.sh, cached under node_modules/.cache/firedup-llama), its stdout and stderr
 * appended to a log as `>> server.log 2>&1` would, read by the real CLI (bin/firedup.js).
 * FIREDUP_NO_LLAMA=1 skips the file (no apt-get or no network to the Debian mirror).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, tmpDir } from '../helpers.js';
import { ensureLlama, freePort, healthy, type LlamaServer, startLlama, waitFor } from '../llama.js';

const skip = process.env.FIREDUP_NO_LLAMA === '1' ? 'FIREDUP_NO_LLAMA=1' : false;

/** `firedup status --json LOG`: the latest launch, and the exit code. */
function status(log: string): { code: number | null; j: any } {
  const r = runCli(['status', '--json', log]);
  assert.ok(r.stdout, `no output from firedup status --json ${log}: ${r.stderr}`);
  return { code: r.code, j: JSON.parse(r.stdout) };
}

const read = (log: string) => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '');
/** What to print when an assertion fails: firedup's reading and the log itself. */
const ctx = (log: string, j: unknown) =>
  `firedup said ${JSON.stringify(j, ['outcome', 'phase', 'engine', 'failure', 'class', 'line', 'text'])}\n--- ${log}:\n${read(log)}`;

describe('a real llama-server', { timeout: 90_000, skip }, () => {
  let dir: string;
  let work: string;
  const servers: LlamaServer[] = [];
  const start = (opts: { log: string; port: number; model?: string }) => {
    const s = startLlama({ dir, ...opts });
    servers.push(s);
    return s;
  };
  /** Started, its /health answers 200 and its log has the ready line (llama.cpp logs from a worker thread). */
  const startReady = async (log: string, port: number) => {
    const s = start({ log, port });
    await waitFor(
      async () => {
        if (s.child.exitCode !== null) throw new Error(`llama-server exited early:\n${read(log)}`);
        return healthy(port);
      },
      20_000,
      `GET /health = 200 on port ${port}`,
    );
    await waitFor(() => /listening on/.test(read(log)), 5_000, `the ready line in ${log}`);
    return s;
  };

  before(() => {
    dir = ensureLlama();
    work = tmpDir();
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  describe('a launch to ready, a request, then SIGTERM', () => {
    let log: string;
    let port: number;
    let server: LlamaServer;
    before(async () => {
      log = path.join(work, 'server.log');
      port = await freePort();
    });
    after(() => server?.stop('SIGKILL'));

    it('is ready once /health answers 200', { timeout: 30_000 }, async () => {
      server = await startReady(log, port);
      const { code, j } = status(log);
      assert.equal(j.engine, 'llamacpp', ctx(log, j));
      assert.equal(j.outcome, 'ready', ctx(log, j)); // no request logged yet
      assert.equal(j.failure, null, ctx(log, j));
      assert.equal(j.launchCount, 1, ctx(log, j));
      assert.match(j.ready?.text ?? '', /listening on http:\/\/127\.0\.0\.1:\d+/, ctx(log, j));
      assert.equal(code, 0, ctx(log, j));
    });

    it('is serving after a real completion', { timeout: 30_000 }, async () => {
      const res = await fetch(`http://127.0.0.1:${port}/completion`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'hello world', n_predict: 4 }),
        signal: AbortSignal.timeout(20_000),
      });
      assert.equal(res.status, 200);
      const body: any = await res.json();
      assert.equal(body.tokens_predicted, 4);
      await waitFor(() => /stop processing/.test(read(log)), 5_000, 'the end of the request in the log');
      const { code, j } = status(log);
      assert.equal(j.engine, 'llamacpp', ctx(log, j));
      assert.equal(j.outcome, 'serving', ctx(log, j)); // the request's slot lines are logged
      assert.equal(j.failure, null, ctx(log, j));
      assert.equal(code, 0, ctx(log, j));
    });

    it("reads generation throughput from the request's print_timing lines", () => {
      // `... I slot print_timing: id  0 | task 0 |        eval time =  0.55 ms / 4 tokens (... 5444.65 tokens per second)`
      const { j } = status(log);
      assert.ok(j.throughput && j.throughput.peak > 0, `no throughput: ${ctx(log, j)}`);
    });

    it('is shut down (exit code 5) once SIGTERM has stopped it', { timeout: 30_000 }, async () => {
      await server.stop('SIGTERM');
      assert.equal(server.child.signalCode ?? server.child.exitCode, 0, 'llama-server did not exit cleanly');
      const { code, j } = status(log);
      assert.equal(j.engine, 'llamacpp', ctx(log, j));
      assert.equal(j.outcome, 'shutdown', ctx(log, j));
      assert.equal(j.failure, null, ctx(log, j));
      assert.match(j.shutdown?.text ?? '', /cleaning up before exit/, ctx(log, j));
      assert.equal(code, 5, ctx(log, j));
    });
  });

  it('a second server on the same port crashed with port_in_use', { timeout: 30_000 }, async () => {
    const port = await freePort();
    const first = await startReady(path.join(work, 'first.log'), port);
    const log = path.join(work, 'clash.log');
    const second = start({ log, port });
    await second.exited();
    assert.notEqual(second.child.exitCode, 0, 'the second server did not fail');
    const { code, j } = status(log);
    assert.equal(j.engine, 'llamacpp', ctx(log, j));
    assert.equal(j.outcome, 'crashed', ctx(log, j));
    assert.equal(j.failure?.class, 'port_in_use', ctx(log, j));
    assert.match(j.failure?.text ?? '', /couldn't bind HTTP server socket/, ctx(log, j));
    assert.equal(code, 2, ctx(log, j));
    assert.ok(await healthy(port), 'the first server should still be serving');
    await first.stop();
  });

  it('a missing model path crashed with model_not_found', { timeout: 30_000 }, async () => {
    const log = path.join(work, 'missing-model.log');
    const model = path.join(work, 'no-such-dir', 'model.gguf');
    const s = start({ log, port: await freePort(), model });
    await s.exited();
    assert.notEqual(s.child.exitCode, 0, 'llama-server did not fail');
    const { code, j } = status(log);
    assert.equal(j.engine, 'llamacpp', ctx(log, j));
    assert.equal(j.outcome, 'crashed', ctx(log, j));
    assert.equal(j.failure?.class, 'model_not_found', ctx(log, j));
    assert.equal(j.failure?.phase, 'loading_weights', ctx(log, j));
    assert.ok(j.failure?.text.includes(model), ctx(log, j));
    assert.equal(code, 2, ctx(log, j));
  });

  it('a relaunch appended to the same log is a second launch', { timeout: 30_000 }, async () => {
    const log = path.join(work, 'relaunch.log');
    const first = await startReady(log, await freePort());
    await first.stop('SIGTERM');
    const linesBefore = read(log).split('\n').length - 1;
    const second = await startReady(log, await freePort());

    const r = runCli(['runs', '--json', log]);
    assert.equal(r.code, 0, r.stderr);
    const runs = JSON.parse(r.stdout);
    const ctxRuns = `firedup runs said ${JSON.stringify(runs.launches?.map((l: any) => [l.startLine, l.endLine, l.outcome]))}\n--- ${log}:\n${read(log)}`;
    assert.equal(runs.engine, 'llamacpp', ctxRuns);
    assert.equal(runs.launches.length, 2, ctxRuns);
    assert.equal(runs.launches[0].outcome, 'shutdown', ctxRuns);
    assert.equal(runs.launches[0].endLine, linesBefore, ctxRuns);
    assert.equal(runs.launches[1].startLine, linesBefore + 1, ctxRuns);
    assert.equal(runs.launches[1].outcome, 'ready', ctxRuns);
    assert.equal(runs.launches[1].failure, null, ctxRuns);

    const { code, j } = status(log);
    assert.equal(j.launchCount, 2, ctx(log, j));
    assert.equal(j.outcome, 'ready', ctx(log, j));
    assert.equal(code, 0, ctx(log, j));
    await second.stop();
  });
});
