import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { DeadLetterService, OutboxService } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, testDatabase } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { rowState } from '../../fixtures/outbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

describeWithDatabase('outbox: retries, backoff and dead letters', () => {
  const receiver = new HttpReceiver();
  let app: TestApp;
  let schema: string;
  let replies: number[];

  beforeAll(async () => {
    const url = await receiver.start();
    receiver.reply = () => {
      const status = replies.shift() ?? 200;
      return { status, headers: status === 503 ? { 'retry-after': '30' } : undefined };
    };
    schema = await createTestSchema();
    app = await startQueueBoxApp(schema, {
      destinations: { sink: { type: 'http', url: `${url}/sink` } },
      outbox: {
        pollIntervalMs: 50,
        maxAttempts: 3,
        backoff: { initialDelayMs: 20, maxDelayMs: 60_000, jitter: 'none' },
      },
    });
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });
  afterAll(async () => {
    await app?.close();
    await receiver.stop();
  });

  const enqueue = () => app.app.get(OutboxService).enqueue({ destination: 'sink', payload: { at: Date.now() } });
  const settled = async (id: string, state: string) => {
    await waitFor(async () => (await rowState(app.dataSource, schema, id)).state === state, 10_000, `row ${state}`);
    return rowState(app.dataSource, schema, id);
  };

  it('retries a 5xx with backoff and then sends, with one X-Message-Id throughout', async () => {
    replies = [500, 502];
    const { id, messageId } = await enqueue();
    expect(await settled(id, 'sent')).toMatchObject({ attempts: 3 });
    expect(receiver.requests.map((request) => request.headers['x-message-id'])).toEqual([
      messageId,
      messageId,
      messageId,
    ]);
  });

  it('dead-letters a non-retryable 4xx at once and keeps the error', async () => {
    replies = [400];
    const { id } = await enqueue();
    const row = await settled(id, 'dead');
    expect(row.attempts).toBe(1);
    expect(row.last_error).toContain('HTTP 400');
    expect(receiver.requests).toHaveLength(1);
  });

  it('dead-letters after maxAttempts failures, keeping the last error', async () => {
    replies = [500, 500, 504];
    const { id } = await enqueue();
    const row = await settled(id, 'dead');
    expect(row.attempts).toBe(3);
    expect(row.last_error).toContain('HTTP 504');
  });

  it('honours Retry-After by the database clock', async () => {
    replies = [503];
    const { id } = await enqueue();
    await receiver.waitFor(() => receiver.requests.length === 1);
    await waitFor(
      async () => (await rowState(app.dataSource, schema, id)).state === 'pending',
      10_000,
      'retry written',
    );
    // Seconds from the database clock's now to the next attempt.
    const now = await testDatabase().databaseNow(app.dataSource);
    const { nextAttemptAt } = await testDatabase().rowInstants(app.dataSource, schema, 'outbox', id);
    const wait = (nextAttemptAt.getTime() - now.getTime()) / 1000;
    expect(wait).toBeGreaterThan(25);
    expect(wait).toBeLessThanOrEqual(30);
  });
});

describeWithDatabase('outbox: dead letters can be listed and replayed', () => {
  const receiver = new HttpReceiver();
  let app: TestApp;
  let schema: string;
  let failing = true;

  beforeAll(async () => {
    const url = await receiver.start();
    receiver.reply = () => ({ status: failing ? 422 : 200 });
    schema = await createTestSchema();
    app = await startQueueBoxApp(schema, {
      destinations: { sink: { type: 'http', url } },
      outbox: { pollIntervalMs: 50 },
    });
  });
  afterAll(async () => {
    await app?.close();
    await receiver.stop();
  });

  it('lists dead messages page by page without payloads, and replays them with the same X-Message-Id', async () => {
    const outbox = app.app.get(OutboxService);
    const deadLetters = app.app.get(DeadLetterService);
    const dead = async () => (await deadLetters.list('outbox')).items;
    const sent = await outbox.enqueue(
      [0, 1, 2].map((n) => ({ destination: 'sink', key: `k${n}`, payload: { secret: n } })),
    );
    await waitFor(async () => (await dead()).length === 3, 10_000, 'three dead');
    const firstPage = await deadLetters.list('outbox', { limit: 2 });
    expect(firstPage.next).toBe(firstPage.items[1].id);
    const secondPage = await deadLetters.list('outbox', { after: firstPage.next, limit: 2 });
    expect(secondPage.next).toBeUndefined();
    expect([...firstPage.items, ...secondPage.items].map((row) => row.messageId)).toEqual(
      sent.map((message) => message.messageId),
    );
    expect(firstPage.items[0]).toMatchObject({
      destination: 'sink',
      key: 'k0',
      attempts: 1,
      lastError: expect.stringContaining('HTTP 422'),
    });
    expect(JSON.stringify(firstPage)).not.toContain('secret');

    failing = false;
    receiver.requests.length = 0;
    expect(await deadLetters.replay('outbox', { ids: [sent[0].id, sent[1].id, '999999'] })).toEqual({
      count: 2,
      chunks: 1,
      ids: [sent[0].id, sent[1].id],
    });
    await receiver.waitFor(() => receiver.requests.length === 2);
    expect(receiver.requests.map((request) => request.headers['x-message-id']).sort()).toEqual(
      [sent[0].messageId, sent[1].messageId].sort(),
    );
    await waitFor(async () => (await dead()).length === 1, 10_000, 'one left dead');
    await expect(deadLetters.list('outbox', { limit: 0 })).rejects.toMatchObject({ field: 'limit' });
    await expect(deadLetters.replay('outbox', { ids: ['1; drop table x'] })).rejects.toMatchObject({ field: 'ids' });
  });
});
