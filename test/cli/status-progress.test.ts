import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli, tmpDir } from '../helpers.js';

describe('the progress shown by status', () => {
  it('a bar the launch moved past without reaching its end is not shown as current progress', () => {
    const dir = tmpDir();
    const log = path.join(dir, 'server.log');
    fs.writeFileSync(
      log,
      [
        '[04/02/2026-10:00:01] [TRT-LLM] [RANK 0] [I] Use 12.50 GB for model weights.',
        'Loading weights:  40%|████      | 6/15 [00:20<00:30,  3.33s/it]',
        '[04/02/2026-10:00:30] [TRT-LLM] [RANK 0] [I] Model init total -- 29.10s',
        '[04/02/2026-10:00:31] [TRT-LLM] [RANK 0] [I] Creating CUDA graph instances for 34 batch sizes.',
        '',
      ].join('\n'),
    );
    const r = runCli(['status', '--no-ledger', '--no-color', log]);
    assert.match(r.stdout, /phase cuda_graph/);
    assert.doesNotMatch(r.stdout, /6\/15|ETA/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
