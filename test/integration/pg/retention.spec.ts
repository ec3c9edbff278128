import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { ROWS_PURGED_TOTAL } from '../../../lib/index.js';
import { createTestSchema, openDataSource } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { counterValue } from '../../fixtures/metrics.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const HOUR = 3_600_000;

describe('retention: finished rows are deleted after their age, nothing else is', () => {
  let schema: string;
  let db: DataSource;
  let app: TestApp | undefined;

  beforeAll(async () => {
    schema = await createTestSchema(inject('pgUrl'));
    db = await openDataSource(inject('pgUrl'), schema, 2);
  });
  afterAll(async () => {
    await app?.close();
    await db?.destroy();
  });

  /** Inserts a row in `state`, finished `hoursAgo` hours ago (by the database clock) when given. */
  async function outboxRow(state: string, hoursAgo?: number): Promise<string> {
    const [row] = await db.query(
      `INSERT INTO "${schema}".queuebox_outbox_messages (message_id, destination, payload, state, finished_at, attempts, claim_token, claimed_at, lease_expires_at)
       VALUES (gen_random_uuid(), 'd', '1', $1, CASE WHEN $2::float8 IS NULL THEN NULL ELSE statement_timestamp() - $2::float8 * interval '1 hour' END, 1,
               CASE WHEN $1 = 'processing' THEN gen_random_uuid() END, CASE WHEN $1 = 'processing' THEN statement_timestamp() END,
               CASE WHEN $1 = 'processing' THEN statement_timestamp() + interval '1 hour' END)
       RETURNING id`,
      [state, hoursAgo ?? null],
    );
    return String(row.id);
  }

  async function inboxRow(key: string, state: string, hoursAgo: number | null): Promise<string> {
    const [row] = await db.query(
      `INSERT INTO "${schema}".queuebox_inbox_messages (source, idempotency_key, payload, state, finished_at)
       VALUES ('s', $1, '1', $2, CASE WHEN $3::float8 IS NULL THEN NULL ELSE statement_timestamp() - $3::float8 * interval '1 hour' END) RETURNING id`,
      [key, state, hoursAgo],
    );
    return String(row.id);
  }

  const ids = async (table: string) =>
    (await db.query(`SELECT id FROM "${schema}".queuebox_${table}_messages ORDER BY id`)).map((row: { id: string }) => String(row.id));

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

    app = await startQueueBoxApp(inject('pgUrl'), schema, {
      retention: { outboxSentMs: 2 * HOUR, inboxProcessedMs: 2 * HOUR, deadMs: 24 * HOUR, intervalMs: 100 },
      outbox: { pollIntervalMs: 60_000 },
    });
    await waitFor(async () => !(await ids('outbox')).includes(oldDead) && !(await ids('inbox')).includes(oldProcessed), 5_000, 'purged');
    expect(await ids('outbox')).toEqual([recentSent, recentDead, pending, processing]);
    expect(await ids('inbox')).toEqual([recentProcessed, inboxPending]);
    expect(oldSent).not.toBe(recentSent);
    expect(await counterValue(ROWS_PURGED_TOTAL, { table: 'outbox', state: 'sent' })).toBe(purgedBefore + 1);
  });
});
