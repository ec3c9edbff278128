SELECT t.table_key, CAST(CASE WHEN t.object_id IS NULL THEN 0 ELSE 1 END AS bit) AS present, c.name AS column_name
FROM (VALUES (N'outbox', OBJECT_ID(QUOTENAME(@0), N'U')), (N'inbox', OBJECT_ID(QUOTENAME(@1), N'U'))) AS t (table_key, object_id)
LEFT JOIN sys.columns AS c ON c.object_id = t.object_id
ORDER BY t.table_key, c.column_id;
