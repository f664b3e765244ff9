/**
 * The ledger: every launch firedup has read, where each log was left off, benchmarks and targets, in one
 * SQLite file shared by every firedup process of the user (WAL, so readers never wait for a writer).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { redactText } from '../core/config/redact.js';
import { MACHINE_SQL, machineOf, thisMachine, thisUser } from './identity.js';
import {
  FACET_LIMIT,
  type FilterDialect,
  filterSql as filterSqlOf,
  NEWEST_FIRST,
  STATE_SQL,
  whereSql,
} from './list-filter.js';
import { KEEPS_FINAL_LIVE, LAUNCH_PORT_SQL } from './live-rank.js';
import { APPLICATION_ID, LEDGER_TABLES, migrate, SCHEMA_VERSION } from './migrations.js';
import {
  type Annotation,
  annotated,
  type BenchRow,
  benchFromRow,
  KEEPS_NODES,
  type LaunchListRow,
  type LaunchRow,
  type LaunchWrite,
  type LogRow,
  lastPerOffset,
  launchFromRow,
  launchWrite,
  listItemFromRow,
  logFromRow,
  reportText,
  SEEN_SQL,
  type Seen,
  type SeenRow,
  sawMore,
  seenOfRow,
  seenOfWrite,
  type TargetRow,
  targetFromRow,
} from './record.js';
import * as sweeps from './sweeps.js';

export { MAX_ROWS, MAX_WHERE, NEWEST_FIRST, STATE_SQL } from './list-filter.js';

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
} from './types.js';

const ELSEWHERE = 'pass --ledger PATH (or FIREDUP_LEDGER)';
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const PAYLOAD = Buffer.from([64, 32, 32]);
/** What listItems() reads: every column but the report and the config. */
export const LIST_COLUMNS = `id, host, path, file_id, start_offset, start_line, start_ts, end_ts, pid, engine, version, model,
  port, outcome, phase, failure_class, config_hash, load_seconds, peak_tok_s, median_tok_s, intended, first_seen,
  updated_at, summary, fingerprint, live_state, live, machine, user_name, notes, tags`;
const now = (): number => Date.now() / 1000;
/** Where a launch was read: a place row, made or brought up to date. */
const SEEN_PLACE = `INSERT INTO launch_paths (launch_id, host, path, file_id, start_offset, start_line, first_seen, last_seen)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  -- A write that does not know the file (a remote watch has no inode) keeps the one a read of it put there.
  ON CONFLICT (launch_id, host, path) DO UPDATE SET file_id = coalesce(excluded.file_id, launch_paths.file_id),
    start_offset = excluded.start_offset, start_line = excluded.start_line, last_seen = excluded.last_seen`;

/** A launch as recorded, where its record was last made from, and (when asked for) what that reading saw. */
interface Held {
  id: string;
  host: string;
  path: string;
  seen?: Seen;
}
type HeldRow = SeenRow & { id: string; host: string; path: string };
const heldOf = (h: HeldRow): Held => ({ id: h.id, host: h.host, path: h.path, seen: seenOfRow(h) });
/** In an upsert: the log moved on since the last write (an outcome, a phase, a sign of progress). */
const MOVED = `excluded.outcome IS NOT launches.outcome OR excluded.phase IS NOT launches.phase
  OR (excluded.report ->> '$.lastProgressLine') IS NOT (launches.report ->> '$.lastProgressLine')`;

const unwritable = (file: string, why: string): LedgerError =>
  new LedgerError('unwritable', `cannot write ledger ${file}: ${why}; ${ELSEWHERE}`);
const corrupt = (file: string): LedgerError =>
  new LedgerError('corrupt', `ledger ${file} is not a SQLite database; move it aside or ${ELSEWHERE}`);
const foreign = (file: string, what: string): LedgerError =>
  new LedgerError('foreign', `ledger ${file} is ${what}, not firedup's; ${ELSEWHERE} to use another file`);
const tooNew = (file: string, version: number): LedgerError =>
  new LedgerError(
    'too_new',
    `ledger ${file} was written by a newer firedup (schema ${version}, this one knows ${SCHEMA_VERSION}); upgrade firedup, or ${ELSEWHERE}`,
  );

function osReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'read-only file system';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a file is in the way';
  if (code === 'ENOSPC') return 'no space left on device';
  return (e as Error).message;
}

/** SQLite's and the OS's errors as the one-line LedgerError the CLI prints; anything else is a bug, rethrown. */
function ledgerError(e: unknown, file: string): unknown {
  if (e instanceof LedgerError) return e;
  // The only text the store parses is what it wrote (JSON columns): a parse failure is a damaged record.
  if (e instanceof SyntaxError)
    return new LedgerError(
      'corrupt',
      `ledger ${file} is damaged (a record does not read back: ${e.message}); move it aside or ${ELSEWHERE}`,
    );
  const code = String((e as { code?: unknown }).code ?? '');
  // SQLite's JSON functions over a damaged JSON column: the same damage, seen from SQL.
  const badJson = code === 'SQLITE_ERROR' && /malformed JSON/i.test((e as Error).message);
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT') || badJson)
    return new LedgerError(
      'corrupt',
      `ledger ${file} is damaged (${(e as Error).message}); move it aside or ${ELSEWHERE}`,
    );
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return new LedgerError('busy', `ledger ${file} stayed locked by another process for 10 s; try again`);
  if (/^SQLITE_(READONLY|CANTOPEN|IOERR|PERM|FULL)/.test(code)) return unwritable(file, (e as Error).message);
  if (/^E[A-Z]+$/.test(code)) return unwritable(file, osReason(e));
  return e;
}

/** The magic string and the fields every SQLite header has fixed (page size a power of two, payload fractions). */
function validHeader(head: Buffer): boolean {
  const page = head.readUInt16BE(16);
  const pageOk = page === 1 || (page >= 512 && page <= 32768 && (page & (page - 1)) === 0);
  return (
    head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC) &&
    pageOk &&
    head.subarray(21, 24).equals(PAYLOAD)
  );
}

