/**
 * The ledger on a Postgres server, shared by a team: the same records, queries and answers as the SQLite
 * ledger (ledger.ts, whose SQL this follows statement for statement), for several hosts writing at once.
 * Every write that must be whole (a launch with its places, progress with its launches) is one transaction:
 * a server lost mid-write leaves nothing of it. Writes of one launch from two hosts at once are serialised by
 * an advisory lock on its fingerprint, so the second finds the first's record instead of adding a twin.
 */
import type pg from 'pg';
import { MACHINE_SQL, machineOf, thisMachine, thisUser } from '../identity.js';
import { LIST_COLUMNS, NEWEST_FIRST, otherPaths, when } from '../ledger.js';
import type { LedgerStore, NewSweepPoint, PointUpdate, SweepSummary } from '../ledger-store.js';
import { FACET_LIMIT, STATE_SQL } from '../list-filter.js';
import { KEEPS_FINAL_LIVE, LAUNCH_PORT_SQL } from '../live-rank.js';
import {
  type Annotation,
  annotated,
  type BenchRow,
  benchFromRow,
  KEEPS_NODES,
  type LaunchListRow,
  type LaunchRow,
  type LogRow,
  lastPerOffset,
  launchFingerprint,
  launchFromRow,
  launchRow,
  launchWrite,
  listItemFromRow,
  logFromRow,
  reportText,
  type Seen,
  type SeenRow,
  sawMore,
  seenOfRow,
  seenOfWrite,
  type TargetRow,
  targetFromRow,
} from '../record.js';
import { type SweepRow, sweepFromRow } from '../sweeps.js';
import {
  type BenchRecord,
  type BenchResult,
  type HistoryKey,
  type LaunchFacets,
  type LaunchFilter,
  type LaunchListItem,
  type LaunchPath,
  type LaunchRecord,
  LedgerError,
  type LiveMark,
  type LogKey,
  type LogState,
  type PlaceForgotten,
  type SweepPointRecord,
  type TargetRecord,
} from '../types.js';
import { displayUrl, pgLedgerError } from './errors.js';
import { pgFilterSql, pgWhereSql } from './filters.js';
import { createPool, numbered, type Queryable } from './query.js';
import { migratePg } from './schema.js';

const now = (): number => Date.now() / 1000;
const ignore = (): void => {};
/** In an upsert: the log moved on since the last write (as ledger.ts's MOVED). */
const MOVED = `excluded.outcome IS DISTINCT FROM launches.outcome OR excluded.phase IS DISTINCT FROM launches.phase
  OR (excluded.report::jsonb ->> 'lastProgressLine') IS DISTINCT FROM (launches.report::jsonb ->> 'lastProgressLine')`;
const WRITE_COLUMNS = [
  'id',
  'host',
  'path',
  'file_id',
  'start_offset',
  'start_line',
  'start_ts',
  'end_ts',
  'pid',
  'engine',
  'version',
  'model',
  'port',
  'outcome',
  'phase',
  'failure_class',
  'config_hash',
  'load_seconds',
  'peak_tok_s',
  'median_tok_s',
  'report',
  'config',
  'intended',
  'first_seen',
  'updated_at',
  'summary',
  'fingerprint',
  'machine',
  'user_name',
] as const;
const UPDATED = WRITE_COLUMNS.filter((c) => c !== 'id' && c !== 'first_seen' && c !== 'intended');
/** Launch rows per statement in a batch write: 27 parameters each, well under Postgres's 65,535. */
const ROWS_PER_STATEMENT = 200;

/** The columns that make a row's Seen (record.ts SEEN_SQL, in Postgres's JSON operators). */
const PG_SEEN_SQL = `(report::jsonb ->> 'endLine')::float8 - start_line AS held_span,
  (report::jsonb ->> 'endOffset')::float8 - start_offset AS held_bytes, phase AS held_phase,
  outcome AS held_outcome, load_seconds AS held_load, peak_tok_s AS held_peak`;

/** A launch as recorded, where its record was last made from, and what that reading saw. */
interface PgHeld {
  id: string;
  host: string;
  path: string;
  seen: Seen;
}
type HeldRow = SeenRow & { id: string; host: string; path: string };

/** The parameters of a launch's own place, kept under `id` (its own or its twin's). */
function placeParams(id: string, r: LaunchRecord): unknown[] {
  return [id, r.host, r.path, r.fileId, r.startOffset, r.startLine, r.firstSeen, r.updatedAt];
}

/** Runs `?`-placeholder SQL on a client or the pool. */
class Sql {
  constructor(private readonly db: Queryable) {}

  async all<T>(sql: string, ...params: unknown[]): Promise<T[]> {
    return (await this.db.query(numbered(sql), params)).rows as T[];
  }

  async get<T>(sql: string, ...params: unknown[]): Promise<T | undefined> {
    return (await this.all<T>(sql, ...params))[0];
  }

  async run(sql: string, ...params: unknown[]): Promise<number> {
    return (await this.db.query(numbered(sql), params)).rowCount ?? 0;
  }
}

