/**
 * No parameters. What QueueBox needs to know of the current database at start-up: the
 * compatibility level (OPENJSON needs 130, SQL Server 2016) and whether READ_COMMITTED_SNAPSHOT is
 * on (both modes are supported; the claims wait less with it). Output: ONE row
 * `compatibility_level` (int), `read_committed_snapshot` (bit).
 */
export const startupProbe =
  (): string => /* sql */ `SELECT CAST(d.compatibility_level AS int) AS compatibility_level, d.is_read_committed_snapshot_on AS read_committed_snapshot
FROM sys.databases AS d
WHERE d.database_id = DB_ID();`;
