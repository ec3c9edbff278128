import pg from 'pg';
import { createQueueBoxMigrations } from 'queuebox/migrations';
import { DataSource } from 'typeorm';
import type { Queryable } from './primary-pool.js';
import { createAuditTrigger } from './sql/audit-trigger.sql.js';
import { createBusinessTables } from './sql/business-tables.sql.js';
import { chaosTables, quoteIdentifier } from './sql/chaos-names.js';

/**
 * Creates the run's schema as an application would: QueueBox's tables through its own
 * migrations (the public `queuebox/migrations` entry), then the app's business tables and the
 * audit trigger, which only the chaos harness ever creates.
 */
export async function createChaosSchema(url: string, schema: string): Promise<void> {
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    schema,
    migrations: createQueueBoxMigrations({ type: 'postgres', schema }),
    migrationsTableName: 'chaos_migrations',
  });
  await dataSource.initialize();
  try {
    // The schema first: TypeORM's migrations table lives in it.
    await dataSource.query(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
    await dataSource.runMigrations();
  } finally {
    await dataSource.destroy();
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const t = chaosTables(schema);
    for (const statement of [...createBusinessTables(t), ...createAuditTrigger(t)]) await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function dropChaosSchema(pool: Queryable, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA ${quoteIdentifier(schema)} CASCADE`);
}
