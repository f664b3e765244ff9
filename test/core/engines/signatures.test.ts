import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { commonSignatures } from '../../../src/core/engines/common.js';
import { genericSignatures } from '../../../src/core/engines/generic.js';
import { ENGINE_MODULES } from '../../../src/core/engines/index.js';
import { parseLine } from '../../../src/core/lines/prefix.js';
import { analyzeText, SHARED } from '../../helpers.js';
import { realLogs } from '../../real-logs.js';

/** The example lines of research/*-signatures.json (copied into test/fixtures). */
function examples(): string[] {
  const out: string[] = [];
  for (const f of ['sglang-signatures.json', 'vllm-signatures.json']) {
    for (const e of JSON.parse(fs.readFileSync(path.join(SHARED, f), 'utf8')) as Array<{ example: string }>)
      out.push(e.example);
  }
  return out;
}

describe('engine signatures', () => {
  const sigs = [...ENGINE_MODULES.flatMap((e) => e.signatures), ...commonSignatures];

  it('never let their quick-reject substring hide a line their regex matches', () => {
    for (const ex of examples()) {
      for (const seg of ex.split(/\r|\n/)) {
        const msg = parseLine(seg, 1, 0, { year: 2026 }).msg;
        for (const sig of sigs) {
          if (sig.lit !== undefined && sig.re.test(msg))
            assert.ok(msg.includes(sig.lit), `${sig.id}: lit '${sig.lit}' hides ${JSON.stringify(msg)}`);
        }
      }
    }
  });

  it("never let their quick-reject substring hide a real line their regex matches (the corpora's lines)", () => {
    // (a lit that holds only one alternative's words, or misses the case a case-blind regex allows, made a rule
    // silently dead on real lines: vLLM's `requests`, SGLang's `weights_format`, TensorRT-LLM's `oom`, …)
    const all = [...sigs, ...genericSignatures];
    const hidden: string[] = [];
    for (const file of realLogs())
      for (const seg of fs.readFileSync(file, 'utf8').split(/\r|\n/)) {
        const msg = parseLine(seg, 1, 0, { year: 2026 }).msg;
        for (const sig of all)
          if (sig.lit !== undefined && !msg.includes(sig.lit) && sig.re.test(msg))
            hidden.push(`${sig.id}: lit '${sig.lit}' hides ${JSON.stringify(msg.slice(0, 160))}`);
      }
    assert.deepEqual(hidden, []);
  });

  it('have unique ids per engine', () => {
    for (const e of ENGINE_MODULES) {
      const ids = e.signatures.map((s) => s.id);
      assert.equal(new Set(ids).size, ids.length, e.id);
    }
  });

  it("SGLang: a worker node's dummy health-check server (utils/common.py launch_dummy_health_check_server) ends its startup", () => {
    const head =
      "[2026-03-02 08:00:00] server_args=ServerArgs(model_path='m', tp_size=4, nnodes=2, node_rank=1, dist_init_addr='10.0.0.5:6000')\n[2026-03-02 08:00:03 TP2] Init torch distributed begin.\n[2026-03-02 08:00:09 TP2] Load weight begin. avail mem=70.00 GB\n";
    for (const line of [
      'Dummy health check server started in background thread at 0.0.0.0:31000',
      'Dummy health check server started in background thread at [::]:31000',
      'Dummy health check server scheduled on existing loop at 10.0.0.6:31000',
      'Starting dummy health check server at 0.0.0.0:31000',
    ]) {
      const l = analyzeText(`${head}[2026-03-02 08:01:00] ${line}\n`).launches.at(-1)!;
      assert.equal(l.outcome, 'ready', line);
      assert.equal(l.ready?.line, 4, line);
    }
    const failed = analyzeText(
      `${head}[2026-03-02 08:01:00] Dummy health check server failed to start: [Errno 98] address already in use\n`,
    ).launches.at(-1)!;
    assert.notEqual(failed.outcome, 'ready');
  });

  it('SGLang: the checkpoint prefetch into the page cache (model_loader/weight_utils.py _prefetch_all_checkpoints) is weight loading', () => {
    const head = "[2026-08-11 09:12:40] server_args=ServerArgs(model_path='m', tp_size=8)\n";
    for (const line of [
      'Rank 0: prefetching 61/61 checkpoint shards into page cache (background, 8 local ranks sharing the work, 4 threads per rank)...',
      'Rank 0: prefetching checkpoint files: 50% (31/61)',
    ]) {
      const r = analyzeText(`${head}[2026-08-11 09:12:56 TP0] ${line}\n`);
      assert.equal(r.engine, 'sglang', line);
      assert.equal(r.launches.at(-1)!.phase, 'loading_weights', line);
    }
  });
});
