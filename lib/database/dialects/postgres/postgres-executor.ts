import type { QueryRunner } from 'typeorm';
import { InvalidArgumentError } from '../../../shared/errors/invalid-argument.error.js';
import { releasedRunner } from '../../../shared/queuebox.messages.js';
import { runQuery } from '../run-query.js';
import type { SqlStatement } from '../../sql-dialect.interface.js';
import type { DriverRow } from '../../statement-results.js';

/** The part of a node-postgres client a prepared statement needs. */
interface PreparingClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: DriverRow[] }>;
}

/**
 * Runs `statement` on `runner`'s connection. A statement with a name (the dialect gives the hot
 * ones one) runs as a named prepared statement of node-postgres: parsed and planned once per
 * connection instead of on every call, where planning costs more than the work (a completion:
 * 0.7 ms of planning for 0.1 ms of execution).
 *
 * NOTE: a prepared statement goes to the driver's client directly, so TypeORM's query logging
 * and query subscribers do not see it; transaction events still do.
 */
export async function executeOnPostgres(runner: QueryRunner, statement: SqlStatement): Promise<DriverRow[]> {
  // A manager of a transaction that has ended: the caller's mistake, named before the driver's own error.
  if (runner.isReleased) throw new InvalidArgumentError('manager', releasedRunner());
  if (!statement.name) return runQuery(runner, statement);
  const client = (await runner.connect()) as PreparingClient;
  // node-postgres only reads the values (it copies the config itself): no copy of the list here.
  return (await client.query({ name: statement.name, text: statement.sql, values: statement.params })).rows;
}
