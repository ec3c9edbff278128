import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';

/*
 * The start-up check of QueueBox's tables (lib/database/schema-check.ts): do they exist, and with
 * which columns. One round trip, once per start, never on the hot path.
 */

/** A table name as a query resolves it: schema-qualified when `schema` is set, else in the user's default schema, then dbo. */
const lookup = (t: ResolvedTableNames, table: string): string =>
  t.schema ? `OBJECT_ID(QUOTENAME(@2) + N'.' + QUOTENAME(${table}), N'U')` : `OBJECT_ID(QUOTENAME(${table}), N'U')`;

/**
 * @0 outbox table, @1 inbox table, @2 schema when one is set (nvarchar(128) identifiers).
 * `OBJECT_ID` finds a user table as QueueBox's statements do and is NULL when it does not exist;
 * metadata is visible to a user holding any permission on the table, so a user that owns nothing
 * (SELECT, INSERT, UPDATE, DELETE on the tables) sees them. No locks.
 * Output: per table (`table_key` 'outbox' or 'inbox'), `present` (bit), and one row per column
 * (`column_name`), or one row with a NULL `column_name` when it has none.
 */
export const tableColumns = (
  t: ResolvedTableNames,
): string => /* sql */ `SELECT t.table_key, CAST(CASE WHEN t.object_id IS NULL THEN 0 ELSE 1 END AS bit) AS present, c.name AS column_name
FROM (VALUES (N'outbox', ${lookup(t, '@0')}), (N'inbox', ${lookup(t, '@1')})) AS t (table_key, object_id)
LEFT JOIN sys.columns AS c ON c.object_id = t.object_id
ORDER BY t.table_key, c.column_id;`;
