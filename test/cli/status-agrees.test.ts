import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type EngineProcess, freePort, startDecoy, startScriptedSglang } from '../engines.js';
import { spawnCli, tmpDir } from '../helpers.js';

/**
 * Issue 24.4: `status` gives the verdict the live commands give about a dead server, `--explain` agrees with
 * it, and the ledger never trades a stronger verdict (dead) for a weaker one seen with less evidence. Real
 * scripted SGLang processes, kill -9 and an unrelated SGLang-looking decoy on the machine.
 */
async function waitForLine(file: string, re: RegExp, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (fs.existsSync(file) && re.test(fs.readFileSync(file, 'utf8'))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${file}: no line matching ${re}`);
}

const statusOf = async (args: string[], env: Record<string, string>) => {
  const r = await spawnCli(['status', ...args], env).done;
  return { code: r.code, out: r.stdout, live: r.stdout.startsWith('{') ? JSON.parse(r.stdout).live : null };
};

describe('status agrees with the live commands (issue 24.4)', () => {
  let dir: string;
  let decoy: EngineProcess;
  let env: Record<string, string>;
  before(async () => {
    dir = tmpDir();
    decoy = await startDecoy();
    env = { FIREDUP_LEDGER: path.join(dir, 'ledger.db') };
  });
  after(async () => {
    await decoy.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('kill -9 of a loading server: watch says dead, then status, status --json and status --explain say dead (5)', async () => {
    const log = path.join(dir, 'loading.log');
    const port = await freePort();
    const p = startScriptedSglang({
      model: 'Qwen/Qwen3-8B',
      port,
      log,
      extra: ['--shards', '8', '--stall-at', '3'],
    });
    await waitForLine(log, /3\/8/);
    // While it runs, status finds the same process wait finds: by the launch's model and port.
    const alive = await statusOf([log, '--json'], env);
    assert.equal(alive.code, 3, alive.out);
    assert.ok(
      alive.live.evidence.some((e: { text: string }) => e.text.startsWith(`pid ${p.pid} alive`)),
      JSON.stringify(alive.live.evidence),
    );
    const watch = spawnCli(['watch', log, '--json', '--no-gpu', '--timeout', '30s'], env);
    // Killed once watch has tied the process to the launch (as a user kills a server being watched).
    await new Promise<void>((resolve) => {
      let seen = '';
      watch.child.stdout!.on('data', (d) => {
        seen += d;
        if (seen.includes("is this launch's")) resolve();
      });
    });
    await p.stop('SIGKILL');
    const w = await watch.done;
    assert.equal(w.code, 5, w.stdout);
    assert.equal(w.events.filter((e) => e.type === 'verdict').at(-1)!.state, 'dead');
    const s = await statusOf([log, '--json'], env);
    assert.equal(s.code, 5, s.out);
    assert.equal(s.live.state, 'dead');
    const plain = await statusOf([log], env);
    assert.equal(plain.code, 5, plain.out);
    const ex = await statusOf(['--explain', log], env);
    assert.equal(ex.code, 5, ex.out);
    // A look at the log alone sees less; it says what it sees, and the ledger keeps `dead`.
    const blind = await statusOf([log, '--no-probe', '--json'], env);
    assert.notEqual(blind.live.state, 'dead');
    const again = await statusOf([log, '--json'], env);
    assert.equal(again.live.state, 'dead', 'the ledger traded dead for a weaker verdict');
  });

  it('kill -9 of a serving server after wait saw it ready: status says dead (5), not serving (0)', async () => {
    const log = path.join(dir, 'serving.log');
    const port = await freePort();
    const p = startScriptedSglang({ model: 'Qwen/Qwen3-8B', port, log });
    await waitForLine(log, /fired up/);
    const w = await spawnCli(['wait', log, '--json', '--no-gpu', '--timeout', '20s'], env).done;
    assert.equal(w.code, 0, w.stdout);
    await p.stop('SIGKILL');
    const s = await statusOf([log, '--json'], env);
    assert.equal(s.code, 5, s.out);
    assert.equal(s.live.state, 'dead');
    assert.ok(
      s.live.evidence.some((e: { text: string }) => /pid \d+ is this launch's: an earlier look/.test(e.text)),
      JSON.stringify(s.live.evidence),
    );
  });
});
