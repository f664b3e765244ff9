/** `firedup serve` on a shared Postgres ledger: its watched targets write there, and the API reads it back. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, tmpDir } from '../helpers.js';
import { stopBackends, testPostgres } from '../store/backends.js';
import { request, serve } from './serve-helpers.js';

after(stopBackends);

const EXAMPLES = new URL('../../../examples/', import.meta.url).pathname;

describe('serve on a shared Postgres ledger', () => {
  it('records its watched log there, lists it with what others pushed, and never prints the password', async (t) => {
    const url = new URL(testPostgres().createDatabase());
    // The test server trusts its socket: a password in the URL is only there to be masked.
    url.password = 'sekret-pw';
    const ledger = url.href;
    // Someone else's launch, already in the shared ledger.
    assert.equal(
      runCli(['runs', path.join(EXAMPLES, 'vllm-llama3-8b-serving.log'), '--ledger', ledger]).code,
      0,
    );
    const log = path.join(tmpDir(), 'server.log');
    fs.copyFileSync(path.join(EXAMPLES, 'glm5-relaunch-stuck-at-48pct.log'), log);
    const s = await serve(['--ledger', ledger, '--watch', log]);
    t.after(() => s.stop());
    assert.match(s.stderr(), /ledger postgres:\/\/postgres:<redacted>@localhost\//);
    assert.doesNotMatch(s.stderr(), /sekret-pw/);
    let launches: any[] = [];
    for (let i = 0; i < 100 && launches.length < 3; i++) {
      launches = (await request(s.base, '/api/launches')).json().launches;
      if (launches.length < 3) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(launches.length, 3, 'the pushed vLLM launch and the watched log’s two');
    const one = await request(s.base, `/api/launches/${launches[0].id}`);
    assert.equal(one.status, 200);
    const metrics = await request(s.base, '/metrics');
    assert.match(metrics.body, /firedup_up\{target="server\.log"/);
    assert.equal(await s.stop(), 0);
    const listed = JSON.parse(runCli(['runs', '--ledger', ledger, '--json']).stdout);
    assert.equal(listed.launches.length, 3);
    assert.doesNotMatch(listed.ledger, /sekret-pw/);
  });
});
