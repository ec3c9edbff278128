/** $1 application_name. Terminates every session of one replica; returns how many. */
export const terminateReplicaSessions = /* sql */ `
SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::integer AS n
FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`;

/** $1 text[] the replicas' application names: those with a session in LISTEN (its last statement a LISTEN or QueueBox's LISTEN health check). */
export const listeningReplicas = /* sql */ `
SELECT DISTINCT application_name AS name FROM pg_stat_activity
WHERE application_name = ANY($1) AND (query LIKE 'LISTEN %' OR query LIKE '%pg_listening_channels()%')`;
