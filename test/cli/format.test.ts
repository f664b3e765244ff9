import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { whyAfterState, withoutFailure } from '../../src/cli/format.js';
import { runCli, SHARED } from '../helpers.js';

describe('no repeated wording', () => {
  it('a why that starts with the state is printed without it: no "◐ dist_init: dist_init, last progress"', () => {
    assert.equal(
      whyAfterState({ state: 'dist_init', why: 'dist_init, last progress 0 s ago' }),
      'last progress 0 s ago',
    );
    assert.equal(whyAfterState({ state: 'crashed', why: 'crashed: 2 of 2 nodes' }), '2 of 2 nodes');
    assert.equal(whyAfterState({ state: 'dist_init', why: 'dist_init' }), 'dist_init');
    assert.equal(
      whyAfterState({
        state: 'stalled',
        stalledIn: 'loading_weights',
        why: 'no progress in loading_weights for 27 s, over the 20 s this phase gets',
      }),
      'no progress for 27 s, over the 20 s this phase gets',
    );
    assert.equal(whyAfterState({ state: 'loading', why: 'loading weights 3/10' }), 'loading weights 3/10');
  });

  it('a why quoting the failure message points at it instead of printing it again', () => {
    const message =
      'RuntimeError: CUDA out of memory occurred when warming up sampler with 256 dummy requests.';
    assert.equal(withoutFailure(`oom: ${message}`, { message }), 'oom (failure below)');
    assert.equal(withoutFailure(`oom: ${message}`, { message }, 'above'), 'oom (failure above)');
    assert.equal(withoutFailure('oom: short', { message: 'short' }), 'oom: short');
    assert.equal(withoutFailure(`oom: ${message}`, null), `oom: ${message}`);
  });

  it('status prints a long OOM message once (in the failure block), watch once (in its verdict line)', () => {
    const log = `${SHARED}/corpus/released/vllm/024.log`;
    const message = 'CUDA out of memory occurred when warming up sampler';
    const count = (s: string) => s.split(message).length - 1;
    const status = runCli(['status', log, '--no-ledger']);
    assert.equal(status.code, 2, status.stderr);
    assert.match(status.stdout, /now: crashed — oom \(failure below\)/);
    // Once as the failure's message; the evidence line quoting the log may hold it too, cut.
    assert.equal(
      count(
        status.stdout
          .split('\n')
          .filter((l) => !/^\s+\d+: /.test(l))
          .join('\n'),
      ),
      1,
    );
    const watch = runCli(['watch', log, '--no-ledger', '--no-gpu']);
    assert.equal(watch.code, 2, watch.stderr);
    assert.equal(count(watch.stdout), 1, watch.stdout);
    assert.match(
      watch.stdout.trim().split('\n').at(-1)!,
      /^✖ crashed after \S+ of watching: oom \(failure above\)$/,
    );
  });
});
