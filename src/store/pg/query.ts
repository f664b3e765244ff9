/**
 * The few things the Postgres store needs of node-postgres: a pool whose numbers come back as numbers, and
 * queries written with SQLite's `?` placeholders (the same SQL shapes as ledger.ts) numbered for Postgres.
 */
import pg from 'pg';

export interface Queryable {
  query(
    sql: string,
    params?: unknown[],
  ): Promise<{ rows: Array<Record<string, any>>; rowCount: number | null }>;
}

const INT8 = 20;
const NUMERIC = 1700;

/**
 * bigint (offsets, line numbers, ids, counts) as a JS number: every such value in the ledger is far below
 * 2^53, and record.ts reads numbers, as better-sqlite3 gives them.
 */
const types = new pg.TypeOverrides();
types.setTypeParser(INT8, (v: string) => Number(v));
types.setTypeParser(NUMERIC, (v: string) => Number(v));

/** How long to wait for the server before saying it is unreachable (a URL's `connect_timeout` overrides it). */
const CONNECT_TIMEOUT_MS = 5000;
/** A query that hangs this long (a network that swallows packets) is a server gone. */
const QUERY_TIMEOUT_MS = 60_000;

/**
 * The URL with libpq's meaning of `sslmode`, as psql reads the same URL: node-postgres 8 takes `require` and
 * `verify-ca` for `verify-full` (a team's self-signed server then fails with `sslmode=require`, which psql
 * accepts) and prints a multi-line warning; its `uselibpqcompat=true` gives libpq's semantics.
 */
export function libpqUrl(url: string): string {
  const u = new URL(url);
  if (!u.searchParams.has('sslmode') || u.searchParams.has('uselibpqcompat')) return url;
  u.searchParams.set('uselibpqcompat', 'true');
  return u.toString();
}

export function createPool(url: string): pg.Pool {
  const given = Number(new URL(url).searchParams.get('connect_timeout'));
  return new pg.Pool({
    connectionString: libpqUrl(url),
    types,
    max: 4,
    idleTimeoutMillis: 10_000,
    connectionTimeoutMillis: given > 0 ? given * 1000 : CONNECT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    keepAlive: true,
    // An idle connection never keeps a finished command alive (close() ends them anyway).
    allowExitOnIdle: true,
    application_name: 'firedup',
  });
}

/** `?` → `$1`, `$2`, …: the store's SQL has no `?` inside a string literal or as a jsonb operator. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
