/**
 * What QueueBox found out at start-up about the connections the application's pool hands it: a
 * pooler between the application and the database (PgBouncer in transaction mode, and the like)
 * may run each transaction on another server session. Session state then does not last: a LISTEN
 * hears nothing after its own transaction, and a named prepared statement is unknown on the next
 * one (unless the pooler carries prepared statements over, as PgBouncer 1.21+ can).
 */
export interface ConnectionPooling {
  /** Each transaction may run on another server session: session state (LISTEN) does not last. */
  sessionPerTransaction: boolean;
  /** A named prepared statement made in one transaction is still known in the next. */
  preparedStatementsKept: boolean;
}

/** A direct connection, or a pooler in session mode: the session is the connection's. */
export const SESSION_PER_CONNECTION: ConnectionPooling = Object.freeze({
  sessionPerTransaction: false,
  preparedStatementsKept: true,
});