export class PgLedgerStore implements LedgerStore {
  readonly kind = 'postgres' as const;
  private readonly sql: Sql;

  private constructor(
    private readonly pool: pg.Pool,
    readonly path: string,
  ) {
    this.sql = new Sql(pool);
  }

  /** Connects (within a few seconds, or a one-line LedgerError naming the URL) and brings the schema up to date. */
  static async open(url: string): Promise<PgLedgerStore> {
    const where = displayUrl(url);
    let pool: pg.Pool;
    try {
      pool = createPool(url);
    } catch (e) {
      throw new LedgerError(
        'unreachable',
        `ledger ${where}: not a usable Postgres URL (${(e as Error).message})`,
      );
    }
    // An idle connection the server drops must not crash the process: the next query reports it.
    pool.on('error', ignore);
    try {
      const client = await pool.connect();
      client.on('error', ignore);
      try {
        await migratePg(client, where);
      } finally {
        client.off('error', ignore);
        client.release();
      }
      return new PgLedgerStore(pool, where);
    } catch (e) {
      await pool.end().catch(() => {});
      throw pgLedgerError(e, where);
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => {});
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      throw pgLedgerError(e, this.path);
    }
  }

  /**
   * `fn` in one transaction on one connection: all of it is kept, or (an error, a server lost) none. This
   * process's transactions run one after another, in the order asked: a read's saves (ingest asks for them
   * without waiting) must not commit an older offset after a newer one.
   */
  private tx<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    const run = this.writes.then(() => this.txNow(fn));
    this.writes = run.catch(() => {});
    return run;
  }

  private writes: Promise<unknown> = Promise.resolve();

  private async txNow<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw pgLedgerError(e, this.path);
    }
    // A connection lost while checked out is also emitted as an event: without a listener it would end the
    // process; the query in flight rejects with it, and that is where it is reported.
    client.on('error', ignore);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const out = await fn(new Sql(client));
      await client.query('COMMIT');
      return out;
    } catch (e) {
      broken = e as Error;
      await client.query('ROLLBACK').catch(() => {});
      throw pgLedgerError(e, this.path, true);
    } finally {
      client.off('error', ignore);
      // A connection that failed mid-transaction is not handed to the next caller.
      client.release(broken && !(broken instanceof LedgerError) ? broken : undefined);
    }
  }

  private async launches(sql: string, ...params: unknown[]): Promise<LaunchRecord[]> {
    const rows = await this.sql.all<LaunchRow>(`SELECT * FROM launches ${sql}`, ...params);
    const paths = await this.pathsOf(rows.map((r) => r.id));
    return rows.map((r) => launchFromRow(r, paths.get(r.id)));
  }

  private async pathsOf(ids: readonly string[]): Promise<Map<string, LaunchPath[]>> {
    const out = new Map<string, LaunchPath[]>();
    if (!ids.length) return out;
    const rows = await this.sql.all<{
      launch_id: string;
      host: string;
      path: string;
      start_line: number;
      start_offset: number;
      last_seen: number;
    }>(
      `SELECT launch_id, host, path, start_line, start_offset, last_seen FROM launch_paths
       WHERE launch_id = ANY(?::text[]) ORDER BY first_seen, seq`,
      ids,
    );
    for (const r of rows) {
      const p = {
        host: r.host,
        path: r.path,
        startLine: r.start_line,
        startOffset: r.start_offset,
        lastSeen: r.last_seen,
      };
      const list = out.get(r.launch_id);
      if (list) list.push(p);
      else out.set(r.launch_id, [p]);
    }
    return out;
  }

  // ---- logs

  async getLog(key: LogKey): Promise<LogState | null> {
    return this.guard(async () => {
      const row = await this.sql.get<LogRow>(
        'SELECT * FROM logs WHERE host = ? AND path = ?',
        key.host,
        key.path,
      );
      return row ? logFromRow(row) : null;
    });
  }

  async saveProgress(
    state: Omit<LogState, 'id' | 'updatedAt'>,
    launches: LaunchRecord[],
  ): Promise<LaunchRecord[]> {
    const cp = state.checkpoint;
    return this.tx(async (sql) => {
      const kept = await this.writeLaunches(sql, launches);
      await sql.run(
        `INSERT INTO logs (host, path, file_id, head_hash, head_len, tail_hash, "offset", lines, checkpoint, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (host, path) DO UPDATE SET file_id = excluded.file_id, head_hash = excluded.head_hash,
           head_len = excluded.head_len, tail_hash = excluded.tail_hash, "offset" = excluded."offset",
           lines = excluded.lines, checkpoint = excluded.checkpoint, updated_at = excluded.updated_at`,
        state.host,
        state.path,
        state.fileId,
        state.headHash,
        state.headLen,
        state.tailHash ?? null,
        state.offset,
        state.lines,
        cp ? Buffer.from(cp.buffer, cp.byteOffset, cp.byteLength) : null,
        now(),
      );
      return kept;
    });
  }

  /** As Ledger.resetLog: the places of the file's launches lose its id (see launchesAtLog). */
  async resetLog(key: LogKey): Promise<void> {
    await this.tx(async (sql) => {
      await sql.run(
        `UPDATE logs SET file_id = NULL, head_hash = NULL, head_len = 0, tail_hash = NULL, "offset" = 0, lines = 0,
           checkpoint = NULL, updated_at = ? WHERE host = ? AND path = ?`,
        now(),
        key.host,
        key.path,
      );
      await sql.run('UPDATE launch_paths SET file_id = NULL WHERE host = ? AND path = ?', key.host, key.path);
    });
  }

  /** As Ledger.launchesAtLog. */
  async launchesAtLog(
    key: LogKey,
    fileId: string | null,
  ): Promise<Array<{ id: string; startOffset: number }>> {
    return this.guard(async () =>
      lastPerOffset(
        await this.sql.all<{ id: string; startOffset: number }>(
          `SELECT launch_id AS id, start_offset AS "startOffset" FROM launch_paths
           WHERE host = ? AND path = ? AND file_id IS NOT DISTINCT FROM ? ORDER BY start_offset, last_seen, seq`,
          key.host,
          key.path,
          fileId,
        ),
      ),
    );
  }

  /** As Ledger.reportTexts. */
  async reportTexts(ids: readonly string[]): Promise<string[]> {
    return this.guard(async () => {
      if (!ids.length) return [];
      const rows = await this.sql.all<{ id: string; report: string; config: string }>(
        'SELECT id, report::text AS report, config::text AS config FROM launches WHERE id = ANY(?::text[])',
        [...ids],
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.flatMap((id) => {
        const r = byId.get(id);
        return r ? [reportText(r.report, r.config)] : [];
      });
    });
  }

  async getLaunches(ids: readonly string[]): Promise<LaunchRecord[]> {
    return this.guard(async () => {
      if (!ids.length) return [];
      const got = await this.launches('WHERE id = ANY(?::text[])', [...ids]);
      const byId = new Map(got.map((r) => [r.id, r]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    });
  }

  // ---- launches

  async upsertLaunches(recs: LaunchRecord[]): Promise<LaunchRecord[]> {
    if (!recs.length) return [];
    return this.tx((sql) => this.writeLaunches(sql, recs));
  }

  private async twinOf(sql: Sql, r: LaunchRecord): Promise<PgHeld | null> {
    if (r.fingerprint === null) return null;
    if (await sql.get('SELECT 1 FROM launches WHERE id = ?', r.id)) return null;
    const rows = await sql.all<HeldRow & { pid0: string | null }>(
      `SELECT id, host, path, ${PG_SEEN_SQL}, report::jsonb -> 'pids' ->> 0 AS pid0
       FROM launches WHERE fingerprint = ? AND (config_hash IS NULL OR ?::text IS NULL OR config_hash = ?)
         AND NOT (host = ? AND path = ? AND file_id IS NOT DISTINCT FROM ?::text AND start_offset <> ?)
       ORDER BY first_seen, id`,
      r.fingerprint,
      r.configHash,
      r.configHash,
      r.host,
      r.path,
      r.fileId,
      r.startOffset,
    );
    const pid = r.report.pids?.[0] ?? null;
    const hit = rows.find((t) => t.pid0 === null || pid === null || Number(t.pid0) === pid);
    return hit ? { id: hit.id, host: hit.host, path: hit.path, seen: seenOfRow(hit) } : null;
  }

  /** The record kept under this launch's own id, or its twin's (see twinOf), with what its reading saw. */
  private async heldOf(sql: Sql, r: LaunchRecord): Promise<PgHeld | null> {
    const own = await sql.get<HeldRow>(
      `SELECT id, host, path, ${PG_SEEN_SQL} FROM launches WHERE id = ?`,
      r.id,
    );
    if (own) return { id: own.id, host: own.host, path: own.path, seen: seenOfRow(own) };
    return this.twinOf(sql, r);
  }

  private async writeLaunches(sql: Sql, given: LaunchRecord[]): Promise<LaunchRecord[]> {
    if (!given.length) return [];
    // From the content, whatever the caller put in the field: the fingerprint is what matches copies.
    const recs = given.map((r) => ({
      ...r,
      fingerprint: launchFingerprint(r.startTs, r.report.startText ?? '', r.report.relativeTime),
    }));
    // Two hosts writing the same launch (a copy, a shared file) at once: one at a time, so the second sees the
    // first's record and keeps its id. Every lock of the batch at once, in one order for every writer: two
    // batches taking theirs one by one in file order could each hold what the other waits for.
    await sql.run(
      `SELECT pg_advisory_xact_lock(h) FROM (SELECT DISTINCT hashtext(k) AS h FROM unnest(?::text[]) AS k ORDER BY h) AS locks`,
      recs.map((r) => `firedup:launch:${r.fingerprint ?? r.id}`),
    );
    if (await this.noTwins(sql, recs)) {
      await this.writeRows(sql, recs);
      return recs;
    }
    const upsert = this.upsertSql(1);
    const kept: LaunchRecord[] = [];
    for (const r of recs) {
      const held = await this.heldOf(sql, r);
      const rec = held ? { ...r, id: held.id } : r;
      // As SQLite's writeRows: a reading at another place than the record's replaces it only if it saw more.
      const elsewhere = held !== null && (held.host !== r.host || held.path !== r.path);
      if (!elsewhere || sawMore(seenOfWrite(launchWrite(r)), held.seen)) {
        const row = launchRow(rec) as unknown as Record<string, unknown>;
        await sql.run(upsert, ...WRITE_COLUMNS.map((c) => row[c] ?? null));
      }
      await sql.run(this.placeSql(1), ...placeParams(rec.id, r));
      // The other places a record read from a ledger knows (`ledger push`): kept, never moved back in time.
      for (const p of otherPaths(r))
        await sql.run(
          `INSERT INTO launch_paths (launch_id, host, path, file_id, start_offset, start_line, first_seen, last_seen)
           VALUES (?, ?, ?, NULL, ?, ?, ?, ?) ON CONFLICT (launch_id, host, path) DO NOTHING`,
          rec.id,
          p.host,
          p.path,
          p.startOffset,
          p.startLine,
          p.lastSeen,
          p.lastSeen,
        );
      kept.push(rec);
    }
    return kept;
  }

  /**
   * True when no launch of the batch can be a copy of another (see twinOf), which is what a read of one log's
   * new launches writes: all read at one place (a launch is never the twin of another of its own file), none
   * carrying other places, each known by its id or with a fingerprint no launch read elsewhere has. Two
   * queries for the batch, where finding twins takes two per launch: such a batch is written a few hundred
   * rows per statement.
   */
  private async noTwins(sql: Sql, recs: LaunchRecord[]): Promise<boolean> {
    const [first] = recs;
    if (!first) return true;
    const ids = new Set(recs.map((r) => r.id));
    if (ids.size !== recs.length) return false;
    const samePlace = (r: LaunchRecord) =>
      r.host === first.host && r.path === first.path && r.fileId === first.fileId;
    if (!recs.every(samePlace) || recs.some((r) => otherPaths(r).length > 0)) return false;
    const prints = recs.some((r) => r.fingerprint !== null);
    if (!prints) return true;
    const rows = await sql.all<{ id: string; host: string; path: string }>(
      'SELECT id, host, path FROM launches WHERE id = ANY(?::text[])',
      [...ids],
    );
    // A launch read here first, whose record another place's reading made since: written one by one (sawMore).
    if (rows.some((x) => x.host !== first.host || x.path !== first.path)) return false;
    const known = new Set(rows.map((x) => x.id));
    const unknown = [
      ...new Set(recs.flatMap((r) => (r.fingerprint !== null && !known.has(r.id) ? [r.fingerprint] : []))),
    ];
    if (!unknown.length) return true;
    return !(await sql.get(
      `SELECT 1 FROM launches WHERE fingerprint = ANY(?::text[])
         AND NOT (host = ? AND path = ? AND file_id IS NOT DISTINCT FROM ?::text) LIMIT 1`,
      unknown,
      first.host,
      first.path,
      first.fileId,
    ));
  }

  /** The batch's rows and places, ROWS_PER_STATEMENT at a time (ids unique: see noTwins). */
  private async writeRows(sql: Sql, recs: LaunchRecord[]): Promise<void> {
    for (let i = 0; i < recs.length; i += ROWS_PER_STATEMENT) {
      const part = recs.slice(i, i + ROWS_PER_STATEMENT);
      await sql.run(
        this.upsertSql(part.length),
        ...part.flatMap((r) => {
          const row = launchRow(r) as unknown as Record<string, unknown>;
          return WRITE_COLUMNS.map((c) => row[c] ?? null);
        }),
      );
      await sql.run(this.placeSql(part.length), ...part.flatMap((r) => placeParams(r.id, r)));
    }
  }

  /** The upsert of `n` launch rows. */
  private upsertSql(n: number): string {
    const cols = WRITE_COLUMNS.join(', ');
    const marks = `(${WRITE_COLUMNS.map(() => '?').join(', ')})`;
    // A pid seen by a live look (watch, wait, launch) stays when a later read of the log names none.
    const sets = UPDATED.map((c) =>
      // So do the model, port and start `firedup launch` knew from its command line and clock.
      ['pid', 'model', 'port', 'start_ts'].includes(c)
        ? `${c} = coalesce(excluded.${c}, launches.${c})`
        : // Who and where: the first record's word stands (a launch pushed from its own machine keeps it).
          c === 'machine' || c === 'user_name'
          ? `${c} = coalesce(launches.${c}, excluded.${c})`
          : `${c} = excluded.${c}`,
    ).join(', ');
    return `INSERT INTO launches (${cols}) VALUES ${Array(n).fill(marks).join(', ')}
      ON CONFLICT (id) DO UPDATE SET ${sets},
        intended = coalesce(excluded.intended, launches.intended),
        live = CASE WHEN ${MOVED} THEN NULL ELSE launches.live END,
        live_state = CASE WHEN ${MOVED} THEN NULL ELSE launches.live_state END
      WHERE ${KEEPS_NODES}`;
  }

  /** Where `n` launches were read (their own places: see placeParams). */
  private placeSql(n: number): string {
    return `INSERT INTO launch_paths (launch_id, host, path, file_id, start_offset, start_line, first_seen, last_seen)
      VALUES ${Array(n).fill('(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}
      -- A write that does not know the file (a remote watch has no inode) keeps the one a read of it put there.
      ON CONFLICT (launch_id, host, path) DO UPDATE SET file_id = coalesce(excluded.file_id, launch_paths.file_id),
        start_offset = excluded.start_offset, start_line = excluded.start_line, last_seen = excluded.last_seen`;
  }

  async keptId(r: LaunchRecord): Promise<string | null> {
    return this.guard(async () => {
      if (await this.sql.get('SELECT 1 FROM launches WHERE id = ?', r.id)) return r.id;
      return (await this.twinOf(this.sql, r))?.id ?? null;
    });
  }

  async setLive(id: string, mark: LiveMark | null): Promise<void> {
    await this.guard(() =>
      this.sql.run(
        `UPDATE launches SET live = ?, live_state = ? WHERE id = ? AND ${KEEPS_FINAL_LIVE}`,
        mark ? JSON.stringify(mark) : null,
        mark?.state ?? null,
        id,
        mark?.final ? 1 : 0,
      ),
    );
  }

  async launchIdsAt(key: LogKey): Promise<string[]> {
    return this.guard(async () =>
      (
        await this.sql.all<{ id: string }>(
          `SELECT id FROM launches WHERE host = ? AND path = ?
           UNION SELECT launch_id FROM launch_paths WHERE host = ? AND path = ?`,
          key.host,
          key.path,
          key.host,
          key.path,
        )
      ).map((r) => r.id),
    );
  }

  async forget(ids: readonly string[], log?: LogKey): Promise<{ launches: number; benches: number }> {
    return this.tx(async (sql) => {
      const list = [...ids];
      const { n } = (await sql.get<{ n: number }>(
        'SELECT count(*) AS n FROM benches WHERE launch_id = ANY(?::text[])',
        list,
      ))!;
      for (const t of ['benches', 'launch_paths'])
        await sql.run(`DELETE FROM ${t} WHERE launch_id = ANY(?::text[])`, list);
      const launches = await sql.run('DELETE FROM launches WHERE id = ANY(?::text[])', list);
      if (log) await sql.run('DELETE FROM logs WHERE host = ? AND path = ?', log.host, log.path);
      return { launches, benches: n };
    });
  }

  async forgetPlace(log: LogKey): Promise<PlaceForgotten> {
    const ids = await this.launchIdsAt(log);
    return this.tx(async (sql) => {
      const kept = (
        await sql.all<{ launch_id: string }>(
          `SELECT DISTINCT launch_id FROM launch_paths WHERE launch_id = ANY(?::text[])
             AND NOT (host = ? AND path = ?)`,
          ids,
          log.host,
          log.path,
        )
      ).map((r) => r.launch_id);
      const keep = new Set(kept);
      const gone = ids.filter((id) => !keep.has(id));
      const { n } = (await sql.get<{ n: number }>(
        'SELECT count(*)::int AS n FROM benches WHERE launch_id = ANY(?::text[])',
        gone,
      ))!;
      for (const t of ['benches', 'launch_paths'])
        await sql.run(`DELETE FROM ${t} WHERE launch_id = ANY(?::text[])`, gone);
      const launches = await sql.run('DELETE FROM launches WHERE id = ANY(?::text[])', gone);
      await sql.run(
        'DELETE FROM launch_paths WHERE host = ? AND path = ? AND launch_id = ANY(?::text[])',
        log.host,
        log.path,
        kept,
      );
      // A record made from this place is made from the place it was read at last of those left.
      await sql.run(
        `UPDATE launches SET (host, path, file_id, start_offset, start_line) = (
           SELECT p.host, p.path, p.file_id, p.start_offset, p.start_line FROM launch_paths AS p
           WHERE p.launch_id = launches.id ORDER BY p.last_seen DESC LIMIT 1)
         WHERE host = ? AND path = ? AND id = ANY(?::text[])`,
        log.host,
        log.path,
        kept,
      );
      await sql.run('DELETE FROM logs WHERE host = ? AND path = ?', log.host, log.path);
      return { forgotten: gone, launches, benches: Number(n), kept };
    });
  }

  async getLaunch(id: string): Promise<LaunchRecord | null> {
    return this.guard(async () => (await this.launches('WHERE id = ?', id))[0] ?? null);
  }

  async resolve(ref: string): Promise<LaunchRecord> {
    return this.guard(async () => {
      const want = ref.trim().toLowerCase();
      const back = /^last(?:~(\d+))?$/.exec(want);
      if (back) {
        const n = Number(back[1] ?? 0);
        const hit = Number.isSafeInteger(n)
          ? (await this.launches(`${NEWEST_FIRST} LIMIT 1 OFFSET ?`, n))[0]
          : undefined;
        if (hit) return hit;
        const { count } = (await this.sql.get<{ count: number }>('SELECT count(*) AS count FROM launches'))!;
        throw new LedgerError(
          'not_found',
          `no launch ${ref}: the ledger has ${count} launch${count === 1 ? '' : 'es'}; list them with \`firedup runs\``,
        );
      }
      if (!/^[0-9a-f]{4,16}$/.test(want))
        throw new LedgerError(
          'not_found',
          `no launch ${ref}: name one by its id (4 or more of its hex characters), \`last\` or \`last~N\`; list them with \`firedup runs\``,
        );
      const hits = (
        await this.sql.all<Pick<LaunchRow, 'id' | 'model' | 'start_ts' | 'first_seen'>>(
          `SELECT id, model, start_ts, first_seen FROM launches WHERE id LIKE ? ${NEWEST_FIRST} LIMIT 6`,
          `${want}%`,
        )
      ).map((h) => ({ id: h.id, model: h.model, startTs: h.start_ts, firstSeen: h.first_seen }));
      if (hits.length === 1) {
        const one = (await this.launches('WHERE id = ?', hits[0]!.id))[0];
        if (one) return one;
      }
      if (hits.length <= 1)
        throw new LedgerError('not_found', `no launch ${ref} in the ledger; list them with \`firedup runs\``);
      const shown = hits.slice(0, 5).map((h) => `${h.id} (${h.model ?? 'unknown model'}, ${when(h)})`);
      throw new LedgerError(
        'ambiguous',
        `launch ${ref} is ambiguous: ${shown.join(', ')}${hits.length > 5 ? ', …' : ''}; type more of the id`,
      );
    });
  }

  async list(filter: LaunchFilter = {}): Promise<LaunchRecord[]> {
    return this.guard(async () => {
      const { sql, params } = pgFilterSql(filter);
      return this.launches(sql, ...params);
    });
  }

  async listItems(filter: LaunchFilter = {}): Promise<LaunchListItem[]> {
    return this.guard(async () => {
      const { sql, params } = pgFilterSql(filter);
      const rows = await this.sql.all<LaunchListRow>(
        `SELECT ${LIST_COLUMNS} FROM launches ${sql}`,
        ...params,
      );
      const paths = await this.pathsOf(rows.map((r) => r.id));
      return rows.map((r) => listItemFromRow(r, paths.get(r.id)));
    });
  }

  async countLaunches(filter: LaunchFilter = {}): Promise<number> {
    return this.guard(async () => {
      const { sql, params } = pgWhereSql(filter);
      const row = await this.sql.get<{ n: string | number }>(
        `SELECT count(*) AS n FROM launches ${sql}`,
        ...params,
      );
      return Number(row?.n ?? 0);
    });
  }

  async launchFacets(): Promise<LaunchFacets> {
    const col = async (expr: string): Promise<string[]> =>
      (
        await this.sql.all<{ v: string }>(
          `SELECT DISTINCT ${expr} AS v FROM launches WHERE ${expr} IS NOT NULL ORDER BY v LIMIT ${FACET_LIMIT}`,
        )
      ).map((r) => r.v);
    return this.guard(async () => ({
      models: await col('model'),
      hosts: await col('host'),
      states: await col(`(${STATE_SQL})`),
    }));
  }

  async history(key: HistoryKey, beforeTs?: number, limit = 20): Promise<LaunchRecord[]> {
    const conds = ['model IS NOT DISTINCT FROM ?::text', 'engine IS NOT DISTINCT FROM ?::text', 'host = ?'];
    const params: unknown[] = [key.model, key.engine, key.host];
    if (key.configHash !== null) {
      conds.push('config_hash = ?');
      params.push(key.configHash);
    }
    if (beforeTs !== undefined) {
      conds.push('coalesce(start_ts, first_seen) < ?');
      params.push(beforeTs);
    }
    return this.guard(() =>
      this.launches(`WHERE ${conds.join(' AND ')} ${NEWEST_FIRST} LIMIT ?`, ...params, Math.max(0, limit)),
    );
  }

  // ---- benchmarks

  async addBench(launchId: string, r: BenchResult): Promise<{ record: BenchRecord; added: boolean }> {
    return this.tx(async (sql) => {
      if (!(await sql.get('SELECT 1 FROM launches WHERE id = ?', launchId)))
        throw new LedgerError(
          'not_found',
          `no launch ${launchId} to attach the benchmark to; list them with \`firedup runs\``,
        );
      const added = await sql.run(
        `INSERT INTO benches (launch_id, fingerprint, finished_at, imported_at, result) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (launch_id, fingerprint) DO NOTHING`,
        launchId,
        r.fingerprint,
        r.finishedAt,
        now(),
        JSON.stringify(r),
      );
      const row = (await sql.get<BenchRow>(
        'SELECT * FROM benches WHERE launch_id = ? AND fingerprint = ?',
        launchId,
        r.fingerprint,
      ))!;
      return { record: benchFromRow(row), added: added === 1 };
    });
  }

  async attachBench(id: number, launchId: string): Promise<BenchRecord | null> {
    return this.tx(async (sql) => {
      if (!(await sql.get('SELECT 1 FROM launches WHERE id = ?', launchId)))
        throw new LedgerError('not_found', `no launch ${launchId}; list them with \`firedup runs\``);
      const row = await sql.get<BenchRow & { fingerprint: string }>('SELECT * FROM benches WHERE id = ?', id);
      if (!row) return null;
      if (
        row.launch_id !== launchId &&
        (await sql.get(
          'SELECT 1 FROM benches WHERE launch_id = ? AND fingerprint = ?',
          launchId,
          row.fingerprint,
        ))
      )
        throw new LedgerError(
          'ambiguous',
          `launch ${launchId} already holds the same result as bench #${id}`,
        );
      await sql.run('UPDATE benches SET launch_id = ?, unattached = NULL WHERE id = ?', launchId, id);
      return benchFromRow({ ...row, launch_id: launchId });
    });
  }

  async keepUnattached(r: BenchResult, why: string): Promise<{ record: BenchRecord; added: boolean }> {
    return this.tx(async (sql) => {
      const added = await sql.run(
        `INSERT INTO benches (launch_id, fingerprint, finished_at, imported_at, result, unattached, machine, user_name)
         VALUES (NULL, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
        r.fingerprint,
        r.finishedAt,
        now(),
        JSON.stringify(r),
        why,
        thisMachine(),
        thisUser(),
      );
      const row = (await sql.get<BenchRow>(
        'SELECT * FROM benches WHERE launch_id IS NULL AND fingerprint = ?',
        r.fingerprint,
      ))!;
      return { record: benchFromRow(row), added: added === 1 };
    });
  }

  async detachBench(id: number, why: string): Promise<BenchRecord | null> {
    return this.tx(async (sql) => {
      const row = await sql.get<BenchRow & { fingerprint: string }>('SELECT * FROM benches WHERE id = ?', id);
      if (!row) return null;
      if (row.launch_id === null) return benchFromRow(row);
      const twin = await sql.get<{ id: number }>(
        'SELECT id FROM benches WHERE launch_id IS NULL AND fingerprint = ?',
        row.fingerprint,
      );
      if (twin)
        throw new LedgerError(
          'ambiguous',
          `the same result is already kept unattached as bench #${twin.id}; remove one (firedup bench rm N)`,
        );
      await sql.run('UPDATE benches SET launch_id = NULL, unattached = ? WHERE id = ?', why, id);
      return benchFromRow({ ...row, launch_id: null, unattached: why });
    });
  }

  async unattachedBenches(): Promise<BenchRecord[]> {
    return this.guard(async () =>
      (
        await this.sql.all<BenchRow>(
          'SELECT * FROM benches WHERE launch_id IS NULL ORDER BY coalesce(finished_at, imported_at), id',
        )
      ).map(benchFromRow),
    );
  }

  async annotate(id: string, change: Annotation): Promise<LaunchRecord> {
    await this.tx(async (sql) => {
      const row = await sql.get<{ notes: string | null; tags: string | null }>(
        'SELECT notes, tags FROM launches WHERE id = ? FOR UPDATE',
        id,
      );
      if (!row) throw new LedgerError('not_found', `no launch ${id}; list them with \`firedup runs\``);
      const { notes, tags } = annotated(row, change);
      await sql.run('UPDATE launches SET notes = ?, tags = ? WHERE id = ?', notes, tags, id);
    });
    // Read after the commit: another connection of the pool would not see it before.
    return (await this.getLaunch(id))!;
  }

  async removeBench(id: number): Promise<boolean> {
    return this.guard(async () => (await this.sql.run('DELETE FROM benches WHERE id = ?', id)) === 1);
  }

  async benches(launchId: string): Promise<BenchRecord[]> {
    return this.guard(async () =>
      (
        await this.sql.all<BenchRow>(
          'SELECT * FROM benches WHERE launch_id = ? ORDER BY coalesce(finished_at, imported_at), id',
          launchId,
        )
      ).map(benchFromRow),
    );
  }

  async benchesOf(launchIds: readonly string[]): Promise<Map<string, BenchRecord[]>> {
    return this.guard(async () => {
      const out = new Map<string, BenchRecord[]>();
      if (!launchIds.length) return out;
      const rows = await this.sql.all<BenchRow>(
        `SELECT * FROM benches WHERE launch_id = ANY(?::text[]) ORDER BY coalesce(finished_at, imported_at), id`,
        [...launchIds],
      );
      for (const row of rows) {
        const b = benchFromRow(row);
        const list = out.get(b.launchId!);
        if (list) list.push(b);
        else out.set(b.launchId!, [b]);
      }
      return out;
    });
  }

  async servingAt(host: string, port: number | null, ts: number): Promise<LaunchRecord | null> {
    return this.guard(
      async () =>
        (
          await this.launches(
            `WHERE ${MACHINE_SQL} = ? AND start_ts <= ? AND (end_ts >= ? OR outcome IN ('serving', 'ready')
               OR (outcome = 'ended' AND phase IN ('ready', 'serving')))
               AND (?::integer IS NULL OR ${LAUNCH_PORT_SQL} = ?::integer)
               AND NOT EXISTS (SELECT 1 FROM launches AS later WHERE later.host = launches.host
                 AND later.port = launches.port AND later.start_ts > launches.start_ts AND later.start_ts <= ?
                 AND later.failure_class IS DISTINCT FROM 'port_in_use')
             ORDER BY start_ts DESC, id DESC LIMIT 1`,
            thisMachine(),
            machineOf(host),
            ts,
            ts,
            port,
            port,
            ts,
          )
        )[0] ?? null,
    );
  }

  // ---- sweeps (as sweeps.ts)

  async openSweepPoint(p: NewSweepPoint): Promise<SweepPointRecord> {
    return this.tx(async (sql) => {
      // Two sweeps of one name opening the same point at once get runs n and n+1, not both n.
      await sql.run('SELECT pg_advisory_xact_lock(hashtext(?))', `firedup:sweep:${p.sweep}:${p.pointHash}`);
      const last = await sql.get<{ n: number | null }>(
        'SELECT max(run) AS n FROM sweep_points WHERE sweep = ? AND point_hash = ?',
        p.sweep,
        p.pointHash,
      );
      const row = (await sql.get<SweepRow>(
        `INSERT INTO sweep_points (sweep, point_hash, point_index, run, status, flags, argv, plan, detail, started_at)
         VALUES (?, ?, ?, ?, 'running', ?, ?, ?, '{}', ?) RETURNING *`,
        p.sweep,
        p.pointHash,
        p.pointIndex,
        (last?.n ?? 0) + 1,
        JSON.stringify(p.flags),
        JSON.stringify(p.argv),
        JSON.stringify(p.plan),
        p.startedAt,
      ))!;
      return sweepFromRow(row);
    });
  }

  async updateSweepPoint(id: number, u: PointUpdate): Promise<void> {
    const cols: Array<[string, unknown]> = [];
    if (u.status !== undefined) cols.push(['status', u.status]);
    if (u.launchId !== undefined) cols.push(['launch_id', u.launchId]);
    if (u.detail !== undefined) cols.push(['detail', JSON.stringify(u.detail)]);
    if (u.endedAt !== undefined) cols.push(['ended_at', u.endedAt]);
    if (!cols.length) return;
    await this.guard(() =>
      this.sql.run(
        `UPDATE sweep_points SET ${cols.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ?`,
        ...cols.map(([, v]) => v),
        id,
      ),
    );
  }

  async sweepPoints(sweep: string): Promise<SweepPointRecord[]> {
    return this.guard(async () =>
      (
        await this.sql.all<SweepRow>(
          'SELECT * FROM sweep_points WHERE sweep = ? ORDER BY point_index, run, id',
          sweep,
        )
      ).map(sweepFromRow),
    );
  }

  async sweeps(): Promise<SweepSummary[]> {
    return this.guard(() =>
      this.sql.all<SweepSummary>(
        `SELECT sweep AS name, count(DISTINCT point_hash) AS points, count(*) AS runs,
             min(started_at) AS "startedAt", max(ended_at) AS "endedAt"
           FROM sweep_points GROUP BY sweep ORDER BY max(started_at) DESC`,
      ),
    );
  }

  async closeStaleSweepPoints(sweep: string): Promise<number> {
    return this.guard(() =>
      this.sql.run(
        `UPDATE sweep_points SET status = 'interrupted', ended_at = ?,
           detail = (detail::jsonb || jsonb_build_object('cause', 'the sweep process ended before this point did'))::text
         WHERE sweep = ? AND status = 'running'`,
        now(),
        sweep,
      ),
    );
  }

  // ---- targets

  async addTarget(t: Omit<TargetRecord, 'id'>): Promise<TargetRecord> {
    return this.tx(async (sql) => {
      await sql.run(
        'INSERT INTO targets (model, metric, op, value, expr) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
        t.model,
        t.metric,
        t.op,
        t.value,
        t.expr,
      );
      const row = (await sql.get<TargetRow>(
        "SELECT * FROM targets WHERE coalesce(model, '') = coalesce(?::text, '') AND expr = ?",
        t.model,
        t.expr,
      ))!;
      return targetFromRow(row);
    });
  }

  async targets(model?: string | null): Promise<TargetRecord[]> {
    return this.guard(async () => {
      const rows =
        model === undefined
          ? await this.sql.all<TargetRow>('SELECT * FROM targets ORDER BY id')
          : await this.sql.all<TargetRow>(
              'SELECT * FROM targets WHERE model IS NULL OR model = ? ORDER BY id',
              model,
            );
      return rows.map(targetFromRow);
    });
  }

  async removeTarget(id: number): Promise<boolean> {
    return this.guard(async () => (await this.sql.run('DELETE FROM targets WHERE id = ?', id)) > 0);
  }
}
