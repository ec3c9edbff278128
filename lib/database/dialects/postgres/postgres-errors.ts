import type { DatabaseErrorKind } from '../../statement-results.js';

/** SQLSTATE codes the claim mechanism tells apart (node-postgres puts them on `code`). */
const KINDS: Readonly<Record<string, DatabaseErrorKind>> = {
  // deadlock_detected
  '40P01': 'deadlock',
  // lock_not_available: the claim lock's `lock_timeout` ran out
  '55P03': 'lock-not-granted',
  // query_canceled: a statement_timeout
  '57014': 'timeout',
  // read_only_sql_transaction: a hot standby, or a primary made read-only (after a failover)
  '25006': 'read-only',
  // undefined_table
  '42P01': 'missing-table',
  // invalid_sql_statement_name, duplicate_prepared_statement: a named prepared statement that
  // this connection made is unknown to the backend now serving it, or another client's of the
  // same name is there: a pooler runs transactions on other backends (PgBouncer in transaction mode)
  '26000': 'prepared-statement-lost',
  '42P05': 'prepared-statement-lost',
  // admin_shutdown (a terminated backend, a fast shutdown), crash_shutdown, cannot_connect_now
  // (starting up, shutting down), and the connection_exception class
  '57P01': 'connection-lost',
  '57P02': 'connection-lost',
  '57P03': 'connection-lost',
  '08000': 'connection-lost',
  '08001': 'connection-lost',
  '08003': 'connection-lost',
  '08004': 'connection-lost',
  '08006': 'connection-lost',
};

/** Socket errors of Node's (on `code`) that mean the server went away or was not there. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']);

/** What a PostgreSQL error means to the claim mechanism (TypeORM's QueryFailedError copies `code`). */
export function classifyPostgresError(error: unknown): DatabaseErrorKind | undefined {
  const fields = error as {
    code?: unknown;
    message?: unknown;
    driverError?: { code?: unknown; message?: unknown };
  } | null;
  const code = fields?.code ?? fields?.driverError?.code;
  if (typeof code === 'string') return KINDS[code] ?? (SOCKET_CODES.has(code) ? 'connection-lost' : undefined);
  // node-postgres ends a query whose connection closed under it with this message and no code.
  const message = fields?.driverError?.message ?? fields?.message;
  return typeof message === 'string' && message.startsWith('Connection terminated') ? 'connection-lost' : undefined;
}
