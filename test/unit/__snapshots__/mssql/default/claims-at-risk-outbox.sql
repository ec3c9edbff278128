SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT TOP (@1) x.id, x.destination AS stream, x.ordering_key, x.attempts,
       TODATETIMEOFFSET(x.claimed_at, '+00:00') AS claimed_at, TODATETIMEOFFSET(x.lease_expires_at, '+00:00') AS lease_expires_at,
       CAST(DATEDIFF_BIG(millisecond, SYSUTCDATETIME(), x.lease_expires_at) AS float) AS expires_in_ms
FROM [queuebox_outbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
WHERE x.state = 'processing' AND x.lease_expires_at <= DATEADD(millisecond, @0, SYSUTCDATETIME())
ORDER BY x.lease_expires_at, x.id;
