/**
 * `ps` and `serve` over container targets (`docker://NAME` in firedup.toml's [[target]]) beside log files, against
 * the real Docker daemon: every target shown, each container with docker's state and restarts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildImage, docker, ensureDocker, inspect, RUN, removeAll, run } from '../docker.js';
import { ROOT, spawnCli, tmpDir } from '../helpers.js';
import { freePort, waitFor } from '../llama.js';

const names = new Set<string>();
let image: string | null = null;
let dir = '';
let config = '';
const name = (what: string) => {
  const n = `firedup-ps-${what}-${RUN}`;
  names.add(n);
  return n;
};

describe('ps and serve over containers and files', { timeout: 180_000 }, () => {
  before(async () => {
    await ensureDocker();
    image = buildImage();
    dir = tmpDir();
    const serving = run(name('serving'), [image, 'engine', 'serve']);
    const oom = run(name('oom'), ['--memory', '32m', '--memory-swap', '32m', image, 'engine', 'oom', '0']);
    const restarts = run(name('restarts'), ['--restart', 'on-failure:2', image, 'engine', 'crash']);
    // The engine writes its 150 lines up to serving at once, but `docker run -d` returns before it has run.
    await waitFor(
      () => docker(['logs', serving]).stderr.split('\n').length > 150,
      30_000,
      'the serving container up to serving',
    );
    await waitFor(() => inspect(oom, '{{.State.Status}}') === 'exited', 30_000, 'the OOM kill');
    await waitFor(
      () => inspect(restarts, '{{.State.Status}} {{.RestartCount}}') === 'exited 2',
      40_000,
      'restarts',
    );
    fs.copyFileSync(path.join(ROOT, 'examples', 'glm5-serving.log'), path.join(dir, 'glm5.log'));
    fs.copyFileSync(path.join(ROOT, 'examples', 'vllm-llama3-8b-serving.log'), path.join(dir, 'vllm.log'));
    config = path.join(dir, 'firedup.toml');
    fs.writeFileSync(
      config,
      [
        ['glm5', 'glm5.log'],
        ['vllm', 'vllm.log'],
        ['serving', `docker://${serving}`],
        ['oom', `docker://${oom}`],
        ['restarts', `docker://${restarts}`],
      ]
        .map(([n, log]) => `[[target]]\nname = "${n}"\nlog = "${log}"\n`)
        .join('\n'),
    );
  });
  after(() => {
    removeAll(names, image);
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("ps over three container targets and two file targets shows all five, with the containers' state", async () => {
    const r = await spawnCli(['ps', '--config', config, '--json', '--no-gpu', '--no-ledger']).done;
    assert.equal(r.stderr, '');
    const rows = new Map<string, Record<string, any>>(r.events[0]!.targets.map((t: any) => [t.name, t]));
    assert.deepEqual([...rows.keys()], ['glm5', 'vllm', 'serving', 'oom', 'restarts']);
    assert.equal(rows.get('glm5')!.container, undefined);
    assert.equal(rows.get('serving')!.container.state, 'running');
    assert.ok(['serving', 'idle', 'ready'].includes(rows.get('serving')!.state), rows.get('serving')!.why);
    assert.equal(rows.get('oom')!.state, 'crashed');
    assert.equal(rows.get('oom')!.failureClass, 'killed');
    assert.deepEqual(rows.get('oom')!.container, {
      state: 'exited',
      restarts: 0,
      exitCode: 137,
      oomKilled: true,
      health: null,
    });
    assert.equal(rows.get('restarts')!.container.restarts, 2);
    assert.equal(rows.get('restarts')!.state, 'dead');
    const t = await spawnCli(['ps', '--config', config, '--no-gpu', '--no-ledger'], { COLUMNS: '250' }).done;
    assert.match(t.stdout, /CONTAINER/);
    assert.match(t.stdout, /^oom .* exited 137 OOMKilled$/m);
    assert.match(t.stdout, /^restarts .* exited 1 ↻2$/m);
    assert.match(t.stdout, /^serving .* running$/m);
  });

  it('serve exports a container target on /metrics', async () => {
    const port = await freePort();
    const s = spawnCli(
      [
        'serve',
        '--config',
        config,
        '--port',
        String(port),
        '--no-gpu',
        '--ledger',
        path.join(dir, 'serve.db'),
      ],
      {},
      60_000,
    );
    try {
      let text = '';
      const seen = () =>
        text
          .split('\n')
          .filter((l) => /target="oom"/.test(l) && / 1$/.test(l))
          .join('\n');
      await waitFor(
        async () => {
          text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
          return /firedup_state\{[^}]*target="oom"[^}]*state="crashed"[^}]*\} 1/.test(text);
        },
        30_000,
        'the oom target crashed on /metrics',
      ).catch((e: Error) => assert.fail(`${e.message}: ${seen() || text.slice(0, 2000)}`));
      assert.match(text, /target="serving"/);
    } finally {
      s.child.kill('SIGTERM');
      await s.done;
    }
  });
});
