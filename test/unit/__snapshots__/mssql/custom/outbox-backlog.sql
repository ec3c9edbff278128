SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT x.destination AS label, COUNT(*) AS pending,
       CAST(DATEDIFF_BIG(millisecond, MIN(x.created_at), SYSUTCDATETIME()) AS float) / 1000 AS oldest_age_seconds
FROM [messaging].[shop_outbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
WHERE x.state = 'pending'
GROUP BY x.destination;
