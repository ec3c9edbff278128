SET NOCOUNT ON;
DECLARE @inserted TABLE (id bigint NOT NULL, message_id uniqueidentifier NOT NULL);
INSERT INTO [messaging].[shop_outbox] (message_id, destination, ordering_key, headers, payload, next_attempt_at)
OUTPUT inserted.id, inserted.message_id INTO @inserted (id, message_id)
SELECT CAST(m.value AS uniqueidentifier), d.value, k.value, h.value, p.value, DATEADD(millisecond, CAST(w.value AS int), SYSUTCDATETIME())
FROM OPENJSON(@0) AS m
INNER JOIN OPENJSON(@1) AS d ON d.[key] = m.[key]
INNER JOIN OPENJSON(@2) AS k ON k.[key] = m.[key]
INNER JOIN OPENJSON(@3) AS h ON h.[key] = m.[key]
INNER JOIN OPENJSON(@4) AS p ON p.[key] = m.[key]
INNER JOIN OPENJSON(@5) AS w ON w.[key] = m.[key]
ORDER BY CAST(m.[key] AS int);
SELECT i.id, LOWER(CONVERT(char(36), i.message_id)) AS message_id FROM @inserted AS i;
