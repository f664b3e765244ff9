import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { lineShape } from '../../src/core/reading/shape.js';
import { runCli, tmpDir } from '../helpers.js';

/** A made-up vLLM launch with one log call no rule knows, printed three times with other numbers. */
const LOG = [
  'INFO 03-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.1',
  "INFO 03-01 10:00:00 [cli_args.py:300] non-default args: {'model': 'org/Model-7B', 'tensor_parallel_size': 2}",
  'INFO 03-01 10:00:05 [widget.py:42] Frobnicated 12 widgets in 0.51 s on /tmp/cache/a1',
  'INFO 03-01 10:00:06 [widget.py:42] Frobnicated 7 widgets in 1.25 s on /tmp/cache/b2',
  'INFO 03-01 10:00:07 [widget.py:42] Frobnicated 300 widgets in 10.0 s on /tmp/cache/c3',
  'INFO 03-01 10:00:08 [gpu_model_runner.py:1500] Starting to load model org/Model-7B...',
  'INFO 03-01 10:00:30 [gpu_model_runner.py:1600] Model loading took 13.5 GiB and 20.1 seconds',
  'INFO 03-01 10:00:40 [launcher.py:30] Route: /v1/completions, Methods: POST',
  'INFO:     Application startup complete.',
  '',
].join('\n');

describe('status --explain', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = tmpDir();
    file = path.join(dir, 'server.log');
    fs.writeFileSync(file, LOG);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('groups an unrecognised engine line repeated with other numbers into one shape', () => {
    const r = runCli(['status', '--explain', '--json', '--no-ledger', file]);
    assert.equal(r.stderr, '');
    const x = JSON.parse(r.stdout);
    const widget = x.unrecognised.shapes.filter((s: { shape: string }) => s.shape.startsWith('Frobnicated'));
    assert.equal(widget.length, 1, JSON.stringify(x.unrecognised.shapes));
    assert.equal(widget[0].count, 3);
    assert.equal(widget[0].firstLine, 3);
    assert.equal(widget[0].shape, 'Frobnicated <n> widgets in <n> s on <path>');
    assert.match(widget[0].example, /Frobnicated 12 widgets/);
  });

  it('lists the phase lines with their line numbers and rules, and the engine votes', () => {
    const x = JSON.parse(runCli(['status', '--explain', '--json', '--no-ledger', file]).stdout);
    assert.equal(x.engine.id, 'vllm');
    assert.ok(x.engine.votes[0].top.length > 0);
    const load = x.phases.find((p: { phase: string }) => p.phase === 'loading_weights');
    assert.ok(load, JSON.stringify(x.phases));
    assert.equal(load.line, 6);
    assert.match(load.text, /Starting to load model/);
    assert.equal(typeof load.rule, 'string');
    assert.ok(x.phases.some((p: { line: number }) => p.line === 7));
  });

  it('says what it peeled from each line: a gutter learned from the head of the file', () => {
    const wrapped = path.join(dir, 'pdsh.log');
    fs.writeFileSync(
      wrapped,
      LOG.split('\n')
        .map((l) => (l ? `gpu-node-4: ${l}` : l))
        .join('\n'),
    );
    const x = JSON.parse(runCli(['status', '--explain', '--json', '--no-ledger', wrapped]).stdout);
    // Learned from the frames behind it, by shape (the host name's words become `w`).
    assert.equal(x.wrapper, '"w-w-w: " by shape (w: a word of letters or digits)');
    assert.equal(x.engine.id, 'vllm');
    assert.match(
      runCli(['status', '--explain', '--no-ledger', wrapped]).stdout,
      /peeled from each line before reading it: "w-w-w: "/,
    );
    assert.equal(
      JSON.parse(runCli(['status', '--explain', '--json', '--no-ledger', file]).stdout).wrapper,
      null,
    );
  });

  it('prints the same as text, from a file and from stdin', () => {
    const r = runCli(['status', '--explain', '--no-ledger', file]);
    assert.match(r.stdout, /confidence: /);
    assert.match(r.stdout, /phases:/);
    assert.match(
      r.stdout,
      /^\s+6: INFO 03-01 10:00:08 \[gpu_model_runner\.py:1500\] Starting to load model/m,
    );
    assert.match(r.stdout, /^\s+3×\s+Frobnicated <n> widgets in <n> s on <path>$/m);
    assert.match(r.stdout, /first line 3 \(info\)/);
    const s = runCli(['status', '--explain', '--no-ledger', '-'], LOG);
    assert.equal(s.stdout.replace(/^\S+/, ''), r.stdout.replace(/^\S+/, ''));
  });
});

describe('line shapes', () => {
  it('replace numbers, hex, paths, quoted strings and times', () => {
    assert.equal(
      lineShape(`Loaded 'w.bin' from /data/m/x at 0x7f3a in 3.5s, id 9f86d081884c7d65 [1, 2, 3]`),
      'Loaded <str> from <path> at <hex> in <n>s, id <hex> [<n>]',
    );
    // Digits inside a word stay; a number after a hyphen is a number (`8B` is a size).
    assert.equal(lineShape('model Qwen3-8B ready'), 'model Qwen3-<n>B ready');
  });
});
