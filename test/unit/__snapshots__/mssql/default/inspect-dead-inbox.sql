SELECT x.id, CAST(NULL AS char(36)) AS message_id, x.source AS stream, x.idempotency_key,
       x.ordering_key, x.attempts, x.last_error, x.headers, TODATETIMEOFFSET(x.received_at, '+00:00') AS created_at,
       TODATETIMEOFFSET(x.finished_at, '+00:00') AS finished_at, CASE WHEN @1 = 1 THEN x.payload END AS payload
FROM [queuebox_inbox_messages] AS x
WHERE x.id = @0 AND x.state = 'dead';
