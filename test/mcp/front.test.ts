/**
 * `firedup mcp`'s front (src/mcp/front.ts): it answers `initialize` before the SDK is loaded, with the very line
 * the SDK's server gives (compared with FIREDUP_MCP_FRONT=off, where the SDK answers), the server after it is
 * initialized and answers the rest once, and whatever the front does not vouch for is left to the SDK.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { acceptInitialize, answerInitialize, frontArgs, takeFrontHandoff } from '../../src/mcp/front.js';
import { PROTOCOL_VERSIONS } from '../../src/mcp/initialize.js';
import { tmpDir } from '../helpers.js';
import { FIREDUP } from './client.js';

type Msg = Record<string, unknown>;

/** A `firedup mcp` process fed `lines` at once; stdout's lines until a response for every id in `ids`. */
async function exchange(
  lines: unknown[],
  ids: Array<string | number>,
  { args = [] as string[], front = true } = {},
): Promise<{ out: string[]; stderr: string }> {
  const c = spawn(process.execPath, [FIREDUP, 'mcp', '--no-ledger', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FIREDUP_MCP_FRONT: front ? '' : 'off' },
  });
  let buf = '';
  let stderr = '';
  c.stderr.on('data', (d) => {
    stderr += d;
  });
  const out: string[] = [];
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no answer for all of ${ids}: ${out.join('\n')}`)),
      60_000,
    );
    c.stdout.on('data', (d) => {
      buf += d;
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        out.push(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        nl = buf.indexOf('\n');
      }
      const answered = new Set(out.map((l) => (JSON.parse(l) as Msg).id));
      if (ids.every((id) => answered.has(id))) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  c.stdin.write(`${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
  await done;
  const exited = new Promise((resolve) => c.on('close', resolve));
  c.stdin.end();
  await exited;
  return { out, stderr };
}

const init = (params: Msg, id: string | number = 1): Msg => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params,
});
const basic = (protocolVersion: string, capabilities: Msg = {}): Msg => ({
  protocolVersion,
  capabilities,
  clientInfo: { name: 'front-test', version: '1.0.0' },
});

