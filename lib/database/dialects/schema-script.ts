import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import type { SchemaStep } from './schema-step.interface.js';
import { dialectProfile } from './dialect-registry.js';
import type { SchemaDatabaseType } from './schema-steps.js';

/** One migration's statements, as a DBA script lists them. */
export interface SchemaScriptMigration {
  /** The migration class name TypeORM records when it runs it. */
  name: string;
  version: number;
  statements: readonly string[];
}

/** QueueBox's DDL on one database, for a DBA to review and run by hand. */
export interface SchemaScript {
  dialect: SchemaDatabaseType;
  tables: ResolvedTableNames;
  migrations: SchemaScriptMigration[];
  /** The whole script, ready for psql or sqlcmd. */
  text: string;
}

/**
 * The statements of QueueBox's migrations on `dialect` (the same ones, in the same order), as a
 * script. `nameOf` gives each step's migration class name, for the comments and for a DBA who
 * records the migrations as applied.
 */
export function schemaScript(
  dialect: SchemaDatabaseType,
  tables: ResolvedTableNames,
  nameOf: (step: SchemaStep) => string,
): SchemaScript {
  const profile = dialectProfile(dialect);
  const layout = profile.schema.script;
  const migrations = profile.schema
    .steps(tables)
    .map((step) => ({ name: nameOf(step), version: step.version, statements: step.up }));
  const lines = [
    `-- QueueBox tables on ${profile.displayName}: outbox ${tables.outbox}, inbox ${tables.inbox}${tables.schema ? `, in schema ${tables.schema}` : ''}.`,
    `-- The statements of QueueBox's migrations, in order (run with: ${layout.client}).`,
    "-- Applied by hand, they must not run again: leave QueueBox's migrations out of the DataSource,",
    "-- or record the migration names below in TypeORM's migrations table.",
    ...layout.begin,
  ];
  for (const migration of migrations) {
    lines.push('', `-- Migration ${migration.name} (${migration.version})`);
    for (const statement of migration.statements) lines.push(layout.terminate(statement));
  }
  if (layout.end.length > 0) lines.push('', ...layout.end);
  return { dialect, tables, migrations, text: `${lines.join('\n')}\n` };
}
