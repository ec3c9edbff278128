DELETE m
OUTPUT deleted.id
FROM [queuebox_outbox_messages] AS m
WHERE m.state = 'dead' AND m.id IN (SELECT TOP (@1) x.id FROM [queuebox_outbox_messages] AS x WHERE x.state = 'dead' AND x.id > @0
  AND (@2 IS NULL OR x.destination = @2)
  AND (@3 IS NULL OR CHARINDEX(LOWER(@3), LOWER(x.last_error)) > 0)
  AND (@4 IS NULL OR x.finished_at >= CAST(SWITCHOFFSET(@4, '+00:00') AS datetime2(3)))
  AND (@5 IS NULL OR x.finished_at < CAST(SWITCHOFFSET(@5, '+00:00') AS datetime2(3))) ORDER BY x.id);
