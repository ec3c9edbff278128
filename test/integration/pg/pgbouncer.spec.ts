import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DataSource } from 'typeorm';
import { InvalidQueueBoxOptionsError, OutboxService, StatementTimeoutError } from '../../../lib/index.js';
import { formatConformanceReport, runConformance } from '../../../lib/surfaces/conformance/index.js';
import { probePostgresPooling } from '../../../lib/database/dialects/postgres/session-pooling-probe.js';
import { discardPostgresConnection } from '../../../lib/database/dialects/postgres/discard-connection.js';
import { resolveDialect } from '../../../lib/database/dialects/resolve-dialect.js';
import { resolveOptions } from '../../../lib/config/options/resolve-options.js';
import { StatementRunner } from '../../../lib/database/statement-runner.js';
import { createTestSchema, testDatabase } from '../../fixtures/database.js';
import type { PostgresTestDatabase } from '../../fixtures/postgres-test-database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { pgBouncerInFront, pgbouncerInstalled, type PgBouncerInFront } from '../../fixtures/pgbouncer.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

/**
 * QueueBox behind PgBouncer 1.18 (Debian's package, a real one started here) in transaction mode,
 * with the Quick start's options (issue 28, part 1). On 8db1303, 23 of 200 messages arrived in 20 s:
 * named prepared statements went missing between transactions (26000) or met another client's
 * (42P05), and the LISTEN connection failed its health check every 10 s, forever. QueueBox must
 * find out at start-up, run unnamed statements, listen on `notify.listenUrl` or poll, and say so.
 *
 * Skipped without a PgBouncer binary (PGBOUNCER_BIN, else pgbouncer on the PATH); CI
 * installs Debian's package.
 */
