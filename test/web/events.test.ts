/** The event stream's fan-out: what a client asked for, and a slow client kept to the latest state per card. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EventHub, parseWant, type Want } from '../../src/web/events.js';

describe('EventHub', () => {
  let hub: EventHub;
  let server: http.Server;
  let port: number;

  before(async () => {
    hub = new EventHub();
    server = http.createServer((req, res) => {
      const want = parseWant(new URL(req.url!, 'http://x').searchParams);
      hub.attach(res, {}, want as Want, []);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    hub.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  /** A client that reads nothing until told to: its frames, parsed. */
  function connect(query: string): Promise<{
    res: http.IncomingMessage;
    frames(): Array<{ event: string; data: any }>;
    ended: Promise<void>;
  }> {
    return new Promise((resolve) => {
      http.get({ host: '127.0.0.1', port, path: `/?${query}`, agent: false }, (res) => {
        res.pause();
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (buf += d));
        const ended = new Promise<void>((r) => {
          res.on('end', r);
          res.on('close', r);
          res.on('error', () => r());
        });
        resolve({
          res,
          ended,
          frames: () =>
            // Complete frames only: the last piece may be a frame still arriving (a 20 KB one spans chunks).
            buf
              .split('\n\n')
              .slice(0, -1)
              .map((f) => ({ event: /^event: (.*)$/m.exec(f)?.[1], data: /^data: (.*)$/m.exec(f)?.[1] }))
              .filter((f) => f.event && f.data)
              .map((f) => ({ event: f.event!, data: JSON.parse(f.data!) })),
        });
      });
    });
  }

  const waitFor = async (what: string, check: () => boolean) => {
    const end = Date.now() + 20_000;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('parses targets=: names, * for all, none; too many is an error with one line', () => {
    assert.equal(parseWant(new URLSearchParams('')), null);
    assert.equal(parseWant(new URLSearchParams('targets=')), null);
    assert.equal(parseWant(new URLSearchParams('targets=*')), 'all');
    assert.deepEqual(
      [...(parseWant(new URLSearchParams('targets=a,b&targets=c')) as Set<string>)],
      ['a', 'b', 'c'],
    );
    const many = Array.from({ length: 1001 }, (_, i) => `t${i}`).join(',');
    assert.throws(
      () => parseWant(new URLSearchParams(`targets=${many}`)),
      /^Error: targets=: at most 1000 names/,
    );
  });

  it('a client gets the cards it named; one that reads slowly gets the latest state of each, not every state', async () => {
    const slow = await connect('targets=*');
    const one = await connect('targets=t3');
    one.res.resume();
    await waitFor('both attached', () => hub.size === 2);
    const pad = 'x'.repeat(20_000);
    // 10 cards × 1000 states × 20 KB: 200 MB if every state were queued for the slow client.
    for (let seq = 0; seq < 1000; seq++)
      for (let t = 0; t < 10; t++) hub.send('live', { name: `t${t}`, seq, pad }, `live:t${t}`, `t${t}`);
    hub.send('launch', { id: 'L1' }, 'launch:L1');
    await waitFor('the named card', () => one.frames().some((f) => f.event === 'launch'));
    const mine = one.frames().filter((f) => f.event === 'live');
    assert.ok(mine.length >= 1 && mine.every((f) => f.data.name === 't3'), 'only the card it named');
    assert.equal(mine.at(-1)!.data.seq, 999);

    slow.res.resume();
    await waitFor('the slow client to catch up', () => slow.frames().some((f) => f.event === 'launch'));
    const got = slow.frames().filter((f) => f.event === 'live');
    assert.ok(got.length < 10_000 / 2, `${got.length} of 10000 states were sent`);
    for (let t = 0; t < 10; t++) {
      const last = got.filter((f) => f.data.name === `t${t}`).at(-1);
      assert.equal(last?.data.seq, 999, `t${t}: its latest state arrives`);
    }
    slow.res.destroy();
    one.res.destroy();
    await waitFor('both gone', () => hub.size === 0);
  });

  it('a client that stays behind on more than 2000 cards and launches is dropped (it reconnects for the state)', async () => {
    const before = hub.size;
    const c = await connect('targets=*');
    await waitFor('attached', () => hub.size === before + 1);
    const pad = 'x'.repeat(20_000);
    for (let i = 0; i < 2100; i++) hub.send('launch', { id: `L${i}`, pad }, `launch:L${i}`);
    assert.equal(hub.size, before);
    c.res.resume();
    await c.ended;
  });
});
