UPDATE m
SET state = 'pending', attempts = 0, next_attempt_at = SYSUTCDATETIME(), finished_at = NULL, claim_token = NULL
OUTPUT inserted.id
FROM [messaging].[shop_inbox] AS m
WHERE m.state = 'dead' AND m.id IN (SELECT CAST(j.value AS bigint) FROM OPENJSON(@0) AS j);
