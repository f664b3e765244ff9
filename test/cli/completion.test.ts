import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { FlagSpec } from '../../src/cli/args.js';
import * as benchImport from '../../src/cli/bench-import.js';
import { RUN_FLAGS } from '../../src/cli/bench-run-flags.js';
import { COMMAND_NAMES } from '../../src/cli/commands.js';
import { completionFlags } from '../../src/cli/completion.js';
import * as demo from '../../src/cli/demo.js';
import * as launch from '../../src/cli/launch.js';
import * as ledger from '../../src/cli/ledger-commands.js';
import * as push from '../../src/cli/ledger-push.js';
import * as mcp from '../../src/cli/mcp.js';
import * as ps from '../../src/cli/ps.js';
import * as replay from '../../src/cli/replay.js';
import * as serve from '../../src/cli/serve.js';
import * as status from '../../src/cli/status.js';
import * as sweep from '../../src/cli/sweep.js';
import * as watch from '../../src/cli/watch.js';
import { runCli, tmpDir } from '../helpers.js';

/** The tables each command's parser is called with (the parseArgs calls in src/cli), listed here on their own. */
const PARSERS: Array<[string, Record<string, FlagSpec>]> = [
  ['status', status.STATUS_FLAGS],
  ['runs', status.COMMON],
  ['runs', ledger.RUNS_FLAGS],
  ['show', ledger.LEDGER_FLAGS],
  ['forget', ledger.FORGET_FLAGS],
  ['note', ledger.LEDGER_FLAGS],
  ['tag', ledger.TAG_FLAGS],
  ['ledger', push.FLAGS],
  ['diff', ledger.DIFF_FLAGS],
  ['bench run', RUN_FLAGS],
  ['bench import', benchImport.FLAGS],
  ['target', ledger.TARGET_FLAGS],
  ['wait', watch.FLAGS],
  ['launch', launch.FLAGS],
  ['sweep', sweep.FLAGS],
  ['serve', serve.FLAGS],
  ['ps', ps.FLAGS],
  ['mcp', mcp.FLAGS],
  ['replay', replay.SPEC],
  ['demo', demo.FLAGS],
];

describe('completion is made from the parsers flag tables', () => {
  it("every flag a command's parser accepts is in its completion (long form and short alias)", async () => {
    const offered = await completionFlags();
    for (const c of COMMAND_NAMES) assert.ok(offered[c], `no completion for ${c}`);
    for (const [cmd, table] of PARSERS)
      for (const [name, spec] of Object.entries(table)) {
        assert.ok(offered[cmd]!.includes(`--${name}`), `${cmd}: --${name} not offered`);
        if (spec.alias)
          assert.ok(offered[cmd]!.includes(`-${spec.alias}`), `${cmd}: -${spec.alias} not offered`);
      }
    // watch shares wait's table but refuses the wait-only flags: they are not offered there.
    for (const [name] of Object.entries(watch.FLAGS))
      if (name !== 'for' && name !== 'next')
        assert.ok(offered.watch!.includes(`--${name}`), `watch: --${name}`);
    assert.ok(!offered.watch!.includes('--for'));
  });

  it('offers --for values, and bench run --warmup, --endpoint (with values) and --model, when run in bash', () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'c.bash'), runCli(['completion', 'bash']).stdout);
    const probe = (words: string) =>
      spawnSync(
        'bash',
        [
          '-c',
          `source ${dir}/c.bash; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _firedup; echo "\${COMPREPLY[*]}"`,
        ],
        { encoding: 'utf8' },
      ).stdout.trim();
    assert.equal(probe('firedup wait x.log --for ""'), 'ready serving loaded');
    assert.equal(probe('firedup wait x.log --for se'), 'serving');
    assert.equal(probe('firedup bench run --war'), '--warmup');
    assert.equal(probe('firedup bench run --endp'), '--endpoint');
    assert.equal(probe('firedup bench run --endpoint c'), 'completions chat');
    assert.match(probe('firedup bench run --mo'), /^--model$/);
    assert.equal(probe('firedup bench import --la'), '--launch');
    assert.equal(probe('firedup bench import --war'), '', 'bench run flags are not offered to import');
    assert.equal(spawnSync('bash', ['-n', path.join(dir, 'c.bash')]).status, 0);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the --for values offered are the ones wait accepts', () => {
    const script = runCli(['completion', 'bash']).stdout;
    const offered = /--for\) COMPREPLY=\(\$\(compgen -W "([^"]+)"/.exec(script)![1]!.split(' ');
    const refused = runCli(['wait', 'x.log', '--for', 'zzz']).stderr;
    const accepted = /one of ([a-z, ]+)/.exec(refused)![1]!.split(', ');
    assert.deepEqual(offered.sort(), accepted.sort());
  });
});
