import type { DataSource } from 'typeorm';
import { InvalidQueueBoxOptionsError } from '../errors/invalid-queuebox-options.error.js';
import { UnsupportedDatabaseError } from '../errors/unsupported-database.error.js';
import type { ResolvedTableNames } from '../options/resolved-options.interface.js';
import { mssqlRequestTimeoutTooShort, unsupportedDatabase } from '../queuebox.messages.js';
import { MssqlDialect } from './mssql/mssql.dialect.js';
import { PostgresDialect } from './postgres/postgres.dialect.js';
import type { SqlDialect } from './sql-dialect.interface.js';

/** mssql's default `requestTimeout`, and QueueBox's minimum: above the claim lock's 10 s wait plus the claim. */
const MSSQL_MIN_REQUEST_TIMEOUT_MS = 15_000;

/** Chooses the SQL dialect from the DataSource type. */
export function resolveDialect(dataSource: DataSource, tables: ResolvedTableNames, preparedStatements = true): SqlDialect {
  const type = String(dataSource.options.type);
  if (type === 'postgres') return new PostgresDialect(tables, preparedStatements);
  if (type === 'mssql') {
    checkRequestTimeout((dataSource.options as { requestTimeout?: number }).requestTimeout);
    return new MssqlDialect(tables);
  }
  throw new UnsupportedDatabaseError(type, unsupportedDatabase(type));
}

/**
 * A request the driver times out is cancelled (an attention) and its connection goes back to the
 * pool without a reset; a claim waits up to 10 s for its lock. The timeout must leave room for
 * both (0 is no timeout).
 */
function checkRequestTimeout(timeout: number | undefined): void {
  if (timeout === undefined || timeout === 0 || timeout >= MSSQL_MIN_REQUEST_TIMEOUT_MS) return;
  throw new InvalidQueueBoxOptionsError('dataSource.requestTimeout', mssqlRequestTimeoutTooShort(timeout, MSSQL_MIN_REQUEST_TIMEOUT_MS));
}
