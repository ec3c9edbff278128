import type { DataSource } from 'typeorm';
import { UnsupportedDatabaseError } from '../errors/unsupported-database.error.js';
import type { ResolvedTableNames } from '../options/resolved-options.interface.js';
import { unsupportedDatabase } from '../queuebox.messages.js';
import { PostgresDialect } from './postgres/postgres.dialect.js';
import type { SqlDialect } from './sql-dialect.interface.js';

/** Chooses the SQL dialect from the DataSource type. */
export function resolveDialect(dataSource: DataSource, tables: ResolvedTableNames, preparedStatements = true): SqlDialect {
  const type = String(dataSource.options.type);
  if (type === 'postgres') return new PostgresDialect(tables, preparedStatements);
  throw new UnsupportedDatabaseError(type, unsupportedDatabase(type));
}
