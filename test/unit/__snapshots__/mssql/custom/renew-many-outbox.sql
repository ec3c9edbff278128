SET NOCOUNT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
DECLARE @mine TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @renewed TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @own_transaction bit = 0;
IF @@TRANCOUNT = 0
BEGIN
  SET XACT_ABORT ON;
  BEGIN TRANSACTION;
  SET @own_transaction = 1;
END;
INSERT INTO @mine (id)
SELECT l.id FROM [messaging].[shop_outbox] AS l WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
WHERE l.id IN (SELECT CAST(j.value AS bigint) FROM OPENJSON(@0) AS j);
UPDATE m
SET lease_expires_at = DATEADD(millisecond, @2, SYSUTCDATETIME())
OUTPUT inserted.id INTO @renewed (id)
FROM [messaging].[shop_outbox] AS m WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
INNER JOIN OPENJSON(@0) AS i ON m.id = CAST(i.value AS bigint)
INNER JOIN OPENJSON(@1) AS k ON k.[key] = i.[key]
WHERE m.id IN (SELECT mine.id FROM @mine AS mine) AND m.id = CAST(i.value AS bigint) AND m.state = 'processing' AND m.claim_token = CAST(k.value AS uniqueidentifier) AND m.lease_expires_at > SYSUTCDATETIME();
IF @own_transaction = 1 COMMIT TRANSACTION;
SELECT mine.id, CAST(CASE WHEN r.id IS NULL THEN 0 ELSE 1 END AS bit) AS renewed
FROM @mine AS mine
LEFT JOIN @renewed AS r ON r.id = mine.id;
