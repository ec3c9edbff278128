import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { describe, expect, inject, it } from 'vitest';
import { createQueueBoxMigrations } from '../../../lib/surfaces/migrations/index.js';

/**
 * A DataSource on a fresh schema with QueueBox's migrations for custom table names, as an
 * application has it; `versions` keeps only the first ones (an older release's).
 */
async function migrationSource(versions?: number) {
  const schema = `qb_mig_${randomBytes(4).toString('hex')}`;
  const all = createQueueBoxMigrations({ type: 'postgres', schema, tables: { outbox: 'out_box', inbox: 'in_box' } });
  const dataSource = new DataSource({
    type: 'postgres',
    url: inject('pgUrl'),
    schema,
    migrations: all.slice(0, versions ?? all.length),
    migrationsTableName: 'app_migrations',
  });
  await dataSource.initialize();
  await dataSource.query(`CREATE SCHEMA "${schema}"`);
  return { dataSource, schema, all };
}

const columns = async (dataSource: DataSource, schema: string, table: string) =>
  (
    await dataSource.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY column_name`,
      [schema, table],
    )
  ).map((row: { column_name: string }) => row.column_name);
const indexes = async (dataSource: DataSource, schema: string) =>
  Object.fromEntries(
    (await dataSource.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1`, [schema])).map(
      (row: { indexname: string; indexdef: string }) => [row.indexname, row.indexdef],
    ),
  );

describe('migrations', () => {
  it('create every table and index, undo to nothing, and run again', async () => {
    const { dataSource, schema, all } = await migrationSource();
    try {
      await dataSource.runMigrations();
      expect(await columns(dataSource, schema, 'in_box')).toContain('ordering_key');
      expect((await indexes(dataSource, schema)).out_box_key_pending_ix).toMatch(/\(destination, ordering_key, id\)/);
      for (let i = 0; i < all.length; i++) await dataSource.undoLastMigration();
      expect(await columns(dataSource, schema, 'out_box')).toEqual([]);
      await dataSource.runMigrations();
      expect(await columns(dataSource, schema, 'out_box')).toContain('destination');
    } finally {
      await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await dataSource.destroy();
    }
  });

  it('upgrade a database of the first version, rows included', async () => {
    const first = await migrationSource(2);
    const { dataSource, schema } = first;
    try {
      await dataSource.runMigrations();
      expect(await columns(dataSource, schema, 'in_box')).toContain('aggregate_key');
      await dataSource.query(
        `INSERT INTO "${schema}".in_box (source, idempotency_key, aggregate_key, payload) VALUES ('s', 'k', 'agg', '1')`,
      );
      const upgraded = new DataSource({ ...dataSource.options, migrations: first.all } as never);
      await upgraded.initialize();
      try {
        await upgraded.runMigrations();
        expect(await upgraded.query(`SELECT ordering_key FROM "${schema}".in_box`)).toEqual([{ ordering_key: 'agg' }]);
      } finally {
        await upgraded.destroy();
      }
    } finally {
      await dataSource.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await dataSource.destroy();
    }
  });
});
