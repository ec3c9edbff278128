import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { InboxService, InvalidMessageError, OutboxService } from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase, testDatabase } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows, outboxRows } from '../../fixtures/inbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

const CREDENTIAL = 'Bearer destination-credential';

/*
 * Message headers a destination's transport would act on, or that the destination sets itself,
 * are refused at enqueue: in the caller's transaction, as an InvalidMessageError naming the
 * header. The broker destinations are never published to here (nothing reaches them).
 */
describeWithDatabase('outbox: message headers its destination refuses', () => {
  const receiver = new HttpReceiver();
  let app: TestApp;
  let schema: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    const url = await receiver.start();
    app = await startQueueBoxApp(
      schema,
      {
        destinations: {
          billing: {
            type: 'http',
            url: `${url}/hooks`,
            headers: { Authorization: CREDENTIAL, 'X-Api-Key': 'destination-key' },
          },
          orders: { type: 'rabbitmq', url: 'amqp://127.0.0.1:1', exchange: 'orders' },
          events: { type: 'nats', servers: 'nats://127.0.0.1:1', subject: 'events' },
          sink: { type: 'custom', publisher: RecordingPublisher },
        },
        inbox: { relay: { routes: { partner: { destination: 'billing' } }, pollIntervalMs: 50 } },
        outbox: { pollIntervalMs: 50 },
      },
      [RecordingPublisher],
    );
  });
  beforeEach(() => testDatabase().truncate(app.dataSource, schema, ['outbox', 'inbox']));
  afterAll(async () => {
    await app?.close();
    await receiver.stop();
  });

  it('refuses, inside the caller’s transaction, a header the destination sets itself or its transport acts on, naming it', async () => {
    const outbox = app.app.get(OutboxService);
    const refusal = (destination: string, headers: Record<string, string>) =>
      app.dataSource
        .transaction(async (manager) => {
          // Written first, in the same transaction: the refusal rolls it back with the rest.
          await outbox.enqueue({ destination: 'sink', payload: { before: true } }, { manager });
          await outbox.enqueue({ destination, payload: { n: 1 }, headers }, { manager });
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );

    for (const [destination, header, transport] of [
      ['billing', 'authorization', 'set by the destination itself'],
      ['billing', 'X-API-KEY', 'set by the destination itself'],
      ['orders', 'CC', 'RabbitMQ'],
      ['orders', 'bcc', 'RabbitMQ'],
      ['events', 'Nats-Rollup', 'JetStream'],
      ['events', 'nats-expected-last-sequence', 'JetStream'],
    ]) {
      const error = await refusal(destination, { 'x-tenant': 'acme', [header]: 'all' });
      expect(error, `${destination} ${header}`).toBeInstanceOf(InvalidMessageError);
      expect(error).toMatchObject({ code: 'INVALID_MESSAGE', field: `headers.${header}` });
      expect((error as Error).message).toContain(
        `Message header "${header}" cannot go to destination "${destination}"`,
      );
      expect((error as Error).message).toContain(transport);
    }
    expect(await outboxRows(app.dataSource, schema)).toEqual([]);

    // In a list, the refused message is named by its index; nothing of the list is written.
    await expect(
      outbox.enqueue([
        { destination: 'sink', payload: 1 },
        { destination: 'billing', payload: 2, headers: { 'x-api-key': 'forged' } },
      ]),
    ).rejects.toMatchObject({ field: 'headers.x-api-key', index: 1 });
    expect(await outboxRows(app.dataSource, schema)).toEqual([]);
  });

  it('accepts other headers, and any header for a custom publisher; the destination’s credential is what is sent', async () => {
    const outbox = app.app.get(OutboxService);
    await outbox.enqueue({
      destination: 'sink',
      payload: 1,
      headers: { CC: 'x', 'Nats-Rollup': 'all', Authorization: 'y' },
    });
    const { id } = await outbox.enqueue({
      destination: 'billing',
      payload: { n: 2 },
      headers: { 'x-tenant': 'acme', 'Nats-Rollup': 'all' },
    });
    await waitFor(
      async () => (await testDatabase().rowState(app.dataSource, schema, id)).state === 'sent',
      20_000,
      'billing row sent',
    );
    const delivered = receiver.requests.find((request) => request.body === '{"n":2}');
    expect(delivered?.headers).toMatchObject({
      authorization: CREDENTIAL,
      'x-api-key': 'destination-key',
      'x-tenant': 'acme',
    });
  });

  it('relay: an inbox message whose headers its route’s destination refuses is dead-lettered at once, naming the header; its neighbours are forwarded', async () => {
    const inbox = app.app.get(InboxService);
    await inbox.receive({ source: 'partner', idempotencyKey: 'p-1', payload: { p: 1 } });
    await inbox.receive({
      source: 'partner',
      idempotencyKey: 'p-2',
      payload: { p: 2 },
      headers: { Authorization: 'Bearer partner' },
    });
    await inbox.receive({ source: 'partner', idempotencyKey: 'p-3', payload: { p: 3 } });
    const byKey = async () =>
      new Map((await inboxRows(app.dataSource, schema)).map((row) => [row.idempotency_key, row]));
    await waitFor(
      async () => [...(await byKey()).values()].every((row) => row.state === 'processed' || row.state === 'dead'),
      20_000,
      'every inbox row finished',
    );

    const rows = await byKey();
    expect(rows.get('p-2')).toMatchObject({ state: 'dead', attempts: 1 });
    expect(rows.get('p-2')?.last_error).toContain('Message header "Authorization" cannot go to destination "billing"');
    expect([rows.get('p-1')?.state, rows.get('p-3')?.state]).toEqual(['processed', 'processed']);
    expect(
      (await outboxRows(app.dataSource, schema)).map((row) => JSON.parse(row.payload)).sort((a, b) => a.p - b.p),
    ).toEqual([{ p: 1 }, { p: 3 }]);
  });
});
