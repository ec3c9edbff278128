/*
 * Cross-replica wake-up. A notification carries no message data: it only says "look". At most
 * one is sent per coalescing window, because every committing transaction that notified takes one
 * database-wide lock. The write that opens a window sends it inside its own transaction (outbox.sql.ts,
 * `withCommitNotify`): delivered with its commit, at no extra transaction. Writes inside an open
 * window send nothing; one NOTIFY, from a QueueBox connection after their commits, follows at the
 * window's end.
 */

/** $1 channel, $2 the sending instance's id (so that it can ignore its own notification). */
export const notify = (): string => /* sql */ `SELECT pg_notify($1, $2)`;

/** LISTEN takes no parameters; the channel is built from validated identifiers only. */
export const listen = (channel: string): string => /* sql */ `LISTEN "${channel}"`;

/** The LISTEN connection's health check: a round trip that also names the channels the session listens on. */
export const listeningChannels = (): string => /* sql */ `SELECT pg_listening_channels() AS channel`;

/** Before a listening connection goes back to the pool. */
export const unlistenAll = (): string => /* sql */ `UNLISTEN *`;
