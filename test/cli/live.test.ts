import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type EngineProcess, startDecoy } from '../engines.js';
import { BIN, type CliRun, ROOT, runCli, SCENARIOS, spawnCli, tmpDir } from '../helpers.js';

/**
 * The seed situations replayed live (firedup replay into a real file) and watched by the real CLI:
 * the verdicts the issue asks for, within the times it asks for.
 */
const FAKE_BIN = path.join(ROOT, 'test', 'fixtures', 'fake-bin');

type Result = CliRun;
const firedup = spawnCli;

const verdicts = (r: Result) => r.events.filter((e) => e.type === 'verdict');

describe('live verdicts on replayed scenarios', () => {
  let dir: string;
  // An unrelated SGLang-looking server on the machine, as on any shared node: no verdict may lean on it.
  let decoy: EngineProcess;
  before(async () => {
    dir = tmpDir();
    decoy = await startDecoy();
  });
  after(async () => {
    await decoy.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('relaunch stuck at 48% (wait --next): the first launch is ignored, the second is stalled in loading_weights within a minute of its last shard', async () => {
    const src = fs.readFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), 'utf8').split('\n');
    const log = path.join(dir, 'relaunch.log');
    const second = path.join(dir, 'second.log');
    fs.writeFileSync(log, `${src.slice(0, 321).join('\n')}\n`);
    fs.writeFileSync(second, src.slice(321).join('\n'));
    const wait = firedup(['wait', log, '--next', '--json', '--no-gpu', '--timeout', '100s'], {}, 110_000);
    await new Promise((r) => setTimeout(r, 1500));
    const replay = firedup(['replay', second, '--speed', '20', '--out', log]);
    const [w, rp] = await Promise.all([wait.done, replay.done]);
    assert.equal(rp.code, 0, rp.stderr);
    assert.equal(w.code, 4, w.stderr);
    const final = verdicts(w).at(-1)!;
    assert.equal(final.state, 'stalled');
    assert.equal(final.stalledIn, 'loading_weights');
    assert.equal(final.launch, 2);
    assert.ok(w.seconds - rp.seconds < 60, `stalled ${w.seconds - rp.seconds} s after the replay ended`);
    // launch 1 served and ended without a word: never reported as this launch's state
    assert.ok(!verdicts(w).some((v) => v.state === 'serving' || v.state === 'ready'));
  });

  it('cutlass bench then shutdown, idle fake GPUs: exited, not crashed, never stalled', async () => {
    const log = path.join(dir, 'cutlass.log');
    const replay = firedup([
      'replay',
      path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'),
      '--speed',
      '100',
      '--out',
      log,
    ]);
    const watch = firedup(
      ['watch', log, '--json', '--timeout', '60s'],
      { PATH: `${FAKE_BIN}:${process.env.PATH}`, FAKE_GPU_STATE: 'idle' },
      70_000,
    );
    const [w, rp] = await Promise.all([watch.done, replay.done]);
    assert.equal(rp.code, 0, rp.stderr);
    assert.equal(w.code, 5, w.stderr);
    const states = verdicts(w).map((v) => v.state);
    assert.equal(states.at(-1), 'exited');
    assert.ok(!states.includes('stalled') && !states.includes('crashed'), states.join(' '));
    assert.ok(states.includes('serving'));
  });

  it('silent after Load weight end: stalled after weights_loaded (budgets scaled as for a 20x replay)', async () => {
    const log = path.join(dir, 'silent.log');
    const replay = firedup([
      'replay',
      path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log'),
      '--speed',
      '20',
      '--out',
      log,
    ]);
    const wait = firedup(['wait', log, '--json', '--no-gpu', '--timeout', '60s'], {
      FIREDUP_BUDGET_SCALE: '0.1',
    });
    const [w] = await Promise.all([wait.done, replay.done]);
    assert.equal(w.code, 4, w.stderr);
    assert.equal(verdicts(w).at(-1)!.stalledIn, 'weights_loaded');
  });

  it('a long silent autotune while the GPUs are busy is never stalled; with idle GPUs it is, past its budget', async () => {
    const src = fs
      .readFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'), 'utf8')
      .split('\n');
    const at = src.findIndex((l) => l.includes('Running FlashInfer autotune'));
    const head = path.join(dir, 'autotune-head.log');
    fs.writeFileSync(head, `${src.slice(0, at + 1).join('\n')}\n`);
    const run = async (state: string) => {
      const log = path.join(dir, `autotune-${state}.log`);
      fs.copyFileSync(head, log);
      // autotune's budget (900 s) scaled by 0.01 is 9 s; the watch sees 14 s of silence.
      const watch = firedup(
        ['watch', log, '--json'],
        { PATH: `${FAKE_BIN}:${process.env.PATH}`, FAKE_GPU_STATE: state, FIREDUP_BUDGET_SCALE: '0.01' },
        14_000,
      );
      return watch.done;
    };
    const [busy, idle] = await Promise.all([run('busy'), run('idle')]);
    const busyStates = verdicts(busy).map((v) => v.state);
    assert.ok(busyStates.includes('autotune'), busyStates.join(' '));
    assert.ok(!busyStates.includes('stalled'), busyStates.join(' '));
    assert.equal(verdicts(idle).at(-1)!.state, 'stalled');
  });

  it('watch follows standard input: a pipe of a crashing launch', async () => {
    const child = spawn(process.execPath, [BIN, 'watch', '-', '--json', '--no-gpu'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stdin!.write(fs.readFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log')));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    assert.equal(code, 2);
    const last = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((e) => e.type === 'verdict')
      .at(-1);
    assert.equal(last.state, 'crashed');
    child.stdin!.destroy();
  });

  it('wait gives up with exit 6 at its timeout; watch and wait refuse stdin and bad flags in one line', async () => {
    const log = path.join(dir, 'nothing-yet.log');
    const w = await firedup(['wait', log, '--timeout', '2s', '--no-gpu']).done;
    assert.equal(w.code, 6);
    assert.match(w.stderr, /timeout/);
    const empty = await firedup(['wait', '-', '--no-gpu'], {}, 10_000).done;
    assert.equal(empty.code, 1, 'a pipe that ends with no line at all: said in one line, not a timeout');
    assert.match(empty.stderr, /standard input ended with no log lines/);
    const loaded = fs.readFileSync(path.join(SCENARIOS, 'glm5-silent-after-load-weight-end.log'));
    const piped = runCli(['wait', '-', '--no-gpu'], loaded);
    assert.equal(piped.code, 6, 'a pipe that ends before the launch is ready: given up');
    for (const args of [
      ['watch', dir],
      ['wait', dir, '--timeout', '5s'],
      ['watch', log, '--timeout', 'soon'],
      ['wait', log, '--timeout', 'x'],
      ['watch', log, '--url', 'ftp://x'],
      ['watch', log, '--pid', 'abc'],
    ]) {
      const r = await firedup(args, {}, 10_000).done;
      assert.equal(r.code, 1, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });
});
