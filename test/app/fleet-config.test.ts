import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadServeConfig } from '../../src/app/fleet-config.js';
import { tmpDir } from '../helpers.js';

describe('firedup.toml: a [[target]] over several nodes', () => {
  const dir = tmpDir();
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('nodes = [...]: local paths relative to the file, ssh targets as written, kept apart from one-log targets', () => {
    const f = path.join(dir, 'firedup.toml');
    fs.writeFileSync(
      f,
      '[[target]]\nname = "a"\nlog = "a.log"\n\n[[target]]\nname = "two"\nnodes = ["n0.log", "root@gpu-b:/srv/sglang.log"]\nengine = "sglang"\n',
    );
    const cfg = loadServeConfig(f);
    assert.deepEqual(
      cfg.targets.map((t) => t.name),
      ['a'],
    );
    assert.deepEqual(cfg.nodeTargets, [
      {
        name: 'two',
        nodes: [path.join(dir, 'n0.log'), 'root@gpu-b:/srv/sglang.log'],
        engine: 'sglang',
        line: 5,
      },
    ]);
  });

  it('a nodes target with url or pid is refused: they name one server', () => {
    const f = path.join(dir, 'bad.toml');
    fs.writeFileSync(f, '[[target]]\nnodes = ["a.log", "b.log"]\nurl = "http://h:1"\n');
    assert.throws(() => loadServeConfig(f), /bad\.toml:1: url and pid name one server/);
  });
});
