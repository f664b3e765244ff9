/**
 * A sweep's ranking from known runs (issue 24.8): the median of the runs ranks, their min–max marks points
 * within noise and no winner is declared among them; latency targets are limits on each level and throughput
 * ranks the levels within them; a TPOT of 0 (a tool's "none") is no figure. And the dashboard's Pareto front.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import type { BenchRecord, SweepPointRecord, TargetRecord } from '../../../../src/core/campaign/records.js';
import {
  bestPoint,
  differences,
  leadingPoint,
  type PointRun,
  rankPoints,
} from '../../../../src/core/campaign/sweep/rank.js';
import { parseTarget } from '../../../../src/core/campaign/targets.js';
import { ROOT } from '../../../helpers.js';

let id = 0;
function bench(c: number, tokS: number, tpot: number | null, ttft = 100): BenchRecord {
  return {
    id: ++id,
    launchId: 'L',
    importedAt: 0,
    tool: 'firedup',
    backend: null,
    model: 'm',
    host: null,
    port: null,
    finishedAt: id,
    durationS: 1,
    completed: 10,
    failed: 0,
    maxConcurrency: c,
    requestRate: null,
    requestTputReqS: 1,
    outputTokS: tokS,
    totalTokS: null,
    inputTokS: null,
    ttft: { mean: ttft, median: ttft, p99: ttft },
    tpot: { mean: tpot, median: tpot, p99: tpot },
    itl: { mean: null, median: null, p99: null },
    e2e: { mean: null, median: null, p99: null },
    fingerprint: String(id),
    source: 'x',
  };
}

function runs(index: number, perRun: Array<Array<[number, number, number | null]>>): PointRun[] {
  return perRun.map((levels, i) => ({
    record: {
      id: ++id,
      sweep: 's',
      pointHash: `h${index}`,
      pointIndex: index,
      run: i + 1,
      launchId: `L${index}-${i}`,
      status: 'done',
      flags: { p: index },
      argv: [],
      plan: {},
      detail: {},
      startedAt: 0,
      endedAt: 1,
    } satisfies SweepPointRecord,
    launch: { model: 'm', peakTokS: null, medianTokS: null, loadSeconds: 1 },
    benches: levels.map(([c, t, p]) => bench(c, t, p)),
  }));
}

const targets = (...exprs: string[]): TargetRecord[] =>
  exprs.map((e, i) => ({ id: i, model: null, ...parseTarget(e) }));

describe('sweep ranking', () => {
  it('the issue: overlapping ranges (2248–2775 vs 1515–2514) are within noise, no winner, no -39.4 %', () => {
    const a = runs(1, [[[8, 2248, 10]], [[8, 2775, 10]], [[8, 2400, 10]]]);
    // its latest run is the lowest: the old ranking compared 1515 with the other's latest
    const b = runs(2, [[[8, 2514, 11]], [[8, 2300, 11]], [[8, 1515, 11]]]);
    const ranked = rankPoints([...a, ...b], []);
    assert.equal(ranked[0]!.index, 1);
    assert.equal(ranked[0]!.outputTokS, 2400, 'the median, not the latest run');
    assert.deepEqual(ranked[0]!.spread, [2248, 2775]);
    assert.equal(ranked[1]!.outputTokS, 2300);
    assert.deepEqual(ranked[1]!.spread, [1515, 2514]);
    assert.equal(ranked[1]!.withinNoise, true);
    assert.equal(bestPoint(ranked), null, 'no winner declared from noise');
    assert.equal(leadingPoint(ranked)!.index, 1);
    const d = differences(ranked[0]!, ranked)[0]!;
    assert.equal(d.withinNoise, true);
    assert.ok(Math.abs(d.delta! - (2300 / 2400 - 1)) < 1e-9);
  });

  it('ranges apart: a winner', () => {
    const ranked = rankPoints(
      [...runs(1, [[[8, 1000, 10]], [[8, 1100, 10]]]), ...runs(2, [[[8, 2000, 10]], [[8, 2100, 10]]])],
      [],
    );
    assert.equal(bestPoint(ranked)!.index, 2);
    assert.equal(ranked[1]!.withinNoise, false);
    assert.equal(ranked[0]!.outputTokS, 2050);
  });

  it('tpot_median_ms <= 50 filters levels: the point stands at its best level within the limit', () => {
    // point 1: more tok/s at c=64, but its TPOT there is 80 ms; c=16 is within the limit
    const p1 = runs(1, [
      [
        [16, 1500, 40],
        [64, 3000, 80],
      ],
    ]);
    const p2 = runs(2, [
      [
        [16, 1800, 45],
        [64, 2500, 60],
      ],
    ]);
    // point 3: no level within it
    const p3 = runs(3, [[[16, 5000, 70]]]);
    const ranked = rankPoints([...p1, ...p2, ...p3], targets('tpot_median_ms <= 50', 'output_tok_s >= 100'));
    assert.deepEqual(
      ranked.map((p) => [p.index, p.outputTokS, p.atConcurrency, p.pass]),
      [
        [2, 1800, 16, true],
        [1, 1500, 16, true],
        [3, null, null, false],
      ],
    );
    assert.equal(ranked[1]!.levels.find((l) => l.concurrency === 64)!.withinLimits, false);
    assert.match(ranked[2]!.cause!, /no concurrency level within the limits \(c=16: tpot_median_ms 70/);
    assert.equal(bestPoint(ranked)!.index, 2);
  });

  it('a TPOT of 0 or none is no figure: n/a, and a level with none does not meet a TPOT limit', () => {
    const ranked = rankPoints(runs(1, [[[1, 100, 0]], [[1, 110, null]]]), []);
    assert.equal(ranked[0]!.tpotMs, null);
    assert.equal(ranked[0]!.levels[0]!.tpotMsMin, null);
    const limited = rankPoints(runs(1, [[[1, 100, 0]]]), targets('tpot_median_ms <= 50'));
    assert.equal(limited[0]!.pass, false);
    assert.deepEqual(limited[0]!.levels[0]!.misses, ['tpot_median_ms n/a']);
  });
});

describe("the dashboard's Pareto front", () => {
  it('keeps the levels no other beats on both, lowest TPOT first, and draws even a front of one', async () => {
    const { paretoFront, frontSteps } = await import(pathToFileURL(path.join(ROOT, 'web/js/pareto.js')).href);
    const pts = [
      [10, 100],
      [20, 300],
      [15, 90], // beaten by [10, 100]
      [30, 250], // beaten by [20, 300]
      [40, 500],
      [0, 999], // TPOT 0: not a measurement
    ];
    assert.deepEqual(paretoFront(pts), [
      [10, 100],
      [20, 300],
      [40, 500],
    ]);
    assert.deepEqual(frontSteps(paretoFront(pts)), [
      [10, 100],
      [20, 100],
      [20, 300],
      [40, 300],
      [40, 500],
    ]);
    assert.deepEqual(paretoFront([[5, 10]]), [[5, 10]]);
  });
});
