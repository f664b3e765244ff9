import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ROOT, SCENARIOS, spawnCli, tmpDir } from '../helpers.js';

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
    // The port closes a moment before the shutdown line: never called dead on the way to a clean exit.
    assert.ok(!states.includes('dead'), states.join(' '));
    // JSON stays JSON: no banner, no invitation.
    assert.ok(
      r.stdout.split('\n').every((l) => l === '' || l.startsWith('{')),
      r.stdout.slice(0, 200),
    );
  });

  it('firedup demo opens with a banner, ends with the port refused and "now try: …"', async () => {
    const r = await run(['demo', '--speed', '200', '--no-color'], 60_000);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.split('\n');
    assert.equal(lines[0], 'firedup demo');
    const banner = lines.slice(0, 8).join('\n');
    assert.match(banner, /replaying .*glm5-launch-to-shutdown\.log/);
    assert.match(banner, /start-up at 200×/);
    assert.match(banner, /Ctrl-C stops it/);
    // The log is there before the watch starts: nothing about a missing file, no "waiting".
    assert.doesNotMatch(r.stdout, /does not exist/);
    assert.doesNotMatch(r.stdout, /waiting/);
    assert.match(r.stdout, /■ exited/);
    const tail = r.stdout.slice(r.stdout.indexOf('now try:'));
    assert.ok(r.stdout.includes('now try:'), r.stdout.slice(-600));
    for (const s of [
      'firedup status ',
      'glm5-relaunch-stuck-at-48pct.log',
      'vllm-llama3-8b-serving.log',
      'firedup runs',
    ])
      assert.ok(tail.includes(s), s);
  });

  it('the demo spends its time on start-up, and closes the port before the shutdown line', async () => {
    const { planDemo, DOWN_PAUSE } = await import('../../src/core/replay/demo-plan.js');
    const text = fs.readFileSync(path.join(ROOT, 'examples', 'glm5-launch-to-shutdown.log'), 'latin1');
    const { steps, seconds } = planDemo(text, 10);
    const at = (line: number) => steps[line - 1]!.at;
    // Lines 20 (loading) to 148 (serving) are start-up; 383 is the first shutdown line.
    const startup = at(148) - at(1);
    const serving = at(382) - at(148);
    assert.ok(startup > serving, `start-up ${startup}s, serving ${serving}s`);
    assert.ok(at(114) - at(20) > 5, 'loading is watched for more than 5 s');
    assert.ok(seconds < 40, `${seconds}s in all`);
    assert.ok(
      at(383) - at(382) >= DOWN_PAUSE,
      'a probe round between the port closing and the shutdown line',
    );
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
