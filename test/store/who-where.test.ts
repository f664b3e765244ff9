/** Who and where a record comes from: looked up once per few seconds, not once per launch row. */
import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it, mock } from 'node:test';
import { machineOf, thisMachine, thisUser } from '../../src/store/identity.js';

describe('thisMachine / thisUser', () => {
  it("say this machine's hostname and this account, and a remote host as given", () => {
    assert.equal(thisMachine(), os.hostname() || 'localhost');
    let want: string | null;
    try {
      want = os.userInfo().username || null;
    } catch {
      want = process.env.USER || process.env.LOGNAME || null;
    }
    assert.equal(thisUser(), want);
    assert.equal(machineOf('localhost'), thisMachine());
    assert.equal(machineOf('gpu-7'), 'gpu-7');
  });

  it('look the account up again only after a few seconds (100,000 launch rows, one passwd read)', () => {
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 3_600_000 });
    try {
      const calls = mock.method(os, 'userInfo');
      thisUser();
      const after = calls.mock.callCount();
      for (let i = 0; i < 1000; i++) thisUser();
      assert.equal(calls.mock.callCount(), after);
      mock.timers.tick(6000);
      thisUser();
      assert.equal(calls.mock.callCount(), after + 1);
    } finally {
      mock.restoreAll();
      mock.timers.reset();
    }
  });
});
