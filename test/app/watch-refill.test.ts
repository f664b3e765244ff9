/**
 * A watched log truncated, rotated or recreated and refilled with a new launch at once, many times over
 * (issue 25, item 16: "a log truncated or rotated with new content within 5 s leaves the old launch's record
 * stale, 11 or 4 of 300 samples"). The watch is the one `serve --watch` runs (WatchedTarget), on a real file
 * and a real SQLite ledger; the clock is held still, so a record left stale "for a few seconds" stays stale
 * and fails the test instead of passing on a slow machine.
 *
 * Each refill is made to be the hard case: the same size as the launch before it (a size-only check sees
 * nothing), the same last bytes (a check of the bytes before the offset sees nothing) and, for two refills
 * in a row, the same outcome, phase and line count (a recorder keyed by where a launch starts thinks it the
 * launch already written).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { WatchedTarget } from '../../src/app/watched-target.js';
import type { LedgerStore } from '../../src/store/ledger-store.js';
import { openLedger } from '../../src/store/open.js';
import type { LaunchRecord } from '../../src/store/types.js';
import { runCli, tmpDir } from '../helpers.js';

const SAMPLES = 120;
/** The clock the watch sees: still, so no "refresh every few seconds" can hide a stale record. */
const NOW = Date.parse('2026-03-02T00:00:00Z') / 1000;

/** A fixed-width timestamp per sample: every launch is as long as the one before it with the same outcome. */
function stamp(i: number): string {
  const h = String(10 + Math.floor(i / 60)).padStart(2, '0');
  const m = String(i % 60).padStart(2, '0');
  return `2026-03-01 ${h}:${m}`;
}

/** The model each sample's launch serves: the launch's name in the ledger. */
const model = (i: number) => `org/model-${String(i).padStart(4, '0')}`;

/**
 * SGLang's shapes (python/sglang/srt/server_args.py prints server_args=ServerArgs(...); model_runner.py's
 * load_model "Load weight begin/end"; http_server.py's "The server is fired up and ready to roll!"; the
 * scheduler's "Scheduler hit an exception" traceback and the launcher's "Received sigquit from a child
 * process"). Pairs of samples share an outcome: 0-1 serve, 2-3 crash, ...
 */
function launchText(i: number): { text: string; outcome: 'ready' | 'crashed' } {
  const ts = stamp(i);
  const head = `[${ts}:00] server_args=ServerArgs(model_path='${model(i)}', tp_size=1, port=30000)`;
  if (Math.floor(i / 2) % 2 === 0)
    return {
      outcome: 'ready',
      text: [
        head,
        `[${ts}:01] Load weight begin. avail mem=78.50 GB`,
        `[${ts}:09] Load weight end. type=Qwen2ForCausalLM, dtype=torch.bfloat16, avail mem=63.21 GB`,
        `[${ts}:12] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)`,
        `[${ts}:14] The server is fired up and ready to roll! (the server has nothing more to say here)`,
        '',
      ].join('\n'),
    };
  return {
    outcome: 'crashed',
    text: [
      head,
      `[${ts}:01 TP0] Load weight begin. avail mem=78.50 GB`,
      `[${ts}:02 TP0] Scheduler hit an exception: Traceback (most recent call last):`,
      '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2351, in run_scheduler_process',
      '    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.11 GiB of which 12.00 MiB is free.',
      '',
      `[${ts}:02] Received sigquit from a child process. It usually means the child failed.`,
      '',
    ].join('\n'),
  };
}

type Refill = 'truncated' | 'rewritten' | 'rotated' | 'recreated';
const REFILLS: Refill[] = ['truncated', 'rewritten', 'rotated', 'recreated'];