describe("firedup mcp's front", () => {
  it("offers the SDK's protocol versions, newest first", () => {
    assert.deepEqual(PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS);
    assert.equal(PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
  });

  it('takes only the arguments of a stdio server', () => {
    for (const ok of [
      [],
      ['--allow-launch'],
      ['--no-ledger'],
      ['--ledger', 'x.db', '--allow-launch'],
      ['--ledger=x'],
    ])
      assert.ok(frontArgs(ok), ok.join(' '));
    for (const no of [
      ['--http'],
      ['--help'],
      ['-h'],
      ['--ledger'],
      ['--ledger='],
      ['--ledger', ''],
      ['--ledger', 'x', '--no-ledger'],
      ['--allow-launch=1'],
      ['--port', '1'],
      ['x'],
      ['--'],
    ])
      assert.ok(!frontArgs(no), no.join(' '));
  });

  it('vouches only for an initialize the SDK surely takes', () => {
    const good = init(
      basic('2025-06-18', { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } }),
    );
    assert.deepEqual(acceptInitialize(good), { id: 1, protocolVersion: '2025-06-18' });
    assert.deepEqual(acceptInitialize(init(basic('x'), 'abc')), { id: 'abc', protocolVersion: 'x' });
    const bad: Msg[] = [
      { ...good, extra: 1 },
      { ...good, id: 1.5 },
      { ...good, id: null },
      { ...good, jsonrpc: '1.0' },
      { ...good, method: 'ping' },
      init({ ...basic('2025-06-18'), _meta: { progressToken: 1 } }),
      init({ ...basic('2025-06-18'), clientInfo: { name: 'x' } }),
      init({ ...basic('2025-06-18'), clientInfo: { name: 'x', version: '1', icons: [] } }),
      init({ ...basic('2025-06-18'), clientInfo: { name: 'x', version: '1', title: 3 } }),
      init(basic('2025-06-18', { roots: { listChanged: 'yes' } })),
      init(basic('2025-06-18', { sampling: { context: true } })),
      init(basic('2025-06-18', { elicitation: { form: { applyDefaults: true } } })),
      init({ ...basic('2025-06-18'), capabilities: [] }),
      init({ ...basic('2025-06-18'), protocolVersion: 20250618 }),
    ];
    for (const m of bad) assert.equal(acceptInitialize(m), null, JSON.stringify(m));
  });

  it('answers from a file descriptor and hands every byte read to the server', () => {
    const dir = tmpDir();
    const inFile = path.join(dir, 'in');
    const outFile = path.join(dir, 'out');
    const lines = `${JSON.stringify(init(basic('2024-11-05'), 7))}\r\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n`;
    fs.writeFileSync(inFile, lines);
    const fin = fs.openSync(inFile, 'r');
    const fout = fs.openSync(outFile, 'w');
    try {
      assert.equal(answerInitialize([], { in: fin, out: fout }), true);
    } finally {
      fs.closeSync(fin);
      fs.closeSync(fout);
    }
    const answer = JSON.parse(fs.readFileSync(outFile, 'utf8')) as Msg;
    assert.equal(answer.id, 7);
    assert.equal((answer.result as Msg).protocolVersion, '2024-11-05');
    const h = takeFrontHandoff();
    assert.equal(h?.bytes.toString(), lines);
    assert.equal(h?.answered?.id, 7);
    assert.equal(takeFrontHandoff(), undefined, 'taken once');
  });

  for (const [what, msg, args] of [
    ['a supported version', init(basic('2025-06-18')), []],
    [
      'the oldest version, a string id, with --allow-launch',
      init(basic('2024-10-07'), 'a-1'),
      ['--allow-launch'],
    ],
    [
      'an unknown version (the newest offered)',
      init(basic('2099-01-01', { roots: { listChanged: true } })),
      [],
    ],
    [
      'what the SDK client sends',
      init({ ...basic(LATEST_PROTOCOL_VERSION), capabilities: { elicitation: {} } }),
      [],
    ],
    // left to the SDK, with the same answers as ever
    ['_meta (the SDK answers)', init({ ...basic('2025-06-18'), _meta: { progressToken: 'p' } }), []],
    ['no clientInfo.version (an error)', init({ ...basic('2025-06-18'), clientInfo: { name: 'x' } }), []],
  ] as const) {
    it(`answers initialize with ${what} as the SDK does, and the server answers on`, async () => {
      const id = msg.id as string | number;
      const rest = [
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 'list', method: 'tools/list' },
      ];
      const fronted = await exchange([msg, ...rest], [id, 'list'], { args: [...args] });
      const sdk = await exchange([msg, ...rest], [id, 'list'], { args: [...args], front: false });
      assert.equal(fronted.stderr, '', 'no mismatch reported');
      const first = (r: { out: string[] }) => r.out.filter((l) => (JSON.parse(l) as Msg).id === id);
      assert.equal(first(fronted).length, 1, 'initialize answered once');
      assert.equal(first(fronted)[0], first(sdk)[0]);
      const tools = (r: { out: string[] }) =>
        r.out.map((l) => JSON.parse(l) as Msg).find((m) => m.id === 'list')!.result as { tools: Msg[] };
      assert.ok(tools(fronted).tools.length >= 7);
      assert.deepEqual(tools(fronted), tools(sdk));
    });
  }

  it('leaves another first message to the SDK', async () => {
    const r = await exchange(
      [{ jsonrpc: '2.0', id: 'p', method: 'ping' }, 'not json', init(basic('2025-06-18'), 2)],
      ['p', 2],
    );
    const byId = new Map(r.out.map((l) => [(JSON.parse(l) as Msg).id, JSON.parse(l) as Msg]));
    assert.deepEqual(byId.get('p')?.result, {});
    assert.equal(((byId.get(2)!.result as Msg).serverInfo as Msg).name, 'firedup');
  });
});
