import { randomBytes } from 'node:crypto';
import { jetstreamManager, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidQueueBoxOptionsError,
  OutboxService,
  PublishFailedError,
  type OutboxMessage,
} from '../../../lib/index.js';
import { uuidv7 } from '../../../lib/features/outbox/message-id.js';
import { PublisherRegistry } from '../../../lib/features/publishers/publisher-registry.js';
import { createTestSchema, databaseConfigured } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { openSocketsTo } from '../../fixtures/open-sockets.js';
import { rowState } from '../../fixtures/outbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const natsUrl = process.env.QUEUEBOX_NATS_URL;
const NATS_PORT = natsUrl ? Number(new URL(natsUrl).port || 4222) : 4222;

// A real server, never a mock: NATS with JetStream runs on CI's machine (.ci/run sets the
// variable) but not necessarily on a developer's, so the suite runs only when QUEUEBOX_NATS_URL is set.
describe.skipIf(!natsUrl || !databaseConfigured)('outbox → NATS JetStream', () => {
  const suffix = randomBytes(4).toString('hex');
  const stream = `QUEUEBOX_TEST_${suffix}`;
  const lateStream = `QUEUEBOX_TEST_LATE_${suffix}`;
  const subject = `queuebox.test.${suffix}.events`;
  const lateSubject = `queuebox.test.late.${suffix}`;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let app: TestApp;
  let schema: string;

  beforeAll(async () => {
    nc = await connect({ servers: natsUrl });
    jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`queuebox.test.${suffix}.>`], storage: StorageType.Memory });
    schema = await createTestSchema();
    app = await startQueueBoxApp(schema, {
      destinations: {
        events: { type: 'nats', servers: natsUrl!, subject },
        late: { type: 'nats', servers: [natsUrl!], subject: lateSubject, timeoutMs: 2_000 },
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
    for (const name of [stream, lateStream]) await jsm?.streams.delete(name).catch(() => undefined);
    await nc?.close();
  });

  const messageCount = async (name: string) => (await jsm.streams.info(name)).state.messages;

  it('stores a committed message with its id as Nats-Msg-Id and its key, and marks it sent', async () => {
    const outbox = app.app.get(OutboxService);
    const { id, messageId } = await app.dataSource.transaction((manager) =>
      outbox.enqueue(
        { destination: 'events', key: 'order-7', payload: { order: 7 }, headers: { 'x-tenant': 'acme' } },
        { manager },
      ),
    );
    await waitFor(async () => (await rowState(app.dataSource, schema, id)).state === 'sent', 10_000, 'row sent');
    const stored = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    expect(stored?.json()).toEqual({ order: 7 });
    expect(stored?.header.get('Nats-Msg-Id')).toBe(messageId);
    expect(stored?.header.get('X-Message-Id')).toBe(messageId);
    expect(stored?.header.get('X-QueueBox-Key')).toBe('order-7');
    expect(stored?.header.get('x-tenant')).toBe('acme');
  });

  it('lands a message published twice only once (JetStream duplicate window on the message id)', async () => {
    const publisher = app.app.get(PublisherRegistry).get('events')!;
    const message: OutboxMessage = {
      id: '0',
      messageId: uuidv7(),
      destination: 'events',
      key: null,
      headers: {},
      payload: '{"twice":true}',
      attempt: 1,
    };
    const before = await messageCount(stream);
    const { signal } = new AbortController();
    await publisher.publish(message, { signal });
    await publisher.publish({ ...message, attempt: 2 }, { signal });
    expect(await messageCount(stream)).toBe(before + 1);
    const stored = await jsm.streams.getMessage(stream, { last_by_subj: subject });
    expect(stored?.header.get('Nats-Msg-Id')).toBe(message.messageId);
  });

  it('refuses a stored message with a JetStream control header (Nats-*), never publishing it; its neighbour lands', async () => {
    // A row stored around QueueBox (enqueue refuses these headers).
    const publisher = app.app.get(PublisherRegistry).get('events')!;
    const { signal } = new AbortController();
    const message = (headers: Record<string, string>): OutboxMessage => ({
      id: '0',
      messageId: uuidv7(),
      destination: 'events',
      key: null,
      headers,
      payload: '{"rollup":true}',
      attempt: 1,
    });
    const before = await messageCount(stream);
    const [rollup, expected, neighbour] = await Promise.allSettled([
      publisher.publish(message({ 'Nats-Rollup': 'sub' }), { signal }),
      publisher.publish(message({ 'nats-expected-last-sequence': '0' }), { signal }),
      publisher.publish(message({ 'x-tenant': 'acme' }), { signal }),
    ]);
    for (const [outcome, header] of [
      [rollup, 'Nats-Rollup'],
      [expected, 'nats-expected-last-sequence'],
    ] as const) {
      expect(outcome.status).toBe('rejected');
      expect((outcome as PromiseRejectedResult).reason).toMatchObject({
        retryable: false,
        message: expect.stringContaining(`message header "${header}" cannot go to destination "events"`),
      });
    }
    expect(neighbour.status).toBe('fulfilled');
    expect(await messageCount(stream)).toBe(before + 1);
  });

  it('retries while no stream captures the subject, then delivers once a stream does', async () => {
    const { id, messageId } = await app.app
      .get(OutboxService)
      .enqueue({ destination: 'late', payload: { late: true } });
    await waitFor(
      async () => (await rowState(app.dataSource, schema, id)).attempts >= 2,
      10_000,
      'two failed attempts',
    );
    const failed = await rowState(app.dataSource, schema, id);
    expect(failed.state).not.toBe('sent');
    expect(failed.last_error).toContain(`no JetStream stream captures subject "${lateSubject}"`);
    await waitFor(
      async () => (await rowState(app.dataSource, schema, id)).state === 'pending',
      10_000,
      'row pending between attempts',
    );

    await jsm.streams.add({ name: lateStream, subjects: [lateSubject], storage: StorageType.Memory });
    await waitFor(async () => (await rowState(app.dataSource, schema, id)).state === 'sent', 10_000, 'row sent');
    expect((await rowState(app.dataSource, schema, id)).attempts).toBeGreaterThan(failed.attempts);
    const stored = await jsm.streams.getMessage(lateStream, { last_by_subj: lateSubject });
    expect(stored?.header.get('Nats-Msg-Id')).toBe(messageId);
    expect(await messageCount(lateStream)).toBe(1);
  });

  it('rejects a publish whose signal aborts before the acknowledgement, as a retryable failure', async () => {
    const publisher = app.app.get(PublisherRegistry).get('events')!;
    const controller = new AbortController();
    const publishing = publisher.publish(
      { id: '0', messageId: uuidv7(), destination: 'events', key: null, headers: {}, payload: '{}', attempt: 1 },
      { signal: controller.signal },
    );
    controller.abort();
    const error = await publishing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PublishFailedError);
    expect(error).toMatchObject({ retryable: true, message: expect.stringContaining('aborted') });
  });

  it('refuses invalid options at start-up, naming the option', async () => {
    const start = (destination: Record<string, unknown>) =>
      startQueueBoxApp(schema, { destinations: { bad: destination as never }, workers: { enabled: false } });
    const error = await start({ type: 'nats', servers: [], subject }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidQueueBoxOptionsError);
    expect(error).toMatchObject({ path: 'destinations.bad.servers', code: 'INVALID_OPTIONS' });
    await expect(start({ type: 'nats', servers: natsUrl, subject: 'orders.*' })).rejects.toMatchObject({
      path: 'destinations.bad.subject',
    });
    await expect(
      start({ type: 'nats', servers: [natsUrl, 'ws://user:s3cret@nats.test'], subject }),
    ).rejects.toMatchObject({
      path: 'destinations.bad.servers.1',
      message: expect.not.stringContaining('s3cret'),
    });
  });

  it('drains and closes its connection on shutdown', async () => {
    const otherSchema = await createTestSchema();
    const before = openSocketsTo(NATS_PORT);
    const other = await startQueueBoxApp(otherSchema, {
      destinations: { events: { type: 'nats', servers: natsUrl!, subject } },
      outbox: { pollIntervalMs: 50 },
    });
    const { id } = await other.app.get(OutboxService).enqueue({ destination: 'events', payload: { shutdown: true } });
    await waitFor(async () => (await rowState(other.dataSource, otherSchema, id)).state === 'sent', 10_000, 'row sent');
    expect(openSocketsTo(NATS_PORT)).toBe(before + 1);
    // Closing ends the broker connection itself (no timed bound: the socket count is the condition).
    await other.close();
    await waitFor(() => openSocketsTo(NATS_PORT) === before, 10_000, 'the NATS socket closed');
  });
});
