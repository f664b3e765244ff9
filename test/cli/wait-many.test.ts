/**
 * `wait` on a log of 100,000 launches and one more still loading (issue 25, item 1: it exited 5 judging
 * launch 44,150 while launch 100,001 was loading): every verdict it gives is on the last launch, once the
 * file is read to its end, and it ends when that launch does what it waits for.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { spawnCli, tmpDir } from '../helpers.js';
import { logOf } from '../many-launches.js';

describe('wait on 100,000 launches and a relaunch loading', () => {
  it('judges launch 100,001 only, and ends when it has loaded', async () => {
    const dir = tmpDir();
    const log = path.join(dir, 'server.log');
    // SGLang's shapes (server_args.py, model_runner.py's load_model lines), as the launches before it.
    fs.writeFileSync(
      log,
      `${logOf(0, 100_000)}[2026-02-01 00:00:00] server_args=ServerArgs(model_path='Qwen/Qwen2.5-7B', tp_size=2, port=30000)\n[2026-02-01 00:00:01] Load weight begin. avail mem=78.50 GB\n`,
    );
    const w = spawnCli(
      ['wait', log, '--for', 'loaded', '--no-gpu', '--json', '--timeout', '10m'],
      {},
      600_000,
    );
    // The weights load once wait has said where the launch is (a verdict on it).
    // Only the last bytes are kept to look in: --json prints every launch's events first (about 100 MB here).
    let tail = '';
    await new Promise<void>((resolve) => {
      w.child.stdout!.on('data', (d: Buffer) => {
        tail = tail.slice(-32) + d.toString();
        if (tail.includes('"type":"verdict"')) resolve();
      });
      w.child.on('exit', () => resolve());
    });
    fs.appendFileSync(
      log,
      '[2026-02-01 00:01:01] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=63.21 GB\n',
    );
    const r = await w.done;
    try {
      assert.equal(r.code, 0, `${r.stdout.slice(-2000)}\n${r.stderr}`);
      const judged = r.events.filter((e) => e.type === 'verdict' || e.type === 'exit');
      assert.ok(judged.length >= 2, r.stdout.slice(-2000));
      for (const v of judged) assert.equal(v.launch, 100_001, JSON.stringify(v));
      assert.equal(judged.at(-1)!.phase, 'weights_loaded');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
