SET NOCOUNT ON;
SET XACT_ABORT ON;
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
DECLARE @candidates TABLE (id bigint NOT NULL, window_source nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL);
DECLARE @claimed TABLE (id bigint NOT NULL PRIMARY KEY, message_id uniqueidentifier NOT NULL, destination nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL, ordering_key nvarchar(200) COLLATE Latin1_General_100_BIN2 NULL, headers nvarchar(max) NOT NULL, payload nvarchar(max) NOT NULL, claim_token uniqueidentifier NOT NULL, attempts int NOT NULL, first_try bit NOT NULL);
DECLARE @walk_stream nvarchar(200) = @4, @walk_key nvarchar(200) = @5, @walked int = 0, @window_rows int = 0;
DECLARE @next_stream nvarchar(200), @next_key nvarchar(200), @next_id bigint, @last_stream nvarchar(200), @last_key nvarchar(200);
DECLARE @destinations TABLE (destination nvarchar(200) COLLATE Latin1_General_100_BIN2 NOT NULL PRIMARY KEY);
INSERT INTO @destinations (destination) SELECT DISTINCT CAST(j.value AS nvarchar(200)) COLLATE Latin1_General_100_BIN2 FROM OPENJSON(@6) AS j;
WHILE @walked < @2
BEGIN
  SET @next_id = NULL;
  IF EXISTS (SELECT 1 FROM @destinations AS d WHERE d.destination = @walk_stream)
    SELECT TOP (1) @next_stream = k.destination, @next_key = k.ordering_key, @next_id = k.id
    FROM [queuebox_outbox_messages] AS k WITH (READPAST, READCOMMITTEDLOCK)
    WHERE k.state = 'pending' AND k.ordering_key IS NOT NULL AND k.destination = @walk_stream AND k.ordering_key > @walk_key
    ORDER BY k.ordering_key, k.id;
  IF @next_id IS NULL
  BEGIN
    SET @next_stream = NULL;
    SELECT TOP (1) @next_stream = d.destination FROM @destinations AS d WHERE d.destination > @walk_stream ORDER BY d.destination;
    IF @next_stream IS NULL BREAK;
    SET @walk_stream = @next_stream;
    SET @walk_key = N'';
    CONTINUE;
  END;
  SET @walked = @walked + 1;
  SET @walk_stream = @next_stream;
  SET @walk_key = @next_key;
  SET @last_stream = @next_stream;
  SET @last_key = @next_key;
  INSERT INTO @candidates (id) VALUES (@next_id);
END;
INSERT INTO @candidates (id)
SELECT w.id FROM (SELECT TOP (@3) x.id, x.destination FROM [queuebox_outbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
                  WHERE x.state = 'pending' AND x.ordering_key IS NOT NULL
                  ORDER BY x.id) AS w
WHERE w.destination IN (SELECT d.destination FROM @destinations AS d);
SET @window_rows = @@ROWCOUNT;
INSERT INTO @candidates (id)
SELECT r.id FROM @destinations AS s
CROSS APPLY (SELECT TOP (@0) x.id FROM [queuebox_outbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
             WHERE x.destination = s.destination AND x.state = 'pending' AND x.ordering_key IS NULL AND x.next_attempt_at <= SYSUTCDATETIME()
             ORDER BY x.destination, x.id) AS r;
INSERT INTO @candidates (id)
SELECT r.id FROM @destinations AS s
CROSS APPLY (SELECT TOP (@0) x.id FROM [queuebox_outbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
             WHERE x.destination = s.destination AND x.state = 'pending' AND x.attempts > 0 AND x.next_attempt_at <= SYSUTCDATETIME()
             ORDER BY x.destination, x.next_attempt_at) AS r;
WITH cand AS (
  SELECT TOP (@0) o.id, o.message_id, o.destination, o.ordering_key, o.headers, o.payload, o.claim_token, o.attempts, o.state, o.claimed_at, o.lease_expires_at, o.last_error
  FROM [queuebox_outbox_messages] AS o WITH (UPDLOCK, READPAST, ROWLOCK, READCOMMITTEDLOCK)
  WHERE o.id IN (SELECT c.id FROM @candidates AS c)
    AND o.state = 'pending' AND o.next_attempt_at <= SYSUTCDATETIME() AND o.destination IN (SELECT s.destination FROM @destinations AS s)
    AND (o.ordering_key IS NULL OR (NOT EXISTS (SELECT 1 FROM [queuebox_outbox_messages] AS b
                      WHERE b.state = 'pending' AND b.ordering_key IS NOT NULL AND b.destination = o.destination AND b.ordering_key = o.ordering_key AND b.id < o.id)
      AND NOT EXISTS (SELECT 1 FROM [queuebox_outbox_messages] AS p WHERE p.state = 'processing' AND p.destination = o.destination AND p.ordering_key = o.ordering_key)))
  ORDER BY o.id
)
UPDATE cand
SET state = 'processing',
    claim_token = NEWID(),
    claimed_at = SYSUTCDATETIME(),
    lease_expires_at = DATEADD(millisecond, @1, SYSUTCDATETIME()),
    attempts = attempts + 1
OUTPUT inserted.id, inserted.message_id, inserted.destination, inserted.ordering_key, inserted.headers, inserted.payload, inserted.claim_token, inserted.attempts,
       CAST(CASE WHEN inserted.attempts = 1 AND inserted.last_error IS NULL THEN 1 ELSE 0 END AS bit)
INTO @claimed (id, message_id, destination, ordering_key, headers, payload, claim_token, attempts, first_try);
SELECT p.window_rows, p.cursor_stream, p.cursor_key, p.walked,
       c.id, LOWER(CONVERT(char(36), c.message_id)) AS message_id, c.destination, c.ordering_key, c.headers, c.payload, LOWER(CONVERT(char(36), c.claim_token)) AS claim_token, c.attempts,
       CAST(CASE WHEN c.id IS NULL THEN NULL
                 WHEN c.first_try = 1 AND c.ordering_key IS NOT NULL
                      AND EXISTS (SELECT 1 FROM [queuebox_outbox_messages] AS y WITH (READPAST, READCOMMITTEDLOCK)
                                  WHERE y.state IN ('sent', 'dead') AND y.ordering_key IS NOT NULL
                                    AND y.destination = c.destination AND y.ordering_key = c.ordering_key AND y.id > c.id)
                 THEN 1 ELSE 0 END AS bit) AS inverted
FROM (SELECT @window_rows AS window_rows,
             @last_stream AS cursor_stream,
             @last_key AS cursor_key,
             @walked AS walked) AS p
LEFT JOIN @claimed AS c ON 1 = 1
ORDER BY c.id;
