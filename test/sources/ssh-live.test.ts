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

  it('a remote log last written long ago: status and wait count the silence from the remote mtime (stalled at once)', async () => {
    const log = path.join(dir, 'stuck.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), log);
    const then = new Date(Date.now() - 1800_000);
    fs.utimesSync(log, then, then);
    const target = `firedup-test:${log}`;
    const w = await spawnCli(['wait', '--json', '--no-gpu', '--ssh-config', sshd.config, target], {}, 30_000)
      .done;
    assert.equal(w.code, 4, w.stderr);
    const v = lastVerdict(w.events);
    assert.equal(v.stalledIn, 'loading_weights');
    assert.ok(Math.abs(v.quietFor - 1800) < 30, `quiet ${v.quietFor}`);
    const s = await spawnCli(['status', '--json', '--ssh-config', sshd.config, target], {}, 30_000).done;
    assert.equal(s.code, 4, s.stderr);
    const live = JSON.parse(s.stdout).live;
    assert.equal(live.state, 'stalled');
    assert.ok(Math.abs(live.quietFor - v.quietFor) < 10);
  });
});
