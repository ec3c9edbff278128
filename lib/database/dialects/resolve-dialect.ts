import type { DataSource } from 'typeorm';
import { UnsupportedDatabaseError } from '../../shared/errors/unsupported-database.error.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import { unsupportedDatabase } from '../../shared/queuebox.messages.js';
import { dialectOfType, dialectProfiles } from './dialect-registry.js';
import type { SqlDialect } from '../sql-dialect.interface.js';
import { StatementCatalog } from './statement-catalog.js';

/** Chooses the SQL dialect from the DataSource type (dialect-registry.ts), once its profile has readied (and checked) the DataSource. */
export function resolveDialect(
  dataSource: DataSource,
  tables: ResolvedTableNames,
  preparedStatements = true,
  statementTimeoutMs?: number,
): SqlDialect {
  const type = String(dataSource.options.type);
  const profile = dialectOfType(type);
  if (!profile) throw new UnsupportedDatabaseError(type, unsupportedDatabase(type, dialectProfiles));
  profile.prepareDataSource?.(dataSource);
  return new StatementCatalog(profile, tables, { prepared: preparedStatements, statementTimeoutMs });
}
