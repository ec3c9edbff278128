/*
 * The start-up probe of connection pooling (session-pooling-probe.ts): which server session
 * (backend) serves a connection, before and after another connection's transaction interleaves.
 */

/** The backend that runs this statement. */
export const backendPid = (): string => /* sql */ `SELECT pg_backend_pid() AS pid`;

export const begin = (): string => /* sql */ `BEGIN`;

export const commit = (): string => /* sql */ `COMMIT`;

/** Drops the probe's prepared statement; its name is generated, never user input. */
export const deallocate = (name: string): string => /* sql */ `DEALLOCATE "${name}"`;
