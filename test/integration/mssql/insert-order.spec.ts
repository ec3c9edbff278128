import { afterAll, beforeAll, expect, it } from 'vitest';
import { OutboxService } from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase } from '../../fixtures/database.js';
import { outboxRows } from '../../fixtures/inbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

/**
 * docs/guides/sql-server.md, "Waits for a live SQL Server" (order and keys): one enqueue of many
 * messages of one key is its FIFO order, so the ids (IDENTITY) must follow the array. On SQL Server
 * only INSERT … SELECT … ORDER BY guarantees identity order: a batch large enough for a parallel or
 * hashed plan would show any other form.
 */
describeWithDatabase('SQL Server: ids of one enqueue follow the order of its messages', () => {
  let app: TestApp;
  let schema: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    app = await startQueueBoxApp(
      schema,
      { workers: { enabled: false }, destinations: { sink: { type: 'custom', publisher: RecordingPublisher } } },
      [RecordingPublisher],
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  it('assigns ids in array order to a 1,000-message batch of one key', async () => {
    const messages = Array.from({ length: 1_000 }, (_, seq) => ({ destination: 'sink', key: 'k', payload: { seq } }));
    const enqueued = await app.app.get(OutboxService).enqueue(messages);
    expect(enqueued).toHaveLength(1_000);
    const ids = enqueued.map((message) => BigInt(message.id));
    for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1], `id of message ${i}`).toBe(true);

    const rows = await outboxRows(app.dataSource, schema);
    expect(rows.map((row) => JSON.parse(row.payload).seq)).toEqual(messages.map((_, seq) => seq));
    expect(rows.map((row) => row.message_id)).toEqual(enqueued.map((message) => message.messageId));
  });
});
