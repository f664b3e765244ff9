import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { probeGpu, runArgv } from '../../src/probes/gpu.js';
import { probeProcess } from '../../src/probes/process.js';
import { SHARED, tmpDir } from '../helpers.js';

// How these tests reach a fake nvidia-smi: probeGpu's `exec` is the real runner (runArgv, the one it
// uses by default) with only PATH changed, so the command is still found on PATH and spawned without a
// shell. test/fixtures/fake-bin holds `nvidia-smi` → fake-nvidia-smi.sh, which answers from the H200
// captures; slow and broken ones are written into a temp dir by the test that needs them.
const FAKE_BIN = path.join(SHARED, 'fake-bin');

function onPath(dir: string, extra: NodeJS.ProcessEnv = {}) {
  const env = { ...process.env, ...extra, PATH: `${dir}${path.delimiter}${process.env.PATH ?? ''}` };
  return (argv: string[], signal?: AbortSignal) => runArgv(argv, { signal, env });
}

function script(dir: string, name: string, body: string): void {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`);
  fs.chmodSync(file, 0o755);
}

describe('probeGpu', () => {
  it('reads an idle H200 from the fake nvidia-smi', async () => {
    const o = await probeGpu({ exec: onPath(FAKE_BIN) });
    assert.equal(o.error, null);
    assert.equal(o.gpus.length, 1);
    assert.deepEqual(
      [o.gpus[0]?.name, o.gpus[0]?.memUsedMiB, o.gpus[0]?.utilPct, o.gpus[0]?.powerW],
      ['NVIDIA H200', 0, 0, 78.13],
    );
    assert.deepEqual(o.apps, []);
    assert.ok(Math.abs(o.at - Date.now() / 1000) < 10);
  });

  it('reads a busy H200 and its compute process', async () => {
    const o = await probeGpu({ exec: onPath(FAKE_BIN, { FAKE_GPU_STATE: 'busy' }) });
    assert.equal(o.error, null);
    assert.equal(o.gpus[0]?.utilPct, 100);
    assert.equal(o.gpus[0]?.memUsedMiB, 39159);
    assert.deepEqual(o.apps, [
      { pid: 426, name: 'python3', gpuUuid: 'GPU-9aaf21c8-2d29-9475-e479-3d351a5e41b7', usedMiB: 39150 },
    ]);
  });

  it('reports a driver failure as an error, not as idle GPUs', async () => {
    const o = await probeGpu({ exec: onPath(FAKE_BIN, { FAKE_GPU_STATE: 'fail' }) });
    assert.match(o.error ?? '', /exit code 9.*couldn't communicate with the NVIDIA driver/);
    assert.deepEqual([o.gpus, o.apps], [[], []]);
  });

  it('reports a missing nvidia-smi', async () => {
    const empty = tmpDir();
    // PATH is only the empty dir, so a real nvidia-smi on a GPU machine is not found either.
    const exec = (argv: string[], signal?: AbortSignal) =>
      runArgv(argv, { signal, env: { ...process.env, PATH: empty } });
    const o = await probeGpu({ exec });
    assert.equal(o.error, 'nvidia-smi not found on PATH');
    assert.deepEqual([o.gpus, o.apps], [[], []]);
  });

  it('gives up on a hung nvidia-smi within the timeout and kills what it started', async () => {
    const dir = tmpDir();
    // The sleep is a grandchild holding the output pipe: waiting for the pipe to close would take 10 s.
    script(dir, 'nvidia-smi', `sleep 10 & echo $! > "${dir}/sleep.pid"; wait`);
    const t0 = performance.now();
    const o = await probeGpu({ timeoutMs: 300, exec: onPath(dir) });
    const took = performance.now() - t0;
    assert.equal(o.error, 'nvidia-smi did not answer within 300 ms');
    assert.ok(took < 1500, `took ${took} ms`);
    const sleepPid = Number(fs.readFileSync(path.join(dir, 'sleep.pid'), 'utf8'));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await probeProcess(sleepPid)).alive, false);
  });

  it('holds the timeout even when an injected exec never answers', async () => {
    const t0 = performance.now();
    const o = await probeGpu({ timeoutMs: 200, exec: () => new Promise<string>(() => {}) });
    assert.ok(performance.now() - t0 < 1000);
    assert.match(o.error ?? '', /did not answer within 200 ms/);
  });

  it('reports output it cannot read', async () => {
    const dir = tmpDir();
    script(dir, 'nvidia-smi', 'echo "No devices were found"');
    const o = await probeGpu({ exec: onPath(dir) });
    assert.match(o.error ?? '', /unreadable nvidia-smi output: No devices were found/);
  });

  it('passes argv without a shell', async () => {
    const out = await runArgv(['printf', '%s|', 'a b', '$HOME', ';echo no']);
    assert.equal(out, 'a b|$HOME|;echo no|');
  });
});
