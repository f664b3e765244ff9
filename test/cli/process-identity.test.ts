import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type EngineProcess, freePort, portOpen, startDecoy, startScriptedSglang } from '../engines.js';
import { spawnCli, tmpDir } from '../helpers.js';

/**
 * Issue 24.1: a process belongs to a launch only when something proves it. One machine, several servers at
 * once (scripted SGLang processes on ports of their own) and an unrelated SGLang-looking decoy that must never
 * be taken for any of them.
 */
const verdicts = (r: { events: Array<Record<string, any>> }) => r.events.filter((e) => e.type === 'verdict');
const processEvidence = (v: Record<string, any>) =>
  (v.evidence as Array<{ source: string; text: string }>)
    .filter((e) => e.source === 'process')
    .map((e) => e.text);

async function waitForLine(file: string, re: RegExp, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (fs.existsSync(file) && re.test(fs.readFileSync(file, 'utf8'))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${file}: no line matching ${re}`);
}

describe('process identity by evidence only (issue 24.1)', () => {
  let dir: string;
  let decoy: EngineProcess;
  const started: EngineProcess[] = [];
  const engine = (o: Parameters<typeof startScriptedSglang>[0]) => {
    const p = startScriptedSglang(o);
    started.push(p);
    return p;
  };
  before(async () => {
    dir = tmpDir();
    decoy = await startDecoy();
  });
  after(async () => {
    await Promise.all([decoy.stop(), ...started.map((p) => p.stop())]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('wait --next on a relaunch stuck loading, with a decoy listening elsewhere: stalled (4), never the decoy', async () => {
    const log = path.join(dir, 'relaunch.log');
    const port = await freePort();
    // Launch 1 served, then died without a word (kill -9): history, not the launch waited for.
    const first = engine({ model: 'Qwen/Qwen3-8B', port, log });
    await waitForLine(log, /fired up and ready to roll/);
    await first.stop('SIGKILL');
    const wait = spawnCli(['wait', log, '--next', '--json', '--no-gpu', '--timeout', '40s'], {
      FIREDUP_BUDGET_SCALE: '0.1',
    });
    await new Promise((r) => setTimeout(r, 1500));
    // The relaunch: stuck at shard 3 of 8, alive, never listening.
    const second = engine({ model: 'Qwen/Qwen3-8B', port, log, extra: ['--shards', '8', '--stall-at', '3'] });
    const w = await wait.done;
    assert.equal(w.code, 4, `${w.stdout}\n${w.stderr}`);
    const final = verdicts(w).at(-1)!;
    assert.equal(final.state, 'stalled');
    assert.equal(final.launch, 2);
    // Issue 24.7: no ETA kept while stalled, nor once the bar's own ETA has passed in silence.
    assert.equal(final.progress.eta, null);
    for (const v of verdicts(w))
      if (v.progress?.eta != null) assert.ok(v.quietFor <= v.progress.eta + 1, JSON.stringify(v.progress));
    assert.ok(!verdicts(w).some((v) => v.state === 'serving' || v.state === 'ready'), 'launch 1 judged');
    const proc = processEvidence(final);
    assert.ok(
      proc.some((t) => t.startsWith(`pid ${second.pid} `)),
      proc.join('\n'),
    );
    assert.ok(
      proc.some((t) =>
        /is this launch's: its command line launches sglang with the launch's model \(Qwen\/Qwen3-8B\) and port/.test(
          t,
        ),
      ),
      proc.join('\n'),
    );
    assert.ok(!JSON.stringify(w.events).includes(`pid ${decoy.pid} alive`), 'the decoy was adopted');
    await second.stop();
  });

  it('two servers of one model on two ports and a decoy: each log is tied to its own process, by port', async () => {
    const [pa, pb] = [await freePort(), await freePort()];
    const la = path.join(dir, 'a.log');
    const lb = path.join(dir, 'b.log');
    const a = engine({ model: 'Qwen/Qwen3-8B', port: pa, log: la });
    const b = engine({ model: 'Qwen/Qwen3-8B', port: pb, log: lb });
    assert.ok((await portOpen(pa)) && (await portOpen(pb)));
    await waitForLine(la, /fired up/);
    await waitForLine(lb, /fired up/);
    for (const [log, want, port] of [
      [la, a, pa],
      [lb, b, pb],
    ] as const) {
      const w = await spawnCli(['wait', log, '--json', '--no-gpu', '--timeout', '20s']).done;
      assert.equal(w.code, 0, w.stdout);
      const final = verdicts(w).at(-1)!;
      assert.ok(['ready', 'serving', 'idle'].includes(final.state), final.state);
      const proc = processEvidence(final);
      assert.ok(
        proc.some((t) => t.startsWith(`pid ${want.pid} alive`)),
        proc.join('\n'),
      );
      assert.ok(
        proc.some((t) => t.includes(`it listens on port ${port}, the port the log names`)),
        proc.join('\n'),
      );
    }
  });

  it('two processes with the same model and port, neither listening: none chosen, both listed', async () => {
    const port = await freePort();
    const log = path.join(dir, 'twins.log');
    const one = engine({ model: 'Qwen/Qwen3-32B', port, log, extra: ['--shards', '8', '--stall-at', '2'] });
    const two = engine({ model: 'Qwen/Qwen3-32B', port, extra: ['--shards', '8', '--stall-at', '2'] });
    await waitForLine(log, /2\/8/);
    const w = await spawnCli(['wait', log, '--json', '--no-gpu', '--timeout', '4s']).done;
    const final = verdicts(w).at(-1)!;
    assert.notEqual(final.state, 'dead');
    const proc = processEvidence(final).join('\n');
    assert.match(
      proc,
      /no process tied to this launch: 2 processes launch the same model on port \d+; name one with --pid/,
    );
    assert.ok(proc.includes(`pid ${one.pid} `) && proc.includes(`pid ${two.pid} `), proc);
    assert.ok(!proc.includes(`pid ${decoy.pid} `), 'the decoy is no candidate: another model, another port');
  });

  it('a log whose server is gone, a decoy on the machine: the decoy is a candidate that does not count, and says why', async () => {
    const port = await freePort();
    const log = path.join(dir, 'gone.log');
    const p = engine({ model: 'Qwen/Qwen3-8B', port, log, extra: ['--shards', '8', '--stall-at', '3'] });
    await waitForLine(log, /3\/8/);
    await p.stop('SIGKILL');
    const w = await spawnCli(['wait', log, '--json', '--no-gpu', '--timeout', '4s']).done;
    const final = verdicts(w).at(-1)!;
    const proc = processEvidence(final).join('\n');
    assert.match(proc, /no process tied to this launch/);
    assert.ok(
      proc.includes(`pid ${decoy.pid} (`) &&
        proc.includes('names model other-team/Decoy-70B, not Qwen/Qwen3-8B'),
      proc,
    );
    assert.ok(proc.includes(`listens on ${decoy.port}, not ${port}`), proc);
  });
});
