/**
 * The live page's memory of each target (web/js/pages/live-history.js) and the table's middle cut of model
 * names (web/js/format.js): plain modules of the dashboard, loaded here as the browser loads them.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers.js';

const load = (rel: string) => import(pathToFileURL(path.join(ROOT, 'web', 'js', rel)).href);

describe('live history (ring buffers) and model names cut in the middle', () => {
  it('a ring keeps the newest points up to its size, and time never goes back', async () => {
    const { Ring } = await load('pages/live-history.js');
    const r = new Ring(3);
    for (let i = 0; i < 5; i++) r.push(i, i * 10);
    assert.deepEqual(r.xs, [2, 3, 4]);
    assert.deepEqual(r.ys, [20, 30, 40]);
    r.push(1, 99);
    r.push(4, 41);
    r.push(null, 1);
    assert.deepEqual(r.xs, [2, 3, 4]);
    assert.equal(r.last(), 41);
  });

  it("a target's history is seeded from its report's curves, grows with the stream, and starts over with a new launch", async () => {
    const { remember, forget, CAP } = await load('pages/live-history.js');
    const snap = (launch: number, done: number, at: number) => ({
      name: 't',
      updatedAt: at,
      verdict: { launch, throughput: null },
      launch: {
        startLine: launch,
        progress: {
          what: 'shards',
          done,
          total: 10,
          series: Array.from({ length: done }, (_, i) => [100 + i, i + 1]),
        },
        throughput: { series: [[200, 5]] },
      },
      gpus: [{ index: 0, memUsedBytes: 1, memTotalBytes: 4, util: 0.5 }],
    });
    let h = remember(snap(1, 3, 1000));
    assert.deepEqual(h.load.ys, [1, 2, 3]);
    assert.equal(h.tok.length, 1);
    assert.deepEqual(h.gpus.get(0).mem.ys, [0.25]);
    h = remember(snap(1, 5, 1001));
    assert.deepEqual(h.load.ys, [1, 2, 3, 4, 5]);
    assert.equal(h.gpus.get(0).util.length, 2);
    h = remember(snap(2, 1, 1002));
    assert.deepEqual(h.load.ys, [1], 'a new launch: a new history');
    assert.equal(h.gpus.get(0).mem.length, 1);
    const many = snap(3, 2000, 1003);
    assert.equal(remember(many).load.length, CAP, 'bounded');
    forget(new Set());
    assert.equal(remember(snap(3, 1, 1004)).load.length, 1);
  });

  it('model names are cut in the middle, org and variant kept', async () => {
    const { middleCut } = await load('format.js');
    assert.equal(middleCut('deepseek-ai/DeepSeek-V3-0324-FP8'), 'deepseek-ai/DeepSe…-V3-0324-FP8');
    assert.equal(middleCut('lukealonso/GLM-5-NVFP4'), 'lukealonso/GLM-5-NVFP4');
    assert.equal(middleCut('x'.repeat(40)).length, 31);
  });
});
