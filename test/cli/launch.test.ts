/**
 * `firedup launch` running the real llama-server (CPU build, tiny model): output appended to the log, the
 * live verdict, the ledger record with what was intended, signals forwarded, and the server's exit status
 * passed on; a command that does not exist, and a server that crashes on a port already taken.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ledger } from '../../src/store/ledger.js';
import type { LaunchRecord } from '../../src/store/types.js';
import { BIN, tmpDir } from '../helpers.js';
import { ensureLlama, freePort, healthy, waitFor } from '../llama.js';

const skip = process.env.FIREDUP_NO_LLAMA === '1' ? 'FIREDUP_NO_LLAMA=1' : false;

interface Launched {
  child: ChildProcess;
  events: Array<Record<string, any>>;
  stderr: () => string;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `firedup launch --json --no-gpu ...args` in `cwd`, its NDJSON events collected as they come. */
function launch(args: string[], env: NodeJS.ProcessEnv, cwd: string): Launched {
  const child = spawn(process.execPath, [BIN, 'launch', '--json', '--no-gpu', ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Array<Record<string, any>> = [];
  let buf = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.startsWith('{')) events.push(JSON.parse(line));
    }
  });
  child.stderr!.on('data', (d) => (err += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    }),
  );
  return { child, events, stderr: () => err, done };
}

