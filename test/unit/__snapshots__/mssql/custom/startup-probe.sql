SELECT CAST(d.compatibility_level AS int) AS compatibility_level, d.is_read_committed_snapshot_on AS read_committed_snapshot
FROM sys.databases AS d
WHERE d.database_id = DB_ID();
