/**
 * Damaged ledgers, fuzzed (issue 15): whatever bytes a disk or a hand edit breaks, every command either works
 * or says so in one line; none prints a stack trace, none hangs, none writes into a file it refused.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ROOT, runCli, tmpDir } from '../helpers.js';

const sha = (f: string) => createHash('sha256').update(fs.readFileSync(f)).digest('hex');

describe('fuzzed ledgers', () => {
  // FUZZ_ROUNDS=150 for a longer search; the suite keeps it short.
  it('every command works or refuses in one line, never a trace, never writing into a refused file', () => {
    const dir = tmpDir();
    const good = path.join(dir, 'good.db');
    const logs = ['glm5-serving.log', 'glm5-relaunch-stuck-at-48pct.log'].map((f) =>
      path.join(ROOT, 'examples', f),
    );
    for (const l of logs) assert.equal(runCli(['runs', '--ledger', good, l]).code, 0);
    const size = fs.statSync(good).size;
    let seed = 20261130;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let round = 0; round < Number(process.env.FUZZ_ROUNDS ?? 12); round++) {
      const file = path.join(dir, `fuzz-${round}.db`);
      const b = fs.readFileSync(good);
      // A run of damaged bytes somewhere past the header, or a single byte in the header.
      if (round % 4 === 0) b[rnd(100)] = rnd(256);
      else {
        const at = 100 + rnd(size - 200);
        for (let i = 0; i < 1 + rnd(300) && at + i < b.length; i++) b[at + i] = rnd(256);
      }
      fs.writeFileSync(file, b);
      for (const args of [
        ['runs'],
        ['show', 'last'],
        ['status', logs[0]!],
        ['target', 'add', 'load_s <= 600'],
      ]) {
        const before = sha(file);
        const r = runCli([...args, '--ledger', file]);
        const what = `round ${round}: ${args.join(' ')} → ${r.code}: ${r.stderr}`;
        assert.ok(!/\n\s+at |internal error/.test(r.stderr), what);
        assert.notEqual(r.code, null, `${what} (timed out)`);
        if (/ledger .*(damaged|not a SQLite|another program|newer)/.test(r.stderr))
          assert.equal(sha(file), before, `${what}: refused, yet changed`);
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
