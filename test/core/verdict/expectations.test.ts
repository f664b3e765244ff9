import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { expectationsFrom, shortDuration, typicalBudget } from '../../../src/core/verdict/expectations.js';
import { liveVerdict, ProgressClock } from '../../../src/core/verdict/verdict.js';
import { analyzeText, SCENARIOS } from '../../helpers.js';

const T0 = 1_800_000_000;
const scenario = (name: string) => fs.readFileSync(path.join(SCENARIOS, name), 'utf8');

const past = (durations: Partial<Record<string, number>>, loadSeconds: number | null = null) => ({
  phases: [
    ...Object.entries(durations).map(([phase, duration]) => ({ phase: phase as never, duration: duration! })),
    { phase: 'serving' as never, duration: 9999 },
  ],
  loadSeconds,
});

describe('expectations from earlier launches', () => {
  it('medians per phase, only from phases the launch went past, and to ready', () => {
    const e = expectationsFrom(
      [
        past({ loading_weights: 60, weights_loaded: 10, cuda_graph: 100 }, 200),
        past({ loading_weights: 70, weights_loaded: 30, cuda_graph: 140 }, 260),
        past({ loading_weights: 200, weights_loaded: 20 }, 250),
        // Crashed in cuda_graph: its last phase's length says nothing.
        { phases: [{ phase: 'cuda_graph' as never, duration: 5 }], loadSeconds: null },
      ],
      '4 earlier launches',
    )!;
    assert.deepEqual(e.phases.loading_weights, { median: 70, n: 3 });
    assert.deepEqual(e.phases.weights_loaded, { median: 20, n: 3 });
    assert.deepEqual(e.phases.cuda_graph, { median: 120, n: 2 });
    assert.deepEqual(e.toReady, { median: 250, n: 3 });
    assert.equal(e.phases.serving, undefined);
    assert.equal(expectationsFrom([], 'none'), null);
  });

  it('budgets leave room for ordinary variation; durations print short', () => {
    assert.equal(typicalBudget({ median: 20, n: 3 }), 80);
    assert.equal(typicalBudget({ median: 600, n: 3 }), 900);
    assert.deepEqual(['45s', '3m10s', '1h02m'], [45, 190, 3720].map(shortDuration));
  });
});

describe('the live verdict with history', () => {
  const log = scenario('glm5-silent-after-load-weight-end.log');
  const verdict = (seconds: number, expect: ReturnType<typeof expectationsFrom>) => {
    const report = analyzeText(log);
    const clock = new ProgressClock();
    clock.observe(report, T0);
    return liveVerdict({ report, obs: {}, now: T0 + seconds, progressAt: clock.at, logExists: true, expect });
  };

  it('a phase that always takes long here is not stalled at the default budget, and says what is usual', () => {
    const slowHere = expectationsFrom(
      [past({ weights_loaded: 300 }, 600), past({ weights_loaded: 340 }, 640)],
      '2 earlier launches of GLM-5 on this host',
    );
    const noHistory = verdict(120, null);
    assert.equal(noHistory.state, 'stalled');
    const v = verdict(120, slowHere);
    assert.equal(v.state, 'weights_loaded');
    assert.equal(v.budget, 480);
    assert.deepEqual(v.typical, {
      phase: 'weights_loaded',
      median: 320,
      n: 2,
      basis: '2 earlier launches of GLM-5 on this host',
    });
    assert.match(v.why, /weights loaded usually takes 5m20s here/);
    assert.ok(v.readyEta !== null && v.readyEta > 0);
    assert.match(v.why, /ready in about/);
    const late = verdict(500, slowHere);
    assert.equal(late.state, 'stalled');
    assert.match(late.why, /over the 480 s this phase gets \(weights loaded usually takes 5m20s here\)/);
  });

  it('a phase that is quick here is called stalled sooner than the default would', () => {
    const quick = expectationsFrom([past({ weights_loaded: 2 }), past({ weights_loaded: 4 })], 'x');
    assert.equal(verdict(40, null).state, 'weights_loaded');
    const v = verdict(70, quick);
    assert.equal(v.state, 'stalled');
    assert.equal(v.budget, 63);
  });
});
