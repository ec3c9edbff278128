SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT x.destination AS label, COUNT(*) AS dead
FROM [queuebox_outbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
WHERE x.state = 'dead'
GROUP BY x.destination
ORDER BY x.destination;
