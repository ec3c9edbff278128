DELETE m
OUTPUT deleted.id
FROM [messaging].[shop_outbox] AS m
WHERE m.state = 'dead' AND m.id IN (SELECT CAST(j.value AS bigint) FROM OPENJSON(@0) AS j);
