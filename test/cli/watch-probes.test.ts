import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, SCENARIOS, spawnCli, tmpDir } from '../helpers.js';

/** What `watch` says about its probes: they end with the launch, and one that cannot run says so. */
describe('watch: probes', () => {
  let dir: string;
  before(() => {
    dir = tmpDir();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('after the log says the server shut down, the verdict no longer shows HTTP 200 or pid alive', async () => {
    const src = fs
      .readFileSync(path.join(SCENARIOS, 'glm5-cutlass-bench-then-shutdown.log'), 'utf8')
      .split('\n');
    const log = path.join(dir, 'serving.log');
    fs.writeFileSync(log, `${src.slice(0, 382).join('\n')}\n`);
    const srv = http.createServer((_q, res) => res.end('ok'));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const port = (srv.address() as { port: number }).port;
    const sleeper = spawn('sleep', ['60']);
    try {
      const w = spawnCli(
        [
          'watch',
          log,
          '--json',
          '--no-gpu',
          '--url',
          `http://127.0.0.1:${port}`,
          '--pid',
          String(sleeper.pid),
        ],
        {},
        90_000,
      );
      // The shutdown is appended once watch has said the server runs, with its probes (not after a fixed
      // pause, which a loaded machine's slow start outlasts).
      await new Promise<void>((res) => {
        let out = '';
        const deadline = setTimeout(res, 60_000);
        w.child.stdout!.on('data', (d) => {
          out += d;
          if (/"type":"verdict"[^\n]*"state":"(serving|idle)"[^\n]*HTTP 200/.test(out)) {
            clearTimeout(deadline);
            res();
          }
        });
      });
      fs.appendFileSync(log, src.slice(382).join('\n'));
      const r = await w.done;
      assert.equal(r.code, 5, r.stderr);
      const vs = r.events.filter((e) => e.type === 'verdict');
      const running = vs.find((v) => v.state === 'serving' || v.state === 'idle');
      assert.ok(running, vs.map((v) => `${v.state}: ${v.why}`).join(' | '));
      assert.ok(
        running.evidence.some((e: any) => /HTTP 200/.test(e.text)),
        'probed while it ran',
      );
      const last = vs.at(-1)!;
      assert.equal(last.state, 'exited');
      for (const e of last.evidence) assert.ok(!/HTTP 200|alive/.test(e.text), e.text);
    } finally {
      sleeper.kill('SIGKILL');
      srv.close();
    }
  });

  it('without nvidia-smi on PATH the GPUs are said not probed, once', async () => {
    const log = path.join(dir, 'crash.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-trtllm-oom-in-cuda-graph.log'), log);
    const r = await spawnCli(['watch', log, '--json'], { PATH: path.dirname(process.execPath) }, 20_000).done;
    assert.equal(r.code, 2, r.stderr);
    const last = r.events.filter((e) => e.type === 'verdict').at(-1)!;
    const gpu = last.evidence.filter((e: any) => e.source === 'gpu');
    assert.deepEqual(gpu, [{ source: 'gpu', text: 'not probed (nvidia-smi not found)' }]);
  });

  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
  it('q quits watch on a terminal and gives the terminal back', {
    skip: !hasScript && 'no script(1)',
  }, async () => {
    const log = path.join(dir, 'loading.log');
    fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), log);
    // After firedup exits, stty shows whether raw mode was undone (icanon back on).
    const cmd = `${process.execPath} ${BIN} watch ${log} --no-gpu; echo "rc=$?"; stty -a`;
    const child = spawn('script', ['-q', '-e', '-c', cmd, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    // Raw mode is on before the first draw: 'q' is sent once the block is there (a loaded machine takes seconds).
    for (const end = Date.now() + 20_000; !out.includes('\x1b[?25l') && Date.now() < end; )
      await new Promise((r) => setTimeout(r, 100));
    const started = Date.now();
    child.stdin.write('q');
    const code = await new Promise<number | null>((r) => {
      const t = setTimeout(() => child.kill('SIGKILL'), 35_000);
      child.on('exit', (c) => {
        clearTimeout(t);
        r(c);
      });
    });
    assert.equal(code, 0, out.slice(-800));
    assert.match(out, /rc=0/);
    assert.ok(Date.now() - started < 12_000);
    assert.ok(out.includes('\x1b[?25h'), 'cursor restored');
    assert.match(out, /[^-]icanon/, 'canonical mode restored');
  });
});
