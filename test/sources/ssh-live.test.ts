import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SCENARIOS, spawnCli, tmpDir } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';

let sshd: TestSshd;
let dir: string;
before(async () => {
  sshd = await startSshd();
  dir = tmpDir();
});
after(() => {
  sshd.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const lastVerdict = (events: Array<Record<string, any>>) =>
  events.filter((e) => e.type === 'verdict').at(-1)!;

describe('watch and wait over ssh', () => {
  it('watch on a remote log that crashed: crashed with its cause, exit 2', async () => {
    const r = await spawnCli(
      [
        'watch',
        '--json',
        '--ssh-config',
        sshd.config,
        `firedup-test:${path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log')}`,
      ],
      {},
      30_000,
    ).done;
    assert.equal(r.code, 2, r.stderr);
    assert.equal(lastVerdict(r.events).failure.class, 'oom');
  });

  it('wait on a remote log that becomes ready while it waits: exit 0', async () => {
    const log = path.join(dir, 'remote.log');
    const lines = fs
      .readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'), 'utf8')
      .split('\n');
    const ready = lines.findIndex((l) => l.includes('fired up and ready to roll'));
    fs.writeFileSync(log, `${lines.slice(0, ready).join('\n')}\n`);
    const waiting = spawnCli(
      ['wait', '--json', '--ssh-config', sshd.config, `firedup-test:${log}`, '--timeout', '30s'],
      {},
      40_000,
    );
    await new Promise((r) => setTimeout(r, 2500));
    fs.appendFileSync(log, `${lines[ready]}\n`);
    const r = await waiting.done;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(lastVerdict(r.events).state, 'ready');
  });
});
