import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultLedgerPath } from '../../src/store/paths.js';

describe('defaultLedgerPath', () => {
  it('FIREDUP_LEDGER, else XDG_DATA_HOME, else ~/.local/share', () => {
    assert.equal(
      defaultLedgerPath({ FIREDUP_LEDGER: '/x/l.db', XDG_DATA_HOME: '/xdg' }, '/home/u'),
      '/x/l.db',
    );
    assert.equal(defaultLedgerPath({ XDG_DATA_HOME: '/xdg' }, '/home/u'), '/xdg/firedup/ledger.db');
    assert.equal(defaultLedgerPath({}, '/home/u'), '/home/u/.local/share/firedup/ledger.db');
    assert.equal(
      defaultLedgerPath({ FIREDUP_LEDGER: '', XDG_DATA_HOME: '' }, '/home/u'),
      '/home/u/.local/share/firedup/ledger.db',
    );
  });

  it('ignores a relative XDG_DATA_HOME, as the XDG spec says', () => {
    assert.equal(
      defaultLedgerPath({ XDG_DATA_HOME: 'data' }, '/home/u'),
      '/home/u/.local/share/firedup/ledger.db',
    );
  });
});
