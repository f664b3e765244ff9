/** list()'s filters in Postgres SQL (ledger.ts's filterSql, with jsonb where SQLite has json_each). */
import { type FilterDialect, filterSql, whereSql } from '../list-filter.js';
import type { LaunchFilter } from '../types.js';

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

/** Postgres's side of list()'s filters (`?` placeholders, numbered by the store). */
const PG_FILTERS: FilterDialect = {
  modelContains: 'strpos(lower(model), lower(?::text)) > 0',
  textContains: 'strpos(%s, ?::text) > 0',
  benchOutput: `(SELECT (b.result::jsonb ->> 'outputTokS')::float8 FROM benches AS b WHERE b.launch_id = launches.id
    ORDER BY coalesce(b.finished_at, b.imported_at) DESC, b.id DESC LIMIT 1)`,
  configMatch,
};

export const pgFilterSql = (filter: LaunchFilter) => filterSql(filter, PG_FILTERS);
export const pgWhereSql = (filter: LaunchFilter) => whereSql(filter, PG_FILTERS);
