import type { MigrationInterface, QueryRunner } from 'typeorm';
import * as postgresSchema from '../dialects/postgres/schema.sql.js';
import type { QueueBoxModuleOptions } from '../interfaces/queuebox-options.interface.js';
import { resolveOptions } from '../options/resolve-options.js';
import type { ResolvedTableNames } from '../options/resolved-options.interface.js';
import { unsupportedMigrationType } from '../queuebox.messages.js';

/** A migration class as TypeORM's `migrations` option takes it. */
export type QueueBoxMigrationClass = new () => MigrationInterface;

/**
 * Options of `createQueueBoxMigrations`: the database type and, when they differ from the
 * defaults, the same `schema` and `tables` given to `QueueBoxModule`.
 * @publicApi
 */
export interface QueueBoxMigrationOptions {
  type: 'postgres';
  schema?: QueueBoxModuleOptions['schema'];
  tables?: QueueBoxModuleOptions['tables'];
}

/** Timestamps of QueueBox's schema versions; TypeORM orders migrations by them. */
const OUTBOX_VERSION = 1764460800000;
const INBOX_VERSION = 1764547200000;
const SCHEMA_V2_VERSION = 1764979200000;

/**
 * The TypeORM migration classes that create QueueBox's tables. Add them to your DataSource's
 * `migrations` (with `migrationsRun: true` for a quick start); QueueBox never synchronizes.
 * @publicApi
 */
export function createQueueBoxMigrations(options: QueueBoxMigrationOptions): QueueBoxMigrationClass[] {
  const tables = resolveOptions({ schema: options.schema, tables: options.tables }).tables;
  if (options.type !== 'postgres') throw new TypeError(unsupportedMigrationType(String(options.type)));
  const suffix = nameSuffix(tables);
  return [
    migration(`QueueBoxOutbox${suffix}${OUTBOX_VERSION}`, [...postgresSchema.createSchema(tables), ...postgresSchema.createOutboxTable(tables)], postgresSchema.dropOutboxTable(tables)),
    migration(`QueueBoxInbox${suffix}${INBOX_VERSION}`, postgresSchema.createInboxTable(tables), postgresSchema.dropInboxTable(tables)),
    migration(`QueueBoxSchemaV2${suffix}${SCHEMA_V2_VERSION}`, postgresSchema.upgradeToV2(tables), postgresSchema.downgradeFromV2(tables)),
  ];
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
