import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openLedger } from '../../src/store/open.js';
import type { LaunchRecord } from '../../src/store/types.js';
import { runCli, SCENARIOS, tmpDir } from '../helpers.js';
import { scenarioRecords } from '../ledger-fixtures.js';
import { BACKENDS, type Backend, stopBackends } from '../store/backends.js';

const CUTLASS = 'glm5-cutlass-bench-then-shutdown.log';
const OOM = 'glm5-trtllm-oom-in-cuda-graph.log';
const RELAUNCH = 'glm5-relaunch-stuck-at-48pct.log';
const SILENT = 'glm5-silent-after-load-weight-end.log';

const dir = tmpDir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));
after(stopBackends);

/**
 * A ledger holding the launches of these scenario logs, as `runs LOG` would have recorded them: a SQLite file,
 * or a database on the test Postgres (`file` is then its URL).
 */
async function ledgerOf(
  b: Backend,
  name: string,
  logs: string[],
): Promise<{ file: string; recs: LaunchRecord[] }> {
  const file = b.name === 'sqlite' ? path.join(dir, `${name}.db`) : b.fresh();
  const recs = logs.flatMap((l) => scenarioRecords(l));
  const ledger = await openLedger(file);
  await ledger.upsertLaunches(recs);
  await ledger.close();
  return { file, recs };
}

const oneLine = (r: { code: number | null; stderr: string }, re: RegExp) => {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, re);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
};

