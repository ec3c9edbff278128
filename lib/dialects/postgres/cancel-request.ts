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
 * Asks the server to cancel what `client`'s backend runs now, as libpq's PQcancel does: a new
 * connection to the same address carrying only the backend's pid and secret key. The server (or a
 * pooler, which forwards it to the backend the client is linked to) closes that connection once
 * it has signalled the backend. Resolves then, or at `timeoutMs` (no answer: a network cut), or
 * at once when the client never got its key. Never rejects: a cancel is best effort.
 *
 * Sent unencrypted, as libpq did before PostgreSQL 17: the request carries no credentials, and the
 * secret key is good for this one backend's cancel only.
 */
export function sendCancelRequest(client: CancellableClient, timeoutMs: number): Promise<void> {
  const { host, port, processID, secretKey } = client;
  if (!host || !port || processID == null || secretKey == null) return Promise.resolve();
  return new Promise((resolve) => {
    let socket: Socket;
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    socket = host.startsWith('/') ? connect(`${host}/.s.PGSQL.${port}`) : connect(port, host);
    socket.on('connect', () => {
      const request = Buffer.alloc(16);
      request.writeInt32BE(16, 0);
      request.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      request.writeInt32BE(processID, 8);
      request.writeInt32BE(secretKey, 12);
      socket.end(request);
    });
    socket.on('close', done);
    socket.on('error', done);
  });
}
