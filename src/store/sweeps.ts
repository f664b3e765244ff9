/**
 * The ledger's sweep rows (migration 5): a run of a point is opened as `running` before its server starts, and
 * closed with its status once it ends, so a sweep killed midway leaves at most one `running` row, which the
 * next sweep of that name marks `interrupted`.
 */
import type Database from 'better-sqlite3';
import type { SweepPointDetail, SweepPointRecord, SweepPointStatus } from './types.js';

export interface SweepRow {
  id: number;
  sweep: string;
  point_hash: string;
  point_index: number;
  run: number;
  launch_id: string | null;
  status: string;
  flags: string;
  argv: string;
  plan: string;
  detail: string;
  started_at: number;
  ended_at: number | null;
}

export function sweepFromRow(r: SweepRow): SweepPointRecord {
  return {
    id: r.id,
    sweep: r.sweep,
    pointHash: r.point_hash,
    pointIndex: r.point_index,
    run: r.run,
    launchId: r.launch_id,
    status: r.status as SweepPointStatus,
    flags: JSON.parse(r.flags),
    argv: JSON.parse(r.argv),
    plan: JSON.parse(r.plan),
    detail: JSON.parse(r.detail),
    startedAt: r.started_at,
    endedAt: r.ended_at,
  };
}

export type NewSweepPoint = Pick<
  SweepPointRecord,
  'sweep' | 'pointHash' | 'pointIndex' | 'flags' | 'argv' | 'plan' | 'startedAt'
>;

/** Opens the next run of the point (`running`); its run number is one more than the last one kept. */
export function openPoint(db: Database.Database, p: NewSweepPoint): SweepPointRecord {
  return db
    .transaction(() => {
      const last = db
        .prepare('SELECT max(run) AS n FROM sweep_points WHERE sweep = ? AND point_hash = ?')
        .get(p.sweep, p.pointHash) as { n: number | null };
      const info = db
        .prepare(
          `INSERT INTO sweep_points (sweep, point_hash, point_index, run, status, flags, argv, plan, detail, started_at)
           VALUES (?, ?, ?, ?, 'running', ?, ?, ?, '{}', ?)`,
        )
        .run(
          p.sweep,
          p.pointHash,
          p.pointIndex,
          (last.n ?? 0) + 1,
          JSON.stringify(p.flags),
          JSON.stringify(p.argv),
          JSON.stringify(p.plan),
          p.startedAt,
        );
      return sweepFromRow(
        db.prepare('SELECT * FROM sweep_points WHERE id = ?').get(info.lastInsertRowid) as SweepRow,
      );
    })
    .immediate();
}

export interface PointUpdate {
  status?: SweepPointStatus;
  launchId?: string | null;
  detail?: SweepPointDetail;
  endedAt?: number | null;
}

export function updatePoint(db: Database.Database, id: number, u: PointUpdate): void {
  const cols: Array<[string, unknown]> = [];
  if (u.status !== undefined) cols.push(['status', u.status]);
  if (u.launchId !== undefined) cols.push(['launch_id', u.launchId]);
  if (u.detail !== undefined) cols.push(['detail', JSON.stringify(u.detail)]);
  if (u.endedAt !== undefined) cols.push(['ended_at', u.endedAt]);
  const sets = cols.map(([c]) => `${c} = ?`);
  const args = cols.map(([, v]) => v);
  if (!sets.length) return;
  db.prepare(`UPDATE sweep_points SET ${sets.join(', ')} WHERE id = ?`).run(...args, id);
}

/** Every run of the sweep's points, by point then run. */
export function pointsOf(db: Database.Database, sweep: string): SweepPointRecord[] {
  return (
    db
      .prepare('SELECT * FROM sweep_points WHERE sweep = ? ORDER BY point_index, run, id')
      .all(sweep) as SweepRow[]
  ).map(sweepFromRow);
}

/** The sweeps kept, newest first, with their point and run counts. */
export function sweepList(
  db: Database.Database,
): Array<{ name: string; points: number; runs: number; startedAt: number; endedAt: number | null }> {
  return db
    .prepare(
      `SELECT sweep AS name, count(DISTINCT point_hash) AS points, count(*) AS runs,
           min(started_at) AS startedAt, max(ended_at) AS endedAt
         FROM sweep_points GROUP BY sweep ORDER BY max(started_at) DESC`,
    )
    .all() as Array<{
    name: string;
    points: number;
    runs: number;
    startedAt: number;
    endedAt: number | null;
  }>;
}

/** Runs left `running` by a sweep that died (killed -9, machine reboot): they are over, and interrupted. */
export function closeStale(db: Database.Database, sweep: string, now: number): number {
  return db
    .prepare(
      `UPDATE sweep_points SET status = 'interrupted', ended_at = ?,
         detail = json_set(detail, '$.cause', 'the sweep process ended before this point did')
       WHERE sweep = ? AND status = 'running'`,
    )
    .run(now, sweep).changes;
}
