import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EntityManager } from 'typeorm';
import { InvalidArgumentError, OutboxService } from '../../../lib/index.js';
import { createTestSchema, databaseType, describeWithDatabase, testDatabase } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { outboxRows } from '../../fixtures/inbox-rows.js';
import { rowState } from '../../fixtures/outbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

describeWithDatabase('outbox: transactional enqueue', () => {
  const receiver = new HttpReceiver();
  let app: TestApp;
  let schema: string;

  beforeAll(async () => {
    const url = await receiver.start();
    schema = await createTestSchema();
    app = await startQueueBoxApp(schema, {
      destinations: { orders: { type: 'http', url: `${url}/orders` } },
      outbox: { pollIntervalMs: 200 },
    });
  });
  afterAll(async () => {
    await app?.close();
    await receiver.stop();
  });

  it('publishes nothing and leaves no row when the business transaction rolls back', async () => {
    const outbox = app.app.get(OutboxService);
    await expect(
      app.dataSource.transaction(async (manager) => {
        await outbox.enqueue({ destination: 'orders', payload: { order: 'rolled-back' } }, { manager });
        throw new Error('business failure');
      }),
    ).rejects.toThrow('business failure');
    expect(await outboxRows(app.dataSource, schema)).toEqual([]);
    // A message committed after it is published; by then the poller has claimed past any
    // rolled-back row, so the marker alone arriving proves nothing else was published.
    await outbox.enqueue({ destination: 'orders', payload: { order: 'marker' } });
    await receiver.waitFor(() => receiver.requests.length > 0);
    expect(receiver.requests.map((request) => JSON.parse(request.body))).toEqual([{ order: 'marker' }]);
    receiver.requests.length = 0;
    await testDatabase().truncate(app.dataSource, schema, ['outbox']);
  });

  it('publishes a committed message once, with its X-Message-Id, and marks it sent', async () => {
    const outbox = app.app.get(OutboxService);
    const enqueued = await app.dataSource.transaction((manager) =>
      outbox.enqueue(
        { destination: 'orders', payload: { order: 42 }, key: 'customer-1', headers: { 'x-tenant': 't1' } },
        { manager },
      ),
    );
    await receiver.waitFor(() => receiver.requests.length === 1);
    const [request] = receiver.requests;
    expect(request.path).toBe('/orders');
    expect(request.headers['x-message-id']).toBe(enqueued.messageId);
    expect(request.headers['x-queuebox-key']).toBe('customer-1');
    expect(request.headers['x-tenant']).toBe('t1');
    expect(JSON.parse(request.body)).toEqual({ order: 42 });
    await waitFor(async () => (await rowState(app.dataSource, schema, enqueued.id)).state === 'sent');
    // A later message arrives alone: the sent one was not published again meanwhile.
    await outbox.enqueue({ destination: 'orders', payload: { order: 'later' }, key: 'customer-1' });
    await receiver.waitFor(() => receiver.requests.length === 2);
    expect(receiver.requests.map((request) => JSON.parse(request.body))).toEqual([{ order: 42 }, { order: 'later' }]);
    // Time-ordered UUID (version 7).
    expect(enqueued.messageId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  // PostgreSQL: QueueBox checks the runner before its prepared statements (on SQL Server the driver refuses it).
  it.runIf(databaseType === 'postgres')(
    'refuses the manager of a transaction that has ended with a typed error naming it, and writes nothing',
    async () => {
      const outbox = app.app.get(OutboxService);
      let ended: EntityManager | undefined;
      await app.dataSource.transaction(async (manager) => {
        ended = manager;
      });
      const before = (await outboxRows(app.dataSource, schema)).length;
      const error = await outbox
        .enqueue({ destination: 'orders', payload: { order: 'too-late' } }, { manager: ended })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ field: 'manager', code: 'INVALID_ARGUMENT' });
      expect(await outboxRows(app.dataSource, schema)).toHaveLength(before);
    },
  );
});
