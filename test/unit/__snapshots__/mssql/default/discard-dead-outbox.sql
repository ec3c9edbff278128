DELETE m
OUTPUT deleted.id
FROM [queuebox_outbox_messages] AS m
WHERE m.state = 'dead' AND m.id IN (SELECT CAST(j.value AS bigint) FROM OPENJSON(@0) AS j);