function records(ledgerPath: string, log: string): LaunchRecord[] {
  if (!fs.existsSync(ledgerPath)) return [];
  const l = Ledger.open(ledgerPath);
  try {
    return l.list({ path: fs.realpathSync(log) });
  } finally {
    l.close();
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('firedup launch with a real llama-server', { timeout: 120_000, skip }, () => {
  let dir: string;
  let work: string;
  let ledgerPath: string;
  const leftovers: number[] = [];

  before(() => {
    dir = ensureLlama();
    work = tmpDir();
    ledgerPath = path.join(work, 'ledger.db');
  });
  after(() => {
    for (const pid of leftovers) if (alive(pid)) process.kill(pid, 'SIGKILL');
    fs.rmSync(work, { recursive: true, force: true });
  });

  const llamaArgs = (port: number) => [
    path.join(dir, 'llama-server'),
    '-m',
    path.join(dir, 'tiny.gguf'),
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '-c',
    '256',
    '-np',
    '1',
    '-t',
    '1',
  ];

  it('appends to the log, reaches ready, records the launch, forwards SIGTERM and exits as the server did', async () => {
    const port = await freePort();
    const log = path.join(work, 'server.log');
    // An earlier run of the server, appended to the same file.
    const before = [
      '0.00.013.276 I srv  llama_server: initializing ...',
      "0.00.141.946 I srv    load_model: loading model '/models/old.gguf'",
      '0.00.189.589 I srv  llama_server: listening on http://127.0.0.1:8080',
      '0.07.870.967 I srv    operator(): operator(): cleaning up before exit...',
      '',
    ].join('\n');
    fs.writeFileSync(log, before);
    const run = launch(
      ['--log', log, '--', ...llamaArgs(port)],
      { FIREDUP_LEDGER: ledgerPath, HF_TOKEN: 'abc', CUDA_VISIBLE_DEVICES: '0' },
      work,
    );
    const verdict = (...states: string[]) =>
      run.events.some((e) => e.type === 'verdict' && states.includes(e.state));
    await waitFor(() => verdict('ready', 'serving', 'idle'), 30_000, `a ready verdict (${run.stderr()})`);
    assert.ok(await healthy(port));
    const started = run.events.find((e) => e.type === 'started')!;
    assert.equal(started.log, fs.realpathSync(log));
    assert.equal(started.offset, before.length);
    const pid = started.pid as number;
    leftovers.push(pid);

    // The ledger holds this launch, not the earlier lines, with what was asked for.
    await waitFor(
      () => records(ledgerPath, log).some((r) => r.outcome === 'ready'),
      10_000,
      'a ready record',
    );
    const [rec] = records(ledgerPath, log);
    assert.equal(rec!.host, 'localhost');
    assert.equal(rec!.pid, pid);
    assert.equal(rec!.engine, 'llamacpp');
    // Issue 24.3: a complete record though the log has no wall clock and no config dump: the port from the
    // command line, the start from firedup's clock (local wall time as UTC, as zone-less stamps are kept).
    assert.equal(rec!.port, port);
    assert.ok(rec!.model && /tiny/.test(rec!.model), String(rec!.model));
    const wallNow = Date.now() / 1000 - new Date().getTimezoneOffset() * 60;
    assert.ok(rec!.startTs !== null && Math.abs(rec!.startTs - wallNow) < 300, String(rec!.startTs));
    const st = fs.statSync(log);
    assert.equal(rec!.fileId, `${st.dev}:${st.ino}`);
    assert.deepEqual(rec!.intended!.argv, llamaArgs(port));
    assert.equal(rec!.intended!.cwd, work);
    assert.equal(rec!.intended!.env.HF_TOKEN, '<redacted>');
    assert.equal(rec!.intended!.env.CUDA_VISIBLE_DEVICES, '0');
    assert.equal(rec!.intended!.flags.port, port);
    assert.equal(rec!.intended!.flags.ctx_size, 256);
    assert.deepEqual(rec!.intended!.mismatches, []);
    assert.ok(!JSON.stringify(rec).includes('"abc"'));
    const check = run.events.find((e) => e.type === 'config');
    assert.ok(check?.unobservable.includes('port'), 'llama-server prints no config: not observable');

    run.child.kill('SIGTERM');
    const exit = await run.done;
    assert.equal(exit.code, 0, run.stderr());
    assert.ok(run.events.some((e) => e.type === 'signal' && e.signal === 'SIGTERM'));
    const last = run.events.at(-1)!;
    assert.equal(last.type, 'exit');
    assert.equal(last.status, 0);
    assert.equal(last.verdict.state, 'exited');
    assert.ok(!alive(pid), 'the server is gone');

    const text = fs.readFileSync(log, 'utf8');
    assert.ok(text.startsWith(before), 'earlier content kept');
    assert.match(text.slice(before.length), /llama_server: initializing[\s\S]*listening on/);
    const after = records(ledgerPath, log);
    assert.equal(after.length, 1);
    assert.equal(after[0]!.outcome, 'shutdown');
    assert.equal(after[0]!.startOffset, before.length);
  });

  it('a server that crashes on a port already taken: non-zero exit, recorded as crashed', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const log = path.join(work, 'clash.log');
      const run = launch(['--log', log, '--ledger', ledgerPath, '--', ...llamaArgs(port)], {}, work);
      const exit = await run.done;
      assert.notEqual(exit.code, 0, run.stderr());
      const last = run.events.at(-1)!;
      assert.equal(last.type, 'exit');
      assert.equal(last.status, exit.code);
      assert.equal(last.verdict.failure?.class, 'port_in_use');
      const [rec] = records(ledgerPath, log);
      assert.equal(rec!.outcome, 'crashed');
      assert.equal(rec!.failureClass, 'port_in_use');
      assert.ok(rec!.intended);
    } finally {
      holder.close();
    }
  });

  it('without --log, writes ./firedup-<engine>-<stamp>.log and says so', async () => {
    const cwd = fs.mkdtempSync(path.join(work, 'cwd-'));
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      const run = launch(['--ledger', ledgerPath, '--', ...llamaArgs(port)], {}, cwd);
      await run.done;
      const files = fs.readdirSync(cwd);
      assert.equal(files.length, 1);
      assert.match(files[0]!, /^firedup-llamacpp-\d{8}-\d{6}\.log$/);
      assert.equal(run.events[0]!.log, fs.realpathSync(path.join(cwd, files[0]!)));
    } finally {
      holder.close();
    }
  });

  it('FIREDUP_LEDGER=off and --no-ledger record nothing (no file named "off" appears)', async () => {
    const cwd = fs.mkdtempSync(path.join(work, 'off-'));
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      for (const [args, env] of [
        [['--log', 'a.log'], { FIREDUP_LEDGER: 'off' }],
        [['--log', 'b.log', '--no-ledger'], {}],
      ] as const) {
        const run = launch([...args, '--', ...llamaArgs(port)], env, cwd);
        await run.done;
      }
      assert.deepEqual(fs.readdirSync(cwd).sort(), ['a.log', 'b.log']);
    } finally {
      holder.close();
    }
  });

  it('a command that does not exist: one line, status 127, no log created', () => {
    const log = path.join(work, 'never.log');
    const r = spawnSync(
      process.execPath,
      [BIN, 'launch', '--log', log, '--', 'no-such-server-xyz', '--port', '1'],
      {
        encoding: 'utf8',
        env: { ...process.env, FIREDUP_LEDGER: ledgerPath },
      },
    );
    assert.equal(r.status, 127);
    assert.equal(r.stderr.trim().split('\n').length, 1);
    assert.match(r.stderr, /no-such-server-xyz: command not found/);
    assert.ok(!fs.existsSync(log));
  });

  it('usage mistakes are one line', () => {
    const r = spawnSync(process.execPath, [BIN, 'launch', 'llama-server'], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^firedup: launch: put the server command after --/);
    const none = spawnSync(process.execPath, [BIN, 'launch'], { encoding: 'utf8' });
    assert.equal(none.status, 1);
    assert.match(none.stderr, /name the server command after --/);
  });
});

