import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import pg from 'pg';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { postgresSchemaSteps } from '../../../lib/database/dialects/postgres/schema.sql.js';
import { resolveOptions } from '../../../lib/config/options/resolve-options.js';
import {
  InvalidQueueBoxOptionsError,
  MissingMigrationsError,
  OutboxService,
  QueueBoxModule,
  type QueueBoxModuleOptions,
} from '../../../lib/index.js';
import { createQueueBoxMigrations } from '../../../lib/surfaces/migrations/index.js';
import { describeWithDatabase } from '../../fixtures/database.js';
import { createLoginRole } from '../../fixtures/login-role.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';
import { testSchemaName } from '../../fixtures/test-database.js';

const destinations = { sink: { type: 'custom' as const, publisher: RecordingPublisher } };

/**
 * The start-up check on PostgreSQL: it expects exactly the columns the migrations make, names the
 * migration an older schema lacks, and works for an application role that owns nothing, on a
 * named schema and on its search path.
 */
describeWithDatabase('start-up check of the tables on PostgreSQL', () => {
  const url = inject('testDatabase').url!;
  const schemas: string[] = [];
  let admin: pg.Client;
  let role: string;
  let roleUrl: string;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    // The application's role: it may log in, use the schemas it is granted, and read and write rows; it owns nothing.
    ({ name: role, url: roleUrl } = await createLoginRole(admin, url, 'qb_app'));
  });
  afterAll(async () => {
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    if (role) await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  /** A schema made by the database owner (not the role) with the first `steps` of QueueBox's migrations run in it (all by default). */
  async function migratedSchema(steps?: number, schemaOption = true): Promise<string> {
    const schema = testSchemaName();
    schemas.push(schema);
    await admin.query(`CREATE SCHEMA ${schema}`);
    const migrations = createQueueBoxMigrations(
      schemaOption ? { type: 'postgres', schema } : { type: 'postgres' },
    ).slice(0, steps);
    const options = {
      type: 'postgres',
      url,
      schema,
      migrations,
      migrationsTableName: 'queuebox_test_migrations',
      extra: { max: 1, options: `-c search_path=${schema}` },
    } as DataSourceOptions;
    const dataSource = await new DataSource(options).initialize();
    try {
      await dataSource.runMigrations();
    } finally {
      await dataSource.destroy();
    }
    return schema;
  }

  /** USAGE on the schema and DML on its tables, as a DBA grants an application role. */
  async function grant(schema: string): Promise<void> {
    await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    await admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
  }

  /** An application connected as `connection`, with its search path at `searchPath`; closed again when start-up fails. */
  async function start(connection: string, searchPath: string, options: QueueBoxModuleOptions) {
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: connection,
          extra: { max: 4, options: `-c search_path=${searchPath}` },
        }),
        QueueBoxModule.forRoot({ destinations, ...options }),
      ],
      providers: [RecordingPublisher],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    try {
      await app.init();
    } catch (error) {
      await app.close();
      throw error;
    }
    return app;
  }

  it('expects exactly the columns the migrations make', async () => {
    const schema = await migratedSchema();
    const declared = (table: 'outbox' | 'inbox') =>
      postgresSchemaSteps(resolveOptions({ schema }).tables).flatMap((step) => step.columns[table] ?? []);
    const { rows } = await admin.query<{ table_name: string; columns: string[] }>(
      `SELECT table_name, array_agg(column_name::text ORDER BY column_name) AS columns FROM information_schema.columns WHERE table_schema = $1 AND table_name LIKE 'queuebox_%_messages' GROUP BY table_name`,
      [schema],
    );
    const made = Object.fromEntries(rows.map((row) => [row.table_name, row.columns]));
    expect(made.queuebox_outbox_messages).toEqual([...declared('outbox')].sort());
    expect(made.queuebox_inbox_messages).toEqual([...declared('inbox')].sort());
  });

  it('names the migration an older schema lacks (version 1: no SchemaV2), and starts once it has run', async () => {
    const schema = await migratedSchema(2);
    const error = await start(url, 'public', { schema, workers: { enabled: false } }).catch(
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(MissingMigrationsError);
    expect(error).toMatchObject({
      migrations: [expect.stringMatching(/^QueueBoxSchemaV2/)],
      problems: [`table ${schema}.queuebox_inbox_messages has no column ordering_key`],
    });
    const dataSource = await new DataSource({
      type: 'postgres',
      url,
      schema,
      migrations: createQueueBoxMigrations({ type: 'postgres', schema }),
      migrationsTableName: 'queuebox_test_migrations',
      extra: { max: 1 },
    }).initialize();
    await dataSource.runMigrations();
    await dataSource.destroy();
    const app = await start(url, 'public', { schema, workers: { enabled: false } });
    await app.close();
  });

  it('works for a role that owns nothing (USAGE on the schema, DML on the tables): starts, claims and publishes', async () => {
    const schema = await migratedSchema();
    await grant(schema);
    const app = await start(roleUrl, 'public', { schema, outbox: { pollIntervalMs: 20 } });
    try {
      await app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 1 } });
      const publisher = app.get(RecordingPublisher);
      await waitFor(() => publisher.published.length === 1, 10_000, 'published by the role');
    } finally {
      await app.close();
    }
  });

  it('for that role, finds the tables on its search path without a schema option, and says which migrations a schema without them lacks', async () => {
    const schema = await migratedSchema(undefined, false);
    await grant(schema);
    const app = await start(roleUrl, schema, { workers: { enabled: false } });
    await app.close();

    const empty = testSchemaName();
    schemas.push(empty);
    await admin.query(`CREATE SCHEMA ${empty}`);
    await admin.query(`GRANT USAGE ON SCHEMA ${empty} TO ${role}`);
    const error = await start(roleUrl, empty, { workers: { enabled: false } }).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(MissingMigrationsError);
    expect((error as Error).message).toContain('table queuebox_outbox_messages does not exist');
    expect((error as Error).message).toContain('QueueBoxPostgresMigrations from "queuebox/migrations"');
    expect((error as Error).message).toContain("createQueueBoxMigrations({ type: 'postgres', schema, tables })");
  });

  it("for a role without USAGE on the schema, fails start-up with the database's refusal", async () => {
    const schema = await migratedSchema();
    await expect(start(roleUrl, 'public', { schema, workers: { enabled: false } })).rejects.toThrow(
      /permission denied for schema/,
    );
  });

  it('refuses a DataSource that is not initialized, naming the option', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot({ type: 'postgres', url, manualInitialization: true }),
        QueueBoxModule.forRoot({ destinations, workers: { enabled: false } }),
      ],
      providers: [RecordingPublisher],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    const error = await app.init().catch((failure: unknown) => failure);
    await app.close();
    expect(error).toBeInstanceOf(InvalidQueueBoxOptionsError);
    expect(error).toMatchObject({ path: 'dataSource', message: expect.stringContaining('manualInitialization') });
  });
});
