SET NOCOUNT ON;
DECLARE @inserted TABLE (id bigint NOT NULL);
INSERT INTO [queuebox_inbox_messages] (source, idempotency_key, ordering_key, headers, payload)
OUTPUT inserted.id INTO @inserted (id)
SELECT @0, @1, @2, @3, @4
WHERE NOT EXISTS (SELECT 1 FROM [queuebox_inbox_messages] AS e WITH (UPDLOCK, HOLDLOCK)
                  WHERE e.source = @0 AND e.idempotency_key = @1);
SELECT i.id FROM @inserted AS i;
