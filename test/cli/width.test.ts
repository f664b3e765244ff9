import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { joinFitting } from '../../src/cli/view.js';
import { fitReport, wrapLine } from '../../src/cli/width.js';
import { BIN, ROOT, SHARED } from '../helpers.js';

const visible = (s: string) => [...s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')].length;

/** The CLI with COLUMNS set (or, with `undefined`, unset: piped output without a width). */
function cli(args: string[], columns: number | undefined) {
  const env: NodeJS.ProcessEnv = { ...process.env, FIREDUP_LEDGER: 'off' };
  delete env.COLUMNS;
  if (columns !== undefined) env.COLUMNS = String(columns);
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every line fits, and no word was broken: each word of a line not cut with … is a word of the full output. */
function wrappedAtWords(narrow: string, full: string, width: number, what: string) {
  const words = new Set(full.split(/\s+/));
  for (const l of narrow.split('\n')) {
    assert.ok(visible(l) <= width, `${what}: ${visible(l)} > ${width}: ${l}`);
    if (l.includes('…')) continue;
    // Numbers (clocks, seconds so far) differ between two runs; words do not.
    for (const w of l.split(/\s+/).filter((x) => x && !/^\d[\d:.,]*s?$/.test(x)))
      assert.ok(words.has(w), `${what}: "${w}" is a broken word in: ${l}`);
  }
}

describe('wrapLine and fitReport', () => {
  it('wraps at spaces under the indent, keeps the spacing of aligned columns, never breaks a word', () => {
    assert.deepEqual(wrapLine('  alpha beta gamma delta', 14), [
      '  alpha beta',
      '      gamma',
      '      delta',
    ]);
    assert.deepEqual(wrapLine('a    b  c dddd', 9, ' '), ['a    b  c', ' dddd']);
    assert.deepEqual(wrapLine('short', 10), ['short']);
    // A word wider than the room is cut with …, not split over two lines.
    const long = wrapLine(`x ${'y'.repeat(30)}`, 12);
    assert.ok(long.every((l) => visible(l) <= 12) && long.at(-1)!.endsWith('…'), long.join('|'));
  });

  it('fitReport: quoted log lines are cut, prose wrapped; no width: unchanged', () => {
    const lines = [`  next: ${'word '.repeat(20).trim()}`, `       12: ${'log '.repeat(20).trim()}`];
    assert.deepEqual(fitReport(lines, null), lines);
    const out = fitReport(lines, 40);
    assert.ok(out.length > 3);
    assert.equal(out.filter((l) => l.includes('12: ')).length, 1);
    assert.ok(out.at(-1)!.endsWith('…'));
  });

  it('the watch block lists every phase, wrapped between phases, not cut from the left', () => {
    const phases = [
      'args 1.0s',
      'dist_init 5.0s',
      'loading_weights 1m35s',
      'weights_loaded 2s',
      'kv_cache 3s…',
    ];
    const rows = joinFitting(phases, ' · ', 30);
    assert.deepEqual(rows, [
      'args 1.0s · dist_init 5.0s ·',
      'loading_weights 1m35s ·',
      'weights_loaded 2s ·',
      'kv_cache 3s…',
    ]);
  });
});

describe('text output follows COLUMNS', () => {
  const oom = path.join(SHARED, 'corpus', 'released', 'vllm', '024.log');
  const stuck = path.join(ROOT, 'examples', 'glm5-relaunch-stuck-at-48pct.log');

  for (const width of [50, 80]) {
    it(`status and runs LOG at COLUMNS=${width}: every line fits, wrapped at words`, () => {
      for (const args of [
        ['status', '--no-probe', oom],
        ['status', '--no-probe', stuck],
        ['runs', stuck],
        ['runs', oom],
      ]) {
        const full = cli(args, undefined);
        const narrow = cli(args, width);
        assert.equal(narrow.code, full.code, narrow.stderr);
        wrappedAtWords(narrow.stdout, full.stdout, width, `${args[0]} ${path.basename(args.at(-1)!)}`);
      }
    });
  }

  it('piped without COLUMNS: full lines (the failure message whole, on one line)', () => {
    const r = cli(['status', '--no-probe', oom], undefined);
    assert.ok(
      r.stdout.includes(
        'RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests. Please try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.',
      ),
    );
  });

  it('watch event lines: wrapped at words under the text at COLUMNS, whole when piped', () => {
    const full = cli(['watch', '--no-gpu', oom], undefined);
    const narrow = cli(['watch', '--no-gpu', oom], 60);
    assert.equal(narrow.code, 2, narrow.stderr);
    wrappedAtWords(narrow.stdout, full.stdout, 60, 'watch');
    const lines = narrow.stdout.split('\n');
    const at = lines.findIndex((l) => l.includes('✖ crashed: oom'));
    assert.match(lines[at + 1]!, /^ {9}\S/, 'continued under the text, past the clock');
    assert.ok(
      full.stdout.split('\n').some((l) => visible(l) > 150),
      'piped: one line per event',
    );
  });
});
