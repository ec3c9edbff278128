import { DataSource } from 'typeorm';
import { createQueueBoxMigrations } from '../lib/migrations/index.js';

/**
 * Creates `schema` with QueueBox's tables by running its own migrations, as an application
 * would (development only: the tests and the bench use a fresh schema each).
 */
export async function createQueueBoxSchema(url: string, schema: string, migrationsTableName: string): Promise<void> {
  const dataSource = new DataSource({ type: 'postgres', url, schema, migrations: createQueueBoxMigrations({ type: 'postgres', schema }), migrationsTableName });
  await dataSource.initialize();
  try {
    await dataSource.query(`CREATE SCHEMA "${schema}"`);
    await dataSource.runMigrations();
  } finally {
    await dataSource.destroy();
  }
}
