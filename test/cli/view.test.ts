import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeStyle } from '../../src/cli/style.js';
import { renderBlock } from '../../src/cli/view.js';
import { combineVerdicts } from '../../src/core/multinode/live.js';
import { liveVerdict } from '../../src/core/verdict/verdict.js';
import { sglangNode } from '../core/multinode/fixtures.js';
import { analyzeText } from '../helpers.js';

describe('the live block', () => {
  it('a multi-node launch shows each node: head marked, its state, phase and progress', () => {
    const judge = (text: string) => {
      const report = analyzeText(text);
      const l = report.launches[0]!;
      return {
        report,
        v: liveVerdict({ report, obs: {}, now: l.endTs! + 1, progressAt: l.endTs!, logExists: true }),
      };
    };
    const a = judge(sglangNode({ rank: 0, until: 'loading' }));
    const b = judge(sglangNode({ rank: 1 }));
    const v = combineVerdicts(
      [
        { name: 'gpu-a:/srv/s.log', head: true, verdict: a.v },
        { name: 'gpu-b:/srv/s.log', head: false, verdict: b.v },
      ],
      null,
    );
    const lines = renderBlock('2 nodes', v, a.report, null, makeStyle(false), 100);
    assert.ok(lines.includes('  ◆ gpu-a:/srv/s.log  loading (loading_weights)'), lines.join('\n'));
    assert.ok(lines.includes('  · gpu-b:/srv/s.log  ready'), lines.join('\n'));
  });
});
