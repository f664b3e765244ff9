/**
 * Finding which engine build a command runs, with the real python3 and git: a fake `sglang` package in a
 * git checkout (with a dist-info for its version), imported through PYTHONPATH or a console script.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseCommand } from '../../src/core/campaign/intended.js';
import {
  discoverEngineInstall,
  parseBinaryVersion,
  parsePorcelainZ,
} from '../../src/probes/engine-install.js';
import { tmpDir } from '../helpers.js';

const has = (cmd: string) => {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const skip = has('python3') && has('git') ? false : 'needs python3 and git';

describe('parsers', () => {
  it('reads binary versions', () => {
    assert.equal(parseBinaryVersion('version: 4589 (abc1234)\nbuilt with cc'), '4589 (abc1234)');
    assert.equal(
      parseBinaryVersion('version: 0.7.0 (build 11669, commit Debian)\n'),
      '0.7.0 (build 11669, commit Debian)',
    );
    assert.equal(parseBinaryVersion('text-generation-launcher 2.4.1\n'), '2.4.1');
    assert.equal(parseBinaryVersion('usage: ...'), null);
  });

  it('reads git status --porcelain -z, renames and deletions included', () => {
    assert.deepEqual(parsePorcelainZ(' M a.py\0R  new.py\0old.py\0 D gone.py\0?? x y.py\0'), [
      { path: 'a.py', deleted: false },
      { path: 'new.py', deleted: false },
      { path: 'gone.py', deleted: true },
      { path: 'x y.py', deleted: false },
    ]);
  });
});

describe('discoverEngineInstall', { skip }, () => {
  let work: string;
  let repo: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', '-C', repo, ...args], {
      encoding: 'utf8',
    });

  before(() => {
    work = tmpDir();
    repo = path.join(work, 'sglang-src');
    const pkg = path.join(repo, 'python', 'sglang');
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, '__init__.py'), '');
    fs.writeFileSync(path.join(pkg, 'launch_server.py'), 'print("hi")\n');
    const dist = path.join(repo, 'python', 'sglang-0.5.1.dist-info');
    fs.mkdirSync(dist);
    fs.writeFileSync(path.join(dist, 'METADATA'), 'Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.1\n');
    execFileSync('git', ['init', '-q', repo]);
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    fs.writeFileSync(path.join(pkg, 'launch_server.py'), 'print("patched")\n');
    fs.writeFileSync(path.join(pkg, 'new_kernel.py'), 'x = 1\n');
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it('python -m sglang.launch_server from a checkout: version, root, HEAD, modified files with sha256', async () => {
    const cmd = parseCommand(['python3', '-m', 'sglang.launch_server', '--port', '30000']);
    const env = { ...process.env, PYTHONPATH: path.join(repo, 'python') };
    const got = await discoverEngineInstall(cmd, { cwd: work, env });
    assert.equal(got.version, '0.5.1');
    assert.equal(got.git?.root, fs.realpathSync(repo));
    assert.equal(got.git?.head, git('rev-parse', 'HEAD').trim());
    const sha = (p: string) =>
      createHash('sha256')
        .update(fs.readFileSync(path.join(repo, p)))
        .digest('hex');
    assert.deepEqual(
      [...(got.git?.modified ?? [])].sort((a, b) => a.path.localeCompare(b.path)),
      [
        { path: 'python/sglang/launch_server.py', sha256: sha('python/sglang/launch_server.py') },
        { path: 'python/sglang/new_kernel.py', sha256: sha('python/sglang/new_kernel.py') },
      ],
    );
  });

  it('a console script finds its python through #!/usr/bin/env; an untracked copy is no checkout', async () => {
    const bin = path.join(work, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'sglang'), '#!/usr/bin/env python3\nimport sys\n', { mode: 0o755 });
    // The package copied outside any git work tree, as a wheel would install it.
    const site = path.join(work, 'site');
    fs.cpSync(path.join(repo, 'python'), site, { recursive: true });
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, PYTHONPATH: site };
    const got = await discoverEngineInstall(parseCommand(['sglang', 'serve', '--model-path', 'm']), {
      cwd: work,
      env,
    });
    assert.deepEqual(got, { version: '0.5.1', git: null });
  });

  it('a missing interpreter or package gives nulls, not an error', async () => {
    const none = await discoverEngineInstall(
      parseCommand(['python3', '-m', 'vllm.entrypoints.openai.api_server']),
      {
        cwd: work,
        env: { ...process.env, PYTHONPATH: '' },
      },
    );
    assert.equal(none.git, null);
    const nope = await discoverEngineInstall(
      parseCommand(['/nonexistent/python3', '-m', 'sglang.launch_server']),
      {
        cwd: work,
        env: process.env,
      },
    );
    assert.deepEqual(nope, { version: null, git: null });
  });
});
