SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
DECLARE @candidates TABLE (id bigint NOT NULL, window_source nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL);
DECLARE @claimed TABLE (id bigint NOT NULL PRIMARY KEY, source nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL, idempotency_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL, ordering_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL, headers nvarchar(max) NOT NULL, payload nvarchar(max) NOT NULL, claim_token uniqueidentifier NOT NULL, attempts int NOT NULL, received_at datetime2(3) NOT NULL, first_try bit NOT NULL);
DECLARE @walk_stream nvarchar(200) = @4, @walk_key nvarchar(200) = @5, @walked int = 0, @window_rows int = 0;
DECLARE @next_stream nvarchar(200), @next_key nvarchar(200), @next_id bigint, @last_stream nvarchar(200), @last_key nvarchar(200);
DECLARE @sources TABLE (source nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY);
INSERT INTO @sources (source) SELECT DISTINCT CAST(j.value AS nvarchar(200)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@6) AS j;
WHILE @walked < @2
BEGIN
  SET @next_id = NULL;
  SELECT TOP (1) @next_stream = k.source, @next_key = k.ordering_key, @next_id = k.id
  FROM [queuebox_inbox_messages] AS k WITH (READPAST, READCOMMITTEDLOCK)
  WHERE k.state = 'pending' AND k.ordering_key IS NOT NULL AND k.source = @walk_stream AND k.ordering_key > @walk_key
  ORDER BY k.ordering_key, k.id;
  IF @next_id IS NULL BREAK;
  SET @walked = @walked + 1;
  SET @walk_stream = @next_stream;
  SET @walk_key = @next_key;
  SET @last_stream = @next_stream;
  SET @last_key = @next_key;
  INSERT INTO @candidates (id) VALUES (@next_id);
END;
INSERT INTO @candidates (id, window_source)
SELECT r.id, s.source FROM @sources AS s
CROSS APPLY (SELECT TOP (@3) x.id FROM [queuebox_inbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
             WHERE x.source = s.source AND x.state = 'pending' AND x.ordering_key IS NOT NULL
             ORDER BY x.source, x.id) AS r;
SELECT @window_rows = COALESCE(MAX(per_source.n), 0)
FROM (SELECT COUNT(*) AS n FROM @candidates AS w WHERE w.window_source IS NOT NULL GROUP BY w.window_source) AS per_source;
INSERT INTO @candidates (id)
SELECT r.id FROM @sources AS s
CROSS APPLY (SELECT TOP (@0) x.id FROM [queuebox_inbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
             WHERE x.source = s.source AND x.state = 'pending' AND x.ordering_key IS NULL AND x.next_attempt_at <= SYSUTCDATETIME()
             ORDER BY x.source, x.id) AS r;
INSERT INTO @candidates (id)
SELECT r.id FROM @sources AS s
CROSS APPLY (SELECT TOP (@0) x.id FROM [queuebox_inbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
             WHERE x.source = s.source AND x.state = 'pending' AND x.attempts > 0 AND x.next_attempt_at <= SYSUTCDATETIME()
             ORDER BY x.source, x.next_attempt_at) AS r;
INSERT INTO @candidates (id)
SELECT r.id FROM @sources AS s
CROSS APPLY (SELECT TOP (@0) x.id FROM [queuebox_inbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
             WHERE x.source = s.source AND x.state = 'processing' AND x.lease_expires_at <= SYSUTCDATETIME()) AS r;
WITH cand AS (
  SELECT TOP (@0) o.id, o.source, o.idempotency_key, o.ordering_key, o.headers, o.payload, o.claim_token, o.attempts, o.received_at, o.state, o.claimed_at, o.lease_expires_at, o.last_error
  FROM [queuebox_inbox_messages] AS o WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
  WHERE o.id IN (SELECT c.id FROM @candidates AS c)
    AND ((o.state = 'pending' AND o.next_attempt_at <= SYSUTCDATETIME())
         OR (o.state = 'processing' AND o.lease_expires_at <= SYSUTCDATETIME())) AND o.source IN (SELECT s.source FROM @sources AS s)
    AND (o.ordering_key IS NULL OR (NOT EXISTS (SELECT 1 FROM [queuebox_inbox_messages] AS b
                      WHERE b.state = 'pending' AND b.ordering_key IS NOT NULL AND b.source = o.source AND b.ordering_key = o.ordering_key AND b.id < o.id)
      AND NOT EXISTS (SELECT 1 FROM [queuebox_inbox_messages] AS p
                      WHERE p.state = 'processing' AND p.source = o.source AND p.ordering_key = o.ordering_key
                        AND (p.id < o.id OR (p.id <> o.id AND p.lease_expires_at > SYSUTCDATETIME())))))
  ORDER BY o.id
)
UPDATE cand
SET state = 'processing',
    claim_token = NEWID(),
    claimed_at = SYSUTCDATETIME(),
    lease_expires_at = DATEADD(millisecond, @1, SYSUTCDATETIME()),
    attempts = attempts + 1
OUTPUT inserted.id, inserted.source, inserted.idempotency_key, inserted.ordering_key, inserted.headers, inserted.payload, inserted.claim_token, inserted.attempts, inserted.received_at,
       CAST(CASE WHEN inserted.attempts = 1 AND inserted.last_error IS NULL THEN 1 ELSE 0 END AS bit)
INTO @claimed (id, source, idempotency_key, ordering_key, headers, payload, claim_token, attempts, received_at, first_try);
SELECT p.window_rows, p.cursor_stream, p.cursor_key, p.walked,
       c.id, c.source, c.idempotency_key, c.ordering_key, c.headers, c.payload, LOWER(CONVERT(char(36), c.claim_token)) AS claim_token, c.attempts, TODATETIMEOFFSET(c.received_at, '+00:00') AS received_at,
       CAST(CASE WHEN c.id IS NULL THEN NULL
                 WHEN c.first_try = 1 AND c.ordering_key IS NOT NULL
                      AND EXISTS (SELECT 1 FROM [queuebox_inbox_messages] AS y WITH (READPAST, READCOMMITTEDLOCK)
                                  WHERE y.state IN ('processed', 'dead') AND y.ordering_key IS NOT NULL
                                    AND y.source = c.source AND y.ordering_key = c.ordering_key AND y.id > c.id)
                 THEN 1 ELSE 0 END AS bit) AS inverted
FROM (SELECT @window_rows AS window_rows,
             @last_stream AS cursor_stream,
             @last_key AS cursor_key,
             @walked AS walked) AS p
LEFT JOIN @claimed AS c ON 1 = 1
ORDER BY c.id;
