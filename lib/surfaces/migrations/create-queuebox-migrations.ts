import type { MigrationInterface, QueryRunner } from 'typeorm';
import { migrationName, type SchemaDatabaseType, schemaSteps } from '../../database/dialects/schema-steps.js';
import type { QueueBoxModuleOptions } from '../../shared/interfaces/queuebox-options.interface.js';
import { resolveOptions } from '../../config/options/resolve-options.js';

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
  return schemaSteps(String(options?.type), tables).map((step) =>
    migration(migrationName(step, tables), step.up, step.down),
  );
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
