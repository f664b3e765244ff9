/**
 * `firedup wait` and `firedup watch` through real llama-server launches: ready, killed with -9 while
 * serving (dead), stopped with SIGTERM (exited), a port clash and a missing model (crashed).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type CliRun, spawnCli, tmpDir } from '../helpers.js';
import { ensureLlama, freePort, healthy, type LlamaServer, startLlama, waitFor } from '../llama.js';

const skip = process.env.FIREDUP_NO_LLAMA === '1' ? 'FIREDUP_NO_LLAMA=1' : false;

type Run = CliRun;

/** A live command without the GPU probe (no nvidia-smi here). */
function firedup(args: string[], timeoutMs = 40_000): Promise<Run> {
  return spawnCli([...args, '--no-gpu'], {}, timeoutMs).done;
}

const lastVerdict = (r: Run) => r.events.filter((e) => e.type === 'verdict').at(-1);

describe('wait and watch on a real llama-server', { timeout: 120_000, skip }, () => {
  let dir: string;
  let work: string;
  const servers: LlamaServer[] = [];

  before(() => {
    dir = ensureLlama();
    work = tmpDir();
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('wait returns 0 when the server is ready; kill -9 while serving is dead; SIGTERM is exited', async () => {
    const port = await freePort();
    const log = path.join(work, 'live.log');
    const waiting = firedup(['wait', log, '--json', '--url', `http://127.0.0.1:${port}`, '--timeout', '30s']);
    await new Promise((r) => setTimeout(r, 500));
    const s = startLlama({ dir, log, port });
    servers.push(s);
    const w = await waiting;
    assert.equal(w.code, 0, w.stderr);
    assert.ok(['ready', 'serving'].includes(lastVerdict(w)!.state));

    // serve one request, then kill -9: the log says nothing, the process is gone
    await waitFor(() => healthy(port), 10_000, 'health');
    const res = await fetch(`http://127.0.0.1:${port}/completion`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'hello', n_predict: 4 }),
    });
    assert.equal(res.status, 200);
    await res.text();
    const pid = s.child.pid!;
    const watching = firedup(['watch', log, '--json', '--pid', String(pid), '--timeout', '30s']);
    await new Promise((r) => setTimeout(r, 1500));
    s.child.kill('SIGKILL');
    const d = await watching;
    assert.equal(d.code, 5, d.stderr);
    assert.equal(lastVerdict(d)!.state, 'dead');

    // relaunch into the same log and stop it with SIGTERM: exited
    const port2 = await freePort();
    const s2 = startLlama({ dir, log, port: port2 });
    servers.push(s2);
    await waitFor(() => healthy(port2), 20_000, 'health 2');
    const watching2 = firedup(['watch', log, '--json', '--pid', String(s2.child.pid), '--timeout', '30s']);
    await new Promise((r) => setTimeout(r, 1500));
    await s2.stop('SIGTERM');
    const e = await watching2;
    assert.equal(e.code, 5, e.stderr);
    assert.equal(lastVerdict(e)!.state, 'exited');
  });

  it('a port clash and a missing model: crashed, with the class', async () => {
    const port = await freePort();
    const a = startLlama({ dir, log: path.join(work, 'a.log'), port });
    servers.push(a);
    await waitFor(() => healthy(port), 20_000, 'health a');
    const clashLog = path.join(work, 'clash.log');
    const clash = firedup(['wait', clashLog, '--json', '--timeout', '30s']);
    servers.push(startLlama({ dir, log: clashLog, port }));
    const c = await clash;
    assert.equal(
      c.code,
      2,
      JSON.stringify(c.events.slice(-3)).slice(0, 1500) + fs.readFileSync(clashLog, 'utf8'),
    );
    assert.equal(lastVerdict(c)!.failure.class, 'port_in_use');

    const missingLog = path.join(work, 'missing.log');
    const missing = firedup(['wait', missingLog, '--json', '--timeout', '30s']);
    servers.push(
      startLlama({ dir, log: missingLog, port: await freePort(), model: path.join(work, 'nope.gguf') }),
    );
    const m = await missing;
    assert.equal(m.code, 2, m.stderr);
    assert.equal(lastVerdict(m)!.failure.class, 'model_not_found');
  });
});