for (const b of BACKENDS)
  describe(`runs without a log: the ledger (${b.name})`, () => {
    let all: { file: string; recs: LaunchRecord[] };
    let noTrtllm: { file: string; recs: LaunchRecord[] };
    before(async () => {
      all = await ledgerOf(b, 'all', [CUTLASS, OOM, RELAUNCH, SILENT]);
      noTrtllm = await ledgerOf(b, 'cutlass-only', [CUTLASS, RELAUNCH, SILENT]);
    });

    it('lists launches newest first, aligned, with the flags that vary between them', () => {
      const r = runCli(['runs', '--ledger', all.file]);
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trimEnd().split('\n');
      assert.match(
        lines[0]!,
        /^ {2}id {8}started +host +model +engine +outcome +log +load +peak tok\/s +median tok\/s/,
      );
      for (const k of ['moe_runner_backend', 'disable_cuda_graph', 'max_running_requests'])
        assert.ok(lines[0]!.includes(k), `${k} varies: ${lines[0]}`);
      const rows = lines.slice(1, 6);
      const byId = (name: string, i = 0) => scenarioRecords(name)[i]!.id.slice(0, 8);
      assert.deepEqual(
        rows.map((l) => l.trim().slice(0, 8)),
        [byId(OOM), byId(SILENT), byId(CUTLASS), byId(RELAUNCH, 1), byId(RELAUNCH, 0)],
      );
      assert.match(rows[0]!, /crashed oom in cuda_graph .* flashinfer_trtllm/);
      assert.match(
        rows[2]!,
        /shutdown +\/\S*\/glm5-cutlass-\S+ +1m35s +1993\.71 +1880\.34 .*flashinfer_cutlass/,
      );
      assert.match(rows[3]!, /in_progress at loading_weights/);
      // columns line up: every row's outcome starts where the header's does
      const col = lines[0]!.indexOf('outcome');
      for (const row of rows) assert.match(row.slice(col), /^(crashed|in_progress|shutdown|serving|ended) /);
      // Launch 1 of the relaunch log served, then was relaunched over without an exit line.
      assert.match(rows[4]!, /ended \(no exit line\) +\/\S*\/glm5-relaunch-/);
    });

    it('--where moe_runner_backend=flashinfer_trtllm: the launch that used it, or an honest "none"', () => {
      const hit = runCli(['runs', '--ledger', all.file, '--where', 'moe_runner_backend=flashinfer_trtllm']);
      assert.equal(hit.code, 0, hit.stderr);
      const rows = hit.stdout
        .trimEnd()
        .split('\n')
        .slice(1)
        .filter((l) => /^ {2}[0-9a-f]{8} /.test(l));
      assert.equal(rows.length, 1);
      assert.match(rows[0]!, /crashed oom/);

      // The relaunch with flashinfer_trtllm never happened in these logs: say so, and what was used instead.
      const none = runCli([
        'runs',
        '--ledger',
        noTrtllm.file,
        '--where',
        'moe_runner_backend=flashinfer_trtllm',
      ]);
      assert.equal(none.code, 0, none.stderr);
      assert.equal(
        none.stdout,
        'no launch has moe_runner_backend=flashinfer_trtllm: among 4 launches, moe_runner_backend was flashinfer_cutlass (4 launches)\n',
      );
      const j = JSON.parse(
        runCli([
          'runs',
          '--ledger',
          noTrtllm.file,
          '--where',
          'moe_runner_backend=flashinfer_trtllm',
          '--json',
        ]).stdout,
      );
      assert.deepEqual(j.launches, []);
      assert.match(j.note, /flashinfer_cutlass \(4 launches\)/);
      // `tp` is the summary's name for tp_size (issue 11): it matches; a key no config has is explained.
      const tp = JSON.parse(runCli(['runs', '--ledger', all.file, '--where', 'tp=8', '--json']).stdout);
      assert.ok(tp.launches.length > 0);
      const typo = runCli(['runs', '--ledger', all.file, '--where', 'size=8']);
      assert.match(typo.stdout, /no recorded config has a key size; similar keys: .*tp_size/);
      const both = runCli([
        'runs',
        '--ledger',
        all.file,
        '--where',
        'tp_size=8',
        '--where',
        'disable_cuda_graph=true',
      ]);
      assert.equal(both.stdout.split('\n').filter((l) => /^ {2}[0-9a-f]{8} /.test(l)).length, 2);
    });

    it('filters: --outcome, --since (date, ISO, age), --model, --host, --limit; --json', () => {
      const count = (...args: string[]) => {
        const r = runCli(['runs', '--ledger', all.file, '--json', ...args]);
        assert.equal(r.code, 0, r.stderr);
        return JSON.parse(r.stdout).launches.length as number;
      };
      assert.equal(count(), 5);
      assert.equal(count('--outcome', 'crashed'), 1);
      assert.equal(count('--since', '2026-02-20'), 2);
      assert.equal(count('--since', '2026-02-19T13:00'), 3);
      // An instant with a zone is compared on the logs' scale: this machine's wall time at that instant.
      const noonZ = Date.UTC(2026, 1, 19, 12) / 1000;
      const wall = noonZ - new Date(noonZ * 1000).getTimezoneOffset() * 60;
      assert.equal(
        count('--since', '2026-02-19T12:00:00+00:00'),
        all.recs.filter((r) => r.startTs! >= wall).length,
      );
      assert.equal(count('--since', '1h'), 0);
      assert.equal(count('--since', '3000d'), 5);
      assert.equal(count('--model', 'glm-5'), 5);
      assert.equal(count('--model', 'qwen'), 0);
      assert.equal(count('--host', 'gpu-box'), 0);
      assert.equal(count('--limit', '2'), 2);
      const j = JSON.parse(runCli(['runs', '--ledger', all.file, '--json', '--limit', '2']).stdout);
      assert.equal(j.more, true);
      assert.equal(j.launches[0].outcome, 'crashed');
      assert.equal(j.launches[0].config.moe_runner_backend, 'flashinfer_trtllm');
      assert.equal(j.launches[0].report, undefined, 'the list leaves the reports out');
      const text = runCli(['runs', '--ledger', all.file, '--limit', '2']).stdout;
      assert.match(text, /the newest 2 shown; --limit N for more/);
      assert.match(
        runCli(['runs', '--ledger', all.file, '--model', 'qwen']).stdout,
        /no recorded launch matches/,
      );
    });

    it('bad filters are one line naming the flag', () => {
      oneLine(
        runCli(['runs', '--ledger', all.file, '--since', 'yesterday']),
        /--since yesterday: expected a date/,
      );
      oneLine(
        runCli(['runs', '--ledger', all.file, '--outcome', 'crash']),
        /--outcome crash: not a state; did you mean crashed\? \(one of/,
      );
      oneLine(runCli(['runs', '--ledger', all.file, '--where', 'moe']), /--where moe: expected key=value/);
      oneLine(runCli(['runs', '--ledger', all.file, '--limit', '0']), /--limit 0: expected a count/);
      oneLine(
        runCli(['runs', '--ledger', all.file, '--engine', 'vllm']),
        /--engine and --ssh-\* apply to a log/,
      );
    });

    // Of a file, or of no ledger: once, with SQLite.
    if (b.name === 'sqlite')
      it('a ledger that does not exist is "nothing recorded", and is not created by reading', () => {
        const file = path.join(dir, 'nothing', 'here.db');
        const r = runCli(['runs', '--ledger', file]);
        assert.equal(r.code, 0);
        assert.match(r.stdout, /no launches recorded yet: ledger .*here\.db does not exist/);
        assert.equal(fs.existsSync(file), false);
        oneLine(runCli(['show', 'last', '--ledger', file]), /show last: no launches recorded yet/);
      });

    // Of a file, or of no ledger: once, with SQLite.
    if (b.name === 'sqlite')
      it('a file that is not a ledger is one line naming it', () => {
        const bad = path.join(dir, 'not-a-ledger.db');
        fs.writeFileSync(bad, 'hello, this is not SQLite\n'.repeat(100));
        oneLine(runCli(['runs', '--ledger', bad]), /not-a-ledger\.db/);
      });

    // Of a file, or of no ledger: once, with SQLite.
    if (b.name === 'sqlite')
      it('runs LOG still reads the log', () => {
        const r = runCli(['runs', path.join(SCENARIOS, RELAUNCH), '--ledger', path.join(dir, 'x.db')]);
        // whether `runs LOG` records into the ledger is another command's business; it must still read the file
        if (r.code === 0) assert.match(r.stdout, /2 launches/);
        const plain = runCli(['runs', path.join(SCENARIOS, RELAUNCH)]);
        assert.equal(plain.code, 0, plain.stderr);
        assert.match(plain.stdout, /glm5-relaunch-stuck-at-48pct\.log · sglang · 2 launches/);
      });
  });

for (const b of BACKENDS)
  describe(`show (${b.name})`, () => {
    let led: { file: string; recs: LaunchRecord[] };
    before(async () => {
      led = await ledgerOf(b, 'show', [CUTLASS, OOM]);
    });

    it('one launch in full: outcome, failure with evidence and hint, phases with durations', () => {
      const oom = scenarioRecords(OOM)[0]!;
      const r = runCli(['show', oom.id.slice(0, 6), '--ledger', led.file]);
      assert.equal(r.code, 0, r.stderr);
      // The machine it ran on: this one's hostname for a local log (issue 24.9).
      const here = os.hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      assert.match(r.stdout, new RegExp(`^${oom.id} · sglang · lukealonso/GLM-5-NVFP4 on ${here}:8000\\n`));
      assert.match(r.stdout, /crashed · phase cuda_graph/);
      assert.match(r.stdout, /failure: oom on TP3 during cuda_graph/);
      assert.match(r.stdout, /^ +170: Exception: Capture cuda graph failed: CUDA out of memory/m);
      assert.match(r.stdout, /next: the log suggests: .*--mem-fraction-static/);
      assert.match(r.stdout, /^ {4}loading_weights +11:30:14 +1m08s +line 20$/m);
      assert.match(r.stdout, /^ {4}cuda_graph +11:33:05 +32s \(so far\) +line 155$/m);
      assert.match(r.stdout, /no benchmark attached \(firedup bench import FILE --launch [0-9a-f]{8}\)/);
    });

    it('last, last~1, and --json with the whole config', () => {
      const last = runCli(['show', 'last', '--ledger', led.file]);
      assert.match(last.stdout, /trtllm|crashed/);
      const j = JSON.parse(runCli(['show', 'last~1', '--ledger', led.file, '--json']).stdout);
      assert.equal(j.outcome, 'shutdown');
      assert.equal(j.loadSeconds, 95);
      assert.equal(j.report.config.moe_runner_backend, 'flashinfer_cutlass');
      assert.ok(Object.keys(j.report.config).length > 50);
      assert.deepEqual(j.benches, []);
      assert.deepEqual(j.targets, []);
    });

    it('unknown, ambiguous or missing ids are one line', () => {
      oneLine(runCli(['show', 'ffffffff', '--ledger', led.file]), /no launch ffffffff in the ledger/);
      oneLine(
        runCli(['show', 'last~7', '--ledger', led.file]),
        /no launch last~7: the ledger has 2 launches/,
      );
      oneLine(runCli(['show', '--ledger', led.file]), /show: name one launch/);
    });
  });

for (const b of BACKENDS)
  describe(`diff (${b.name})`, () => {
    let led: { file: string; recs: LaunchRecord[] };
    before(async () => {
      led = await ledgerOf(b, 'diff', [CUTLASS, OOM]);
    });

    it('flashinfer_cutlass (served) vs flashinfer_trtllm (OOM): grouped config, outcome, phases, throughput', () => {
      const a = scenarioRecords(CUTLASS)[0]!.id.slice(0, 8);
      const b = scenarioRecords(OOM)[0]!.id.slice(0, 8);
      const r = runCli(['diff', a, b, '--ledger', led.file]);
      assert.equal(r.code, 0, r.stderr);
      const out = r.stdout;
      assert.match(
        out,
        new RegExp(`^A  ${a}  2026-02-19 13:02:11  localhost  lukealonso/GLM-5-NVFP4 .* shutdown\\n`),
      );
      assert.match(out, new RegExp(`\\nB  ${b}  2026-02-20 11:30:00 .* crashed oom in cuda_graph\\n`));
      assert.match(out, /^ {2}outcome +shutdown +crashed oom in cuda_graph$/m);
      assert.match(out, /^ {2}load time +1m35s +never ready$/m);
      assert.match(out, /^ {2}config \(4 keys differ\)$/m);
      // grouped: scheduling before kernels, each key under its group
      const sched = out.indexOf('  scheduling');
      const kern = out.indexOf('  kernels / backends');
      assert.ok(sched > 0 && kern > sched);
      assert.ok(out.indexOf('max_running_requests') > sched && out.indexOf('max_running_requests') < kern);
      assert.match(out, /^ {6}moe_runner_backend +flashinfer_cutlass +flashinfer_trtllm$/m);
      assert.match(out, /^ {6}disable_cuda_graph +True +False$/m);
      // only what differs: args and dist_init took as long in both
      assert.match(out, /phases \(3 the same\)/);
      assert.doesNotMatch(out, /^ {4}args /m);
      assert.match(out, /^ {4}kv_cache +8s +4s +-4s \(-50%\)$/m);
      assert.match(out, /^ {4}cuda_graph +- +32s \(so far\)$/m);
      assert.match(out, /^ {4}peak +1993\.71 tok\/s +-$/m);
      assert.match(out, /failure in B: oom at line 170/);
      assert.doesNotMatch(out, /random_seed/);
    });

    it('--json: the same comparison, machine-readable', () => {
      const j = JSON.parse(runCli(['diff', 'last~1', 'last', '--ledger', led.file, '--json']).stdout);
      assert.equal(j.a.outcome, 'shutdown');
      assert.equal(j.b.failureClass, 'oom');
      const kernels = j.config.find((g: any) => g.group === 'kernels');
      assert.deepEqual(
        kernels.changes.find((c: any) => c.key === 'moe_runner_backend'),
        { key: 'moe_runner_backend', from: 'flashinfer_cutlass', to: 'flashinfer_trtllm' },
      );
      assert.equal(j.load.a, 95);
      assert.equal(j.load.b, null);
    });

    // Of a file, or of no ledger: once, with SQLite.
    if (b.name === 'sqlite')
      it('two log files, without a ledger; one log: its last two launches', () => {
        const ledger = path.join(dir, 'never-created.db');
        const r = runCli([
          'diff',
          path.join(SCENARIOS, CUTLASS),
          path.join(SCENARIOS, OOM),
          '--ledger',
          ledger,
        ]);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /moe_runner_backend +flashinfer_cutlass +flashinfer_trtllm/);
        assert.equal(fs.existsSync(ledger), false);
        const one = runCli(['diff', path.join(SCENARIOS, RELAUNCH)]);
        assert.equal(one.code, 0, one.stderr);
        assert.match(one.stdout, /^ {6}max_running_requests +64 +None$/m);
        assert.match(one.stdout, /^ {6}disable_cuda_graph +False +True$/m);
        assert.match(one.stdout, /^ {4}loading_weights +1m08s +14s \(so far\)$/m);
      });

    it('mistakes are one line', () => {
      oneLine(runCli(['diff', 'last', '--ledger', led.file]), /diff: name two launches/);
      oneLine(
        runCli(['diff', 'last', 'last', '--ledger', led.file]),
        /diff: last and last are the same launch/,
      );
      oneLine(
        runCli(['diff', path.join(SCENARIOS, SILENT), 'last', '--ledger', led.file]),
        /glm5-silent-after-load-weight-end\.log is a log but last is not/,
      );
      oneLine(runCli(['diff', path.join(SCENARIOS, SILENT)]), /holds one launch/);
      oneLine(runCli(['diff', 'abcd', 'last', '--ledger', led.file]), /no launch abcd/);
    });
  });

