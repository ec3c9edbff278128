SELECT TOP (@1) x.id, LOWER(CONVERT(char(36), x.message_id)) AS message_id, x.destination, x.ordering_key,
       x.attempts, x.last_error, TODATETIMEOFFSET(x.finished_at, '+00:00') AS finished_at
FROM [messaging].[shop_outbox] AS x
WHERE x.state = 'dead' AND x.id > CAST(@0 AS bigint)
ORDER BY x.id;
