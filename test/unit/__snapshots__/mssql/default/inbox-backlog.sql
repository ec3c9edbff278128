SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT x.source AS label, COUNT(*) AS pending,
       CAST(DATEDIFF_BIG(millisecond, MIN(x.received_at), SYSUTCDATETIME()) AS float) / 1000 AS oldest_age_seconds
FROM [queuebox_inbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
WHERE x.state = 'pending'
GROUP BY x.source;
