SET NOCOUNT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
DECLARE @done TABLE (id bigint NOT NULL PRIMARY KEY, stream nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL, ordering_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL);
DECLARE @successor TABLE (id bigint NOT NULL PRIMARY KEY, after_id bigint NOT NULL);
DECLARE @handed TABLE (id bigint NOT NULL PRIMARY KEY, source nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL, idempotency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL, ordering_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL, headers nvarchar(max) NOT NULL, payload nvarchar(max) NOT NULL, claim_token uniqueidentifier NOT NULL, attempts int NOT NULL, received_at datetime2(3) NOT NULL, first_try bit NOT NULL);
DECLARE @own_transaction bit = 0;
IF @@TRANCOUNT = 0
BEGIN
  SET XACT_ABORT ON;
  BEGIN TRANSACTION;
  SET @own_transaction = 1;
END;
UPDATE m
SET state = 'processed', finished_at = SYSUTCDATETIME(), lease_expires_at = NULL
OUTPUT inserted.id, inserted.source, inserted.ordering_key INTO @done (id, stream, ordering_key)
FROM [messaging].[shop_inbox] AS m
INNER JOIN OPENJSON(@0) AS i ON m.id = CAST(i.value AS bigint)
INNER JOIN OPENJSON(@1) AS k ON k.[key] = i.[key]
WHERE m.id = CAST(i.value AS bigint) AND m.state = 'processing' AND m.claim_token = CAST(k.value AS uniqueidentifier) AND m.lease_expires_at > SYSUTCDATETIME();
IF @3 = 1
BEGIN
  INSERT INTO @successor (id, after_id)
  SELECT n.id, MAX(d.id)
  FROM @done AS d
  CROSS APPLY (SELECT TOP (1) x.id FROM [messaging].[shop_inbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
               WHERE x.state = 'pending' AND x.ordering_key IS NOT NULL AND x.source = d.stream AND x.ordering_key = d.ordering_key
               ORDER BY x.id) AS n
  WHERE d.ordering_key IS NOT NULL
  GROUP BY n.id;
  WITH cand AS (
    SELECT h.id, h.source, h.idempotency_key, h.ordering_key, h.headers, h.payload, h.claim_token, h.attempts, h.received_at, h.state, h.claimed_at, h.lease_expires_at, h.last_error
    FROM [messaging].[shop_inbox] AS h WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
    WHERE h.id IN (SELECT s.id FROM @successor AS s)
      AND h.state = 'pending' AND h.next_attempt_at <= SYSUTCDATETIME()
      AND NOT EXISTS (SELECT 1 FROM [messaging].[shop_inbox] AS b
                      WHERE b.state = 'pending' AND b.ordering_key IS NOT NULL AND b.source = h.source AND b.ordering_key = h.ordering_key AND b.id < h.id)
      AND NOT EXISTS (SELECT 1 FROM [messaging].[shop_inbox] AS p
                      WHERE p.state = 'processing' AND p.source = h.source AND p.ordering_key = h.ordering_key
                        AND p.id NOT IN (SELECT d.id FROM @done AS d))
  )
  UPDATE cand
  SET state = 'processing',
      claim_token = NEWID(),
      claimed_at = SYSUTCDATETIME(),
      lease_expires_at = DATEADD(millisecond, @2, SYSUTCDATETIME()),
      attempts = attempts + 1
  OUTPUT inserted.id, inserted.source, inserted.idempotency_key, inserted.ordering_key, inserted.headers, inserted.payload, inserted.claim_token, inserted.attempts, inserted.received_at,
         CAST(CASE WHEN inserted.attempts = 1 AND inserted.last_error IS NULL THEN 1 ELSE 0 END AS bit)
  INTO @handed (id, source, idempotency_key, ordering_key, headers, payload, claim_token, attempts, received_at, first_try);
END;
IF @own_transaction = 1 COMMIT TRANSACTION;
SELECT 'done' AS outcome, d.id, CAST(NULL AS nvarchar(200)) AS source, CAST(NULL AS nvarchar(200)) AS idempotency_key, CAST(NULL AS nvarchar(200)) AS ordering_key, CAST(NULL AS nvarchar(max)) AS headers, CAST(NULL AS nvarchar(max)) AS payload, CAST(NULL AS char(36)) AS claim_token, CAST(NULL AS int) AS attempts, CAST(NULL AS datetimeoffset(3)) AS received_at, CAST(NULL AS bit) AS inverted
FROM @done AS d
UNION ALL
SELECT 'claimed' AS outcome, h.id, h.source, h.idempotency_key, h.ordering_key, h.headers, h.payload, LOWER(CONVERT(char(36), h.claim_token)) AS claim_token, h.attempts, TODATETIMEOFFSET(h.received_at, '+00:00') AS received_at,
       CAST(CASE WHEN h.first_try = 1 AND h.id < s.after_id THEN 1 ELSE 0 END AS bit) AS inverted
FROM @handed AS h
INNER JOIN @successor AS s ON s.id = h.id;
