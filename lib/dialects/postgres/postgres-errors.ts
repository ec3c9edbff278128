import type { DatabaseErrorKind } from '../../database/statement-results.js';

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
};

/** What a PostgreSQL error means to the claim mechanism (TypeORM's QueryFailedError copies `code`). */
export function classifyPostgresError(error: unknown): DatabaseErrorKind | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? KINDS[code] : undefined;
}
