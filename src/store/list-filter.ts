/**
 * list()'s filters as SQL, for both ledgers: the clauses are the same; what differs by dialect (matching a
 * model name without case, a config field against what the user typed) comes in a `FilterDialect`.
 */
import { STATE_ORDER } from '../core/base/types.js';
import { MACHINE_SQL, machineOf, thisMachine } from './identity.js';
import { type LaunchFilter, type LaunchSortKey, LedgerError, MAX_TERMS } from './types.js';

/** Newest first: by the log's own start time, else when firedup first saw the launch. */
export const NEWEST_FIRST = 'ORDER BY coalesce(start_ts, first_seen) DESC, id DESC';
/**
 * The launch's state (src/core/verdict/launch-state.ts, launchState) in SQL, for `--outcome`: the live verdict kept
 * where the log leaves the launch open. The two must say the same.
 */
export const STATE_SQL = `CASE WHEN outcome IN ('in_progress', 'ready', 'serving') AND live_state IN ('stalled', 'dead', 'exited')
  THEN live_state ELSE outcome END`;
/** Bounds on what one query may ask: past them it is a typo or an attack, not a question. */
export const MAX_WHERE = 64;
export const MAX_ROWS = 1_000_000;

/** At most this many values per filter list of the table (models, hosts): a select, not a report. */
export const FACET_LIMIT = 500;

/**
 * The launch's text a free-text term is looked for in (the table's search box): what a row shows, the key
 * flags and failure message (the summary JSON) included. Terms come lowercased.
 */
const SEARCH_TEXT = `lower(id || ' ' || host || ' ' || path || ' ' || coalesce(model, '') || ' ' || coalesce(engine, '')
  || ' ' || coalesce(${STATE_SQL}, '') || ' ' || coalesce(phase, '') || ' ' || coalesce(failure_class, '')
  || ' ' || coalesce(summary, ''))`;

export interface FilterDialect {
  /** True when the model column contains the one parameter, ignoring case. */
  modelContains: string;
  /** True when the one parameter (lowercase) occurs in SEARCH_TEXT, given as `%s`. */
  textContains: string;
  /** The output tok/s of the launch's latest bench (the table's `bench` column), or NULL. */
  benchOutput: string;
  /** The SQL that matches a config field (any of `keys`) against what the user typed. */
  configMatch(keys: string[], value: string): { sql: string; params: unknown[] };
}

/** The expression a table column sorts on; unknown values (NULL) sort last in either direction. */
function sortExpr(by: LaunchSortKey, d: FilterDialect): string {
  switch (by) {
    case 'start':
      return 'coalesce(start_ts, first_seen)';
    case 'id':
    case 'host':
    case 'model':
    case 'engine':
      return by;
    case 'outcome':
      return `CASE ${STATE_SQL} ${STATE_ORDER.map((s, i) => `WHEN '${s}' THEN ${i}`).join(' ')} ELSE ${STATE_ORDER.length} END`;
    case 'load':
      return 'load_seconds';
    case 'peak':
      return 'peak_tok_s';
    case 'median':
      return 'median_tok_s';
    case 'bench':
      return d.benchOutput;
  }
}

function orderSql(filter: LaunchFilter, d: FilterDialect): string {
  const s = filter.sort;
  if (!s || (s.by === 'start' && s.dir === 'desc')) return NEWEST_FIRST;
  const dir = s.dir === 'asc' ? 'ASC' : 'DESC';
  // The start time is never NULL (first_seen is not): the plain form lets the time index serve the page.
  if (s.by === 'start') return `ORDER BY coalesce(start_ts, first_seen) ${dir}, id ${dir}`;
  const e = sortExpr(s.by, d);
  return `ORDER BY (${e}) IS NULL, ${e} ${dir}, id ${dir}`;
}

/** The WHERE clause of list(), listItems() and countLaunches(), with `?` placeholders. */
export function whereSql(filter: LaunchFilter, d: FilterDialect): { sql: string; params: unknown[] } {
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
  if ((filter.text?.length ?? 0) > MAX_TERMS)
    throw new LedgerError(
      'bad_filter',
      `at most ${MAX_TERMS} search terms at once (${filter.text!.length} given)`,
    );
  for (const t of filter.text ?? []) add(d.textContains.replace('%s', SEARCH_TEXT), t.toLowerCase());
  return { sql: conds.length ? `WHERE ${conds.join(' AND ')}` : '', params };
}

/** WHERE, order (newest first unless `sort` says otherwise), LIMIT and OFFSET of list() and listItems(). */
export function filterSql(filter: LaunchFilter, d: FilterDialect): { sql: string; params: unknown[] } {
  const { sql: where, params } = whereSql(filter, d);
  const limit =
    filter.limit !== undefined && filter.limit >= 0
      ? ` LIMIT ${Math.min(Math.floor(filter.limit), MAX_ROWS)}`
      : '';
  const offset =
    limit && filter.offset !== undefined && filter.offset > 0 ? ` OFFSET ${Math.floor(filter.offset)}` : '';
  return { sql: `${where} ${orderSql(filter, d)}${limit}${offset}`, params };
}
