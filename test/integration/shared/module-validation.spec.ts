import { Injectable } from '@nestjs/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  InvalidMessageError,
  OUTBOX_BACKLOG_MESSAGES,
  OUTBOX_OLDEST_PENDING_AGE_SECONDS,
  InvalidQueueBoxOptionsError,
  OutboxService,
  PayloadTooLargeError,
  UnknownDestinationError,
  type OutboxMessage,
  type OutboxPublisher,
} from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, testDatabase } from '../../fixtures/database.js';
import { outboxRows } from '../../fixtures/inbox-rows.js';
import { counterValue } from '../../fixtures/metrics.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

@Injectable()
class RecordingPublisher implements OutboxPublisher {
  readonly published: OutboxMessage[] = [];
  async publish(message: OutboxMessage): Promise<void> {
    this.published.push(message);
  }
}

describeWithDatabase('module start-up and enqueue validation', () => {
  let schema: string;
  let app: TestApp;

  beforeAll(async () => {
    schema = await createTestSchema();
    app = await startQueueBoxApp(
      schema,
      {
        destinations: { custom: { type: 'custom', publisher: RecordingPublisher } },
        workers: { metricsIntervalMs: 100 },
        outbox: { maxPayloadBytes: 100, pollIntervalMs: 50 },
      },
      [RecordingPublisher],
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  const startFails = (options: Parameters<typeof startQueueBoxApp>[1]) => startQueueBoxApp(schema, options);

  it('refuses a table name that is not an identifier, before touching the database', async () => {
    const error = await startFails({ tables: { outbox: 'x; drop table y' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidQueueBoxOptionsError);
    expect(error).toMatchObject({ path: 'tables.outbox', code: 'INVALID_OPTIONS' });
    expect((error as Error).message).toContain('identifier');
  });

  it('refuses invalid option values, naming the option and what is allowed', async () => {
    await expect(startFails({ outbox: { claimTimeoutMs: -5 } })).rejects.toMatchObject({
      path: 'outbox.claimTimeoutMs',
      message: expect.stringContaining('integer from 1000'),
    });
    await expect(startFails({ destinations: { d: { type: 'http', url: 'ftp://x' } } })).rejects.toMatchObject({
      path: 'destinations.d.url',
    });
    await expect(
      startFails({ destinations: { d: { type: 'custom', publisher: class Missing {} } } }),
    ).rejects.toMatchObject({ path: 'destinations.d.publisher' });
  });

  it('samples the backlog and the oldest pending age per configured destination', async () => {
    const before = await testDatabase().databaseNow(app.dataSource);
    await app.app.get(OutboxService).enqueue({ destination: 'custom', payload: 'later', delayMs: 3_600_000 });
    await waitFor(
      async () => (await counterValue(OUTBOX_BACKLOG_MESSAGES, { destination: 'custom' })) >= 1,
      5_000,
      'backlog sampled',
    );
    // The sample that counted the row aged it by the database clock: from its insert to the sample.
    const age = await counterValue(OUTBOX_OLDEST_PENDING_AGE_SECONDS, { destination: 'custom' });
    const after = await testDatabase().databaseNow(app.dataSource);
    expect(age).toBeGreaterThan(0);
    expect(age).toBeLessThanOrEqual((after.getTime() - before.getTime() + 2) / 1000);
  });

  it('publishes through a custom publisher provided by DI', async () => {
    const { messageId } = await app.app
      .get(OutboxService)
      .enqueue({ destination: 'custom', payload: { ok: true }, key: 'k' });
    const publisher = app.app.get(RecordingPublisher);
    await waitFor(() => publisher.published.length === 1, 5_000);
    expect(publisher.published[0]).toMatchObject({
      messageId,
      destination: 'custom',
      key: 'k',
      payload: '{"ok":true}',
      attempt: 1,
    });
  });

  it('rejects invalid messages with typed errors inside the caller’s transaction, writing nothing', async () => {
    const outbox = app.app.get(OutboxService);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const cases: [unknown, new (...args: never[]) => Error, string][] = [
      [{ destination: 'nowhere', payload: 1 }, UnknownDestinationError, 'destination'],
      [{ destination: 'custom', payload: 10n }, InvalidMessageError, 'payload'],
      [{ destination: 'custom', payload: cyclic }, InvalidMessageError, 'payload'],
      [{ destination: 'custom', payload: undefined }, InvalidMessageError, 'payload'],
      [{ destination: 'custom', payload: 'x'.repeat(200) }, PayloadTooLargeError, 'payload'],
      [{ destination: 'custom', payload: 1, key: '' }, InvalidMessageError, 'key'],
      [
        { destination: 'custom', payload: 1, headers: { 'X-Message-Id': 'mine' } },
        InvalidMessageError,
        'headers.X-Message-Id',
      ],
      [{ destination: 'custom', payload: 1, headers: { ok: 'line\r\nbreak' } }, InvalidMessageError, 'headers.ok'],
      [{ destination: 'custom', payload: 1, delayMs: -1 }, InvalidMessageError, 'delayMs'],
      [{ destination: 'custom', payload: 1, key: 'a\u0000b' }, InvalidMessageError, 'key'],
      [{ destination: 'custom', payload: 1, key: 'tab\there' }, InvalidMessageError, 'key'],
      [{ destination: 'custom', payload: 1, key: 'trailing ' }, InvalidMessageError, 'key'],
      [{ destination: 'custom', payload: 1, key: 'lone \ud800' }, InvalidMessageError, 'key'],
      [
        { destination: 'custom', payload: 1, headers: { 'Content-Length': '1' } },
        InvalidMessageError,
        'headers.Content-Length',
      ],
      [
        { destination: 'custom', payload: 1, headers: { 'Transfer-Encoding': 'chunked' } },
        InvalidMessageError,
        'headers.Transfer-Encoding',
      ],
      [
        { destination: 'custom', payload: 1, headers: { Connection: 'close' } },
        InvalidMessageError,
        'headers.Connection',
      ],
      [
        { destination: 'custom', payload: 1, headers: { 'webhook-id': 'mine' } },
        InvalidMessageError,
        'headers.webhook-id',
      ],
      [
        { destination: 'custom', payload: 1, headers: { 'x-note': 'caf\u00e9' } },
        InvalidMessageError,
        'headers.x-note',
      ],
      [
        { destination: 'custom', payload: 1, headers: { 'x-note': 'nul\u0000' } },
        InvalidMessageError,
        'headers.x-note',
      ],
      [
        { destination: 'custom', payload: 1, headers: { 'x-note': 'a', 'X-Note': 'b' } },
        InvalidMessageError,
        'headers.X-Note',
      ],
    ];
    for (const [message, type, field] of cases) {
      const error = await app.dataSource
        .transaction((manager) =>
          outbox.enqueue([{ destination: 'custom', payload: 'fine' }, message as never], { manager }),
        )
        .catch((e: unknown) => e);
      expect(error, field).toBeInstanceOf(type);
      expect(error).toMatchObject({ field, index: 1 });
    }
    expect((await outboxRows(app.dataSource, schema)).filter((row) => row.payload === '"fine"')).toEqual([]);
  });
});
