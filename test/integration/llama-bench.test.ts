/**
 * The load generator against a real llama-server (Debian's CPU build, a tiny random model): metrics present and
 * plausible, and the token counts the generator reports are the server's own.
 * FIREDUP_NO_LLAMA=1 skips the file (no apt-get or no network to the Debian mirror).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runBench } from '../../src/bench/run.js';
import { servedModel, serverInfo } from '../../src/bench/server-info.js';
import { outputTokensOf } from '../../src/core/campaign/bench/loadgen/metrics.js';
import { randomPrompt, rng } from '../../src/core/campaign/bench/loadgen/prompts.js';
import { tmpDir } from '../helpers.js';
import { ensureLlama, freePort, healthy, type LlamaServer, startLlama, waitFor } from '../llama.js';

const skip = process.env.FIREDUP_NO_LLAMA === '1' ? 'FIREDUP_NO_LLAMA=1' : false;

describe('bench run against a real llama-server', { timeout: 180_000, skip }, () => {
  const tmp = tmpDir();
  let server: LlamaServer;
  let url: string;
  before(async () => {
    const dir = ensureLlama();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = startLlama({ dir, log: path.join(tmp, 'server.log'), port, extraArgs: ['-np', '2'] });
    await waitFor(() => healthy(port), 60_000, 'llama-server healthy');
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('metrics are present and plausible; usage counts equal the server’s own tokenization', async () => {
    const model = await servedModel(url);
    const info = await serverInfo(url);
    assert.equal(info.engine, 'llamacpp');
    assert.ok(info.config && 'total_slots' in info.config, 'the /props config is kept');
    const rand = rng(7);
    const prompts = Array.from({ length: 6 }, () => randomPrompt(rand, 16, 8));
    const r = await runBench(
      url,
      {
        endpoint: 'completions',
        model,
        prompts,
        levels: [
          { concurrency: 1, rate: null },
          { concurrency: 2, rate: null },
        ],
        arrival: 'poisson',
        requests: 3,
        durationS: null,
        warmup: 1,
        timeoutS: 60,
        ignoreEos: true,
        slo: { ttftMs: 60_000 },
        seed: 0,
      },
      { keepRecords: true },
    );
    for (const lv of r.levels) {
      const m = lv.metrics;
      assert.equal(m.failed, 0, JSON.stringify(m.errors));
      assert.equal(m.completed, 3);
      assert.equal(m.tokenSource, 'usage');
      // ignore_eos: exactly max_tokens each, as the server counted them
      assert.equal(m.outputTokens, 3 * 8);
      for (const rec of lv.records!) {
        assert.equal(rec.completionTokens, 8);
        assert.equal(outputTokensOf(rec), 8);
        assert.ok(rec.chunkMs.length >= 1 && rec.chunkMs.length <= 8);
      }
      assert.ok(m.inputTokens! > 0);
      assert.ok(m.outputTokS > 0 && m.outputTokS < 100_000, `${m.outputTokS}`);
      assert.ok(m.ttft.median! > 0 && m.ttft.median! <= m.e2e.median!);
      assert.ok(m.tpot.median! > 0 && m.itl.median! >= 0);
      assert.ok(m.e2e.max! >= m.e2e.p99! && m.e2e.p99! >= m.e2e.median!);
      assert.ok(m.peakOutputTokS > 0);
      assert.equal(m.goodputReqS, m.requestTputReqS);
    }
    // the prompt counts are the server's tokenization of the prompt (its /tokenize, plus a BOS when it adds one)
    const rec = r.levels[0]!.records![0]!;
    const sent = prompts[1]!.text; // request 0 of level 1 follows the one warmup request
    const tok = (await (
      await fetch(`${url}/tokenize`, { method: 'POST', body: JSON.stringify({ content: sent }) })
    ).json()) as { tokens: number[] };
    assert.ok(
      rec.promptTokens === tok.tokens.length || rec.promptTokens === tok.tokens.length + 1,
      `${rec.promptTokens} vs ${tok.tokens.length}`,
    );
  });
});