/**
 * Looks at the file without letting SQLite touch it: a file that turns out not to be ours must keep its
 * bytes, and SQLite opened read-write would create -wal/-shm beside it or roll back a journal into it.
 */
function inspect(file: string): void {
  const dir = path.dirname(file);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw unwritable(file, `cannot create ${dir} (${osReason(e)})`);
  }
  try {
    // Launch configs and command lines are the user's business: the file is private from the start.
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw unwritable(file, osReason(e));
  }
  const kind = fs.statSync(file);
  if (kind.isDirectory()) throw unwritable(file, 'it is a directory');
  // A device or FIFO (FIREDUP_LEDGER=/dev/null) is no place for a database: SQLite would write beside it.
  if (!kind.isFile()) throw unwritable(file, 'not a regular file');
  try {
    // SQLite needs the directory too, for the -wal and -shm files.
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
  } catch (e) {
    throw unwritable(file, `${dir} is not writable (${osReason(e)})`);
  }
  const head = Buffer.alloc(100);
  let got: number;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      got = fs.readSync(fd, head, 0, head.length, 0);
    } finally {
      fs.closeSync(fd);
    }
    fs.accessSync(file, fs.constants.W_OK);
  } catch (e) {
    throw unwritable(file, osReason(e));
  }
  if (got === 0) return; // new, or created empty: ours to initialise
  if (got < head.length || !validHeader(head)) throw corrupt(file);
  const appId = head.readUInt32BE(68);
  if (appId === APPLICATION_ID) {
    // The header can lag the WAL, never lead it: a version too new here is too new.
    const version = head.readInt32BE(60);
    if (version > SCHEMA_VERSION) throw tooNew(file, version);
    return;
  }
  if (appId !== 0)
    throw foreign(file, `a SQLite database of another program (application id 0x${appId.toString(16)})`);
  // Ours get their application id before switching to WAL (byte 18 = 2), so a WAL file without it is not ours.
  if (head[18] === 2) throw foreign(file, 'a SQLite database of another program');
  const names = tablesOf(file);
  if (names.length)
    throw foreign(file, `a SQLite database of another program (tables ${names.slice(0, 5).join(', ')})`);
}

/** The tables of a rollback-journal database, read-only: no side files, no change to the file. */
function tablesOf(file: string): string[] {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const rows = db.prepare("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").all() as Array<{
      name: string;
    }>;
    return rows.map((r) => r.name);
  } catch (e) {
    throw ledgerError(e, file);
  } finally {
    db?.close();
  }
}

/**
 * Ledgers up to this size are checked page by page on every open; larger ones when a query meets the damage
 * (ledgerError). The check reads every page, so its time grows with the file, and every `firedup status`
 * pays it: it stays for ledgers small enough that this is about a millisecond.
 */
const CHECK_MAX_BYTES = 2 << 20;

/**
 * A damaged ledger is refused before anything is written to it: a write could land on a sound page and
 * succeed (`target add`), mixing new records into a file whose other pages are lost. quick_check reads only.
 */
function checkIntact(db: Database.Database, file: string, known?: number): void {
  let size = known ?? 0;
  try {
    size ||= fs.statSync(file).size;
  } catch {
    return;
  }
  if (size === 0 || size > CHECK_MAX_BYTES) return;
  const rows = db.pragma('quick_check(1)') as Array<Record<string, unknown>>;
  const first = rows[0] ? String(Object.values(rows[0])[0]) : 'ok';
  if (first !== 'ok')
    throw new LedgerError('corrupt', `ledger ${file} is damaged (${first}); move it aside or ${ELSEWHERE}`);
}

/** Claims a new or empty file, then brings the schema up to date. */
function initialise(db: Database.Database, file: string): void {
  if (db.pragma('application_id', { simple: true }) !== APPLICATION_ID) {
    // A new file's pages are 16 KiB: a launch's row is a few KiB (its report), and at SQLite's default of 4 KiB
    // each would fill a page of its own, half empty. Set before the first write; a file with data keeps its own.
    db.pragma('page_size = 16384');
    // IMMEDIATE: two processes creating the ledger at once must not both decide it is empty.
    db.transaction(() => {
      const appId = db.pragma('application_id', { simple: true }) as number;
      if (appId === APPLICATION_ID) return;
      const names = db.prepare('SELECT name FROM sqlite_master').all();
      if (appId !== 0 || names.length) throw foreign(file, 'a SQLite database of another program');
      db.pragma(`application_id = ${APPLICATION_ID}`);
    }).immediate();
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) throw tooNew(file, version);
  const strangers = (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
  )
    .map((r) => r.name)
    .filter((n) => !LEDGER_TABLES.has(n) && !n.startsWith('sqlite_'));
  if (strangers.length)
    throw foreign(file, `a database with tables firedup does not know (${strangers.join(', ')})`);
  // After the checks, which must leave a refused file as it was, and after the application id, so that the
  // id is in the main file's header where `inspect` reads it.
  db.pragma('journal_mode = WAL');
  // WAL + NORMAL: a killed process loses nothing committed; a power cut may lose the last transactions only.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  // Up to date (the version only grows, and one too new was refused above): no transaction per step.
  if (version < SCHEMA_VERSION) {
    try {
      migrate(db);
    } catch (e) {
      // A version number behind its own tables (set back by hand, or a copy of the header from an older file):
      // a step fails on what is already there. The file is left as it was (each step is its own transaction).
      if (!(e instanceof Error) || e.name !== 'SqliteError') throw e;
      throw new LedgerError(
        'corrupt',
        `ledger ${file}: its schema version (${version}) is behind its own tables (${e.message}); restore it from a copy, or move it aside to start a new one`,
      );
    }
  }
}

/** A URL is never taken for a file name (open.ts sends a postgres:// one to the Postgres store). */
function refuseUrl(file: string): void {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file))
    throw new LedgerError(
      'unwritable',
      `ledger ${redactText(file)}: a URL, not a SQLite file: give a file path`,
    );
}

