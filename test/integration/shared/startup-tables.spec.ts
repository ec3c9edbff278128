import { Logger } from '@nestjs/common';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { StatementRunner } from '../../../lib/database/statement-runner.js';
import { dialectOfType } from '../../../lib/database/dialects/dialect-registry.js';
import { QueueBoxHealthIndicator, QueueBoxHealthModule } from '../../../lib/surfaces/health/index.js';
import { MissingMigrationsError, OutboxService, QueueBoxAdmin } from '../../../lib/index.js';
import { createQueueBoxSchema } from '../../../tools/queuebox-schema.js';
import { databaseType, describeWithDatabase, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';
import { testSchemaName } from '../../fixtures/test-database.js';

const destinations = { sink: { type: 'custom' as const, publisher: RecordingPublisher } };

/**
 * Start-up tells the truth about QueueBox's tables (issue 32): without its migrations an
 * application fails to start with an error naming them, instead of starting, reporting healthy,
 * and failing every poll; with `startup.waitForMigrations` it starts, says so once, reports down,
 * and starts its loops when the tables appear.
 */
describeWithDatabase('start-up check of the tables', () => {
  const schemas: string[] = [];
  let app: TestApp | undefined;

  /** A schema name nobody has made yet: QueueBox's tables are not there. */
  const emptySchema = (): string => {
    const schema = testSchemaName();
    schemas.push(schema);
    return schema;
  };
  /** Runs QueueBox's migrations in `schema`, as the application's deployment would. */
  const migrate = async (schema: string): Promise<void> => {
    await createQueueBoxSchema(
      testDatabase().dataSourceOptions(schema, { poolSize: 1 }),
      schema,
      'queuebox_test_migrations',
    );
    await testDatabase().grantApplication(schema);
  };

  afterEach(async () => {
    await app?.close();
    app = undefined;
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    for (const schema of schemas) await testDatabase().dropSchema(schema);
  });

  it('fails start-up with MissingMigrationsError naming the migrations to add, and starts no loop', async () => {
    const schema = emptySchema();
    const log = vi.spyOn(Logger.prototype, 'log');
    const failure = await startQueueBoxApp(schema, { destinations }, [RecordingPublisher]).then(
      (started) => (app = started) && undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(MissingMigrationsError);
    const error = failure as MissingMigrationsError;
    expect(error.code).toBe('MISSING_MIGRATIONS');
    expect(error.problems).toEqual([
      `table ${schema}.queuebox_outbox_messages does not exist`,
      `table ${schema}.queuebox_inbox_messages does not exist`,
    ]);
    // The tables have a schema of their own: the factory, with the names to pass it.
    expect(error.message).toContain(
      `createQueueBoxMigrations({ type: '${databaseType}', schema: '${schema}' }) from "queuebox/migrations"`,
    );
    expect(error.message).toContain('startup.waitForMigrations');
    expect(error.migrations).toEqual(
      expect.arrayContaining([expect.stringMatching(/^QueueBoxOutbox/), expect.stringMatching(/^QueueBoxInbox/)]),
    );
    expect(log.mock.calls.filter(([message]) => typeof message === 'string' && message.startsWith('started:'))).toEqual(
      [],
    );
  });

  it('fails start-up of an API-only replica too: enqueue needs the tables', async () => {
    await expect(
      startQueueBoxApp(emptySchema(), { destinations, workers: { enabled: false } }, [RecordingPublisher]),
    ).rejects.toThrow(MissingMigrationsError);
  });

  it('starts when the tables are there, at the cost of one statement', async () => {
    const schema = emptySchema();
    await migrate(schema);
    const run = vi.spyOn(StatementRunner.prototype, 'run');
    app = await startQueueBoxApp(schema, { destinations, workers: { enabled: false } }, [RecordingPublisher]);
    // With workers disabled nothing else runs at start-up but the dialect's own probe (SQL Server's).
    const probe = dialectOfType(databaseType)!.startupProbe ? 1 : 0;
    expect(run).toHaveBeenCalledTimes(1 + probe);
  });

  it('with startup.waitForMigrations, starts with one warning, reports down, and starts the loops once the tables appear', async () => {
    const schema = emptySchema();
    const warn = vi.spyOn(Logger.prototype, 'warn');
    const checks = vi.spyOn(StatementRunner.prototype, 'run');
    const tableChecks = () => checks.mock.calls.filter(([statement]) => statement.sql.includes('column_name')).length;
    app = await startQueueBoxApp(
      schema,
      { destinations, startup: { waitForMigrations: true, checkIntervalMs: 100 }, outbox: { pollIntervalMs: 20 } },
      {
        providers: [RecordingPublisher],
        imports: [QueueBoxHealthModule],
      },
    );
    const health = app.app.get(QueueBoxHealthIndicator);
    const admin = app.app.get(QueueBoxAdmin);
    expect(health.isHealthy().queuebox).toMatchObject({
      status: 'down',
      tables: 'not ready',
      problems: [
        `table ${schema}.queuebox_outbox_messages does not exist`,
        `table ${schema}.queuebox_inbox_messages does not exist`,
      ],
    });
    expect(admin.loops().find((loop) => loop.component === 'outbox')?.state).toBe('idle');
    // It keeps looking, quietly.
    await waitFor(() => tableChecks() >= 3, 10_000, 'three checks of the tables');
    const waiting = warn.mock.calls.filter(([message]) => String(message).includes('Waiting for them'));
    expect(waiting).toHaveLength(1);
    expect(String(waiting[0][0])).toContain(`table ${schema}.queuebox_outbox_messages does not exist`);
    expect(warn.mock.calls.filter(([message]) => String(message).includes('poll tick failed'))).toEqual([]);

    await migrate(schema);
    await waitFor(
      () => admin.loops().find((loop) => loop.component === 'outbox')?.state === 'running',
      10_000,
      'the outbox poller started',
    );
    await waitFor(() => health.isHealthy().queuebox.status === 'up', 10_000, 'health up');
    await app.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 1 } });
    const publisher = app.app.get(RecordingPublisher);
    await waitFor(() => publisher.published.length === 1, 10_000, 'the message published');
    expect(warn.mock.calls.filter(([message]) => String(message).includes('Waiting for them'))).toHaveLength(1);
  });

  it('with startup.waitForMigrations, an API-only replica reports down until the tables appear, then up', async () => {
    const schema = emptySchema();
    app = await startQueueBoxApp(
      schema,
      { destinations, workers: { enabled: false }, startup: { waitForMigrations: true, checkIntervalMs: 100 } },
      {
        providers: [RecordingPublisher],
        imports: [QueueBoxHealthModule],
      },
    );
    const health = app.app.get(QueueBoxHealthIndicator);
    expect(health.isHealthy().queuebox.status).toBe('down');
    await migrate(schema);
    await waitFor(() => health.isHealthy().queuebox.status === 'up', 10_000, 'health up');
    expect(health.isHealthy()).toEqual({ queuebox: { status: 'up', workers: 'disabled' } });
  });

  it('with startup.waitForMigrations, shutdown while waiting stops waiting and starts nothing', async () => {
    const schema = emptySchema();
    const log = vi.spyOn(Logger.prototype, 'log');
    const started = await startQueueBoxApp(
      schema,
      { destinations, startup: { waitForMigrations: true, checkIntervalMs: 100 } },
      [RecordingPublisher],
    );
    const admin = started.app.get(QueueBoxAdmin);
    // Resolves although the tables never came: the wait ends with shutdown.
    await started.close();
    expect(admin.loops().every((loop) => loop.state === 'idle')).toBe(true);
    expect(
      log.mock.calls.filter(
        ([message]) =>
          typeof message === 'string' && (message.startsWith('started:') || message.includes('tables are ready')),
      ),
    ).toEqual([]);
  });
});