/** Puts launch `i` at `log` the way `how` says, all at once (well within a poll of the watch). */
function refill(log: string, how: Refill, text: string): void {
  switch (how) {
    case 'truncated':
      // copytruncate, then the relaunched server's first lines.
      fs.truncateSync(log, 0);
      fs.appendFileSync(log, text);
      break;
    case 'rewritten': {
      // Opened with O_TRUNC and written whole (`> server.log`): the file keeps its inode.
      fs.writeFileSync(log, text);
      break;
    }
    case 'rotated':
      fs.renameSync(log, `${log}.1`);
      fs.writeFileSync(log, text);
      break;
    case 'recreated':
      fs.rmSync(log);
      fs.writeFileSync(log, text);
      break;
  }
}

async function until<T>(
  what: () => Promise<T | null> | T | null,
  why: () => string,
  ms = 20_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await what();
    if (got !== null) return got;
    if (Date.now() > end) throw new Error(why());
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('a watched log refilled with a new launch at once, again and again', () => {
  it(`${SAMPLES} refills (truncated, rewritten, rotated, recreated): each new launch is recorded as itself, never left stale`, async () => {
    const dir = tmpDir();
    const log = path.join(dir, 'server.log');
    const db = path.join(dir, 'ledger.db');
    const ledger: LedgerStore = await openLedger(db);
    fs.writeFileSync(log, launchText(0).text);
    const target = new WatchedTarget(
      { name: 'refill', log },
      { ledger, ssh: {}, gpu: false, pollMs: 10, clock: () => NOW },
    );
    const ofModel = async (i: number): Promise<LaunchRecord[]> =>
      (await ledger.list({ model: model(i), limit: 10 })).filter((r) => r.model === model(i));
    const recorded = async (i: number, outcome: string): Promise<LaunchRecord | null> => {
      const recs = await ofModel(i);
      return recs.length === 1 && recs[0]!.outcome === outcome ? recs[0]! : null;
    };
    await target.start();
    try {
      for (let i = 0; i < SAMPLES; i++) {
        const { text, outcome } = launchText(i);
        const how = REFILLS[i % REFILLS.length]!;
        if (i > 0) refill(log, how, text);
        // The watch reads the new launch...
        await until(
          () => (target.snapshot().launch?.model === model(i) ? true : null),
          () =>
            `sample ${i} (${how}): the watch still shows ${target.snapshot().launch?.model ?? 'nothing'} (${target.snapshot().verdict?.why})`,
        );
        // ... and records it as it is, with the clock still: no later refresh would put it right.
        await until(
          () => recorded(i, outcome),
          () => `sample ${i} (${how}): ${model(i)} is not recorded as ${outcome}`,
        );
        // The launch before it stays on record as it ended, once.
        if (i > 0) {
          const before = await ofModel(i - 1);
          assert.equal(before.length, 1, `sample ${i}: ${model(i - 1)} recorded ${before.length} times`);
          assert.equal(before[0]!.outcome, launchText(i - 1).outcome, `sample ${i}: ${model(i - 1)}`);
        }
        if (i % 40 === 39) {
          // What the faces say agrees: runs (the ledger) and status (the file, with the ledger's live mark).
          const runs = runCli(['runs', '--json', '--ledger', db, '--model', model(i)]);
          assert.equal(runs.code, 0, runs.stderr);
          const listed = JSON.parse(runs.stdout).launches as LaunchRecord[];
          assert.deepEqual(
            listed.map((r) => [r.model, r.outcome]),
            [[model(i), outcome]],
          );
          const status = runCli(['status', '--json', '--ledger', db, log]);
          const s = JSON.parse(status.stdout);
          assert.equal(s.launchCount, 1, status.stdout);
          assert.equal(s.model, model(i), status.stdout);
          assert.equal(s.outcome, outcome, status.stdout);
        }
      }
    } finally {
      await target.stop();
    }
    const all = await ledger.list({ limit: 1000 });
    await ledger.close();
    const models = all.map((r) => r.model).sort();
    assert.deepEqual(
      models,
      Array.from({ length: SAMPLES }, (_, i) => model(i)),
      'each launch recorded once',
    );
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
