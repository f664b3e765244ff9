/**
 * list()'s filters as SQL, for both ledgers: the clauses are the same; what differs by dialect (matching a
 * model name without case, a config field against what the user typed) comes in a `FilterDialect`.
 */
import { MACHINE_SQL, machineOf, thisMachine } from './identity.js';
import { type LaunchFilter, LedgerError } from './types.js';

/** Newest first: by the log's own start time, else when firedup first saw the launch. */
export const NEWEST_FIRST = 'ORDER BY coalesce(start_ts, first_seen) DESC, id DESC';
/**
 * The launch's state (src/core/launch-state.ts, launchState) in SQL, for `--outcome`: the live verdict kept
 * where the log leaves the launch open. The two must say the same.
 */
export const STATE_SQL = `CASE WHEN outcome IN ('in_progress', 'ready', 'serving') AND live_state IN ('stalled', 'dead', 'exited')
  THEN live_state ELSE outcome END`;
/** Bounds on what one query may ask: past them it is a typo or an attack, not a question. */
export const MAX_WHERE = 64;
export const MAX_ROWS = 1_000_000;

export interface FilterDialect {
  /** True when the model column contains the one parameter, ignoring case. */
  modelContains: string;
  /** The SQL that matches a config field (any of `keys`) against what the user typed. */
  configMatch(keys: string[], value: string): { sql: string; params: unknown[] };
}

/** WHERE, order (newest first) and LIMIT of list() and listItems(), with `?` placeholders. */
export function filterSql(filter: LaunchFilter, d: FilterDialect): { sql: string; params: unknown[] } {
  const conds: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...p: unknown[]) => {
    conds.push(sql);
    params.push(...p);
  };
  if (filter.model !== undefined) add(d.modelContains, filter.model);
  // The machine it ran on, or the log's host as given (an ssh alias); `localhost` is this machine.
  if (filter.host !== undefined)
    add(`(${MACHINE_SQL} = ? OR host = ?)`, thisMachine(), machineOf(filter.host), filter.host);
  if (filter.outcome !== undefined) add(`${STATE_SQL} = ?`, filter.outcome);
  if (filter.path !== undefined)
    add(
      '(path = ? OR EXISTS (SELECT 1 FROM launch_paths AS p WHERE p.launch_id = launches.id AND p.path = ?))',
      filter.path,
      filter.path,
    );
  if (filter.since !== undefined) add('coalesce(start_ts, first_seen) >= ?', filter.since);
  // Each filter is a subquery: a bounded number keeps every query within the database's limits.
  if ((filter.where?.length ?? 0) > MAX_WHERE)
    throw new LedgerError(
      'bad_filter',
      `at most ${MAX_WHERE} --where filters at once (${filter.where!.length} given)`,
    );
  for (const w of filter.where ?? []) {
    const m = d.configMatch(w.keys?.length ? w.keys : [w.key], w.value);
    add(m.sql, ...m.params);
  }
  const where = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
  const limit =
    filter.limit !== undefined && filter.limit >= 0
      ? ` LIMIT ${Math.min(Math.floor(filter.limit), MAX_ROWS)}`
      : '';
  return { sql: `${where} ${NEWEST_FIRST}${limit}`, params };
}
