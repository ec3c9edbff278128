import { UnsupportedDatabaseError } from '../../shared/errors/unsupported-database.error.js';
import { DEFAULT_INBOX_TABLE, DEFAULT_OUTBOX_TABLE } from '../../shared/queuebox.constants.js';
import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import { unsupportedMigrationType } from '../../shared/queuebox.messages.js';
import { dialectOfType, dialectProfiles, type DialectName } from './dialect-registry.js';
import type { SchemaStep } from './schema-step.interface.js';

/** The database types QueueBox has a schema for: every registered dialect. */
export type SchemaDatabaseType = DialectName;

/** QueueBox's schema steps on database `type`; an unknown type is an `UnsupportedDatabaseError`. */
export function schemaSteps(type: string, tables: ResolvedTableNames): SchemaStep[] {
  const profile = dialectOfType(type);
  if (!profile) throw new UnsupportedDatabaseError(type, unsupportedMigrationType(type, dialectProfiles));
  return profile.schema.steps(tables);
}

/** The class name of a step's migration, which TypeORM records in its migrations table. */
export function migrationName(step: SchemaStep, tables: ResolvedTableNames): string {
  return `QueueBox${step.name}${nameSuffix(tables)}${step.version}`;
}

/** Distinguishes the migrations of non-default tables, so two QueueBox instances can coexist. */
function nameSuffix(tables: ResolvedTableNames): string {
  if (!tables.schema && tables.outbox === DEFAULT_OUTBOX_TABLE && tables.inbox === DEFAULT_INBOX_TABLE) return '';
  return [tables.schema, tables.outbox, tables.inbox]
    .filter(Boolean)
    .map((part) => part!.replace(/(^|_)([a-z0-9])/gi, (_, __, c: string) => c.toUpperCase()))
    .join('');
}