const noPython = spawnSync('python3', ['--version']).status === 0 ? false : 'needs python3';

describe('firedup launch with a stand-in SGLang', { timeout: 60_000, skip: noPython }, () => {
  let work: string;
  before(() => {
    work = tmpDir();
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it('SGLang from a git checkout (a stand-in that prints server_args): mismatches, version, checkout, status', async () => {
    // A stand-in `sglang` package in a git checkout: it logs the config it got, as SGLang does, and fails.
    const repo = path.join(work, 'sglang-src');
    const pkg = path.join(repo, 'python', 'sglang');
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, '__init__.py'), '');
    // As SGLang's own .gitignore does: Python's bytecode caches are not local changes.
    fs.writeFileSync(path.join(repo, '.gitignore'), '__pycache__/\n*.py[cod]\n');
    fs.writeFileSync(
      path.join(pkg, 'launch_server.py'),
      [
        'import sys',
        "print(\"[2026-03-01 10:00:00] server_args=ServerArgs(model_path='m', tp_size=4, port=30000, " +
          'disable_cuda_graph=False, api_key=None)", flush=True)',
        'print("[2026-03-01 10:00:05 TP0] Load weight begin. avail mem=70.00 GB", flush=True)',
        'sys.exit(3)',
        '',
      ].join('\n'),
    );
    const distInfo = path.join(repo, 'python', 'sglang-0.5.9.dist-info');
    fs.mkdirSync(distInfo);
    fs.writeFileSync(
      path.join(distInfo, 'METADATA'),
      'Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.9\n',
    );
    const git = (...a: string[]) =>
      spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', '-C', repo, ...a], { encoding: 'utf8' });
    if (git('init', '-q').status !== 0) return;
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    fs.appendFileSync(path.join(pkg, '__init__.py'), '# local patch\n');

    const log = path.join(work, 'sglang.log');
    const ledgerPath = path.join(work, 'ledger.db');
    const run = launch(
      [
        '--log',
        log,
        '--ledger',
        ledgerPath,
        '--',
        'python3',
        '-m',
        'sglang.launch_server',
        '--model-path',
        'm',
        '--tp',
        '8',
        '--port',
        '30000',
        '--disable-cuda-graph',
        '--enable-made-up-thing',
      ],
      { PYTHONPATH: path.join(repo, 'python') },
      work,
    );
    const exit = await run.done;
    assert.equal(exit.code, 3, run.stderr());
    const mismatches = run.events.filter((e) => e.type === 'mismatch').map(({ type, ...m }) => m);
    assert.deepEqual(mismatches, [
      { key: 'tp_size', intended: 8, observed: 4, reason: 'differs' },
      { key: 'disable_cuda_graph', intended: true, observed: false, reason: 'differs' },
      { key: 'enable_made_up_thing', intended: true, observed: null, reason: 'absent' },
    ]);
    const [rec] = records(ledgerPath, log);
    assert.equal(rec!.outcome, 'crashed');
    assert.equal(rec!.intended!.engineVersion, '0.5.9');
    assert.equal(rec!.intended!.git?.root, fs.realpathSync(repo));
    assert.deepEqual(
      rec!.intended!.git?.modified.map((m) => m.path),
      ['python/sglang/__init__.py'],
    );
    assert.deepEqual(
      rec!.intended!.mismatches.map((m) => m.key),
      ['tp_size', 'disable_cuda_graph', 'enable_made_up_thing'],
    );
  });
});
