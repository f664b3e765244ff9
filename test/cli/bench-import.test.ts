import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Ledger } from '../../src/store/ledger.js';
import { runCli, SHARED, tmpDir } from '../helpers.js';
import { scenarioRecords } from '../ledger-fixtures.js';

const dir = tmpDir();
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const BENCH = path.join(SHARED, 'bench');

/** The cutlass launch (served 13:03:47–13:07:15 on 2026-02-19, port 8000) and the OOM launch a day later. */
function ledger(name: string): { file: string; cutlass: string; oom: string } {
  const file = path.join(dir, `${name}.db`);
  const [cutlass] = scenarioRecords('glm5-cutlass-bench-then-shutdown.log');
  const [oom] = scenarioRecords('glm5-trtllm-oom-in-cuda-graph.log');
  const l = Ledger.open(file);
  l.upsertLaunches([cutlass!, oom!]);
  l.close();
  return { file, cutlass: cutlass!.id, oom: oom!.id };
}

/** A copy of a fixture whose modification time reads, on the logs' wall clock, as `wall` (UTC fields). */
function copyAt(name: string, wall: number): string {
  const to = path.join(dir, `${Math.random().toString(36).slice(2)}-${name}`);
  fs.copyFileSync(path.join(BENCH, name), to);
  const epoch = wall + new Date(wall * 1000).getTimezoneOffset() * 60;
  fs.utimesSync(to, epoch, epoch);
  return to;
}

const oneLine = (r: { code: number | null; stderr: string }, re: RegExp) => {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, re);
};

describe('bench import', () => {
  it('a --save-result JSON attaches, by its own date, to the launch serving then; once only', () => {
    const { file, cutlass } = ledger('json');
    const res = path.join(BENCH, 'vllm-save-result.json');
    const r = runCli(['bench', 'import', res, '--ledger', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /vllm-save-result\.json: attached 1 run\n/);
    assert.match(
      r.stdout,
      new RegExp(
        `#1 +\\S+vllm-save-result\\.json +vllm +c=64 +610\\.54 tok/s +→ +${cutlass.slice(0, 8)} +lukealonso/GLM-5-NVFP4 on localhost:8000, started 2026-02-19 13:02`,
      ),
    );
    const again = runCli(['bench', 'import', res, '--ledger', file]);
    assert.match(again.stdout, /attached 0 runs; 1 already attached before/);
    assert.match(again.stdout, /\(already attached\)/);
    const show = JSON.parse(runCli(['show', cutlass.slice(0, 8), '--ledger', file, '--json']).stdout);
    assert.equal(show.benches.length, 1);
    assert.equal(show.benches[0].outputTokS, 610.54);
    assert.match(show.benches[0].fingerprint, /^[0-9a-f]{16}$/);
    assert.equal(show.benches[0].runText, undefined, 'the run text is hashed, not stored');
  });

  it('JSONL without dates: placed at the file time on the server port; all runs attach; targets use them', () => {
    const { file, cutlass } = ledger('jsonl');
    const res = copyAt('sglang-bench-serving.jsonl', Date.UTC(2026, 1, 19, 13, 6, 30) / 1000);
    const r = runCli(['bench', 'import', res, '--ledger', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /attached 3 runs/);
    assert.match(r.stdout, /c=1024 +1865\.85 tok\/s/);
    assert.match(r.stdout, /placed at the file's modification time/);
    runCli(['target', 'add', 'single_stream_tok_s >= 100', '--ledger', file]);
    runCli(['target', 'add', 'ttft_p99_ms <= 500', '--ledger', file]);
    const show = runCli(['show', cutlass.slice(0, 8), '--ledger', file]).stdout;
    assert.match(show, /benchmarks \(3\):/);
    assert.match(show, /^ {4}#\d+ +sglang +1024 +1865\.85 +9329\.11 +4410\.87 \/ 14470\.02 /m);
    assert.match(
      show,
      /^ {4}✓ +single_stream_tok_s >= 100 +100\.68 tok\/s +bench #\d+ \(sglang, concurrency 1\)$/m,
    );
    assert.match(show, /^ {4}✗ +ttft_p99_ms <= 500 +14470\.02 ms +bench #\d+ \(sglang, concurrency 1024\)$/m);
    const runs = runCli(['runs', '--ledger', file]).stdout;
    assert.match(runs, /1865\.85 @1024/);
  });

  it('no launch serving then: one line naming the file and --launch; --launch attaches', () => {
    const { file, oom } = ledger('unmatched');
    const res = copyAt('sglang-bench-serving.txt', Date.UTC(2026, 5, 1, 12) / 1000);
    oneLine(
      runCli(['bench', 'import', res, '--ledger', file]),
      /bench import: \S+sglang-bench-serving\.txt: its 2 runs match no launch serving on localhost:8000 at 2026-06-01 12:00:00 \(the file's modification time\); kept unattached as bench #1, #2: firedup bench attach 1 LAUNCH/,
    );
    // another port: the cutlass launch listened on 8000
    const json = path.join(BENCH, 'vllm-save-result.json');
    oneLine(
      runCli(['bench', 'import', json, '--port', '9999', '--ledger', file]),
      /no launch serving on localhost:9999/,
    );
    oneLine(
      runCli(['bench', 'import', json, '--host', 'gpu-box', '--ledger', file]),
      /no launch serving on gpu-box/,
    );
    const forced = runCli(['bench', 'import', res, '--launch', oom.slice(0, 6), '--ledger', file, '--json']);
    assert.equal(forced.code, 0, forced.stderr);
    const j = JSON.parse(forced.stdout);
    assert.equal(j.attached.length, 2);
    assert.ok(j.attached.every((a: any) => a.launch === oom && a.added));
    assert.deepEqual(j.unmatched, []);
    assert.deepEqual(
      j.attached.map((a: any) => a.bench.maxConcurrency),
      [1, 1024],
    );
  });

  it('what cannot be imported is one line naming the file or flag', () => {
    const { file } = ledger('bad');
    const junk = path.join(dir, 'junk.txt');
    fs.writeFileSync(junk, 'nothing to see\n');
    oneLine(
      runCli(['bench', 'import', junk, '--ledger', file]),
      /bench import: \S+junk\.txt: no "Serving Benchmark Result" block/,
    );
    oneLine(
      runCli(['bench', 'import', path.join(dir, 'missing.json'), '--ledger', file]),
      /missing\.json: no such file/,
    );
    oneLine(runCli(['bench', 'import', dir, '--ledger', file]), /is a directory/);
    oneLine(runCli(['bench', 'import', '--ledger', file]), /name one result file/);
    oneLine(
      runCli(['bench', 'import', junk, '--port', 'http', '--ledger', file]),
      /--port http: expected a TCP port/,
    );
    oneLine(
      runCli(['bench', 'import', junk, '--launch', 'nope', '--ledger', file]),
      /bench import: \S+junk\.txt: no "Serving/,
    );
    const json = path.join(BENCH, 'vllm-save-result.json');
    oneLine(
      runCli(['bench', 'import', json, '--launch', 'nope', '--ledger', file]),
      /bench import: --launch: no launch nope/,
    );
    oneLine(runCli(['bench', 'export']), /bench: unknown subcommand 'export'/);
  });
});
