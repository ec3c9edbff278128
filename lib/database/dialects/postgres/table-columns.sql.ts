import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';

/*
 * The start-up check of QueueBox's tables (lib/database/schema-check.ts): do they exist, and with
 * which columns. One round trip, once per start, never on the hot path.
 */

/** A table name as a query resolves it: schema-qualified when `schema` is set, else on the search path. */
const lookup = (t: ResolvedTableNames, table: string): string =>
  t.schema ? `to_regclass(format('%I.%I', $3::text, ${table}::text))` : `to_regclass(format('%I', ${table}::text))`;

/**
 * $1 outbox table, $2 inbox table, $3 schema when one is set (identifiers, bound as values).
 * `to_regclass` finds a table as QueueBox's statements do (quoted, on the search path when no
 * schema is set) and is NULL when it does not exist; the columns come from `pg_attribute`, which
 * every role may read. So a role that owns nothing (USAGE on the schema, DML on the tables) sees
 * them: `information_schema` would hide the columns of tables it holds no privilege on, and a
 * schema without USAGE fails the statement as it would fail every other. No locks.
 * Output: per table (`table_key` 'outbox' or 'inbox'), `present` (boolean), and one row per column
 * (`column_name`), or one row with a NULL `column_name` when it has none.
 */
export const tableColumns = (
  t: ResolvedTableNames,
): string => /* sql */ `SELECT t.table_key, t.relation IS NOT NULL AS present, a.attname AS column_name
FROM (VALUES ('outbox', ${lookup(t, '$1')}), ('inbox', ${lookup(t, '$2')})) AS t (table_key, relation)
LEFT JOIN pg_catalog.pg_attribute AS a ON a.attrelid = t.relation AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY t.table_key, a.attnum`;
