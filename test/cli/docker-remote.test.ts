/**
 * `docker://HOST/NAME` for real: a container on the daemon of "another machine" (this one, through the test sshd on
 * 127.0.0.1: the docker CLI's `DOCKER_HOST=ssh://` runs `docker system dial-stdio` there, nothing of firedup's),
 * with firedup's `--ssh-config` and `--ssh-option` reaching the ssh the docker CLI runs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseTarget } from '../../src/sources/target.js';
import { buildSmallImage, docker, ensureDocker, RUN, removeAll, run } from '../docker.js';
import { assertOneLine, BIN, runCli, spawnCli } from '../helpers.js';
import { waitFor } from '../llama.js';
import { startSshd, type TestSshd } from '../ssh.js';

const names = new Set<string>();
let image: string | null = null;
let sshd: TestSshd | null = null;
const name = (what: string) => {
  const n = `firedup-remote-${what}-${RUN}`;
  names.add(n);
  return n;
};

describe('docker://HOST/NAME: a daemon on another machine, through ssh', { timeout: 600_000 }, () => {
  before(async () => {
    await ensureDocker();
    image = buildSmallImage();
    sshd = await startSshd();
  });
  after(() => {
    removeAll(names, image);
    sshd?.stop();
  });

  it('status reads the container through the ssh alias of --ssh-config', async () => {
    const c = run(name('serve'), [image!, 'engine', 'serve']);
    await waitFor(() => docker(['logs', c]).stderr.split('\n').length > 150, 30_000, 'serving');
    const r = runCli([
      'status',
      '--no-ledger',
      '--json',
      '--ssh-config',
      sshd!.config,
      `docker://firedup-test/${c}`,
    ]);
    assert.equal(r.stderr, '');
    const s = JSON.parse(r.stdout);
    assert.equal(s.engine, 'sglang');
    assert.equal(s.config.model_path, 'lukealonso/GLM-5-NVFP4');
    assert.equal(s.live.state, 'serving');
    assert.ok(
      s.live.evidence.some((e: any) => e.text.startsWith(`container ${c} running`)),
      r.stdout,
    );
  });

  it('user@host:port and --ssh-option reach the docker CLI ssh too', () => {
    const c = run(name('opts'), [image!, 'engine', 'crash']);
    const opt = (o: string) => ['--ssh-option', o];
    const r = runCli([
      'status',
      '--no-ledger',
      '--json',
      ...opt(`IdentityFile=${sshd!.dir}/user_key`),
      ...opt('IdentitiesOnly=yes'),
      ...opt(`UserKnownHostsFile=${sshd!.dir}/known_hosts`),
      ...opt('StrictHostKeyChecking=accept-new'),
      `docker://root@127.0.0.1:${sshd!.port}/${c}`,
    ]);
    assert.equal(r.stderr, '');
    const s = JSON.parse(r.stdout);
    assert.equal(s.engine, 'sglang');
    assert.ok(
      s.live.evidence.some((e: any) => e.text.startsWith(`container ${c} `)),
      r.stdout,
    );
  });

  it('watch follows the remote container live', async () => {
    const c = run(name('watch'), [image!, 'engine', 'serve']);
    const w = spawnCli(
      [
        'watch',
        '--json',
        '--no-ledger',
        '--no-gpu',
        '--ssh-config',
        sshd!.config,
        `docker://firedup-test/${c}`,
      ],
      {},
      170_000,
    );
    let out = '';
    w.child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    await waitFor(() => /"phase":"serving"/.test(out), 150_000, 'serving, through ssh');
    w.child.kill('SIGINT');
    await w.done;
  });

  it('ps: a [[target]] docker://HOST/NAME, with the ssh_config of firedup.toml', async () => {
    const c = run(name('ps'), [image!, 'engine', 'serve']);
    const toml = path.join(sshd!.dir, 'firedup.toml');
    fs.writeFileSync(
      toml,
      `ssh_config = "${sshd!.config}"\n[[target]]\nname = "remote"\nlog = "docker://firedup-test/${c}"\n`,
    );
    const w = spawnCli(['ps', '--config', toml, '--no-ledger', '--no-gpu', '--watch', '--json'], {}, 170_000);
    let out = '';
    w.child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const row = () => {
      const last = out.trim().split('\n').at(-1);
      if (!last?.startsWith('[') && !last?.startsWith('{')) return null;
      const j = JSON.parse(last);
      return (Array.isArray(j) ? j : j.targets)[0];
    };
    await waitFor(
      () => ['serving', 'idle'].includes(row()?.state) && row()?.container?.state === 'running',
      150_000,
      'the remote row serving, its container running',
    );
    assert.equal(row().host, 'firedup-test');
    w.child.kill('SIGINT');
    await w.done;
  });

  it("Debian's docker CLI (20.10) takes the same ssh as docker 28's", (t) => {
    if (!fs.existsSync('/usr/bin/docker')) return t.skip('no /usr/bin/docker (Debian docker.io) here');
    const bin = path.join(sshd!.dir, 'bin-docker');
    fs.mkdirSync(bin, { recursive: true });
    fs.rmSync(path.join(bin, 'docker'), { force: true });
    fs.symlinkSync('/usr/bin/docker', path.join(bin, 'docker'));
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    const version = spawnSync('docker', ['version', '--format', '{{.Client.Version}}'], {
      env,
      encoding: 'utf8',
    });
    assert.match(version.stdout, /^20\./);
    const c = run(name('debian'), [image!, 'engine', 'crash']);
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 120_000 });
    const r = cli([
      'status',
      '--no-ledger',
      '--json',
      '--ssh-config',
      sshd!.config,
      `docker://firedup-test/${c}`,
    ]);
    assert.equal(r.stderr, '');
    assert.equal(JSON.parse(r.stdout).engine, 'sglang');
    const unknown = cli(['status', '--no-ledger', `docker://firedup-test/${c}`]);
    assertOneLine(unknown.stderr);
    assert.match(unknown.stderr, /host firedup-test not found/);
  });

  it("one line for a host ssh cannot reach, naming ssh's reason", () => {
    // No --ssh-config: the alias is unknown to the system ssh.
    const r = runCli(['status', '--no-ledger', `docker://firedup-test/x-${RUN}`]);
    assert.notEqual(r.code, 0);
    assertOneLine(r.stderr);
    assert.match(r.stderr, /docker:\/\/firedup-test\/x-.*host firedup-test not found/);
    const refused = runCli(['status', '--no-ledger', `docker://root@127.0.0.1:1/x-${RUN}`]);
    assertOneLine(refused.stderr);
    assert.match(refused.stderr, /connection to root@127\.0\.0\.1:1 refused/);
    const gone = runCli([
      'status',
      '--no-ledger',
      '--ssh-config',
      sshd!.config,
      `docker://firedup-test/x-${RUN}`,
    ]);
    assertOneLine(gone.stderr);
    assert.match(gone.stderr, /no such container on firedup-test/);
  });

  it('docker://HOST/NAME never collides with host:path', () => {
    assert.deepEqual(parseTarget('docker://gpu-a/sglang'), { kind: 'docker', host: 'gpu-a', name: 'sglang' });
    assert.deepEqual(parseTarget('docker://root@gpu-a:2222/abc123'), {
      kind: 'docker',
      host: 'root@gpu-a:2222',
      name: 'abc123',
    });
    // An ssh alias named `docker`: scp's host:path, whose path never starts with `//`.
    assert.deepEqual(parseTarget('docker:logs/server.log'), {
      kind: 'ssh',
      user: null,
      host: 'docker',
      port: null,
      path: 'logs/server.log',
    });
    assert.deepEqual(parseTarget('docker:/var/log/x.log'), {
      kind: 'ssh',
      user: null,
      host: 'docker',
      port: null,
      path: '/var/log/x.log',
    });
    assert.throws(() => parseTarget('docker://a b/x'), /not an ssh host/);
    assert.throws(() => parseTarget('docker://gpu-a/'), /no container/);
  });
});
