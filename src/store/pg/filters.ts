/** list()'s filters in Postgres SQL (ledger.ts's filterSql, with jsonb where SQLite has json_each). */
import { MAX_ROWS, MAX_WHERE, NEWEST_FIRST, STATE_SQL } from '../ledger.js';
import { type LaunchFilter, LedgerError } from '../types.js';

/** The SQL that matches a config field against what the user typed, as SQLite's configMatch does. */
function configMatch(keys: string[], value: string): { sql: string; params: unknown[] } {
  const alts = ["(jsonb_typeof(c.value) = 'string' AND c.value #>> '{}' = ?)"];
  const params: unknown[] = [value];
  // An array or object typed as JSON matches the same JSON, however spaced.
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed !== null && typeof parsed === 'object') {
      alts.push("(jsonb_typeof(c.value) IN ('array', 'object') AND c.value = ?::jsonb)");
      params.push(JSON.stringify(parsed));
    }
  } catch {
    // Not JSON: only a string can match it.
  }
  const low = value.toLowerCase();
  // Python prints True/None; the parsed config holds JSON true/null.
  if (low === 'true' || low === 'false') alts.push(`c.value = '${low}'::jsonb`);
  if (low === 'null' || low === 'none') alts.push("jsonb_typeof(c.value) = 'null'");
  const n = Number(value);
  if (value.trim() !== '' && Number.isFinite(n)) {
    // Numerically, so 0.5 matches .5 and 1e-5 matches 0.00001.
    alts.push("(jsonb_typeof(c.value) = 'number' AND (c.value #>> '{}')::float8 = ?::float8)");
    params.push(n);
  }
  return {
    sql: `EXISTS (SELECT 1 FROM jsonb_each(CASE WHEN jsonb_typeof(launches.config::jsonb) = 'object' THEN launches.config::jsonb ELSE '{}'::jsonb END) AS c WHERE c.key = ANY(?::text[]) AND (${alts.join(' OR ')}))`,
    params: [keys, ...params],
  };
}

/** WHERE, order (newest first) and LIMIT of list() and listItems(), with `?` placeholders. */
export function pgFilterSql(filter: LaunchFilter): { sql: string; params: unknown[] } {
  const conds: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...p: unknown[]) => {
    conds.push(sql);
    params.push(...p);
  };
  if (filter.model !== undefined) add('strpos(lower(model), lower(?::text)) > 0', filter.model);
  if (filter.host !== undefined) add('host = ?', filter.host);
  if (filter.outcome !== undefined) add(`${STATE_SQL} = ?`, filter.outcome);
  if (filter.path !== undefined)
    add(
      '(path = ? OR EXISTS (SELECT 1 FROM launch_paths AS p WHERE p.launch_id = launches.id AND p.path = ?))',
      filter.path,
      filter.path,
    );
  if (filter.since !== undefined) add('coalesce(start_ts, first_seen) >= ?', filter.since);
  if ((filter.where?.length ?? 0) > MAX_WHERE)
    throw new LedgerError(
      'bad_filter',
      `at most ${MAX_WHERE} --where filters at once (${filter.where!.length} given)`,
    );
  for (const w of filter.where ?? []) {
    const m = configMatch(w.keys?.length ? w.keys : [w.key], w.value);
    add(m.sql, ...m.params);
  }
  const where = conds.length ? `WHERE ${conds.join(' AND ')}` : '';
  const limit =
    filter.limit !== undefined && filter.limit >= 0
      ? ` LIMIT ${Math.min(Math.floor(filter.limit), MAX_ROWS)}`
      : '';
  return { sql: `${where} ${NEWEST_FIRST}${limit}`, params };
}
