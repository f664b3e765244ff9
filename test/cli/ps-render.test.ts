/** `ps`'s table on hostile names (issue 25, item 17): control characters shown, not obeyed; every unreachable host named. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FleetRow } from '../../src/app/fleet.js';
import { printable, renderPs } from '../../src/cli/ps.js';
import { makeStyle } from '../../src/cli/style.js';

const row = (over: Partial<FleetRow>): FleetRow =>
  ({
    name: 't',
    host: 'localhost',
    engine: 'sglang',
    model: 'm',
    state: 'serving',
    phase: 'serving',
    progress: null,
    age: 10,
    tokS: 100,
    failureClass: null,
    why: '',
    nodes: null,
    ...over,
  }) as unknown as FleetRow;

describe('ps: names as text', () => {
  it('escape sequences in a target name, host or model are shown as \\xNN', () => {
    assert.equal(printable('a\u001b[2Jb\u0007'), 'a\\x1b[2Jb\\x07');
    const out = renderPs(
      [row({ name: 'evil\u001b]0;pwned\u0007', model: 'm\u001b[31m' })],
      makeStyle(false),
      null,
    ).join('\n');
    assert.ok(!out.includes('\u001b'), JSON.stringify(out));
    assert.match(out, /evil\\x1b\]0;pwned\\x07/);
  });
  it('every unreachable host is named, with its reason', () => {
    const out = renderPs(
      [
        row({
          name: 'a',
          host: 'gpu-a',
          state: 'unreachable' as FleetRow['state'],
          why: 'Connection timed out',
        }),
        row({
          name: 'b',
          host: 'gpu-b',
          state: 'unreachable' as FleetRow['state'],
          why: 'ssh: connect to host gpu-b port 22: Connection refused',
        }),
      ],
      makeStyle(false),
      null,
    ).join('\n');
    assert.match(out, /unreachable: gpu-a: Connection timed out/);
    assert.match(out, /unreachable: ssh: connect to host gpu-b port 22: Connection refused/);
  });
});
