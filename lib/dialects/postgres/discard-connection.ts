import type { QueryRunner } from 'typeorm';

/** The part of a node-postgres client that owns its socket. */
interface SocketOwner {
  connection?: { stream?: { destroy(): void } };
}

/** TypeORM's PostgreSQL query runner releases its client with an error: pg-pool then removes the client instead of keeping it idle. */
interface ReleasingWithError {
  releasePostgresConnection?(error?: Error): Promise<void>;
}

/**
 * Ends the runner's connection at once by destroying its socket (no round trip: the connection
 * may be dead), and releases the runner with an error, so that pg-pool removes the client at
 * once instead of handing it out again before the socket's close is seen. node-postgres fails
 * the pending query with "Connection terminated unexpectedly". A runner that has no connection
 * yet is left alone. Used for a statement past its deadline, and for a session on a read-only
 * server (statement-runner.ts).
 */
export function discardPostgresConnection(runner: QueryRunner): void {
  const client = (runner as unknown as { databaseConnection?: SocketOwner }).databaseConnection;
  if (!client) return;
  client.connection?.stream?.destroy();
  if (runner.isReleased) return;
  void (runner as unknown as ReleasingWithError).releasePostgresConnection?.(new Error('discarded by QueueBox'))?.catch(() => undefined);
}
