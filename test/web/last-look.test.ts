/**
 * The launch page's last look (src/web/last-look.ts) gives a dead launch the live verdict's own next step
 * (core/verdict/verdict.ts), not a copy of its sentences.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NEXT_WHEN_KILLED, NEXT_WHEN_PORT_GONE } from '../../src/core/verdict/verdict.js';
import type { LaunchRecord } from '../../src/store/types.js';
import { lastLook } from '../../src/web/last-look.js';
import { scenarioRecords } from '../ledger-fixtures.js';

/** The stuck relaunch of the scenario log, as a live look left it: dead, for `why`. */
function deadLaunch(why: string): LaunchRecord {
  const r = scenarioRecords('glm5-relaunch-stuck-at-48pct.log').at(-1)!;
  const at = (r.endTs ?? 0) + 95;
  return { ...r, state: 'dead', live: { state: 'dead', at, why, phase: 'loading_weights', evidence: [] } };
}

describe('last look of a dead launch', () => {
  it('a process gone without a word: the verdict’s next step for a launch killed from outside', () => {
    const look = lastLook(deadLaunch('the process (pid 4242) is gone and the log says nothing about it'));
    assert.equal(look?.next, NEXT_WHEN_KILLED);
    assert.equal(look?.quietFor, 95);
  });

  it('a log that says serving at an address that refuses: the verdict’s next step for a port gone', () => {
    const look = lastLook(deadLaunch('the log says serving but http://127.0.0.1:30000 refuses connections'));
    assert.equal(look?.next, NEXT_WHEN_PORT_GONE);
  });
});
