import { randomBytes } from 'node:crypto';
import { connect, type Channel, type ChannelModel, type GetMessage } from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidQueueBoxOptionsError, OutboxService, PublishFailedError } from '../../../lib/index.js';
import { uuidv7 } from '../../../lib/features/outbox/message-id.js';
import { PublisherRegistry } from '../../../lib/features/publishers/publisher-registry.js';
import { createTestSchema, databaseConfigured } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { openSocketsTo } from '../../fixtures/open-sockets.js';
import { rowState } from '../../fixtures/outbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const rabbitUrl = process.env.QUEUEBOX_RABBITMQ_URL;
const AMQP_PORT = rabbitUrl ? Number(new URL(rabbitUrl).port || 5672) : 5672;

// A real broker, never a mock: RabbitMQ runs on CI's machine (.ci/run sets the variable) but
// not necessarily on a developer's, so the suite runs only when QUEUEBOX_RABBITMQ_URL is set.
describe.skipIf(!rabbitUrl || !databaseConfigured)('outbox → RabbitMQ (publisher confirms)', () => {
  const suffix = randomBytes(4).toString('hex');
  const exchange = `queuebox.test.${suffix}`;
  const lateExchange = `queuebox.test.late.${suffix}`;
  const queue = `queuebox.test.${suffix}`;
  const lateQueue = `queuebox.test.late.${suffix}`;
  let admin: ChannelModel;
  let channel: Channel;
  let app: TestApp;
  let schema: string;

  beforeAll(async () => {
    admin = await connect(rabbitUrl!);
    channel = await admin.createChannel();
    await channel.assertExchange(exchange, 'direct', { durable: false });
    await channel.assertQueue(queue, { durable: false });
    await channel.bindQueue(queue, exchange, 'orders');
    schema = await createTestSchema();
    app = await startQueueBoxApp(schema, {
      destinations: {
        orders: { type: 'rabbitmq', url: rabbitUrl!, exchange, routingKey: 'orders' },
        late: {
          type: 'rabbitmq',
          url: rabbitUrl!,
          exchange: lateExchange,
          routingKey: 'late',
          confirmTimeoutMs: 5_000,
        },
      },
      outbox: {
        pollIntervalMs: 50,
        maxAttempts: 100,
        backoff: { initialDelayMs: 200, maxDelayMs: 200, jitter: 'none' },
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    if (channel) {
      await channel.deleteQueue(queue);
      await channel.deleteQueue(lateQueue);
      await channel.deleteExchange(exchange);
      await channel.deleteExchange(lateExchange);
    }
    await admin?.close();
  });

  /** The next message of `name`, waiting for it to arrive. */
  const nextMessage = async (name: string): Promise<GetMessage> => {
    let message: GetMessage | false = false;
    await waitFor(
      async () => (message = await channel.get(name, { noAck: true })) !== false,
      10_000,
      `a message in ${name}`,
    );
    return message as unknown as GetMessage;
  };

  it('delivers a committed message with its message id and key once the broker confirms, and marks it sent', async () => {
    const outbox = app.app.get(OutboxService);
    await app.dataSource
      .transaction(async (manager) => {
        await outbox.enqueue({ destination: 'orders', payload: { order: 'rolled-back' } }, { manager });
        throw new Error('business failure');
      })
      .catch(() => undefined);
    const { id, messageId } = await app.dataSource.transaction((manager) =>
      outbox.enqueue(
        { destination: 'orders', key: 'order-7', payload: { order: 7 }, headers: { 'x-tenant': 'acme' } },
        { manager },
      ),
    );
    const message = await nextMessage(queue);
    expect(JSON.parse(message.content.toString('utf8'))).toEqual({ order: 7 });
    expect(message.fields).toMatchObject({ exchange, routingKey: 'orders' });
    expect(message.properties).toMatchObject({ messageId, contentType: 'application/json', deliveryMode: 2 });
    expect(message.properties.headers).toMatchObject({
      'x-queuebox-key': 'order-7',
      'x-message-id': messageId,
      'x-tenant': 'acme',
    });
    await waitFor(async () => (await rowState(app.dataSource, schema, id)).state === 'sent', 10_000, 'row sent');
    expect(await channel.get(queue)).toBe(false);
  });

  it('retries while the exchange does not exist (the broker closes the channel), then delivers on a reopened channel', async () => {
    const { id, messageId } = await app.app
      .get(OutboxService)
      .enqueue({ destination: 'late', key: 'k', payload: { late: true } });
    await waitFor(
      async () => (await rowState(app.dataSource, schema, id)).attempts >= 2,
      10_000,
      'two failed attempts',
    );
    const failed = await rowState(app.dataSource, schema, id);
    expect(failed.state).not.toBe('sent');
    expect(failed.last_error).toContain('NOT_FOUND');
    expect(failed.last_error).toContain(lateExchange);
    expect(failed.last_error).not.toContain('guest:guest');
    await waitFor(
      async () => (await rowState(app.dataSource, schema, id)).state === 'pending',
      10_000,
      'row pending between attempts',
    );

    await channel.assertExchange(lateExchange, 'direct', { durable: false });
    await channel.assertQueue(lateQueue, { durable: false });
    await channel.bindQueue(lateQueue, lateExchange, 'late');
    await waitFor(async () => (await rowState(app.dataSource, schema, id)).state === 'sent', 10_000, 'row sent');
    const message = await nextMessage(lateQueue);
    expect(message.properties.messageId).toBe(messageId);
    expect((await rowState(app.dataSource, schema, id)).attempts).toBeGreaterThan(failed.attempts);
  });

  it('refuses a stored message with CC or BCC before it reaches the channel: its neighbours in flight are confirmed', async () => {
    // Rows stored around QueueBox (enqueue refuses these headers): as strings, RabbitMQ closes
    // the channel on them, and every publish in flight on it would fail with the bad one.
    const publisher = app.app.get(PublisherRegistry).get('orders')!;
    const { signal } = new AbortController();
    const message = (n: number, headers: Record<string, string> = {}) => ({
      id: String(n),
      messageId: uuidv7(),
      destination: 'orders',
      key: null,
      headers,
      payload: JSON.stringify({ n }),
      attempt: 1,
    });
    const outcomes = await Promise.allSettled([
      publisher.publish(message(1), { signal }),
      publisher.publish(message(2, { CC: queue }), { signal }),
      publisher.publish(message(3), { signal }),
      publisher.publish(message(4, { bcc: queue }), { signal }),
      publisher.publish(message(5), { signal }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    for (const [i, header] of [
      [1, 'CC'],
      [3, 'bcc'],
    ] as const) {
      const error = (outcomes[i] as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(PublishFailedError);
      expect(error).toMatchObject({
        retryable: false,
        message: expect.stringContaining(`message header "${header}" cannot go to destination "orders"`),
      });
    }
    const received = [await nextMessage(queue), await nextMessage(queue), await nextMessage(queue)].map(
      (m) => JSON.parse(m.content.toString('utf8')).n,
    );
    expect(received.sort()).toEqual([1, 3, 5]);
    expect(await channel.get(queue)).toBe(false);
  });

  it('rejects a publish whose signal aborts before the confirm, as a retryable failure', async () => {
    const publisher = app.app.get(PublisherRegistry).get('orders')!;
    const controller = new AbortController();
    const publishing = publisher.publish(
      { id: '0', messageId: uuidv7(), destination: 'orders', key: null, headers: {}, payload: '{}', attempt: 1 },
      { signal: controller.signal },
    );
    controller.abort();
    const error = await publishing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishFailedError);
    expect(error).toMatchObject({ retryable: true, message: expect.stringContaining('aborted') });
    // At-least-once: the broker may have the message anyway; drop it for the tests after this one.
    await channel.purgeQueue(queue);
  });

  it('refuses invalid options at start-up, naming the option and never echoing the URL', async () => {
    const start = (destination: Record<string, unknown>) =>
      startQueueBoxApp(schema, { destinations: { bad: destination as never }, workers: { enabled: false } });
    const error = await start({ type: 'rabbitmq', url: 'http://user:s3cret@rabbit.test:5672', exchange: '' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidQueueBoxOptionsError);
    expect(error).toMatchObject({ path: 'destinations.bad.url', code: 'INVALID_OPTIONS' });
    expect((error as Error).message).not.toContain('s3cret');
    await expect(start({ type: 'rabbitmq', url: rabbitUrl })).rejects.toMatchObject({
      path: 'destinations.bad.exchange',
    });
    await expect(start({ type: 'rabbitmq', url: rabbitUrl, exchange: '', confirmTimeoutMs: 0 })).rejects.toMatchObject({
      path: 'destinations.bad.confirmTimeoutMs',
    });
  });

  it('closes its connection on shutdown', async () => {
    const otherSchema = await createTestSchema();
    const before = openSocketsTo(AMQP_PORT);
    const other = await startQueueBoxApp(otherSchema, {
      destinations: { orders: { type: 'rabbitmq', url: rabbitUrl!, exchange, routingKey: 'orders' } },
      outbox: { pollIntervalMs: 50 },
    });
    const { id } = await other.app.get(OutboxService).enqueue({ destination: 'orders', payload: { shutdown: true } });
    await waitFor(async () => (await rowState(other.dataSource, otherSchema, id)).state === 'sent', 10_000, 'row sent');
    await nextMessage(queue);
    expect(openSocketsTo(AMQP_PORT)).toBe(before + 1);
    // Closing ends the broker connection itself (no timed bound: the socket count is the condition).
    await other.close();
    await waitFor(() => openSocketsTo(AMQP_PORT) === before, 10_000, 'the AMQP socket closed');
  });
});
