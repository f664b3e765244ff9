import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SCENARIOS, spawnCli, tmpDir } from '../helpers.js';

/** The CLI run to its end: status, output. */
async function run(args: string[], timeoutMs: number) {
  const r = await spawnCli(args, {}, timeoutMs).done;
  return { status: r.code, stdout: r.stdout, stderr: r.stderr };
}

describe('demo, and the --on-ready / --on-fail hooks', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('firedup demo replays the bundled launch to a clean exit, exit code 0', async () => {
    const r = await run(['demo', '--speed', '200', '--json'], 60_000);
    assert.equal(r.status, 0, r.stderr);
    const states = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'verdict')
      .map((e) => e.state);
    assert.ok(states.includes('serving'), states.join(' '));
    assert.equal(states.at(-1), 'exited');
  });

  it('--on-ready runs with the verdict in its environment; --on-fail on a crash', async () => {
    // A server that answers: the launch in the log is up, not history.
    const server = http.createServer((_req, res) => res.end('{}')).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ready = path.join(dir, 'ready.log');
    fs.writeFileSync(
      ready,
      fs
        .readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'), 'utf8')
        .split('\n')
        .slice(0, 160)
        .join('\n'),
    );
    const out = path.join(dir, 'hook.txt');
    const r = await run(
      [
        'wait',
        ready,
        '--no-gpu',
        '--url',
        url,
        '--on-ready',
        `echo "$FIREDUP_STATE $FIREDUP_ENGINE $FIREDUP_PHASE" > ${out}`,
      ],
      30_000,
    );
    server.close();
    assert.equal(r.status, 0, r.stderr);
    assert.match(fs.readFileSync(out, 'utf8'), /^(ready|serving) sglang (ready|serving)/);

    const crashed = path.join(dir, 'crash.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'), crashed);
    const fail = path.join(dir, 'fail.txt');
    const c = await run(
      [
        'wait',
        crashed,
        '--no-gpu',
        '--on-fail',
        `echo "$FIREDUP_STATE $FIREDUP_FAILURE_CLASS $FIREDUP_EVIDENCE_LINE" > ${fail}`,
      ],
      30_000,
    );
    assert.equal(c.status, 2, c.stderr);
    assert.equal(fs.readFileSync(fail, 'utf8').trim(), 'crashed oom 170');
  });
});
