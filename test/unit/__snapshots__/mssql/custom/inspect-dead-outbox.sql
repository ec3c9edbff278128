SELECT x.id, LOWER(CONVERT(char(36), x.message_id)) AS message_id, x.destination AS stream, CAST(NULL AS nvarchar(200)) AS idempotency_key,
       x.ordering_key, x.attempts, x.last_error, x.headers, TODATETIMEOFFSET(x.created_at, '+00:00') AS created_at,
       TODATETIMEOFFSET(x.finished_at, '+00:00') AS finished_at, CASE WHEN @1 = 1 THEN x.payload END AS payload
FROM [messaging].[shop_outbox] AS x
WHERE x.id = @0 AND x.state = 'dead';
