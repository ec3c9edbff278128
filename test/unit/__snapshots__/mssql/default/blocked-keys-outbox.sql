SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
WITH heads AS (
  SELECT x.id, x.destination AS stream, x.ordering_key, 'retrying' AS reason,
         x.attempts, x.last_error, x.created_at AS created_at
  FROM [queuebox_outbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
  WHERE x.state = 'pending' AND x.attempts > 0 AND x.ordering_key IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM [queuebox_outbox_messages] AS b WITH (READPAST, READCOMMITTEDLOCK)
                    WHERE b.state IN ('pending', 'processing') AND b.destination = x.destination AND b.ordering_key = x.ordering_key AND b.id < x.id)
  UNION ALL
  SELECT x.id, x.destination AS stream, x.ordering_key, 'dead' AS reason,
         x.attempts, x.last_error, x.created_at AS created_at
  FROM [queuebox_outbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
  WHERE x.state = 'dead' AND x.ordering_key IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM [queuebox_outbox_messages] AS b WITH (READPAST, READCOMMITTEDLOCK)
                    WHERE b.state IN ('pending', 'processing', 'dead') AND b.destination = x.destination AND b.ordering_key = x.ordering_key AND b.id < x.id)
)
SELECT TOP (@0) h.id, h.stream, h.ordering_key, h.reason, h.attempts, h.last_error,
       CAST(DATEDIFF_BIG(millisecond, h.created_at, SYSUTCDATETIME()) AS float) / 1000 AS age_seconds,
       (SELECT COUNT(*) FROM [queuebox_outbox_messages] AS w WITH (READPAST, READCOMMITTEDLOCK)
        WHERE w.state = 'pending' AND w.destination = h.stream AND w.ordering_key = h.ordering_key AND w.id > h.id) AS waiting
FROM heads AS h
ORDER BY h.id;
