/** $1 application_name. Terminates every session of one replica; returns how many. */
export const terminateReplicaSessions = /* sql */ `
SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::integer AS n
FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`;
