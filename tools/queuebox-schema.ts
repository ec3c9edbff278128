import { DataSource, type DataSourceOptions } from 'typeorm';
import { createQueueBoxMigrations, type QueueBoxMigrationOptions } from '../lib/surfaces/migrations/index.js';

/**
 * Creates `schema` with QueueBox's tables by running its own migrations, as an application
 * would (development only: the tests and the bench use a fresh schema each). `connection` is a
 * PostgreSQL URL, or the options of a DataSource on any database QueueBox has migrations for.
 */
export async function createQueueBoxSchema(
  connection: string | DataSourceOptions,
  schema: string,
  migrationsTableName: string,
): Promise<void> {
  const options: DataSourceOptions =
    typeof connection === 'string' ? { type: 'postgres', url: connection } : connection;
  // A type QueueBox has no schema for makes the factory throw UnsupportedDatabaseError.
  const type = options.type as QueueBoxMigrationOptions['type'];
  const dataSource = new DataSource({
    ...options,
    schema,
    migrations: createQueueBoxMigrations({ type, schema }),
    migrationsTableName,
  } as DataSourceOptions);
  await dataSource.initialize();
  try {
    // The schema first: the migrations table lives in it.
    await dataSource.query(`CREATE SCHEMA ${dataSource.driver.escape(schema)}`);
    await dataSource.runMigrations();
  } finally {
    await dataSource.destroy();
  }
}