describe.skipIf(!pgbouncerInstalled())('behind PgBouncer in transaction mode', () => {
  let schema: string;
  let front: PgBouncerInFront;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    schema = await createTestSchema();
    front = await pgBouncerInFront((testDatabase() as PostgresTestDatabase).url);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await front?.bouncer.stop();
    await testDatabase().dropSchema(schema);
  });

  const pooledUrl = (): string => front.url;

  /** An app whose DataSource connects through PgBouncer's transaction-mode database. */
  async function startPooledApp(
    options: Parameters<typeof startQueueBoxApp>[1],
    publisher?: RecordingPublisher,
  ): Promise<TestApp> {
    const app = await startQueueBoxApp(schema, options, {
      url: pooledUrl(),
      providers: publisher ? [{ provide: RecordingPublisher, useValue: publisher }] : [],
    });
    apps.push(app);
    return app;
  }

  const sink = { type: 'custom', publisher: RecordingPublisher } as const;

  it('delivers 200 messages enqueued one per transaction with the Quick start options, and says once how it adapted', async () => {
    const logs = vi.spyOn(Logger.prototype, 'log');
    const warnings = vi.spyOn(Logger.prototype, 'warn');
    const errors = vi.spyOn(Logger.prototype, 'error');
    const publisher = new RecordingPublisher();
    const app = await startPooledApp({ destinations: { sink } }, publisher);
    const outbox = app.app.get(OutboxService);
    for (let n = 0; n < 200; n += 1) {
      await app.dataSource.transaction((manager) =>
        outbox.enqueue({ destination: 'sink', key: `k${n % 10}`, payload: { n } }, { manager }),
      );
    }
    await waitFor(() => publisher.published.length >= 200, 30_000, '200 messages delivered');
    expect(new Set(publisher.payloads<{ n: number }>().map((payload) => payload.n)).size).toBe(200);

    const said = (spy: typeof logs): string[] => spy.mock.calls.map((call) => String(call[0]));
    expect(said(logs).filter((line) => line.includes('pooled per transaction'))).toHaveLength(1);
    expect(said(warnings).filter((line) => line.includes('notify.listenUrl'))).toHaveLength(1);
    expect([...said(warnings), ...said(errors)].filter((line) => /prepared statement|reconnecting/.test(line))).toEqual(
      [],
    );
  });

  it('wakes a replica across processes through notify.listenUrl (a session-mode URL), where a LISTEN on the pooled connections would hear nothing', async () => {
    const publisher = new RecordingPublisher();
    // The worker polls once a minute: only a wake-up delivers within the wait below.
    await startPooledApp(
      { destinations: { sink }, outbox: { pollIntervalMs: 60_000 }, notify: { listenUrl: front.sessionUrl } },
      publisher,
    );
    const producer = await startPooledApp(
      { destinations: { sink }, workers: { enabled: false } },
      new RecordingPublisher(),
    );
    const outbox = producer.app.get(OutboxService);
    // The first wake-up after start-up may find the worker's LISTEN not yet in place: send until one arrives.
    let sent = 0;
    await waitFor(
      async () => {
        await outbox.enqueue({ destination: 'sink', payload: { sent: (sent += 1) } });
        return publisher.published.length > 0;
      },
      20_000,
      'a message delivered by the woken replica',
    );
  });

  it('cancels a statement past its deadline on the server through PgBouncer, which keeps running', async () => {
    const app = await startQueueBoxApp(
      schema,
      { statementTimeoutMs: 1_000, workers: { enabled: false }, destinations: { sink } },
      {
        url: pooledUrl(),
        applicationName: 'queuebox-pgbouncer-cancel',
        providers: [{ provide: RecordingPublisher, useValue: new RecordingPublisher() }],
      },
    );
    apps.push(app);
    const direct = await new DataSource({
      type: 'postgres',
      url: (testDatabase() as PostgresTestDatabase).url,
      extra: { max: 2 },
    }).initialize();
    const locker = direct.createQueryRunner();
    try {
      await locker.startTransaction();
      await locker.query(`LOCK TABLE ${testDatabase().table(schema, 'outbox')} IN ACCESS EXCLUSIVE MODE`);
      const outbox = app.app.get(OutboxService);
      await expect(outbox.enqueue({ destination: 'sink', payload: { cancelled: 'locked' } })).rejects.toBeInstanceOf(
        StatementTimeoutError,
      );
      // PgBouncer forwarded the cancel to the backend it had linked the client to: nothing waits on the lock.
      await waitFor(
        async () =>
          Number(
            (
              (await direct.query(
                `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
                ['queuebox-pgbouncer-cancel'],
              )) as { n: number }[]
            )[0].n,
          ) === 0,
        20_000,
        'the abandoned statement to end on the server',
      );
      await locker.commitTransaction();
      await outbox.enqueue({ destination: 'sink', payload: { cancelled: 'after' } });
      const stored = (await direct.query(
        `SELECT payload::jsonb->>'cancelled' AS n FROM ${testDatabase().table(schema, 'outbox')} WHERE payload::jsonb ? 'cancelled' ORDER BY id`,
      )) as { n: string }[];
      expect(stored.map((row) => row.n)).toEqual(['after']);
    } finally {
      if (locker.isTransactionActive) await locker.rollbackTransaction();
      await locker.release();
      await direct.destroy();
    }
  });

  it('refuses to start with preparedStatements: true, naming the option', async () => {
    const failure = startPooledApp(
      { destinations: { sink }, preparedStatements: true, workers: { enabled: false } },
      new RecordingPublisher(),
    );
    await expect(failure).rejects.toBeInstanceOf(InvalidQueueBoxOptionsError);
    await expect(failure).rejects.toMatchObject({ message: expect.stringContaining('preparedStatements') });
  });

  it('passes conformance through the pooler, and fails its notify check naming the pooler and the fix when no listen URL is given', async () => {
    const dataSource = await new DataSource({ type: 'postgres', url: pooledUrl(), extra: { max: 8 } }).initialize();
    try {
      const without = await runConformance({ dataSource });
      const failed = without.checks.filter((check) => check.status === 'fail');
      expect(
        failed.map((check) => check.name),
        formatConformanceReport(without),
      ).toEqual(['notify']);
      expect(failed[0].reason).toMatch(/pooled per transaction \(PgBouncer in transaction mode/);
      expect(failed[0].reason).toContain('notify.listenUrl');
      expect(without.checks.find((check) => check.name === 'pooling')?.evidence).toContain('unnamed');

      const withListenUrl = await runConformance({ dataSource, listenUrl: front.sessionUrl });
      expect(withListenUrl.passed, formatConformanceReport(withListenUrl)).toBe(true);
    } finally {
      await dataSource.destroy();
    }
  });

  it('tells a transaction pooler from a session one, whichever order the pooler hands out its server connections in', async () => {
    const deadline = { statementTimeoutMs: 10_000, discard: discardPostgresConnection };
    const upstream = (testDatabase() as PostgresTestDatabase).url;
    const fifo = await pgBouncerInFront(upstream, 'transaction', { roundRobin: true });
    try {
      for (const [url, pooled] of [
        [pooledUrl(), true],
        [fifo.url, true],
        [front.sessionUrl, false],
        [upstream, false],
      ] as const) {
        const dataSource = await new DataSource({ type: 'postgres', url, extra: { max: 4 } }).initialize();
        try {
          // Other connections busy and idle around the probe, as in an application starting up.
          await Promise.all(Array.from({ length: 3 }, () => dataSource.query('SELECT pg_sleep(0.01)')));
          expect({ url, pooling: await probePostgresPooling(dataSource, deadline) }).toEqual({
            url,
            pooling: { sessionPerTransaction: pooled, preparedStatementsKept: !pooled },
          });
        } finally {
          await dataSource.destroy();
        }
      }
    } finally {
      await fifo.bouncer.stop();
    }
  });

  it('switches to unnamed statements when a prepared statement goes missing after start-up, and the statement that found out runs again', async () => {
    const warnings = vi.spyOn(Logger.prototype, 'warn');
    // One connection for the claims, and another client's transaction between two of them: it
    // holds the backend PgBouncer hands out next (the last released, where the claim prepared its
    // statement), so that the next claim runs on a backend that never saw the statement.
    const dataSource = await new DataSource({
      type: 'postgres',
      url: pooledUrl(),
      schema,
      extra: { max: 1 },
    }).initialize();
    const other = await new DataSource({ type: 'postgres', url: pooledUrl(), extra: { max: 1 } }).initialize();
    try {
      // As if the probe had seen sessions that last (a pooler put in front of the database since).
      const dialect = resolveDialect(dataSource, resolveOptions({ schema }).tables, true, 10_000);
      const runner = new StatementRunner(dataSource, dialect);
      const claim = () =>
        runner.run(
          dialect.claimPull(
            'nobody',
            { batchSize: 1, leaseMs: 1_000, walkKeys: 1, windowRows: 1, cursor: { stream: '', key: '' } },
            { lock: false },
          ).claim,
        );
      for (let round = 0; round < 3; round += 1) {
        await claim();
        const transaction = other.createQueryRunner();
        await transaction.startTransaction();
        await transaction.query('SELECT 1');
        await claim();
        await transaction.commitTransaction();
        await transaction.release();
      }
      expect(dialect.pooling).toEqual({ sessionPerTransaction: true, preparedStatementsKept: false });
      expect(
        warnings.mock.calls.filter((call) => String(call[0]).includes('unknown to the database session')),
      ).toHaveLength(1);
    } finally {
      await dataSource.destroy();
      await other.destroy();
    }
  });
});
