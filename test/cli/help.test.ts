import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, it } from 'node:test';
import { COMMANDS } from '../../src/cli/commands.js';
import { helpFor } from '../../src/cli/help.js';
import { BIN, runCli } from '../helpers.js';

const saved = process.env.COLUMNS;
afterEach(() => {
  if (saved === undefined) delete process.env.COLUMNS;
  else process.env.COLUMNS = saved;
});

/** The about block of a command's help: the indented lines between the usage lines and "Options:". */
function aboutLines(text: string): string[] {
  const lines = text.split('\n');
  const from = lines.indexOf('Usage:');
  const to = lines.indexOf('Options:');
  const block = lines.slice(from + 1, to);
  const gap = block.indexOf('');
  return gap < 0 ? [] : block.slice(gap + 1).filter((l, i, a) => l !== '' || i < a.length - 1);
}

describe('help text', () => {
  for (const cols of [60, 80, 100]) {
    it(`is wrapped once, to COLUMNS=${cols}: no line too long, no orphan word, every line filled`, () => {
      process.env.COLUMNS = String(cols);
      for (const c of COMMANDS) {
        const text = helpFor(c.name)!;
        for (const l of text.split('\n'))
          assert.ok([...l].length <= cols || !l.includes(' ', l.search(/\S/)), `${c.name}: too long: ${l}`);
        const about = aboutLines(text);
        for (let i = 0; i + 1 < about.length; i++) {
          const [a, b] = [about[i]!, about[i + 1]!];
          if (a === '' || b === '') continue;
          // Greedy fill: the next line's first word would not have fitted on this one.
          const next = b.trim().split(' ')[0]!;
          assert.ok(
            [...a].length + 1 + [...next].length > cols,
            `${c.name} at ${cols}: "${next}" fits on the line before:\n${a}\n${b}`,
          );
        }
      }
    });
  }

  it('runs, watch, launch and bench: no word left alone on a line of their about text', () => {
    process.env.COLUMNS = '100';
    for (const name of ['runs', 'watch', 'launch', 'bench']) {
      const about = aboutLines(helpFor(name)!);
      assert.ok(about.length > 0, name);
      for (const l of about.slice(0, -1))
        assert.ok(l === '' || l.trim().includes(' '), `${name}: orphan: ${l}`);
    }
  });

  it('bench run --help is wrapped to COLUMNS once: no line longer, the prose filled', () => {
    const env = { ...process.env, COLUMNS: '70' };
    const r = spawnSync(process.execPath, [BIN, 'bench', 'run', '--help'], { encoding: 'utf8', env });
    assert.equal(r.status, 0, r.stderr);
    for (const l of r.stdout.split('\n')) assert.ok([...l].length <= 70, l);
    assert.match(
      r.stdout,
      /\n {2}Benchmarks an OpenAI-compatible server \(SGLang, vLLM, TRT-LLM, TGI,\n {2}llama-server\)/,
    );
  });

  it('bench import --help is its own page, not the generic bench help', () => {
    for (const args of [
      ['bench', 'import', '--help'],
      ['bench', 'import', '-h'],
      ['help', 'bench', 'import'],
    ]) {
      const r = runCli(args);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^firedup bench import — /);
      assert.match(r.stdout, /--launch ID/);
      assert.match(r.stdout, /--port P/);
      assert.doesNotMatch(r.stdout, /--concurrency/);
    }
  });
});
