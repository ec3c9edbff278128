import type { StatementConnection } from '../../statement-connection.js';
import { type CancellableClient, sendCancelRequest } from './cancel-request.js';

interface SocketOwner extends CancellableClient {
  connection?: { stream?: { destroy(): void } };
}

/** TypeORM's PostgreSQL query runner: it releases its client to pg-pool through `releaseCallback`, with an error to have the pool remove it. */
interface PostgresRunnerInternals {
  releasePostgresConnection?(error?: Error): Promise<void>;
  releaseCallback?: (error?: Error) => void;
}

/** How long a discarded connection waits for the cancel's answer before its socket is destroyed anyway. */
export const CANCEL_WAIT_MS = 2_000;

/**
 * Discards the runner's connection: cancel the late statement on the server, destroy the socket, and
 * only then let the pool forget the client.
 *
 * WHY the cancel: the server does not notice a vanished client while its backend waits or runs. On a
 * database locked past `statementTimeoutMs`, abandoned backends piled up past the pool size until the
 * server ran out of connections. Cancelled, the backend ends its statement and exits.
 *
 * WHY the pool waits (at most `CANCEL_WAIT_MS`): else it could open the replacement while the old
 * backend still lived. The runner itself is released at once. Without `pending` (a read-only server)
 * the connection is destroyed at once.
 */
export function discardPostgresConnection(runner: StatementConnection, pending?: Promise<unknown>): void {
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
