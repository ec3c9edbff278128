UPDATE m
SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL,
    next_attempt_at = DATEADD(millisecond, @2, SYSUTCDATETIME()), last_error = @3
OUTPUT inserted.id
FROM [messaging].[shop_outbox] AS m
WHERE m.id = @0 AND m.state = 'processing' AND m.claim_token = @1 AND m.lease_expires_at > SYSUTCDATETIME();
