SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
DELETE m
OUTPUT deleted.id
FROM [messaging].[shop_outbox] AS m
WHERE m.state = 'sent' AND m.finished_at < DATEADD(millisecond, -CAST(@0 % 60000 AS int), DATEADD(minute, -CAST(@0 / 60000 AS int), SYSUTCDATETIME()))
  AND m.id IN (SELECT TOP (@1) f.id FROM [messaging].[shop_outbox] AS f WITH (READPAST, READCOMMITTEDLOCK)
               WHERE f.state = 'sent' AND f.finished_at < DATEADD(millisecond, -CAST(@0 % 60000 AS int), DATEADD(minute, -CAST(@0 / 60000 AS int), SYSUTCDATETIME()))
               ORDER BY f.id);
