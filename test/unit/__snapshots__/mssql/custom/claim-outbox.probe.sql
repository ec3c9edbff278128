SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT CAST(1 AS bit) AS due
WHERE EXISTS (SELECT 1 FROM [messaging].[shop_outbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
              WHERE x.state = 'pending' AND x.ordering_key IS NULL AND x.next_attempt_at <= SYSUTCDATETIME())
   OR EXISTS (SELECT 1 FROM [messaging].[shop_outbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
              WHERE x.state = 'pending' AND x.ordering_key IS NOT NULL AND x.next_attempt_at <= SYSUTCDATETIME());
