import type { QueryRunner } from 'typeorm';
import { type CancellableClient, sendCancelRequest } from './cancel-request.js';

/** The part of a node-postgres client that owns its socket. */
interface SocketOwner extends CancellableClient {
  connection?: { stream?: { destroy(): void } };
}

/** TypeORM's PostgreSQL query runner: it releases its client to pg-pool through `releaseCallback`, with an error to have the pool remove it. */
interface PostgresRunnerInternals {
  releasePostgresConnection?(error?: Error): Promise<void>;
  releaseCallback?: (error?: Error) => void;
}

/**
 * How long a discarded connection waits for its backend to stop the statement that ran out of
 * time (the cancel's answer) before its socket is destroyed anyway. A network cut gives no answer.
 */
export const CANCEL_WAIT_MS = 2_000;

/**
 * Discards the runner's connection: the statement past its deadline is cancelled on the server,
 * then the socket is destroyed, and only then does the pool forget the client (and may open a new
 * one in its place).
 *
 * WHY the cancel: the server does not notice a client that went away while its backend waits (on
 * a lock, say) or runs. Without it, a database locked for longer than `statementTimeoutMs` would
 * keep every abandoned backend waiting, while the pool opened new connections that timed out in
 * turn: backends grew past the pool size, tens a minute, until the server ran out of connections
 * for every application on it. Cancelled, the backend ends its statement and, its client gone,
 * exits.
 *
 * WHY the pool waits: were the client removed at once, the pool could open its replacement while
 * the old backend still lived. The runner is released at once (its user's `release()` is a no-op
 * and it never goes back to the pool); only pg-pool's release of the client is deferred, by at
 * most `CANCEL_WAIT_MS`. node-postgres fails the pending query (the cancel's error, or
 * "Connection terminated unexpectedly"), which the deadline already answered. A runner that has
 * no connection yet is left alone.
 *
 * Also used, without a pending statement (nothing to cancel), for a session on a read-only server
 * (statement-runner.ts): the connection is destroyed at once.
 */
export function discardPostgresConnection(runner: QueryRunner, pending?: Promise<unknown>): void {
  const client = (runner as unknown as { databaseConnection?: SocketOwner }).databaseConnection;
  if (!client) return;
  const internals = runner as unknown as PostgresRunnerInternals;
  const poolRelease = internals.releaseCallback;
  let freePoolPlace = (): void => undefined;
  if (!runner.isReleased && poolRelease) {
    const held = new Promise<void>((resolve) => (freePoolPlace = resolve));
    internals.releaseCallback = (error) => void held.then(() => poolRelease(error));
    void internals.releasePostgresConnection?.(new Error('discarded by QueueBox'))?.catch(() => undefined);
  }
  void stopOnServer(client, pending).then(() => {
    client.connection?.stream?.destroy();
    freePoolPlace();
  });
}

/** Cancels the backend's statement and waits (bounded) for the pending query to end. */
async function stopOnServer(client: SocketOwner, pending: Promise<unknown> | undefined): Promise<void> {
  if (!pending) return;
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CANCEL_WAIT_MS)));
  const ended = pending.then(
    () => undefined,
    () => undefined,
  );
  try {
    await Promise.race([sendCancelRequest(client, CANCEL_WAIT_MS).then(() => ended), waited]);
  } finally {
    clearTimeout(timer);
  }
}
