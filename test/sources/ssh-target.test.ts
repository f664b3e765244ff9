import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { shCommand, shQuote } from '../../src/sources/ssh/command.js';
import { describeTarget, parseTarget } from '../../src/sources/target.js';
import { tmpDir } from '../helpers.js';

describe('parseTarget', () => {
  it('reads scp-style user@host:/abs', () => {
    assert.deepEqual(parseTarget('root@gpu-box:/root/sglang-server.log'), {
      kind: 'ssh',
      user: 'root',
      host: 'gpu-box',
      port: null,
      path: '/root/sglang-server.log',
    });
  });
  it('reads an alias with a path relative to the remote home', () => {
    assert.deepEqual(parseTarget('gpu-box:logs/server.log'), {
      kind: 'ssh',
      user: null,
      host: 'gpu-box',
      port: null,
      path: 'logs/server.log',
    });
  });
  it('reads ssh:// URLs with port, and /~/ for the home', () => {
    assert.deepEqual(parseTarget('ssh://user@host:2222/path/to/log'), {
      kind: 'ssh',
      user: 'user',
      host: 'host',
      port: 2222,
      path: '/path/to/log',
    });
    assert.deepEqual(parseTarget('ssh://h/~/x.log'), {
      kind: 'ssh',
      user: null,
      host: 'h',
      port: null,
      path: 'x.log',
    });
    assert.deepEqual(parseTarget('ssh://[::1]:22/a%20b.log'), {
      kind: 'ssh',
      user: null,
      host: '::1',
      port: 22,
      path: '/a b.log',
    });
    assert.throws(() => parseTarget('ssh://host'), /ssh:\/\//);
    assert.throws(() => parseTarget('ssh://host:99999/x'), /bad port/);
    assert.throws(() => parseTarget('ssh://-oProxyCommand=x/y'), /bad user or host/);
  });
  it('keeps local paths local', () => {
    for (const p of ['server.log', '/var/log/x.log', './a:b.log', 'dir/a:b.log', '-', ':x', 'a b:c'])
      assert.deepEqual(parseTarget(p), { kind: 'local', path: p });
    // A host that would read as an ssh option is not a host.
    assert.equal(parseTarget('-oProxyCommand=x:y').kind, 'local');
  });
  it('lets an existing local file win over host:path', () => {
    const dir = tmpDir();
    const prev = process.cwd();
    process.chdir(dir);
    try {
      fs.writeFileSync(path.join(dir, 'box:x.log'), 'x');
      assert.deepEqual(parseTarget('box:x.log'), { kind: 'local', path: 'box:x.log' });
      assert.equal(parseTarget('box:y.log').kind, 'ssh');
    } finally {
      process.chdir(prev);
    }
  });
  it('rejects host: with no path', () => assert.throws(() => parseTarget('gpu-box:'), /no remote path/));
  it('describes targets the way they are written', () => {
    assert.equal(describeTarget(parseTarget('ssh://u@h:2222/x')), 'u@h:2222:/x');
    assert.equal(describeTarget(parseTarget('h:x')), 'h:x');
  });
});

describe('shell quoting', () => {
  it('single-quotes everything and escapes quotes', () => {
    assert.equal(shQuote("it's"), "'it'\\''s'");
    assert.equal(shQuote(''), "''");
    assert.equal(shCommand(['cat', '--', '$(x) `y`;z']), "'cat' '--' '$(x) `y`;z'");
    assert.throws(() => shQuote('a\0b'), /NUL/);
  });
});
