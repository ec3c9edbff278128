import type { DataSource, EntityManager } from 'typeorm';
import type { SqlStatement } from '../dialects/sql-dialect.interface.js';

/**
 * Runs one statement and returns its rows. With a manager that has a query runner (a TypeORM
 * transaction) the statement joins that transaction; otherwise it runs on its own pooled
 * connection in autocommit. One statement per call: the row counts of a multi-statement batch
 * are not reported per statement by every driver.
 */
export async function runStatement<T = Record<string, unknown>>(
  dataSource: DataSource,
  statement: SqlStatement,
  manager?: EntityManager,
): Promise<T[]> {
  // A manager's query runner is used even when released: TypeORM then throws, instead of the
  // statement silently leaving the caller's transaction.
  const joined = manager?.queryRunner;
  if (joined) {
    return (await joined.query(statement.sql, [...statement.params], true)).records as T[];
  }
  const runner = dataSource.createQueryRunner();
  try {
    return (await runner.query(statement.sql, [...statement.params], true)).records as T[];
  } finally {
    await runner.release();
  }
}