for (const b of BACKENDS)
  describe(`target (${b.name})`, () => {
    it('add, list, rm; targets are evaluated by runs and show', async () => {
      const { file } = await ledgerOf(b, 'targets', [CUTLASS, OOM]);
      const add = (expr: string, ...more: string[]) =>
        runCli(['target', 'add', expr, '--ledger', file, ...more]);
      assert.equal(add('load_s <= 600').stdout, 'target #1: load_s <= 600 (all models)\n');
      assert.equal(
        add('peak_tok_s>=2000', '--model', 'lukealonso/GLM-5-NVFP4').stdout,
        'target #2: peak_tok_s >= 2000 (lukealonso/GLM-5-NVFP4)\n',
      );
      assert.equal(add('load_s <= 600').stdout, 'target #1: load_s <= 600 (all models, already set)\n');
      oneLine(
        add('tok_s >= 1'),
        /target add: target "tok_s >= 1": unknown metric tok_s \(known: output_tok_s,/,
      );
      oneLine(runCli(['target', 'add', '--ledger', file]), /give one expression in quotes/);
      const list = runCli(['target', 'list', '--ledger', file]).stdout;
      assert.match(list, /^ {2}#1 +load_s <= 600 +all models +seconds from the first line to ready$/m);
      assert.match(list, /^ {2}#2 +peak_tok_s >= 2000 +lukealonso\/GLM-5-NVFP4 /m);

      const show = runCli(['show', 'last~1', '--ledger', file]).stdout;
      assert.match(show, /^ {4}✓ +load_s <= 600 +1m35s +log$/m);
      assert.match(show, /^ {4}✗ +peak_tok_s >= 2000 +1993\.71 tok\/s +log/m);
      const runs = runCli(['runs', '--ledger', file]).stdout.split('\n');
      assert.match(runs[1]!, /\? 2 no data$/, 'the crashed launch has neither a load time nor a peak');
      assert.match(runs[2]!, /✗ 1 missed, 1 met$/);

      assert.equal(runCli(['target', 'rm', '2', '--ledger', file]).stdout, 'removed target #2\n');
      oneLine(runCli(['target', 'rm', '2', '--ledger', file]), /target rm 2: no target #2/);
      oneLine(runCli(['target', 'rm', 'x', '--ledger', file]), /give the target number/);
      oneLine(runCli(['target', 'frob', '--ledger', file]), /unknown subcommand 'frob'/);
      assert.deepEqual(JSON.parse(runCli(['target', 'list', '--json', '--ledger', file]).stdout).length, 1);
    });

    // Of a file, or of no ledger: once, with SQLite.
    if (b.name === 'sqlite')
      it('FIREDUP_LEDGER is the default ledger', () => {
        const file = path.join(dir, 'env.db');
        const prev = process.env.FIREDUP_LEDGER;
        process.env.FIREDUP_LEDGER = file;
        try {
          assert.equal(runCli(['target', 'add', 'output_tok_s >= 1000']).code, 0);
          assert.ok(fs.existsSync(file));
          assert.match(runCli(['target', 'list']).stdout, /output_tok_s >= 1000/);
        } finally {
          if (prev === undefined) delete process.env.FIREDUP_LEDGER;
          else process.env.FIREDUP_LEDGER = prev;
        }
      });
  });