/** The SQL that matches a config field against what the user typed (`where` in LaunchFilter). */
function configMatch(keys: string[], value: string): { sql: string; params: unknown[] } {
  const alts = ["(c.type = 'text' AND c.value = ?)", "(c.type IN ('array', 'object') AND c.value = ?)"];
  const params: unknown[] = [value, value];
  const low = value.toLowerCase();
  // Python prints True/None; the parsed config holds JSON true/null.
  if (low === 'true' || low === 'false') alts.push(`c.type = '${low}'`);
  if (low === 'null' || low === 'none') alts.push("c.type = 'null'");
  const n = Number(value);
  if (value.trim() !== '' && Number.isFinite(n)) {
    // Numerically, so 0.5 matches .5 and 1e-5 matches 0.00001.
    alts.push("(c.type IN ('integer', 'real') AND c.value = ?)");
    params.push(n);
  }
  return {
    sql: `EXISTS (SELECT 1 FROM json_each(launches.config) AS c WHERE c.key IN (${keys.map(() => '?').join(', ')}) AND (${alts.join(' OR ')}))`,
    params: [...keys, ...params],
  };
}

/** SQLite's side of list()'s filters. */
const SQLITE_FILTERS: FilterDialect = {
  modelContains: 'instr(lower(model), lower(?)) > 0',
  textContains: 'instr(%s, ?) > 0',
  // The latest as the API picks it (api.ts, latestBench): by finish (or import) time, the later id on a tie.
  benchOutput: `(SELECT json_extract(b.result, '$.outputTokS') FROM benches AS b WHERE b.launch_id = launches.id
    ORDER BY coalesce(b.finished_at, b.imported_at) DESC, b.id DESC LIMIT 1)`,
  configMatch,
};

const filterSql = (filter: LaunchFilter) => filterSqlOf(filter, SQLITE_FILTERS);

export { otherPaths } from './record.js';

