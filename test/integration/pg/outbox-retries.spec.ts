import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { OutboxService } from '../../../lib/index.js';
import { createTestSchema } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { rowState } from '../../fixtures/outbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

describe('outbox: retries, backoff and dead letters', () => {
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
    schema = await createTestSchema(inject('pgUrl'));
    app = await startQueueBoxApp(inject('pgUrl'), schema, {
      destinations: { sink: { type: 'http', url: `${url}/sink` } },
      outbox: { pollIntervalMs: 50, maxAttempts: 3, backoff: { initialDelayMs: 20, maxDelayMs: 60_000, jitter: 'none' } },
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
    expect(receiver.requests.map((request) => request.headers['x-message-id'])).toEqual([messageId, messageId, messageId]);
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
    await waitFor(async () => (await rowState(app.dataSource, schema, id)).state === 'pending', 10_000, 'retry written');
    const [{ wait }] = await app.dataSource.query(
      `SELECT EXTRACT(EPOCH FROM next_attempt_at - statement_timestamp())::float8 AS wait FROM "${schema}".queuebox_outbox_messages WHERE id = $1`,
      [id],
    );
    expect(wait).toBeGreaterThan(25);
    expect(wait).toBeLessThanOrEqual(30);
  });
});
