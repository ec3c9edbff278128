import type { StatementConnection } from '../statement-connection.js';
import type { SqlStatement } from '../sql-dialect.interface.js';
import type { DriverRow } from '../statement-results.js';

/**
 * Runs `statement` through TypeORM on `runner`'s connection. Always a structured result: `records`
 * is the request's first result set, which every QueueBox statement makes its only one; a
 * statement without a result set gives no rows.
 */
export async function runQuery(runner: StatementConnection, statement: SqlStatement): Promise<DriverRow[]> {
  const result = await runner.query(statement.sql, [...statement.params], true);
  return (result.records ?? []) as DriverRow[];
}
