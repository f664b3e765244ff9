import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertOneLine, BIN, ROOT, SCENARIOS, spawnCli, tmpDir } from '../helpers.js';
import { startSshd, type TestSshd } from '../ssh.js';

/** `firedup ps` over a fleet of local and ssh targets (the real sshd of test/ssh.ts), one host unreachable. */

let sshd: TestSshd;
let dir: string;
let config: string;

/** A port nothing listens on: bound, then closed (connections to it are refused). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const ROW_KEYS = [
  'age',
  'engine',
  'failureClass',
  'host',
  'launch',
  'log',
  'model',
  'name',
  'phase',
  'progress',
  'startedAt',
  'state',
  'tokS',
  'why',
];

before(async () => {
  sshd = await startSshd();
  dir = tmpDir();
  // Copies: fresh files, so their age says nothing stale (the launch stuck at 40/83 is still loading).
  const loading = path.join(dir, 'loading.log');
  const serving = path.join(dir, 'serving.log');
  fs.copyFileSync(path.join(SCENARIOS, 'glm5-relaunch-stuck-at-48pct.log'), loading);
  fs.copyFileSync(path.join(ROOT, 'examples', 'glm5-serving.log'), serving);
  // A host alias whose sshd is not there: refused at once.
  fs.appendFileSync(
    sshd.config,
    `Host firedup-down\n  HostName 127.0.0.1\n  Port ${await closedPort()}\n  User root\n  IdentityFile ${sshd.dir}/user_key\n`,
  );
  config = path.join(dir, 'fleet.toml');
  fs.writeFileSync(
    config,
    [
      `ssh_config = "${sshd.config}"`,
      '[[target]]',
      'name = "local-loading"',
      'log = "loading.log"',
      '[[target]]',
      'name = "local-serving"',
      'log = "serving.log"',
      '[[target]]',
      'name = "remote-loading"',
      `log = "firedup-test:${loading}"`,
      '[[target]]',
      'name = "remote-serving"',
      `log = "firedup-test:${serving}"`,
      '[[target]]',
      'name = "down"',
      'log = "firedup-down:/var/log/sglang.log"',
      '',
    ].join('\n'),
  );
});
after(() => {
  sshd.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('ps', () => {
  it('shows every target, local and over ssh, and the unreachable host within seconds', async () => {
    const r = await spawnCli(['ps', '--config', config, '--json', '--no-gpu']).done;
    assert.equal(r.stderr, '');
    // Generous: the host that refuses is known at once, the others need one look each.
    assert.ok(r.seconds < 20, `took ${r.seconds} s`);
    const out = r.events[0]!;
    assert.equal(r.code, 7, 'a host unreachable, none crashed, stalled or dead');
    assert.equal(out.exitCode, 7);
    assert.ok(!Number.isNaN(Date.parse(out.at)));
    const rows = new Map<string, Record<string, any>>(out.targets.map((t: any) => [t.name, t]));
    assert.deepEqual(
      [...rows.keys()],
      ['local-loading', 'local-serving', 'remote-loading', 'remote-serving', 'down'],
    );
    for (const name of ['local-loading', 'remote-loading']) {
      const t = rows.get(name)!;
      assert.equal(t.state, 'loading', `${name}: ${t.why}`);
      assert.equal(t.phase, 'loading_weights');
      assert.deepEqual(t.progress, { done: 40, total: 83, ratio: 0.48 });
      assert.equal(t.engine, 'sglang');
      assert.equal(t.model, 'lukealonso/GLM-5-NVFP4');
      assert.equal(t.launch, 2);
      assert.equal(t.startedAt, '2026-02-19T05:48:17Z');
      assert.ok(t.age > 0);
      assert.equal(t.failureClass, null);
    }
    for (const name of ['local-serving', 'remote-serving']) {
      const t = rows.get(name)!;
      assert.ok(['serving', 'idle'].includes(t.state), `${name}: ${t.state} ${t.why}`);
      assert.equal(t.phase, 'serving');
      assert.ok(t.tokS > 0);
    }
    assert.equal(rows.get('local-loading')!.host, 'localhost');
    assert.equal(rows.get('remote-loading')!.host, 'firedup-test');
    const down = rows.get('down')!;
    assert.equal(down.state, 'unreachable');
    assert.equal(down.host, 'firedup-down');
    assert.match(down.why, /refused/);
    // The shape scripts rely on: these names, in every row.
    for (const t of out.targets) assert.deepEqual(Object.keys(t).sort(), ROW_KEYS);
  });

  it('prints a table with a line per target and why a host is unreachable', async () => {
    // Fresh again: on a loaded machine the first test can take long enough for the copy to look silent.
    const now = new Date();
    for (const f of ['loading.log', 'serving.log']) fs.utimesSync(path.join(dir, f), now, now);
    const r = await spawnCli(['ps', '--config', config, '--no-gpu'], { COLUMNS: '200' }).done;
    assert.equal(r.code, 7);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(
      lines[0]!,
      /^NAME\s+HOST\s+ENGINE\s+MODEL\s+STATE\s+PHASE\s+PROGRESS\s+AGE\s+TOK\/S\s+FAILURE$/,
    );
    assert.match(
      lines[1]!,
      /^local-loading\s+localhost\s+sglang\s+lukealonso\/GLM-5-NVFP4\s+loading\s+loading_weights\s+40\/83 48%/,
    );
    assert.match(lines[3]!, /^remote-loading\s+firedup-test\s+sglang/);
    assert.match(lines[5]!, /^down\s+firedup-down\s+-\s+-\s+unreachable/);
    assert.match(lines[6]!, /^unreachable: .*firedup-down.*refused/);
  });

  it('a blackholed host is unreachable after --connect-timeout, holding up no other target', async () => {
    const f = path.join(dir, 'blackhole.toml');
    fs.writeFileSync(
      f,
      '[[target]]\nname = "here"\nlog = "serving.log"\n[[target]]\nname = "hole"\nlog = "root@10.255.255.1:/x.log"\n',
    );
    const r = await spawnCli(['ps', '--config', f, '--json', '--no-gpu', '--connect-timeout', '2']).done;
    assert.ok(r.seconds < 15, `took ${r.seconds} s`);
    const [here, hole] = r.events[0]!.targets;
    assert.ok(['serving', 'idle'].includes(here.state), here.why);
    assert.equal(hole.state, 'unreachable');
    assert.equal(r.code, 7);
  });

  it('--watch --json into a pipe: a line each time a row changes, until interrupted', async () => {
    const run = spawnCli(['ps', '--config', config, '--watch', '--json', '--no-gpu']);
    let stdout = '';
    run.child.stdout!.on('data', (d) => {
      stdout += d;
    });
    // Until a line has every target judged (or 20 s, generously).
    const judged = () =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .some((l) => JSON.parse(l).targets.every((t: any) => t.state !== 'waiting'));
    for (let i = 0; i < 200 && !judged(); i++) await new Promise((r) => setTimeout(r, 100));
    run.child.kill('SIGINT');
    const r = await run.done;
    assert.equal(r.code, 130);
    assert.ok(judged(), r.stdout);
    // Only changes are printed: no two lines alike but for the time and the reasons' counters.
    const keys = r.events.map((e) =>
      JSON.stringify(e.targets.map((t: any) => ({ ...t, age: null, why: null }))),
    );
    assert.equal(new Set(keys).size, keys.length);
    const last = r.events.at(-1)!;
    assert.equal(last.targets.find((t: any) => t.name === 'down').state, 'unreachable');
  });

  it('bad input is one line naming the file and line, or the flag', async () => {
    const f = path.join(dir, 'bad.toml');
    fs.writeFileSync(f, '[[target]]\nname = "a"\nlgo = "x.log"\n');
    let r = await spawnCli(['ps', '--config', f]).done;
    assert.equal(r.code, 1);
    assertOneLine(r.stderr);
    assert.match(r.stderr, new RegExp(`${f}:3: unknown target setting lgo`));
    fs.writeFileSync(f, 'port = 7070\n');
    r = await spawnCli(['ps', '--config', f]).done;
    assertOneLine(r.stderr);
    assert.match(r.stderr, /no \[\[target\]\]/);
    r = await spawnCli(['ps', '--config', path.join(dir, 'nope.toml')]).done;
    assertOneLine(r.stderr);
    assert.match(r.stderr, /nope\.toml: no such file/);
    r = await spawnCli(['ps', '--config', config, '--connect-timeout', 'soon']).done;
    assertOneLine(r.stderr);
    assert.match(r.stderr, /--connect-timeout soon/);
    const none = spawnSync(process.execPath, [BIN, 'ps'], { cwd: dir, encoding: 'utf8' });
    assert.equal(none.status, 1);
    assertOneLine(none.stderr);
    assert.match(none.stderr, /no firedup\.toml here/);
  });
});

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

describe('ps --watch on a terminal', { skip: hasScript ? false : 'no util-linux script(1)' }, () => {
  it('redraws the table in place until interrupted, then gives the cursor back', () => {
    // `timeout` gives firedup a process group of its own, in the background of the terminal (the command after
    // it keeps every shell from exec'ing it as the session leader): a background job that set raw mode would be
    // stopped by SIGTTOU and never draw. `script` runs $SHELL; the same under sh and bash.
    const cmd = `COLUMNS=160 timeout --preserve-status -s INT 6 ${process.execPath} ${BIN} ps --config ${config} --watch --no-gpu; exit $?`;
    const r = spawnSync('script', ['-q', '-e', '-c', cmd, '/dev/null'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, SHELL: '/bin/sh' },
    });
    const out = r.stdout;
    assert.ok(out.includes('\x1b[?25l'), 'cursor hidden');
    assert.ok(out.includes('\x1b[?25h'), 'cursor restored');
    const redraws = out.match(/\x1b\[\d+F\x1b\[0J/g) ?? [];
    assert.ok(redraws.length >= 2, `only ${redraws.length} redraws`);
    // The last frame has every target judged.
    const last = out.slice(out.lastIndexOf('\x1b[0J'));
    assert.match(last, /local-loading\s+localhost\s+sglang.*loading/);
    assert.match(last, /down\s+firedup-down.*unreachable/);
    assert.equal(r.status, 130, out.slice(-400));
  });
});
