import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import type { ProcessObservation } from '../../src/core/verdict/observations.js';
import {
  findServerPid,
  identifyServer,
  looksLikeLaunch,
  parseStat,
  probeProcess,
} from '../../src/probes/process.js';
import { tmpDir } from '../helpers.js';

const started: ChildProcess[] = [];

// Detached so the whole tree can be killed by process group when the test ends.
function start(cmd: string, args: string[]): ChildProcess {
  const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
  started.push(child);
  return child;
}

function killTree(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      resolve();
    }
  });
}

after(async () => {
  await Promise.all(started.map(killTree));
});

/**
 * Probes until `ok` holds: processes take a moment to fork their children or open their port, and on a loaded
 * machine (the whole suite on two cores) a node child can take seconds to start listening.
 */
async function until(pid: number, ok: (o: ProcessObservation) => boolean): Promise<ProcessObservation> {
  let o = await probeProcess(pid);
  for (const end = Date.now() + 30_000; !ok(o) && Date.now() < end; ) {
    await new Promise((r) => setTimeout(r, 50));
    o = await probeProcess(pid);
  }
  return o;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

describe('probeProcess', () => {
  it('sees a live process, then a dead one', async () => {
    const child = start('sleep', ['30']);
    const o = await until(child.pid!, (x) => x.cmdline === 'sleep 30');
    assert.equal(o.alive, true);
    assert.equal(o.cmdline, 'sleep 30');
    assert.equal(typeof o.cpuSeconds, 'number');
    assert.ok(o.cpuSeconds! >= 0);
    assert.deepEqual(o.children, []);
    assert.deepEqual(o.listening, []);
    assert.deepEqual([o.exitCode, o.signal], [null, null]);
    await killTree(child);
    const dead = await probeProcess(child.pid!);
    assert.equal(dead.alive, false);
    assert.equal(dead.cpuSeconds, null);
  });

  it('lists the children of a process tree', async () => {
    const child = start('bash', ['-c', 'sleep 30 & sleep 30 & wait']);
    const o = await until(child.pid!, (x) => x.children.length >= 2);
    assert.equal(o.alive, true);
    assert.deepEqual(
      o.children.map((c) => c.name),
      ['sleep', 'sleep'],
    );
    assert.ok(o.children.every((c) => c.pid > 0 && c.pid !== child.pid));
  });

  it('counts the CPU time of the children', async () => {
    const child = start('bash', ['-c', 'while :; do :; done & wait']);
    const first = await until(child.pid!, (x) => (x.cpuSeconds ?? 0) > 0.05);
    assert.ok(first.cpuSeconds! > 0.05, `cpuSeconds ${first.cpuSeconds}`);
    assert.equal(first.children.length, 1);
  });

  it('sees a real server listen, and findServerPid finds it by its port', async () => {
    const port = await freePort();
    const server = start(process.execPath, [
      '-e',
      `require('net').createServer().listen(${port}, '127.0.0.1')`,
    ]);
    const o = await until(server.pid!, (x) => x.listening.includes(port));
    assert.deepEqual(o.listening, [port]);
    assert.equal(await findServerPid({ port }), server.pid);
  });

  it("counts a port a descendant listens on as the tree's", async () => {
    const port = await freePort();
    const listen = `require('net').createServer().listen(${port}, '127.0.0.1')`;
    // `& wait` keeps bash as the parent rather than letting it exec node in its place.
    const tree = start('bash', ['-c', `${JSON.stringify(process.execPath)} -e "${listen}" & wait`]);
    const o = await until(tree.pid!, (x) => x.listening.includes(port));
    assert.deepEqual(o.listening, [port]);
    const node = o.children.find((c) => c.name === 'node');
    assert.ok(node, JSON.stringify(o.children));
    // bash never held the socket, so the holder is node.
    assert.equal(await findServerPid({ port }), node.pid);
  });

  it('reads a dead pid as not alive', async () => {
    assert.equal((await probeProcess(4_000_000)).alive, false);
  });
});

describe('parseStat', () => {
  it('reads a comm with spaces and parentheses', () => {
    const stat = parseStat(
      '1234 (sglang::sch (x) y) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 5 0 987654 0 0',
    );
    assert.deepEqual(
      stat && [
        stat.comm,
        stat.state,
        stat.ppid,
        stat.utime,
        stat.stime,
        stat.cutime,
        stat.cstime,
        stat.starttime,
      ],
      ['sglang::sch (x) y', 'S', 1, 250, 50, 7, 3, 987654],
    );
  });
});

describe('looksLikeLaunch', () => {
  const cases: Array<[string, string, boolean]> = [
    ['python3 -m sglang.launch_server --model-path m --tp 8', 'sglang', true],
    ['/opt/venv/bin/sglang serve --model-path m', 'sglang', true],
    ['/usr/bin/python3 /opt/venv/bin/vllm serve meta-llama/Llama-3.1-8B', 'vllm', true],
    ['python -m vllm.entrypoints.openai.api_server --model m', 'vllm', true],
    ['/app/llama-server -m model.gguf --port 8080', 'llamacpp', true],
    ['trtllm-serve /models/x --tp_size 8', 'trtllm', true],
    ['/usr/local/bin/text-generation-launcher --model-id m', 'tgi', true],
    ['python3 -m sglang.launch_server --model-path m', 'vllm', false],
    ['vim launch_sglang.sh', 'sglang', false],
    ['python -m sglang.launch_server_helper', 'sglang', false],
    ['llama-server-wrapper.sh', 'llamacpp', false],
    ['python -m vllm.entrypoints.openai.api_server', 'unknown-engine', false],
  ];
  for (const [cmd, engine, want] of cases) {
    it(`${engine}: ${cmd}`, () => assert.equal(looksLikeLaunch(cmd, engine), want));
  }
  it('any engine when none is given', () => {
    assert.ok(looksLikeLaunch('trtllm-serve m', null));
    assert.ok(!looksLikeLaunch('sleep 30', null));
  });
});

describe('findServerPid by command line (fake /proc)', () => {
  // A /proc of fixed processes: real ones would race with whatever else runs on the test machine.
  function fakeProc(procs: Array<{ pid: number; start: number; cmd: string[]; state?: string }>): string {
    const root = tmpDir();
    for (const p of procs) {
      const dir = path.join(root, String(p.pid));
      fs.mkdirSync(dir);
      const fields = [
        p.state ?? 'S',
        1,
        p.pid,
        p.pid,
        0,
        -1,
        0,
        0,
        0,
        0,
        0,
        5,
        5,
        0,
        0,
        20,
        0,
        1,
        0,
        p.start,
      ];
      fs.writeFileSync(
        path.join(dir, 'stat'),
        `${p.pid} (${path.basename(p.cmd[0]!)}) ${fields.join(' ')} 0 0\n`,
      );
      fs.writeFileSync(path.join(dir, 'cmdline'), `${p.cmd.join('\0')}\0`);
    }
    fs.mkdirSync(path.join(root, 'net'));
    fs.writeFileSync(path.join(root, 'net', 'tcp'), '  sl  local_address rem_address   st\n');
    return root;
  }

  const root = fakeProc([
    {
      pid: 300,
      start: 5000,
      cmd: ['python3', '-m', 'sglang.launch_server', '--model-path', 'org/A', '--port', '30000'],
    },
    {
      pid: 200,
      start: 4000,
      cmd: ['python3', '-m', 'sglang.launch_server', '--model-path', 'org/B', '--port', '30001'],
    },
    {
      pid: 100,
      start: 3000,
      cmd: ['python3', '-m', 'sglang.launch_server', '--model-path', 'org/A'],
      state: 'Z',
    },
    { pid: 400, start: 1000, cmd: ['vllm', 'serve', 'org/C'] },
    {
      pid: 500,
      start: 6000,
      cmd: ['python3', '-m', 'sglang.launch_server', '--model-path', 'org/D', '--port', '30002'],
    },
    {
      pid: 600,
      start: 6001,
      cmd: ['python3', '-m', 'sglang.launch_server', '--model-path', 'org/D', '--port', '30002'],
    },
    {
      pid: process.pid,
      start: 10,
      cmd: ['node', 'firedup', 'watch', 'sglang.launch_server', '--model-path', 'org/A'],
    },
  ]);
  // An entry that vanished between readdir and read, as processes do.
  fs.mkdirSync(path.join(root, '999'));

  it("ties a process only by the launch's own model and port, never firedup itself, never the oldest look-alike", async () => {
    const a = await identifyServer({ engine: 'sglang', port: 30000, model: 'org/A', procRoot: root });
    assert.equal(a.pid, 300);
    assert.match(
      a.pid !== null ? a.tiedBy : '',
      /launches sglang with the launch's model \(org\/A\) and port 30000/,
    );
    assert.equal(
      (await identifyServer({ engine: 'sglang', port: 30001, model: 'org/B', procRoot: root })).pid,
      200,
    );
    // vllm serve's default port is 8000: its command line names none.
    assert.equal(
      (await identifyServer({ engine: 'vllm', port: 8000, model: 'org/C', procRoot: root })).pid,
      400,
    );
    assert.equal(await findServerPid({ engine: 'tgi', port: 3000, model: 'x', procRoot: root }), null);
  });

  it('looks like the engine is never enough: another model or another port is no match, and says why', async () => {
    const r = await identifyServer({ engine: 'sglang', port: 8000, model: 'org/A', procRoot: root });
    assert.equal(r.pid, null);
    if (r.pid !== null) return;
    const c300 = r.candidates.find((c) => c.pid === 300)!;
    assert.match(c300.why, /port is 30000, not 8000/);
    const c200 = r.candidates.find((c) => c.pid === 200)!;
    assert.match(c200.why, /names model org\/B, not org\/A/);
    assert.equal(
      await findServerPid({ engine: 'sglang', procRoot: root }),
      null,
      'no model: nothing to compare',
    );
  });

  it("two processes with the launch's model and port: none is chosen, both are listed", async () => {
    const r = await identifyServer({ engine: 'sglang', port: 30002, model: 'org/D', procRoot: root });
    assert.equal(r.pid, null);
    assert.deepEqual(r.pid === null ? r.candidates.map((c) => c.pid).sort() : [], [500, 600]);
  });

  it('a pid the log names ties the process', async () => {
    const r = await identifyServer({
      engine: 'sglang',
      port: 9,
      model: 'org/Z',
      pids: [200],
      procRoot: root,
    });
    assert.equal(r.pid, 200);
    assert.match(r.pid !== null ? r.tiedBy : '', /its pid 200 is in the log/);
  });
});
