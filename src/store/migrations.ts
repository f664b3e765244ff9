/**
 * The ledger's schema, as numbered steps. `PRAGMA user_version` says how many have been applied; a step is
 * never edited once released, a change is a new step. `PRAGMA application_id` marks the file as firedup's,
 * so a ledger path pointing at somebody else's SQLite database is refused instead of written into.
 */
import type Database from 'better-sqlite3';
import { launchFingerprint } from './record.js';

/** 'FDUP' in ASCII. */
export const APPLICATION_ID = 0x46445550;

/** Tables the ledger creates: anything else in a file means it is not (only) ours. */
export const LEDGER_TABLES = new Set([
  'logs',
  'launches',
  'benches',
  'targets',
  'launch_paths',
  'sweep_points',
]);

export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE logs (
    id INTEGER PRIMARY KEY,
    host TEXT NOT NULL,
    path TEXT NOT NULL,
    file_id TEXT,
    head_hash TEXT,
    head_len INTEGER NOT NULL DEFAULT 0,
    offset INTEGER NOT NULL DEFAULT 0,
    lines INTEGER NOT NULL DEFAULT 0,
    checkpoint BLOB,
    updated_at REAL NOT NULL,
    UNIQUE (host, path)
  );
  CREATE TABLE launches (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    path TEXT NOT NULL,
    file_id TEXT,
    start_offset INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    start_ts REAL,
    end_ts REAL,
    pid INTEGER,
    engine TEXT,
    version TEXT,
    model TEXT,
    port INTEGER,
    outcome TEXT NOT NULL,
    phase TEXT,
    failure_class TEXT,
    config_hash TEXT,
    load_seconds REAL,
    peak_tok_s REAL,
    median_tok_s REAL,
    -- The report without its config, which has a column of its own for json_each in filters.
    report TEXT NOT NULL,
    config TEXT NOT NULL,
    intended TEXT,
    first_seen REAL NOT NULL,
    updated_at REAL NOT NULL
  );
  CREATE INDEX launches_by_time ON launches (coalesce(start_ts, first_seen), id);
  CREATE INDEX launches_by_host ON launches (host, start_ts);
  CREATE INDEX launches_by_model ON launches (model);
  CREATE INDEX launches_by_outcome ON launches (outcome);
  CREATE INDEX launches_by_config ON launches (config_hash);
  CREATE INDEX launches_by_path ON launches (path);
  CREATE TABLE benches (
    id INTEGER PRIMARY KEY,
    launch_id TEXT NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    finished_at REAL,
    imported_at REAL NOT NULL,
    result TEXT NOT NULL,
    UNIQUE (launch_id, fingerprint)
  );
  CREATE TABLE targets (
    id INTEGER PRIMARY KEY,
    model TEXT,
    metric TEXT NOT NULL,
    op TEXT NOT NULL,
    value REAL NOT NULL,
    expr TEXT NOT NULL
  );
  -- A global target has no model; NULLs are distinct in a plain UNIQUE, so index the coalesced value.
  CREATE UNIQUE INDEX targets_by_model_expr ON targets (coalesce(model, ''), expr);
  `,
  // 2: what a list row shows of the report (phases without their lines, the key flags, the failure's class
  // and message), so listing launches parses none of the reports. Written with every upsert (launchRow);
  // here filled in for the launches already recorded. `->` keeps numbers as they were written.
  `
  ALTER TABLE launches ADD COLUMN summary TEXT;
  UPDATE launches SET summary = json_object(
    'phases', coalesce(
      (SELECT json_group_array(json_object('phase', p.value -> '$.phase', 'at', p.value -> '$.at',
          'duration', p.value -> '$.duration'))
        FROM json_each(launches.report, '$.phases') AS p),
      json_array()),
    'configSummary', coalesce(report -> '$.configSummary', json_object()),
    'failure', CASE WHEN json_type(report, '$.failure') = 'object'
      THEN json_object('class', report -> '$.failure.class', 'message', report -> '$.failure.message') END
  );
  `,
  // 3: one launch however often it is read. `fingerprint` (start time and first line, see record.ts) finds the
  // same launch read at another path, a copy or a replay; `launch_paths` keeps every place it was read at.
  // `live` keeps the last live verdict that said more than the log (stalled, dead, exited), `live_state` its
  // state for filters. A launch followed in its file by another one without a crash or shutdown is `ended`.
  `
  ALTER TABLE launches ADD COLUMN fingerprint TEXT;
  ALTER TABLE launches ADD COLUMN live_state TEXT;
  ALTER TABLE launches ADD COLUMN live TEXT;
  CREATE INDEX launches_by_fingerprint ON launches (fingerprint);
  CREATE TABLE launch_paths (
    launch_id TEXT NOT NULL REFERENCES launches (id) ON DELETE CASCADE,
    host TEXT NOT NULL,
    path TEXT NOT NULL,
    file_id TEXT,
    start_offset INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    PRIMARY KEY (launch_id, host, path)
  );
  CREATE INDEX launch_paths_by_path ON launch_paths (host, path);
  INSERT INTO launch_paths (launch_id, host, path, file_id, start_offset, start_line, first_seen, last_seen)
    SELECT id, host, path, file_id, start_offset, start_line, first_seen, updated_at FROM launches;
  UPDATE launches SET outcome = 'ended', report = json_set(report, '$.outcome', 'ended')
    WHERE outcome IN ('in_progress', 'ready', 'serving') AND EXISTS (SELECT 1 FROM launches AS later
      WHERE later.host = launches.host AND later.path = launches.path AND later.file_id IS launches.file_id
        AND later.start_offset > launches.start_offset);
  `,
  // The bytes just before the offset reached: a file rewritten past its head (truncated in place, then the
  // same first 64 KiB written again) changes them, and is read afresh instead of resumed mid-nowhere.
  `ALTER TABLE logs ADD COLUMN tail_hash TEXT;`,
  // 5: `firedup sweep`: one row per run of a point (a grid value set), whatever became of it — a crash before
  // any log line has no launch, so the point is its own row rather than a field of a launch. `point_hash` (the
  // resolved command and bench plan) is what `--resume` skips on; `run` keeps repeated runs of a point apart.
  // `launch_id` is plain text, not a foreign key: `forget` may drop the launch, the sweep's history stays.
  `
  CREATE TABLE sweep_points (
    id INTEGER PRIMARY KEY,
    sweep TEXT NOT NULL,
    point_hash TEXT NOT NULL,
    point_index INTEGER NOT NULL,
    run INTEGER NOT NULL,
    launch_id TEXT,
    status TEXT NOT NULL,
    flags TEXT NOT NULL,
    argv TEXT NOT NULL,
    plan TEXT NOT NULL,
    detail TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL,
    UNIQUE (sweep, point_hash, run)
  );
  CREATE INDEX sweep_points_by_sweep ON sweep_points (sweep, point_index, run);
  `,
  // 6: who and where (issue 24.9). `machine` is the host a launch ran on as people name it (the hostname for a
  // local log, the ssh host for a remote one) where `host` stays the log's place (`localhost`: a file of the
  // machine reading the ledger); `user_name` the account that recorded it. Older rows keep NULL, read as this
  // machine's when local (identity.ts MACHINE_SQL); `ledger push` names them. `notes` and `tags` (JSON arrays)
  // are the user's (`firedup note`, `firedup tag`). A bench no launch matched is kept with no launch and
  // `unattached` saying why (`bench attach` gives it one): SQLite cannot drop a NOT NULL, so the table is
  // rebuilt. One unattached copy per result: NULLs are distinct in the UNIQUE, hence the partial index.
  `
  ALTER TABLE launches ADD COLUMN machine TEXT;
  ALTER TABLE launches ADD COLUMN user_name TEXT;
  ALTER TABLE launches ADD COLUMN notes TEXT;
  ALTER TABLE launches ADD COLUMN tags TEXT;
  CREATE INDEX launches_by_machine ON launches (machine, start_ts);
  CREATE TABLE benches_v6 (
    id INTEGER PRIMARY KEY,
    launch_id TEXT REFERENCES launches (id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    finished_at REAL,
    imported_at REAL NOT NULL,
    result TEXT NOT NULL,
    unattached TEXT,
    machine TEXT,
    user_name TEXT,
    UNIQUE (launch_id, fingerprint)
  );
  INSERT INTO benches_v6 (id, launch_id, fingerprint, finished_at, imported_at, result)
    SELECT id, launch_id, fingerprint, finished_at, imported_at, result FROM benches;
  DROP TABLE benches;
  ALTER TABLE benches_v6 RENAME TO benches;
  CREATE UNIQUE INDEX benches_unattached ON benches (fingerprint) WHERE launch_id IS NULL;
  `,
];

/** Steps SQL cannot do alone, run after the step of that index in the same transaction. */
const BACKFILLS: Record<number, (db: Database.Database) => void> = {
  2: (db) => {
    const rows = db
      .prepare(
        "SELECT id, start_ts, report ->> '$.startText' AS text, report ->> '$.relativeTime' AS rel FROM launches WHERE start_ts IS NOT NULL",
      )
      .all() as Array<{ id: string; start_ts: number; text: string | null; rel: number | null }>;
    const set = db.prepare('UPDATE launches SET fingerprint = ? WHERE id = ?');
    for (const r of rows) set.run(launchFingerprint(r.start_ts, r.text ?? '', r.rel === 1), r.id);
  },
};

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Applies the missing steps, each in its own IMMEDIATE transaction that re-reads the version first: two
 * processes opening a fresh ledger at once each see the other's steps and skip them.
 */
export function migrate(db: Database.Database): void {
  for (let step = 0; step < MIGRATIONS.length; step++) {
    db.transaction(() => {
      if ((db.pragma('user_version', { simple: true }) as number) > step) return;
      db.exec(MIGRATIONS[step]!);
      BACKFILLS[step]?.(db);
      db.pragma(`user_version = ${step + 1}`);
    }).immediate();
  }
}