export function when(r: Pick<LaunchRecord, 'startTs' | 'firstSeen'>): string {
  const ts = r.startTs ?? r.firstSeen;
  return new Date(ts * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
}

export class Ledger {
  private constructor(
    private readonly db: Database.Database,
    readonly path: string,
  ) {}

  /** Opens (creating it, and its directory, when missing) the ledger at `file`. Throws LedgerError. */
  static open(file: string): Ledger {
    refuseUrl(file);
    const abs = path.resolve(file);
    let db: Database.Database | undefined;
    try {
      inspect(abs);
      db = new Database(abs, { timeout: 10_000 });
      checkIntact(db, abs);
      initialise(db, abs);
      return new Ledger(db, abs);
    } catch (e) {
      db?.close();
      throw ledgerError(e, abs);
    }
  }

  /**
   * A ledger that can be read but not written (a read-only file or directory, a shared copy): read from an
   * in-memory copy, so nothing is written beside it. Only a ledger of this version, with nothing pending in
   * a -wal file, can be read so: the copy would miss those. Throws LedgerError.
   */
  static openReadOnly(file: string): Ledger {
    refuseUrl(file);
    const abs = path.resolve(file);
    let db: Database.Database | undefined;
    try {
      if (!fs.statSync(abs).isFile()) throw unwritable(abs, 'not a regular file');
      const bytes = fs.readFileSync(abs);
      if (bytes.length < 100 || !validHeader(bytes)) throw corrupt(abs);
      if (bytes.readUInt32BE(68) !== APPLICATION_ID) throw foreign(abs, 'not a firedup ledger');
      const version = bytes.readInt32BE(60);
      if (version > SCHEMA_VERSION) throw tooNew(abs, version);
      if (version < SCHEMA_VERSION)
        throw unwritable(
          abs,
          `it was written by an older firedup and is read-only, so it cannot be upgraded`,
        );
      let wal = 0;
      try {
        wal = fs.statSync(`${abs}-wal`).size;
      } catch {}
      if (wal > 0) throw unwritable(abs, 'it is read-only and its -wal file holds changes not yet in it');
      // The copy lives in memory: its journal mode (WAL, bytes 18-19) means nothing there.
      bytes[18] = 1;
      bytes[19] = 1;
      db = new Database(bytes);
      checkIntact(db, abs, bytes.length);
      return new Ledger(db, abs);
    } catch (e) {
      db?.close();
      throw ledgerError(e, abs);
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  /**
   * A statement prepared once per ledger: writing 100k launches runs the same few statements 100k times, and
   * preparing costs as much as running.
   */
  private prep(sql: string): Database.Statement {
    let st = this.prepared.get(sql);
    if (!st) {
      st = this.db.prepare(sql);
      this.prepared.set(sql, st);
    }
    return st;
  }

  private readonly prepared = new Map<string, Database.Statement>();

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw ledgerError(e, this.path);
    }
  }

  private launches(sql: string, ...params: unknown[]): LaunchRecord[] {
    const rows = this.db.prepare(`SELECT * FROM launches ${sql}`).all(...params) as LaunchRow[];
    const paths = this.pathsOf(rows.map((r) => r.id));
    return rows.map((r) => launchFromRow(r, paths.get(r.id)));
  }

  /** Where each launch was read, in one query: launch id → its places, oldest first. */
  private pathsOf(ids: readonly string[]): Map<string, LaunchPath[]> {
    const out = new Map<string, LaunchPath[]>();
    if (!ids.length) return out;
    const rows = this.db
      .prepare(
        `SELECT launch_id, host, path, start_line, start_offset, last_seen FROM launch_paths
         WHERE launch_id IN (SELECT value FROM json_each(?)) ORDER BY first_seen, rowid`,
      )
      .all(JSON.stringify(ids)) as Array<{
      launch_id: string;
      host: string;
      path: string;
      start_line: number;
      start_offset: number;
      last_seen: number;
    }>;
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

  getLog(key: LogKey): LogState | null {
    return this.guard(() => {
      const row = this.db.prepare('SELECT * FROM logs WHERE host = ? AND path = ?').get(key.host, key.path);
      return row ? logFromRow(row as LogRow) : null;
    });
  }

  /** The launches read so far and where reading stopped, together or not at all. Returns the launches as kept (see upsertLaunches). */
  saveProgress(state: Omit<LogState, 'id' | 'updatedAt'>, launches: LaunchRecord[]): LaunchRecord[] {
    const cp = state.checkpoint;
    return this.guard(() =>
      this.db
        .transaction(() => {
          const kept = this.writeLaunches(launches);
          this.db
            .prepare(
              `INSERT INTO logs (host, path, file_id, head_hash, head_len, tail_hash, offset, lines, checkpoint, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (host, path) DO UPDATE SET file_id = excluded.file_id, head_hash = excluded.head_hash,
                 head_len = excluded.head_len, tail_hash = excluded.tail_hash, offset = excluded.offset, lines = excluded.lines,
                 checkpoint = excluded.checkpoint, updated_at = excluded.updated_at`,
            )
            .run(
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
        })
        .immediate(),
    );
  }

  /**
   * The file was replaced or truncated: read it again from the start. Its launches stay: they happened; their
   * places lose the file id, so that `launchesAtLog` lists only the launches of the file as it is now.
   */
  resetLog(key: LogKey): void {
    this.guard(() =>
      this.db
        .transaction(() => {
          this.db
            .prepare(
              `UPDATE logs SET file_id = NULL, head_hash = NULL, head_len = 0, tail_hash = NULL, offset = 0, lines = 0, checkpoint = NULL,
                 updated_at = ? WHERE host = ? AND path = ?`,
            )
            .run(now(), key.host, key.path);
          this.db
            .prepare('UPDATE launch_paths SET file_id = NULL WHERE host = ? AND path = ?')
            .run(key.host, key.path);
        })
        .immediate(),
    );
  }

  /**
   * The launches recorded at a place of this file (`fileId`), by where they start, in file order: the id each
   * is kept under (its own, or a copy's twin). One query however many: what an incremental read asks for
   * instead of holding every closed launch. Where two were recorded at one offset (a launch still being
   * written when read), the last seen is the file's.
   */
  launchesAtLog(key: LogKey, fileId: string | null): Array<{ id: string; startOffset: number }> {
    return this.guard(() => {
      const rows = this.db
        .prepare(
          `SELECT launch_id AS id, start_offset AS startOffset FROM launch_paths
           WHERE host = ? AND path = ? AND file_id IS ? ORDER BY start_offset, last_seen, rowid`,
        )
        .all(key.host, key.path, fileId) as Array<{ id: string; startOffset: number }>;
      return lastPerOffset(rows);
    });
  }

  /** The reports of the launches named, as JSON text (see reportText), in that order (one not recorded: left out). */
  reportTexts(ids: readonly string[]): string[] {
    return this.guard(() => {
      if (!ids.length) return [];
      const rows = this.prep(
        'SELECT id, report, config FROM launches WHERE id IN (SELECT value FROM json_each(?))',
      ).all(JSON.stringify(ids)) as Array<{ id: string; report: string; config: string }>;
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.flatMap((id) => {
        const r = byId.get(id);
        return r ? [reportText(r.report, r.config)] : [];
      });
    });
  }

  /** The launches named, in that order (one not recorded is left out). */
  getLaunches(ids: readonly string[]): LaunchRecord[] {
    return this.guard(() => {
      if (!ids.length) return [];
      const got = this.launches('WHERE id IN (SELECT value FROM json_each(?))', JSON.stringify(ids));
      const byId = new Map(got.map((r) => [r.id, r]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    });
  }

  // ---- launches

  /**
   * Returns the records as kept: a launch already recorded from another path, a copy or a replay (same
   * fingerprint) keeps that record's id, so every id printed is one `show` finds.
   */
  upsertLaunches(recs: LaunchRecord[]): LaunchRecord[] {
    return this.guard(() => this.db.transaction(() => this.writeLaunches(recs)).immediate());
  }

  /**
   * The record this launch already has under another id: same fingerprint, a config hash that does not
   * disagree, and the same first pid where both logs name one (twin servers started in the same second on two
   * hosts print the same first line, rarely the same pid). Null when it is new or already known by its id.
   */
  private twinOf(w: LaunchWrite): Held | null {
    const r = w.row;
    if (r.fingerprint === null) return null;
    if (this.prep('SELECT 1 FROM launches WHERE id = ?').get(r.id)) return null;
    const rows = this.prep(
      `SELECT id, host, path, ${SEEN_SQL}, report -> '$.pids[0]' AS pid0
         FROM launches WHERE fingerprint = ? AND (config_hash IS NULL OR ? IS NULL OR config_hash = ?)
           -- Two places in one file are two launches, however alike.
           AND NOT (host = ? AND path = ? AND file_id IS ? AND start_offset <> ?)
         ORDER BY first_seen, id`,
    ).all(r.fingerprint, r.config_hash, r.config_hash, r.host, r.path, r.file_id, r.start_offset) as Array<
      HeldRow & { pid0: string | null }
    >;
    const pid = w.pid0;
    const hit = rows.find((t) => t.pid0 === null || pid === null || Number(t.pid0) === pid);
    return hit ? heldOf(hit) : null;
  }

  /** What the reading a record was made from saw (see sawMore). */
  private seenOf(id: string): Seen {
    return seenOfRow(this.prep(`SELECT ${SEEN_SQL} FROM launches WHERE id = ?`).get(id) as SeenRow);
  }

  /** Keeps when the launch was first seen, and what `firedup launch` intended unless this record knows it. */
  private writeLaunches(recs: LaunchRecord[]): LaunchRecord[] {
    const ws = recs.map(launchWrite);
    const ids = this.writeRows(ws);
    return recs.map((r, i) => ({ ...r, fingerprint: ws[i]!.row.fingerprint, id: ids[i]! }));
  }

  /**
   * For the connection of a writer of many launches in a row (bulk-writer.ts): the log (WAL) is moved into the
   * database every 4000 pages (64 MB), not every 1000, which cuts what its commits cost by about a third (fewer
   * checkpoints, each with its syncs, and a page written by several batches moved once). Durability is the
   * same: a commit is in the WAL either way.
   */
  forBulkWrites(): void {
    this.guard(() => this.db.pragma('wal_autocheckpoint = 4000'));
  }

  /**
   * As upsertLaunches, of launches made ready to write by another thread (see bulk-writer.ts), in a transaction
   * left open until `commitWrites`: the writer's thread writes the parts of a batch as they come and commits the
   * batch once. Each commit rewrites every page its launches touched, and
   * the random keys (ids, fingerprints) touch most pages of their indexes: the fewer commits, the less written.
   */
  writeOpen(ws: LaunchWrite[]): void {
    this.guard(() => {
      if (!this.db.inTransaction) this.db.exec('BEGIN IMMEDIATE');
      this.writeRows(ws);
    });
  }

  /** Commits what `writeOpen` wrote. */
  commitWrites(): void {
    this.guard(() => {
      if (this.db.inTransaction) this.db.exec('COMMIT');
    });
  }

  /** Drops what `writeOpen` wrote since the last commit (after a failure: nothing of the batch is kept). */
  rollbackWrites(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
  }

  /** Writes the launches; returns the id each is kept under. */
  private writeRows(ws: LaunchWrite[]): string[] {
    if (!ws.length) return [];
    const stmt = this.prep(
      `INSERT INTO launches (id, host, path, file_id, start_offset, start_line, start_ts, end_ts, pid, engine,
         version, model, port, outcome, phase, failure_class, config_hash, load_seconds, peak_tok_s, median_tok_s,
         report, config, intended, first_seen, updated_at, summary, fingerprint, machine, user_name)
       VALUES (@id, @host, @path, @file_id, @start_offset, @start_line, @start_ts, @end_ts, @pid, @engine,
         @version, @model, @port, @outcome, @phase, @failure_class, @config_hash, @load_seconds, @peak_tok_s,
         @median_tok_s, @report, @config, @intended, @first_seen, @updated_at, @summary, @fingerprint, @machine,
         @user_name)
       ON CONFLICT (id) DO UPDATE SET host = excluded.host, path = excluded.path, file_id = excluded.file_id,
         machine = coalesce(launches.machine, excluded.machine),
         user_name = coalesce(launches.user_name, excluded.user_name),
         start_offset = excluded.start_offset, start_line = excluded.start_line,
         start_ts = coalesce(excluded.start_ts, launches.start_ts),
         end_ts = excluded.end_ts, pid = coalesce(excluded.pid, launches.pid), engine = excluded.engine, version = excluded.version,
         model = coalesce(excluded.model, launches.model), port = coalesce(excluded.port, launches.port), outcome = excluded.outcome, phase = excluded.phase,
         failure_class = excluded.failure_class, config_hash = excluded.config_hash,
         load_seconds = excluded.load_seconds, peak_tok_s = excluded.peak_tok_s,
         median_tok_s = excluded.median_tok_s, report = excluded.report, config = excluded.config,
         intended = coalesce(excluded.intended, launches.intended), updated_at = excluded.updated_at,
         summary = excluded.summary, fingerprint = excluded.fingerprint,
         -- A kept live verdict (stalled, dead) stands until the log moves on: progress, a phase, an outcome.
         live = CASE WHEN ${MOVED} THEN NULL ELSE launches.live END,
         live_state = CASE WHEN ${MOVED} THEN NULL ELSE launches.live_state END
       WHERE ${KEEPS_NODES}`,
    );
    const elsewhereSeen = this.prep(
      `INSERT INTO launch_paths (launch_id, host, path, file_id, start_offset, start_line, first_seen, last_seen)
       VALUES (?, ?, ?, NULL, ?, ?, ?, ?) ON CONFLICT (launch_id, host, path) DO NOTHING`,
    );
    // Most launches written are new ones of one file: two queries for the batch tell which may have a twin,
    // instead of two for each launch. Each one written joins them: a batch may hold twins (`ledger push`).
    const known = new Map(
      (
        this.prep('SELECT id, host, path FROM launches WHERE id IN (SELECT value FROM json_each(?))').all(
          JSON.stringify(ws.map((w) => w.row.id)),
        ) as Held[]
      ).map((h) => [h.id, h as Held]),
    );
    const prints = new Set(
      this.prep('SELECT fingerprint FROM launches WHERE fingerprint IN (SELECT value FROM json_each(?))')
        .pluck()
        .all(JSON.stringify(ws.flatMap((w) => w.row.fingerprint ?? []))) as string[],
    );
    const kept: string[] = [];
    for (const w of ws) {
      const r = w.row;
      const maybeTwin = r.fingerprint !== null && prints.has(r.fingerprint) && !known.has(r.id);
      // Kept under its own id, a twin's (the same launch read elsewhere first), or new.
      const held = known.get(r.id) ?? (maybeTwin ? this.twinOf(w) : null);
      const id = held ? held.id : r.id;
      // The record was last made from another place's reading (its id may be this place's: read here first):
      // this reading replaces it only if it saw more. The same place read again is the file as it is now.
      const elsewhere = held !== null && (held.host !== r.host || held.path !== r.path);
      const seen = seenOfWrite(w);
      if (!elsewhere || sawMore(seen, held.seen ?? this.seenOf(id))) {
        stmt.run(id === r.id ? r : { ...r, id });
        known.set(id, { id, host: r.host, path: r.path, seen });
      }
      this.prep(SEEN_PLACE).run(
        id,
        r.host,
        r.path,
        r.file_id,
        r.start_offset,
        r.start_line,
        r.first_seen,
        r.updated_at,
      );
      if (r.fingerprint !== null) prints.add(r.fingerprint);
      // The other places a record read from a ledger knows (`ledger push`): kept, never moved back in time.
      for (const p of w.others)
        elsewhereSeen.run(id, p.host, p.path, p.startOffset, p.startLine, p.lastSeen, p.lastSeen);
      kept.push(id);
    }
    return kept;
  }

  /** The id this launch is kept under (its own, or its twin's from another path), or null when not recorded. */
  keptId(r: LaunchRecord): string | null {
    return this.guard(() => {
      if (this.db.prepare('SELECT 1 FROM launches WHERE id = ?').get(r.id)) return r.id;
      // the record's fingerprint as given, as the twin is looked for when it is written
      const w = launchWrite(r);
      return this.twinOf({ ...w, row: { ...w.row, fingerprint: r.fingerprint } })?.id ?? null;
    });
  }

  /** Keeps the live verdict of a launch (null: the last look found nothing more than the log says). */
  setLive(id: string, mark: LiveMark | null): void {
    this.guard(() =>
      this.db
        .prepare(`UPDATE launches SET live = ?, live_state = ? WHERE id = ? AND ${KEEPS_FINAL_LIVE}`)
        .run(mark ? JSON.stringify(mark) : null, mark?.state ?? null, id, mark?.final ? 1 : 0),
    );
  }

  /** Ids of the launches read at a path (as their own path or a copy's). */
  launchIdsAt(key: LogKey): string[] {
    return this.guard(() =>
      (
        this.db
          .prepare(
            `SELECT id FROM launches WHERE host = ? AND path = ?
             UNION SELECT launch_id FROM launch_paths WHERE host = ? AND path = ?`,
          )
          .all(key.host, key.path, key.host, key.path) as Array<{ id: string }>
      ).map((r) => r.id),
    );
  }

  /**
   * Removes launches with their benches and places; with `log`, also where reading that file stopped, so
   * the next read starts afresh instead of resuming past what was forgotten.
   */
  forget(ids: readonly string[], log?: LogKey): { launches: number; benches: number } {
    return this.guard(() =>
      this.db
        .transaction(() => {
          const list = JSON.stringify(ids);
          const { n } = this.db
            .prepare('SELECT count(*) AS n FROM benches WHERE launch_id IN (SELECT value FROM json_each(?))')
            .get(list) as { n: number };
          // Explicitly, not by ON DELETE CASCADE: that needs foreign_keys on, which a ledger opened by an
          // older firedup or the sqlite3 shell may not have had.
          for (const t of ['benches', 'launch_paths'])
            this.db.prepare(`DELETE FROM ${t} WHERE launch_id IN (SELECT value FROM json_each(?))`).run(list);
          const info = this.db
            .prepare('DELETE FROM launches WHERE id IN (SELECT value FROM json_each(?))')
            .run(list);
          if (log) this.db.prepare('DELETE FROM logs WHERE host = ? AND path = ?').run(log.host, log.path);
          return { launches: info.changes, benches: n };
        })
        .immediate(),
    );
  }

  /**
   * Forgets one place (`forget --path`): where reading it stopped, and its place on every launch read there. A
   * launch also read at another place (a copy, the original) stays, its record made from there if it was made
   * from this one; the others go, with their benches. Returns the launches forgotten and those kept.
   */
  forgetPlace(log: LogKey): PlaceForgotten {
    return this.guard(() =>
      this.db
        .transaction(() => {
          const ids = this.launchIdsAt(log);
          const list = JSON.stringify(ids);
          const kept = this.db
            .prepare(
              `SELECT DISTINCT launch_id FROM launch_paths WHERE launch_id IN (SELECT value FROM json_each(?))
                 AND NOT (host = ? AND path = ?)`,
            )
            .pluck()
            .all(list, log.host, log.path) as string[];
          const keep = new Set(kept);
          const gone = ids.filter((id) => !keep.has(id));
          const n = gone.length ? this.forget(gone) : { launches: 0, benches: 0 };
          this.db
            .prepare(
              'DELETE FROM launch_paths WHERE host = ? AND path = ? AND launch_id IN (SELECT value FROM json_each(?))',
            )
            .run(log.host, log.path, JSON.stringify(kept));
          // A record made from this place is made from the place it was read at last of those left.
          this.db
            .prepare(
              `UPDATE launches SET (host, path, file_id, start_offset, start_line) = (
                 SELECT p.host, p.path, p.file_id, p.start_offset, p.start_line FROM launch_paths AS p
                 WHERE p.launch_id = launches.id ORDER BY p.last_seen DESC, p.rowid DESC LIMIT 1)
               WHERE host = ? AND path = ? AND id IN (SELECT value FROM json_each(?))`,
            )
            .run(log.host, log.path, JSON.stringify(kept));
          this.db.prepare('DELETE FROM logs WHERE host = ? AND path = ?').run(log.host, log.path);
          return { forgotten: gone, launches: n.launches, benches: n.benches, kept };
        })
        .immediate(),
    );
  }

  getLaunch(id: string): LaunchRecord | null {
    return this.guard(() => this.launches('WHERE id = ?', id)[0] ?? null);
  }

  /** A launch the user named: its id, a unique prefix of 4+ hex characters, `last` or `last~N`. */
  resolve(ref: string): LaunchRecord {
    return this.guard(() => {
      const want = ref.trim().toLowerCase();
      const back = /^last(?:~(\d+))?$/.exec(want);
      if (back) {
        const n = Number(back[1] ?? 0);
        // Past SQLite's integers (`last~99999999999999999999`) no launch can be that far back.
        const hit = Number.isSafeInteger(n)
          ? this.launches(`${NEWEST_FIRST} LIMIT 1 OFFSET ?`, n)[0]
          : undefined;
        if (hit) return hit;
        const { count } = this.db.prepare('SELECT count(*) AS count FROM launches').get() as {
          count: number;
        };
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
      // The candidates' ids first, then the one record: sorting whole rows would copy every report (a
      // 100,000-point series is megabytes) through SQLite's sorter.
      const hits = (
        this.db
          .prepare(
            `SELECT id, model, start_ts, first_seen FROM launches WHERE id GLOB ? ${NEWEST_FIRST} LIMIT 6`,
          )
          .all(`${want}*`) as Array<Pick<LaunchRow, 'id' | 'model' | 'start_ts' | 'first_seen'>>
      ).map((h) => ({ id: h.id, model: h.model, startTs: h.start_ts, firstSeen: h.first_seen }));
      if (hits.length === 1) {
        const one = this.launches('WHERE id = ?', hits[0]!.id)[0];
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

  /** Newest first. */
  list(filter: LaunchFilter = {}): LaunchRecord[] {
    const { sql, params } = filterSql(filter);
    return this.guard(() => this.launches(sql, ...params));
  }

  /**
   * As list(), without the reports: each launch's columns plus the phases (no log lines), key flags and
   * failure class and message a list row shows, read from the summary column. No report is parsed.
   */
  listItems(filter: LaunchFilter = {}): LaunchListItem[] {
    const { sql, params } = filterSql(filter);
    return this.guard(() => {
      const rows = this.db
        .prepare(`SELECT ${LIST_COLUMNS} FROM launches ${sql}`)
        .all(...params) as LaunchListRow[];
      const paths = this.pathsOf(rows.map((r) => r.id));
      return rows.map((r) => listItemFromRow(r, paths.get(r.id)));
    });
  }

  /** How many launches the filter keeps, whatever its limit and offset. */
  countLaunches(filter: LaunchFilter = {}): number {
    const { sql, params } = whereSql(filter, SQLITE_FILTERS);
    return this.guard(
      () => (this.db.prepare(`SELECT count(*) AS n FROM launches ${sql}`).get(...params) as { n: number }).n,
    );
  }

  /** The models, hosts and states recorded, each sorted and at most FACET_LIMIT long. */
  launchFacets(): LaunchFacets {
    const col = (expr: string): string[] =>
      (
        this.db
          .prepare(
            `SELECT DISTINCT ${expr} AS v FROM launches WHERE ${expr} IS NOT NULL ORDER BY v LIMIT ${FACET_LIMIT}`,
          )
          .all() as Array<{ v: string }>
      ).map((r) => r.v);
    return this.guard(() => ({ models: col('model'), hosts: col('host'), states: col(`(${STATE_SQL})`) }));
  }

  /** Earlier launches of the same kind, newest first; without a config hash, any config of that model. */
  history(key: HistoryKey, beforeTs?: number, limit = 20): LaunchRecord[] {
    const conds = ['model IS ?', 'engine IS ?', 'host = ?'];
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

  attachBench(id: number, launchId: string): BenchRecord | null {
    return this.guard(() =>
      this.db
        .transaction(() => {
          if (!this.db.prepare('SELECT 1 FROM launches WHERE id = ?').get(launchId))
            throw new LedgerError('not_found', `no launch ${launchId}; list them with \`firedup runs\``);
          const row = this.db.prepare('SELECT * FROM benches WHERE id = ?').get(id) as
            | (BenchRow & { fingerprint: string })
            | undefined;
          if (!row) return null;
          if (
            row.launch_id !== launchId &&
            this.db
              .prepare('SELECT 1 FROM benches WHERE launch_id = ? AND fingerprint = ?')
              .get(launchId, row.fingerprint)
          )
            throw new LedgerError(
              'ambiguous',
              `launch ${launchId} already holds the same result as bench #${id}`,
            );
          this.db
            .prepare('UPDATE benches SET launch_id = ?, unattached = NULL WHERE id = ?')
            .run(launchId, id);
          return benchFromRow({ ...row, launch_id: launchId });
        })
        .immediate(),
    );
  }

  /** Keeps a result no launch matched, with why; the same result kept before is not added twice. */
  keepUnattached(r: BenchResult, why: string): { record: BenchRecord; added: boolean } {
    return this.guard(() =>
      this.db
        .transaction(() => {
          const info = this.db
            .prepare(
              `INSERT OR IGNORE INTO benches (launch_id, fingerprint, finished_at, imported_at, result, unattached,
                 machine, user_name) VALUES (NULL, ?, ?, ?, ?, ?, ?, ?)`,
            )
            .run(r.fingerprint, r.finishedAt, now(), JSON.stringify(r), why, thisMachine(), thisUser());
          const row = this.db
            .prepare('SELECT * FROM benches WHERE launch_id IS NULL AND fingerprint = ?')
            .get(r.fingerprint) as BenchRow;
          return { record: benchFromRow(row), added: info.changes === 1 };
        })
        .immediate(),
    );
  }

  /** Takes bench `id` off its launch, kept with why; null when there is no such bench. */
  detachBench(id: number, why: string): BenchRecord | null {
    return this.guard(() =>
      this.db
        .transaction(() => {
          const row = this.db.prepare('SELECT * FROM benches WHERE id = ?').get(id) as
            | (BenchRow & { fingerprint: string })
            | undefined;
          if (!row) return null;
          if (row.launch_id === null) return benchFromRow(row);
          const twin = this.db
            .prepare('SELECT id FROM benches WHERE launch_id IS NULL AND fingerprint = ?')
            .get(row.fingerprint) as { id: number } | undefined;
          if (twin)
            throw new LedgerError(
              'ambiguous',
              `the same result is already kept unattached as bench #${twin.id}; remove one (firedup bench rm N)`,
            );
          this.db.prepare('UPDATE benches SET launch_id = NULL, unattached = ? WHERE id = ?').run(why, id);
          return benchFromRow({ ...row, launch_id: null, unattached: why });
        })
        .immediate(),
    );
  }

  /** The benches no launch holds, oldest first. */
  unattachedBenches(): BenchRecord[] {
    return this.guard(() =>
      (
        this.db
          .prepare(
            'SELECT * FROM benches WHERE launch_id IS NULL ORDER BY coalesce(finished_at, imported_at), id',
          )
          .all() as BenchRow[]
      ).map(benchFromRow),
    );
  }

  /** Adds a note, or adds or removes a tag, on launch `id`; the launch as it is now. */
  annotate(id: string, change: Annotation): LaunchRecord {
    return this.guard(() =>
      this.db
        .transaction(() => {
          const row = this.db.prepare('SELECT notes, tags FROM launches WHERE id = ?').get(id) as
            | { notes: string | null; tags: string | null }
            | undefined;
          if (!row) throw new LedgerError('not_found', `no launch ${id}; list them with \`firedup runs\``);
          const { notes, tags } = annotated(row, change);
          this.db.prepare('UPDATE launches SET notes = ?, tags = ? WHERE id = ?').run(notes, tags, id);
          return this.launches('WHERE id = ?', id)[0]!;
        })
        .immediate(),
    );
  }

  removeBench(id: number): boolean {
    return this.guard(() => this.db.prepare('DELETE FROM benches WHERE id = ?').run(id).changes === 1);
  }

  /** Attaches a result to a launch; the same result (fingerprint) imported again is not added twice. */
  addBench(launchId: string, r: BenchResult): { record: BenchRecord; added: boolean } {
    return this.guard(() =>
      this.db
        .transaction(() => {
          if (!this.db.prepare('SELECT 1 FROM launches WHERE id = ?').get(launchId))
            throw new LedgerError(
              'not_found',
              `no launch ${launchId} to attach the benchmark to; list them with \`firedup runs\``,
            );
          const info = this.db
            .prepare(
              `INSERT OR IGNORE INTO benches (launch_id, fingerprint, finished_at, imported_at, result)
               VALUES (?, ?, ?, ?, ?)`,
            )
            .run(launchId, r.fingerprint, r.finishedAt, now(), JSON.stringify(r));
          const row = this.db
            .prepare('SELECT * FROM benches WHERE launch_id = ? AND fingerprint = ?')
            .get(launchId, r.fingerprint) as BenchRow;
          return { record: benchFromRow(row), added: info.changes === 1 };
        })
        .immediate(),
    );
  }

  benches(launchId: string): BenchRecord[] {
    return this.guard(() =>
      (
        this.db
          .prepare(
            'SELECT * FROM benches WHERE launch_id = ? ORDER BY coalesce(finished_at, imported_at), id',
          )
          .all(launchId) as BenchRow[]
      ).map(benchFromRow),
    );
  }

  /** benches() of each launch named, in one query: launch id → its runs, in the same order (absent: none). */
  benchesOf(launchIds: readonly string[]): Map<string, BenchRecord[]> {
    return this.guard(() => {
      const out = new Map<string, BenchRecord[]>();
      if (!launchIds.length) return out;
      const rows = this.db
        .prepare(
          `SELECT * FROM benches WHERE launch_id IN (SELECT value FROM json_each(?))
           ORDER BY coalesce(finished_at, imported_at), id`,
        )
        .all(JSON.stringify(launchIds)) as BenchRow[];
      for (const row of rows) {
        const b = benchFromRow(row);
        const list = out.get(b.launchId!);
        if (list) list.push(b);
        else out.set(b.launchId!, [b]);
      }
      return out;
    });
  }

  /**
   * The launch that was up on `host` (and `port`, when both sides know it) at `ts`: started by then, and
   * ended after it or never seen ending; the latest start wins. A launch on the same port that started
   * later (by `ts`) replaced it, unless that one failed for the port being taken.
   */
  servingAt(host: string, port: number | null, ts: number): LaunchRecord | null {
    return this.guard(
      () =>
        this.launches(
          // An `ended` launch that got ready served until something killed it, at the latest when the next
          // launch on its port started (the NOT EXISTS below).
          `WHERE ${MACHINE_SQL} = ? AND start_ts <= ? AND (end_ts >= ? OR outcome IN ('serving', 'ready')
             OR (outcome = 'ended' AND phase IN ('ready', 'serving')))
             AND (? IS NULL OR ${LAUNCH_PORT_SQL} = ?)
             AND NOT EXISTS (SELECT 1 FROM launches AS later WHERE later.host = launches.host
               AND later.port = launches.port AND later.start_ts > launches.start_ts AND later.start_ts <= ?
               AND later.failure_class IS NOT 'port_in_use')
           ORDER BY start_ts DESC, id DESC LIMIT 1`,
          thisMachine(),
          machineOf(host),
          ts,
          ts,
          port,
          port,
          ts,
        )[0] ?? null,
    );
  }

  // ---- sweeps (src/store/sweeps.ts)

  openSweepPoint(p: sweeps.NewSweepPoint): SweepPointRecord {
    return this.guard(() => sweeps.openPoint(this.db, p));
  }

  updateSweepPoint(id: number, u: sweeps.PointUpdate): void {
    this.guard(() => sweeps.updatePoint(this.db, id, u));
  }

  sweepPoints(sweep: string): SweepPointRecord[] {
    return this.guard(() => sweeps.pointsOf(this.db, sweep));
  }

  sweeps(): ReturnType<typeof sweeps.sweepList> {
    return this.guard(() => sweeps.sweepList(this.db));
  }

  closeStaleSweepPoints(sweep: string): number {
    return this.guard(() => sweeps.closeStale(this.db, sweep, now()));
  }

  // ---- targets

  /** The target, new or as it was already recorded for that model and expression. */
  addTarget(t: Omit<TargetRecord, 'id'>): TargetRecord {
    return this.guard(() =>
      this.db
        .transaction(() => {
          this.db
            .prepare('INSERT OR IGNORE INTO targets (model, metric, op, value, expr) VALUES (?, ?, ?, ?, ?)')
            .run(t.model, t.metric, t.op, t.value, t.expr);
          const row = this.db
            .prepare("SELECT * FROM targets WHERE coalesce(model, '') = coalesce(?, '') AND expr = ?")
            .get(t.model, t.expr) as TargetRow;
          return targetFromRow(row);
        })
        .immediate(),
    );
  }

  /** All targets when `model` is undefined; else the global ones and that model's. */
  targets(model?: string | null): TargetRecord[] {
    return this.guard(() => {
      const rows =
        model === undefined
          ? this.db.prepare('SELECT * FROM targets ORDER BY id').all()
          : this.db.prepare('SELECT * FROM targets WHERE model IS NULL OR model = ? ORDER BY id').all(model);
      return (rows as TargetRow[]).map(targetFromRow);
    });
  }

  removeTarget(id: number): boolean {
    return this.guard(() => this.db.prepare('DELETE FROM targets WHERE id = ?').run(id).changes > 0);
  }
}
