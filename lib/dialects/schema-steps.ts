import { UnsupportedDatabaseError } from '../errors/unsupported-database.error.js';
import type { ResolvedTableNames } from '../options/resolved-options.interface.js';
import { unsupportedMigrationType } from '../queuebox.messages.js';
import { mssqlSchemaSteps } from './mssql/mssql-schema-steps.js';
import { postgresSchemaSteps } from './postgres/schema.sql.js';
import type { SchemaStep } from './schema-step.interface.js';

/** The database types QueueBox has a schema for. */
export type SchemaDatabaseType = 'postgres' | 'mssql';

const STEPS: Readonly<Record<SchemaDatabaseType, (tables: ResolvedTableNames) => SchemaStep[]>> = {
  postgres: postgresSchemaSteps,
  mssql: mssqlSchemaSteps,
};

/** QueueBox's schema steps on database `type`; an unknown type is an `UnsupportedDatabaseError`. */
export function schemaSteps(type: string, tables: ResolvedTableNames): SchemaStep[] {
  const steps = Object.prototype.hasOwnProperty.call(STEPS, type) ? STEPS[type as SchemaDatabaseType] : undefined;
  if (!steps) throw new UnsupportedDatabaseError(type, unsupportedMigrationType(type));
  return steps(tables);
}
