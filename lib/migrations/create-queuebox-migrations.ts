import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { SchemaStep } from '../dialects/schema-step.interface.js';
import { type SchemaDatabaseType, schemaSteps } from '../dialects/schema-steps.js';
import type { QueueBoxModuleOptions } from '../interfaces/queuebox-options.interface.js';
import { resolveOptions } from '../options/resolve-options.js';
import type { ResolvedTableNames } from '../interfaces/table-names.interface.js';

/** A migration class as TypeORM's `migrations` option takes it. */
export type QueueBoxMigrationClass = new () => MigrationInterface;

/**
 * Options of `createQueueBoxMigrations`: the database type and, when they differ from the
 * defaults, the same `schema` and `tables` given to `QueueBoxModule`.
 * @publicApi
 */
export interface QueueBoxMigrationOptions {
  /** The DataSource's `type`. */
  type: SchemaDatabaseType;
  schema?: QueueBoxModuleOptions['schema'];
  tables?: QueueBoxModuleOptions['tables'];
}

/**
 * The TypeORM migration classes that create QueueBox's tables on PostgreSQL or SQL Server. Add
 * them to your DataSource's `migrations` (with `migrationsRun: true` for a quick start); QueueBox
 * never synchronizes. An unknown `type` throws `UnsupportedDatabaseError`.
 * @publicApi
 */
export function createQueueBoxMigrations(options: QueueBoxMigrationOptions): QueueBoxMigrationClass[] {
  const tables = resolveOptions({ schema: options.schema, tables: options.tables }).tables;
  return schemaSteps(String(options?.type), tables).map((step) => migration(migrationName(step, tables), step.up, step.down));
}

/** The class name of a step's migration, which TypeORM records in its migrations table. */
export function migrationName(step: SchemaStep, tables: ResolvedTableNames): string {
  return `QueueBox${step.name}${nameSuffix(tables)}${step.version}`;
}

function migration(name: string, up: readonly string[], down: readonly string[]): QueueBoxMigrationClass {
  const run = async (runner: QueryRunner, statements: readonly string[]): Promise<void> => {
    for (const statement of statements) await runner.query(statement);
  };
  const named = {
    [name]: class implements MigrationInterface {
      readonly name = name;
      up(runner: QueryRunner): Promise<void> {
        return run(runner, up);
      }
      down(runner: QueryRunner): Promise<void> {
        return run(runner, down);
      }
    },
  };
  return named[name];
}

/** Distinguishes the migrations of non-default tables, so two QueueBox instances can coexist. */
function nameSuffix(tables: ResolvedTableNames): string {
  const defaults = resolveOptions({}).tables;
  if (!tables.schema && tables.outbox === defaults.outbox && tables.inbox === defaults.inbox) return '';
  return [tables.schema, tables.outbox, tables.inbox]
    .filter(Boolean)
    .map((part) => part!.replace(/(^|_)([a-z0-9])/gi, (_, __, c: string) => c.toUpperCase()))
    .join('');
}
