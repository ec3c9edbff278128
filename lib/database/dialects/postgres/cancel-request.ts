import { connect, type Socket } from 'node:net';

/** The part of a node-postgres client a cancel request needs: where it connected, and its backend's key. */
export interface CancellableClient {
  host?: string;
  port?: number;
  processID?: number | null;
  secretKey?: number | null;
}

/** The CancelRequest code of the PostgreSQL protocol (1234 << 16 | 5678). */
const CANCEL_REQUEST_CODE = 80_877_102;

/**
 * The longest a cancel request's connection stays open waiting for the other side to close it.
 * WHY so long, rather than the wait for its answer: PgBouncer 1.18 ends its own process (a FATAL,
 * "bad client state") when a cancel request's client goes away before the server connection that
 * forwards it does (pgbouncer#801); PgBouncer closes the connection itself once it is done. So the
 * connection is never closed first, except after this long, when nothing can be forwarding it.
 */
const CANCEL_CONNECTION_LIFETIME_MS = 300_000;

/**
 * Asks the server to cancel what `client`'s backend runs now, as libpq's PQcancel does: a new
 * connection to the same address carrying only the backend's pid and secret key, left open until
 * the server (or a pooler, which forwards it to the backend the client is linked to) closes it,
 * once it has signalled the backend. Resolves then, or at `waitMs` (no answer yet: a network cut,
 * a pooler still forwarding), or at once when the client never got its key; the connection stays
 * open past `waitMs` until the other side closes it. Never rejects: a cancel is best effort.
 *
 * Sent unencrypted, as libpq did before PostgreSQL 17: the request carries no credentials, and the
 * secret key is good for this one backend's cancel only.
 */
export function sendCancelRequest(client: CancellableClient, waitMs: number): Promise<void> {
  const { host, port, processID, secretKey } = client;
  if (!host || !port || processID == null || secretKey == null) return Promise.resolve();
  return new Promise((resolve) => {
    const socket: Socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
    // A cancel in flight never keeps the process alive.
    socket.unref();
    const answered = setTimeout(resolve, waitMs);
    const lifetime = setTimeout(() => socket.destroy(), CANCEL_CONNECTION_LIFETIME_MS).unref();
    const closed = (): void => {
      clearTimeout(answered);
      clearTimeout(lifetime);
      socket.destroy();
      resolve();
    };
    socket.on('connect', () => {
      const request = Buffer.alloc(16);
      request.writeInt32BE(16, 0);
      request.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      request.writeInt32BE(processID, 8);
      request.writeInt32BE(secretKey, 12);
      // Not `end()`: a half-closed cancel connection is dropped by PgBouncer before it forwards it.
      socket.write(request);
    });
    socket.on('end', closed);
    socket.on('close', closed);
    socket.on('error', closed);
  });
}
