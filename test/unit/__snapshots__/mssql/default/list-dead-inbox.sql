SELECT TOP (@1) x.id, x.source, x.idempotency_key, x.ordering_key,
       x.attempts, x.last_error, TODATETIMEOFFSET(x.finished_at, '+00:00') AS finished_at
FROM [queuebox_inbox_messages] AS x
WHERE x.state = 'dead' AND x.id > CAST(@0 AS bigint)
ORDER BY x.id;
