SELECT TOP (@1) x.id, LOWER(CONVERT(char(36), x.message_id)) AS message_id, x.destination, x.ordering_key,
       x.attempts, x.last_error, TODATETIMEOFFSET(x.finished_at, '+00:00') AS finished_at
FROM [messaging].[shop_outbox] AS x
WHERE x.state = 'dead' AND x.id > @0
  AND (@2 IS NULL OR x.destination = @2)
  AND (@3 IS NULL OR CHARINDEX(LOWER(@3), LOWER(x.last_error)) > 0)
  AND (@4 IS NULL OR x.finished_at >= CAST(SWITCHOFFSET(@4, '+00:00') AS datetime2(3)))
  AND (@5 IS NULL OR x.finished_at < CAST(SWITCHOFFSET(@5, '+00:00') AS datetime2(3)))
ORDER BY x.id;
