UPDATE m
SET state = 'dead', finished_at = SYSUTCDATETIME(), lease_expires_at = NULL, last_error = @2
OUTPUT inserted.id
FROM [queuebox_inbox_messages] AS m
WHERE m.id = @0 AND m.state = 'processing' AND m.claim_token = @1 AND m.lease_expires_at > SYSUTCDATETIME();
