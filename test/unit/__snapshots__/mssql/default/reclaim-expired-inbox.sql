SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
WITH expired AS (
  SELECT TOP (@0) e.id, e.state, e.claim_token, e.claimed_at, e.lease_expires_at
  FROM [queuebox_inbox_messages] AS e WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
  WHERE e.state = 'processing' AND e.lease_expires_at <= SYSUTCDATETIME()
    AND e.source IN (SELECT CAST(j.value AS nvarchar(200)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@1) AS j)
)
UPDATE expired
SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL
OUTPUT inserted.id
WHERE expired.state = 'processing' AND expired.lease_expires_at <= SYSUTCDATETIME();
