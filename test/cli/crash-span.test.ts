/**
 * Issue 24.6: a launch's span ends at its own last line. A vLLM launch that ran out of memory 6 s into CUDA
 * graph capture, relaunched minutes later: the relaunch's first lines (written before the line that starts
 * it) are not the crashed launch's, and its capture phase lasted 6 s in `status`, `runs`, `diff` and the
 * ledger (what the dashboard shows) alike.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli, SHARED, tmpDir } from '../helpers.js';

/** A real vLLM 0.11.2 launch log (ready, then serving). */
const VLLM = fs.readFileSync(path.join(SHARED, 'corpus', 'full', '003.log'), 'utf8').split('\n');
const ENGINE = '\x1b[1;36m(EngineCore_DP0 pid=420)\x1b[0;0m ';

/** The line's `MM-DD HH:MM:SS` stamps, `s` seconds later. */
function later(line: string, s: number): string {
  return line.replace(/(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)/g, (_m, mo, d, h, mi, se) => {
    const t = new Date(
      Date.UTC(2026, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(se)) + s * 1000,
    );
    const p = (n: number) => String(n).padStart(2, '0');
    return `${p(t.getUTCMonth() + 1)}-${p(t.getUTCDate())} ${p(t.getUTCHours())}:${p(t.getUTCMinutes())}:${p(t.getUTCSeconds())}`;
  });
}

/** The launch up to its KV cache (15:28:09), capture begun, then out of memory at 15:28:15. */
const CRASH = [
  ...VLLM.slice(0, 38),
  `${ENGINE}Capturing CUDA graphs (mixed prefill-decode, PIECEWISE):   0%|          | 0/51 [00:00<?, ?it/s]`,
  `${ENGINE}ERROR 11-28 15:28:15 [core.py:842] EngineCore failed to start.`,
  `${ENGINE}ERROR 11-28 15:28:15 [core.py:842] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.81 GiB of which 1.12 GiB is free.`,
];
/** The relaunch 3m14s later; its first two lines come before the `vLLM API server version` line that starts it. */
const RELAUNCH = VLLM.slice(0, 90).map((l) => later(l, 194));

const phase = (phases: Array<{ phase: string; duration: number | null }>, name: string) =>
  phases.find((p) => p.phase === name)?.duration;

describe('a crashed launch ends at its own last line (issue 24.6)', () => {
  it('its last phase lasts until the crash in status, runs, diff and the ledger, relaunch or not', () => {
    const dir = tmpDir();
    const ledger = path.join(dir, 'ledger.db');
    const log = path.join(dir, 'vllm.log');
    fs.writeFileSync(log, `${CRASH.join('\n')}\n`);
    const s = runCli(['status', '--ledger', ledger, '--no-probe', '--json', log]);
    assert.ok(s.stdout, s.stderr);
    const alone = JSON.parse(s.stdout);
    assert.equal(alone.outcome, 'crashed');
    assert.equal(phase(alone.phases, 'cuda_graph'), 6);

    fs.appendFileSync(log, `${RELAUNCH.join('\n')}\n`);
    const r = runCli(['runs', '--ledger', ledger, '--json', log]);
    assert.equal(r.code, 0, r.stderr);
    const [first, second] = JSON.parse(r.stdout).launches;
    assert.deepEqual([first.startLine, first.endLine, second.startLine], [1, 41, 44]);
    assert.equal(first.endTime, '2026-11-28T15:28:15Z');
    assert.equal(phase(first.phases, 'cuda_graph'), 6);
    assert.equal(first.duration, 60);

    const d = runCli(['diff', '--ledger', ledger, '--json', log]);
    assert.equal(d.code, 0, d.stderr);
    const cg = JSON.parse(d.stdout).phases.find((p: { phase: string }) => p.phase === 'cuda_graph');
    assert.deepEqual([cg.a, cg.b], [6, 4]);

    // The dashboard shows the ledger's record.
    const show = runCli(['show', 'last~1', '--ledger', ledger, '--json']);
    assert.equal(show.code, 0, show.stderr);
    const rec = JSON.parse(show.stdout);
    assert.equal(rec.outcome, 'crashed');
    assert.equal(phase(rec.report.phases, 'cuda_graph'), 6);
    assert.equal(rec.endTs, first.endTs);
  });
});
