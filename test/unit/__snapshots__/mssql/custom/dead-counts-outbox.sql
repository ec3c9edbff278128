SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT x.destination AS label, COUNT(*) AS dead
FROM [messaging].[shop_outbox] AS x WITH (READPAST, READCOMMITTEDLOCK)
WHERE x.state = 'dead'
GROUP BY x.destination
ORDER BY x.destination;
