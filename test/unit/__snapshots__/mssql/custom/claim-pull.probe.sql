SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT CAST(1 AS bit) AS due
WHERE EXISTS (SELECT 1 FROM [messaging].[shop_inbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
              WHERE x.state = 'pending' AND x.ordering_key IS NULL AND x.next_attempt_at <= SYSUTCDATETIME() AND x.source = @0)
   OR EXISTS (SELECT 1 FROM [messaging].[shop_inbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
              WHERE x.state = 'pending' AND x.ordering_key IS NOT NULL AND x.next_attempt_at <= SYSUTCDATETIME() AND x.source = @0)
   OR EXISTS (SELECT 1 FROM [messaging].[shop_inbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
              WHERE x.state = 'processing' AND x.lease_expires_at <= SYSUTCDATETIME() AND x.source = @0);
