import { ScheduleModule, SchedulerRegistry } from '@nestjs/schedule';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { DataSource } from 'typeorm';
import { InvalidQueueBoxOptionsError, QueueBoxAdmin } from '../../../lib/index.js';
import type { SqlDialect } from '../../../lib/database/sql-dialect.interface.js';
import { QUEUEBOX_SQL_DIALECT } from '../../../lib/shared/queuebox.constants.js';
import { describeWithDatabase, createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { inboxRows, outboxRows } from '../../fixtures/inbox-rows.js';
import type { InboxSeed, OutboxSeed } from '../../fixtures/test-database.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const HOUR = 3_600_000;
/** Rows one purge statement deletes at most (RetentionSweeper's chunk). */
const CHUNK = 1_000;
const JOB = 'test-retention';
/** Midnight on New Year's Day: the job never fires by itself while the test runs; the test triggers it. */
const NEVER_DURING_THE_TEST = '0 0 1 1 *';

describeWithDatabase('retention on a schedule: a named cron job in SchedulerRegistry', () => {
  let schema: string;
  let db: DataSource;
  let app: TestApp | undefined;

  beforeAll(async () => {
    schema = await createTestSchema();
    db = await openDataSource(schema, 2);
  });
  afterAll(async () => {
    await app?.close();
    await db?.destroy();
  });

  const outboxRow = (state: OutboxSeed['state'], hoursAgo?: number): Promise<string> =>
    testDatabase().insertOutboxRow(db, schema, {
      state,
      attempts: 1,
      finishedAgoMs: hoursAgo === undefined ? undefined : hoursAgo * HOUR,
    });
  const inboxRow = (key: string, state: InboxSeed['state'], hoursAgo?: number): Promise<string> =>
    testDatabase().insertInboxRow(db, schema, {
      source: 's',
      idempotencyKey: key,
      state,
      attempts: 0,
      finishedAgoMs: hoursAgo === undefined ? undefined : hoursAgo * HOUR,
    });
  const ids = async (table: 'outbox' | 'inbox') =>
    (await (table === 'outbox' ? outboxRows(db, schema) : inboxRows(db, schema))).map((row) => row.id);

  it('refuses to start without ScheduleModule.forRoot(), naming retention.schedule', async () => {
    const error = await startQueueBoxApp(schema, { retention: { outboxSentMs: HOUR, schedule: true } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidQueueBoxOptionsError);
    expect(error).toMatchObject({
      path: 'retention.schedule',
      message: expect.stringContaining('ScheduleModule.forRoot()'),
    });
  });

  it('registers the job, deletes only finished rows past their ages in chunks when run, and stops through the registry', async () => {
    // Two full chunks and a partial one: the sweep must repeat a rule while its chunks come back full.
    const oldSentCount = 2 * CHUNK + 50;
    await testDatabase().seedSentOutbox(db, schema, { count: oldSentCount, finishedAgoMs: 3 * HOUR });
    const recentSent = await outboxRow('sent', 0.5);
    const oldDead = await outboxRow('dead', 30);
    const recentDead = await outboxRow('dead', 3);
    const pending = await outboxRow('pending');
    const processing = await outboxRow('processing');
    const oldProcessed = await inboxRow('a', 'processed', 3);
    const recentProcessed = await inboxRow('b', 'processed', 0.5);
    const inboxPending = await inboxRow('c', 'pending');

    app = await startQueueBoxApp(
      schema,
      {
        retention: {
          outboxSentMs: 2 * HOUR,
          inboxProcessedMs: 2 * HOUR,
          deadMs: 24 * HOUR,
          schedule: NEVER_DURING_THE_TEST,
          timeZone: 'Europe/Berlin',
          jobName: JOB,
        },
        outbox: { pollIntervalMs: 60_000 },
      },
      { imports: [ScheduleModule.forRoot()] },
    );
    const registry = app.app.get(SchedulerRegistry);
    expect(registry.doesExist('cron', JOB)).toBe(true);
    const job = registry.getCronJob(JOB);
    expect(job.isActive).toBe(true);
    expect(job.cronTime.source).toBe(NEVER_DURING_THE_TEST);
    const retentionLoop = () =>
      app!.app
        .get(QueueBoxAdmin)
        .loops()
        .find((loop) => loop.component === 'retention');
    expect(retentionLoop()).toMatchObject({ state: 'running', lastTickAt: null });
    // Scheduled, not on an interval: nothing is deleted until the job runs.
    expect(await ids('outbox')).toHaveLength(oldSentCount + 5);

    const dialect = app.app.get<SqlDialect>(QUEUEBOX_SQL_DIALECT, { strict: false });
    const purge = vi.spyOn(dialect, 'purgeFinished');
    await job.fireOnTick();

    expect(await ids('outbox')).toEqual([recentSent, recentDead, pending, processing]);
    expect(await ids('inbox')).toEqual([recentProcessed, inboxPending]);
    expect(oldDead).not.toBe(recentDead);
    expect(oldProcessed).not.toBe(recentProcessed);
    const sentPurges = purge.mock.calls.filter(([table, state]) => table === 'outbox' && state === 'done');
    expect(sentPurges).toHaveLength(3);
    expect(sentPurges.every(([, , olderThanMs, limit]) => olderThanMs === 2 * HOUR && limit === CHUNK)).toBe(true);
    purge.mockRestore();

    expect(retentionLoop()).toMatchObject({ state: 'running', lastTickAt: expect.any(Date), consecutiveErrors: 0 });

    job.stop();
    expect(registry.getCronJob(JOB).isActive).toBe(false);
    expect(retentionLoop()?.state).toBe('stopped');
    await app.close();
    app = undefined;
    expect(registry.doesExist('cron', JOB)).toBe(false);
  });
});
