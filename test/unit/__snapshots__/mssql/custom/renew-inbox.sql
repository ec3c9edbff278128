UPDATE m
SET lease_expires_at = DATEADD(millisecond, @2, SYSUTCDATETIME())
OUTPUT inserted.id
FROM [messaging].[shop_inbox] AS m
WHERE m.id = @0 AND m.state = 'processing' AND m.claim_token = @1 AND m.lease_expires_at > SYSUTCDATETIME();
