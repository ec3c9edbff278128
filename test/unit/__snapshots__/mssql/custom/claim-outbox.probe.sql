SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT CAST(1 AS bit) AS due
WHERE EXISTS (SELECT 1 FROM OPENJSON(@0) AS j
              CROSS APPLY (SELECT TOP (1) x.id FROM [messaging].[shop_outbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
                           WHERE x.destination = CAST(j.value AS nvarchar(200)) COLLATE Latin1_General_100_BIN2 AND x.state = 'pending' AND x.ordering_key IS NULL AND x.next_attempt_at <= SYSUTCDATETIME()) AS r)
   OR EXISTS (SELECT 1 FROM OPENJSON(@0) AS j
              CROSS APPLY (SELECT TOP (1) x.id FROM [messaging].[shop_outbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
                           WHERE x.destination = CAST(j.value AS nvarchar(200)) COLLATE Latin1_General_100_BIN2 AND x.state = 'pending' AND x.ordering_key IS NOT NULL AND x.next_attempt_at <= SYSUTCDATETIME()) AS r);
