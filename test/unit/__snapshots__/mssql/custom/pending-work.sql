SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT N'outbox' AS table_name, x.destination AS stream,
       SUM(CASE WHEN x.state = 'pending' AND x.next_attempt_at <= SYSUTCDATETIME() THEN 1 ELSE 0 END) AS due,
       SUM(CASE WHEN x.state = 'processing' THEN 1 ELSE 0 END) AS in_flight,
       SUM(CASE WHEN x.state = 'pending' AND x.next_attempt_at > SYSUTCDATETIME() THEN 1 ELSE 0 END) AS scheduled,
       CAST(DATEDIFF_BIG(millisecond, SYSUTCDATETIME(), MIN(CASE WHEN x.state = 'pending' AND x.next_attempt_at > SYSUTCDATETIME() THEN x.next_attempt_at END)) AS float) AS next_due_in_ms
FROM [messaging].[shop_outbox] AS x
WHERE x.state IN ('pending', 'processing')
GROUP BY x.destination
UNION ALL
SELECT N'inbox' AS table_name, x.source AS stream,
       SUM(CASE WHEN x.state = 'pending' AND x.next_attempt_at <= SYSUTCDATETIME() THEN 1 ELSE 0 END) AS due,
       SUM(CASE WHEN x.state = 'processing' THEN 1 ELSE 0 END) AS in_flight,
       SUM(CASE WHEN x.state = 'pending' AND x.next_attempt_at > SYSUTCDATETIME() THEN 1 ELSE 0 END) AS scheduled,
       CAST(DATEDIFF_BIG(millisecond, SYSUTCDATETIME(), MIN(CASE WHEN x.state = 'pending' AND x.next_attempt_at > SYSUTCDATETIME() THEN x.next_attempt_at END)) AS float) AS next_due_in_ms
FROM [messaging].[shop_inbox] AS x
WHERE x.state IN ('pending', 'processing')
GROUP BY x.source;
