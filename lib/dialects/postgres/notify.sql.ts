/*
 * Cross-replica wake-up. A notification carries no message data: it only says "look".
 * NOTIFY is sent after the producer's commit, from a QueueBox connection, at most once per
 * coalescing window, because every committing transaction that notified takes one global lock.
 */

/** $1 channel, $2 the sending instance's id (so that it can ignore its own notification). */
export const notify = (): string => /* sql */ `SELECT pg_notify($1, $2)`;

/** LISTEN takes no parameters; the channel is built from validated identifiers only. */
export const listen = (channel: string): string => /* sql */ `LISTEN "${channel}"`;

/** Before a listening connection goes back to the pool. */
export const unlistenAll = (): string => /* sql */ `UNLISTEN *`;
