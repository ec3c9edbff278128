import type { ResolvedTableNames } from '../options/resolved-options.interface.js';
import type { SchemaStep } from './schema-step.interface.js';
import { type SchemaDatabaseType, schemaSteps } from './schema-steps.js';

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
 * How each database's client tool separates statements. PostgreSQL's DDL is transactional, so the
 * script is one transaction; SQL Server's `CREATE SCHEMA` must open its batch, so every statement
 * is a batch of its own (`GO`, which sqlcmd and SSMS understand).
 */
const LAYOUT: Readonly<Record<SchemaDatabaseType, { name: string; begin: string[]; end: string[]; terminate: (statement: string) => string; client: string }>> = {
  postgres: { name: 'PostgreSQL', begin: ['BEGIN;'], end: ['COMMIT;'], terminate: (statement) => `${statement};`, client: 'psql -v ON_ERROR_STOP=1 -f <file>' },
  mssql: { name: 'SQL Server', begin: [], end: [], terminate: (statement) => `${statement}\nGO`, client: 'sqlcmd -b -i <file>' },
};

/**
 * The statements of QueueBox's migrations on `dialect` (the same ones, in the same order), as a
 * script. `nameOf` gives each step's migration class name, for the comments and for a DBA who
 * records the migrations as applied.
 */
export function schemaScript(dialect: SchemaDatabaseType, tables: ResolvedTableNames, nameOf: (step: SchemaStep) => string): SchemaScript {
  const layout = LAYOUT[dialect];
  const migrations = schemaSteps(dialect, tables).map((step) => ({ name: nameOf(step), version: step.version, statements: step.up }));
  const lines = [
    `-- QueueBox tables on ${layout.name}: outbox ${tables.outbox}, inbox ${tables.inbox}${tables.schema ? `, in schema ${tables.schema}` : ''}.`,
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
