SET TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT x.source AS label, COUNT(*) AS dead
FROM [queuebox_inbox_messages] AS x WITH (READPAST, READCOMMITTEDLOCK)
WHERE x.state = 'dead'
GROUP BY x.source
ORDER BY x.source;
