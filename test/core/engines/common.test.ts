import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeText } from '../../helpers.js';

const SGLANG_UP = [
  '[2026-02-03 04:05:06 TP0] Init torch distributed begin.',
  'gpu-7:311:311 [0] NCCL INFO comm 0x5612aa0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x9f - Init COMPLETE',
  '[2026-02-03 04:05:10 TP0] Load weight begin. avail mem=78.50 GB',
  '[2026-02-03 04:05:40 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB',
  '[2026-02-03 04:05:41 TP0] KV Cache is allocated. #tokens: 400000, K size: 6.00 GB, V size: 6.00 GB',
  '[2026-02-03 04:06:01] INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)',
  '[2026-02-03 04:06:03] The server is fired up and ready to roll!',
  '[2026-02-03 04:06:09 TP0] Decode batch, #running-req: 1, #token: 90, token usage: 0.00, cuda graph: True, gen throughput (token/s): 41.20, #queue-req: 0,',
];

describe('lines any engine prints: NCCL', () => {
  it("NCCL's INFO lines after the server is up (a communicator made lazily, one torn down) never start a launch", () => {
    const text = [
      ...SGLANG_UP,
      // PyTorch makes a group's communicator at its first collective: NCCL reports it while the server serves.
      'gpu-7:311:902 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read',
      'gpu-7:311:902 [0] NCCL INFO comm 0x77aa010 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0xa1 - Init COMPLETE',
      '[2026-02-03 04:07:09 TP0] Decode batch, #running-req: 1, #token: 130, token usage: 0.00, cuda graph: True, gen throughput (token/s): 40.80, #queue-req: 0,',
    ].join('\n');
    const r = analyzeText(`${text}\n`);
    assert.equal(r.launches.length, 1);
    assert.equal(r.launches[0]!.outcome, 'serving');
  });

  it('nor at shutdown (`Destroy COMPLETE`), and they still mark the distributed set-up of a launch that starts', () => {
    const text = [
      ...SGLANG_UP,
      '[2026-02-03 04:08:00] Received sigterm, shutting down.',
      'gpu-7:311:311 [0] NCCL INFO comm 0x5612aa0 rank 0 nranks 2 cudaDev 0 busId 18000 - Destroy COMPLETE',
    ].join('\n');
    const r = analyzeText(`${text}\n`);
    assert.equal(r.launches.length, 1);
    const starting = analyzeText(`${SGLANG_UP.slice(0, 2).join('\n')}\n`);
    assert.equal(starting.launches[0]!.phase, 'dist_init');
  });
});
