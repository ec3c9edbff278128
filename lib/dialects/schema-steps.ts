import { UnsupportedDatabaseError } from '../errors/unsupported-database.error.js';
import type { ResolvedTableNames } from '../interfaces/table-names.interface.js';
import { unsupportedMigrationType } from '../queuebox.messages.js';
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
