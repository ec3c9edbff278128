import type { DataSource } from 'typeorm';

/** Marks a pool, and each of its clients, as guarded once. */
const GUARDED = Symbol('queuebox.poolErrorGuard');

/** The part of a node-postgres pool (pg-pool) the guard uses. */
interface GuardedPool {
  on(event: 'acquire', listener: (client: ErrorEmitter) => void): unknown;
}

interface ErrorEmitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
  [GUARDED]?: true;
}

/**
 * Gives every connection of the DataSource's node-postgres pools an `error` listener of its
 * own, so that a connection failing in the moment between the pool handing it out and its user
 * listening cannot end the process.
 *
 * WHY: pg-pool removes its own `error` listener from a client when it hands the client out, and
 * TypeORM's query runner adds its listener only in a promise continuation. For a new connection,
 * the hand-out happens while node-postgres parses the server's ReadyForQuery; when the same
 * network read also carries an ErrorResponse (the backend was terminated just then: 57P01 from
 * `pg_terminate_backend`, a failover, a restart), the client emits `error` before the runner
 * listens, with no listener at all, and Node.js ends the process. The guard only keeps the event
 * from being unhandled: the error still fails the client's active query, the client is marked
 * unusable, and the pool discards it when it is released.
 */
export function guardPoolErrors(dataSource: DataSource): void {
  // A DataSource that is not initialized has no pool yet (unit tests, the CLI's early checks).
  const driver = dataSource.driver as unknown as { master?: GuardedPool; slaves?: GuardedPool[] } | undefined;
  for (const pool of [driver?.master, ...(driver?.slaves ?? [])]) {
    if (!pool || (pool as { [GUARDED]?: true })[GUARDED]) continue;
    (pool as { [GUARDED]?: true })[GUARDED] = true;
    // 'acquire' comes for every hand-out, just before pg-pool removes its listener: connections
    // opened before QueueBox started (TypeORM's first) are guarded at their next hand-out.
    pool.on('acquire', (client) => {
      if (client[GUARDED]) return;
      client[GUARDED] = true;
      client.on('error', ignoreConnectionError);
    });
  }
}

/** The error reaches the query or the pool that owns the client; here it only must not be unhandled. */
function ignoreConnectionError(): void {}
