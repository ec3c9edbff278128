import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { ROWS_PURGED_TOTAL } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows, outboxRows } from '../../fixtures/inbox-rows.js';
import type { InboxSeed, OutboxSeed } from '../../fixtures/test-database.js';
import { counterValue } from '../../fixtures/metrics.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const HOUR = 3_600_000;

describeWithDatabase('retention: finished rows are deleted after their age, nothing else is', () => {
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

  /** Inserts a row in `state`, finished `hoursAgo` hours ago (by the database clock) when given. */
  const outboxRow = (state: OutboxSeed['state'], hoursAgo?: number): Promise<string> =>
    testDatabase().insertOutboxRow(db, schema, {
      state,
      attempts: 1,
      finishedAgoMs: hoursAgo === undefined ? undefined : hoursAgo * HOUR,
    });

  const inboxRow = (key: string, state: InboxSeed['state'], hoursAgo: number | null): Promise<string> =>
    testDatabase().insertInboxRow(db, schema, {
      source: 's',
      idempotencyKey: key,
      state,
      attempts: 0,
      finishedAgoMs: hoursAgo === null ? undefined : hoursAgo * HOUR,
    });

  const ids = async (table: 'outbox' | 'inbox') =>
    (await (table === 'outbox' ? outboxRows(db, schema) : inboxRows(db, schema))).map((row) => row.id);

  it('deletes sent, processed and dead rows past their ages, keeps recent and unfinished ones', async () => {
    const oldSent = await outboxRow('sent', 3);
    const recentSent = await outboxRow('sent', 0.5);
    const oldDead = await outboxRow('dead', 30);
    const recentDead = await outboxRow('dead', 3);
    const pending = await outboxRow('pending');
    const processing = await outboxRow('processing');
    const oldProcessed = await inboxRow('a', 'processed', 3);
    const recentProcessed = await inboxRow('b', 'processed', 0.5);
    const inboxPending = await inboxRow('c', 'pending', null);
    const purgedBefore = await counterValue(ROWS_PURGED_TOTAL, { table: 'outbox', state: 'sent' });

    app = await startQueueBoxApp(schema, {
      retention: { outboxSentMs: 2 * HOUR, inboxProcessedMs: 2 * HOUR, deadMs: 24 * HOUR, intervalMs: 100 },
      outbox: { pollIntervalMs: 60_000 },
    });
    await waitFor(
      async () => !(await ids('outbox')).includes(oldDead) && !(await ids('inbox')).includes(oldProcessed),
      5_000,
      'purged',
    );
    expect(await ids('outbox')).toEqual([recentSent, recentDead, pending, processing]);
    expect(await ids('inbox')).toEqual([recentProcessed, inboxPending]);
    expect(oldSent).not.toBe(recentSent);
    expect(await counterValue(ROWS_PURGED_TOTAL, { table: 'outbox', state: 'sent' })).toBe(purgedBefore + 1);
  });
});
