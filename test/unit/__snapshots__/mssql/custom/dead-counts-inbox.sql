SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT x.source AS label, COUNT(*) AS dead
FROM [messaging].[shop_inbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
WHERE x.state = 'dead'
GROUP BY x.source
ORDER BY x.source;
