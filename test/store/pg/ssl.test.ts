/**
 * A team's Postgres that takes SSL connections only, with a self-signed certificate: the URL's `sslmode` and
 * `sslrootcert` mean what they mean to psql (libpq), and every SSL mistake is one line saying what to change.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { libpqUrl } from '../../../src/store/pg/query.js';
import { assertOneLine, spawnCli } from '../../helpers.js';
import { startPostgres, type TestPostgres, type TestPostgresSsl } from '../../postgres.js';

const EXAMPLES = new URL('../../../../examples/', import.meta.url).pathname;
const LOG = path.join(EXAMPLES, 'vllm-llama3-8b-serving.log');

describe('shared ledger (postgres) over SSL', () => {
  let server: TestPostgres & { ssl: TestPostgresSsl | null };
  let ssl: TestPostgresSsl;
  let db: string;
  before(() => {
    server = startPostgres({ ssl: true });
    ssl = server.ssl!;
    db = new URL(server.createDatabase()).pathname;
  });
  after(() => server.stop());

  const url = (params: string) => `postgres://postgres@127.0.0.1:${ssl.port}${db}${params}`;
  const runs = (ledger: string) => spawnCli(['runs', LOG, '--json', '--ledger', ledger]).done;

  it('sslmode=require encrypts without verifying, as psql does: the launch is recorded', async () => {
    const r = await runs(url('?sslmode=require'));
    assert.equal(r.code, 0, r.stderr);
    // node-postgres's own warning about sslmode aliases is not printed: the URL means what libpq says.
    assert.equal(r.stderr, '');
    assert.equal(r.events[0]!.launches.length, 1);
    const again = await spawnCli(['runs', '--ledger', url('?sslmode=require'), '--json']).done;
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.events[0]!.launches.length, 1);
  });

  it('sslmode=verify-full with the CA in sslrootcert verifies the server and works', async () => {
    const r = await runs(url(`?sslmode=verify-full&sslrootcert=${encodeURIComponent(ssl.caFile)}`));
    assert.equal(r.code, 0, r.stderr);
  });

  it('mistakes are one line saying what to change in the URL', async () => {
    const cases: Array<[string, RegExp]> = [
      ['', /SSL connections only: add sslmode=require/],
      ['?sslmode=verify-full', /certificate does not verify.*add sslrootcert=FILE/],
      ['?sslmode=verify-ca', /verify-ca needs the CA.*sslrootcert=FILE/],
      ['?sslmode=require&sslrootcert=/nonexistent/ca.crt', /\/nonexistent\/ca\.crt .*no such file/],
    ];
    for (const [params, want] of cases) {
      const r = await runs(url(params));
      assert.notEqual(r.code, 0, params);
      assertOneLine(r.stderr);
      assert.match(r.stderr, want, params);
      assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${ssl.port}`), 'names the ledger');
    }
  });

  it('sslmode=require against a server without SSL says so', async () => {
    // The same server's Unix socket: SSL is never spoken there.
    const r = await runs(
      `postgres://postgres@localhost:${ssl.port}${db}?host=${encodeURIComponent(server.socketDir)}&sslmode=require`,
    );
    assertOneLine(r.stderr);
    assert.match(r.stderr, /does not take SSL connections; drop sslmode/);
  });

  it('libpqUrl: only a URL with sslmode is changed, and an explicit uselibpqcompat is kept', () => {
    assert.equal(libpqUrl('postgres://u@h/db'), 'postgres://u@h/db');
    assert.match(libpqUrl('postgres://u@h/db?sslmode=require'), /sslmode=require&uselibpqcompat=true$/);
    assert.equal(
      libpqUrl('postgres://u@h/db?sslmode=require&uselibpqcompat=false'),
      'postgres://u@h/db?sslmode=require&uselibpqcompat=false',
    );
  });

  it('psql agrees: the server refuses a connection without SSL', () => {
    const r = spawnSync(
      'psql',
      [`postgresql://postgres@127.0.0.1:${ssl.port}${db}?sslmode=disable`, '-c', 'select 1'],
      {
        encoding: 'utf8',
      },
    );
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /no encryption/);
  });
});
