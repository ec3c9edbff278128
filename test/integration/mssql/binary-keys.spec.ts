import { Injectable } from '@nestjs/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  InboxService,
  InvalidMessageError,
  OutboxService,
  type OutboxMessage,
  type OutboxPublisher,
} from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows } from '../../fixtures/inbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/** Holds every message of key `k` until the test lets it through; publishes the others at once. */
@Injectable()
class HoldingPublisher implements OutboxPublisher {
  readonly published: string[] = [];
  private release!: () => void;
  private readonly released = new Promise<void>((resolve) => (this.release = resolve));

  async publish(message: OutboxMessage): Promise<void> {
    if (message.key === 'k') await this.released;
    this.published.push(message.key ?? '');
  }

  letThrough(): void {
    this.release();
  }
}

/**
 * docs/guides/sql-server.md, "Waits for a live SQL Server" (order and keys): key columns are
 * `nvarchar(200) COLLATE Latin1_General_100_BIN2`. Under a database's usual case- and
 * accent-insensitive collation `abc` and `ABC` would be one idempotency key (a different message
 * dropped as a duplicate) and one ordering scope.
 */
describeWithDatabase('SQL Server: keys compare as binary strings', () => {
  let app: TestApp;
  let schema: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    app = await startQueueBoxApp(
      schema,
      {
        destinations: { sink: { type: 'custom', publisher: HoldingPublisher } },
        inbox: { sources: { orders: {} } },
        outbox: { pollIntervalMs: 50 },
      },
      [HoldingPublisher],
    );
  });
  afterAll(async () => {
    app?.app.get(HoldingPublisher).letThrough();
    await app?.close();
  });

  it('abc and ABC are two idempotency keys; so are straße and strasse, é and e + combining accent', async () => {
    const inbox = app.app.get(InboxService);
    const keys = ['abc', 'ABC', 'straße', 'strasse', '\u00e9', 'e\u0301'];
    const receipts = [];
    for (const idempotencyKey of keys)
      receipts.push(await inbox.receive({ source: 'orders', idempotencyKey, payload: { idempotencyKey } }));
    expect(receipts.map((receipt) => receipt.status)).toEqual(keys.map(() => 'accepted'));
    expect(new Set(receipts.map((receipt) => receipt.id)).size).toBe(keys.length);
    const stored = (await inboxRows(app.dataSource, schema)).map((row) => row.idempotency_key);
    expect([...stored].sort()).toEqual([...keys].sort());
    // And each is still a duplicate of itself only.
    expect((await inbox.receive({ source: 'orders', idempotencyKey: 'ABC', payload: 1 })).status).toBe('duplicate');
  });

  it('ordering keys k and K are two ordering scopes: K is published while k is in flight', async () => {
    const outbox = app.app.get(OutboxService);
    const publisher = app.app.get(HoldingPublisher);
    await outbox.enqueue({ destination: 'sink', key: 'k', payload: { n: 1 } });
    await outbox.enqueue({ destination: 'sink', key: 'K', payload: { n: 2 } });
    await waitFor(() => publisher.published.includes('K'), 10_000, 'the message of K');
    expect(publisher.published).toEqual(['K']);
    publisher.letThrough();
    await waitFor(() => publisher.published.includes('k'), 10_000, 'the message of k');
  });

  it('refuses keys ending in a space, which SQL Server compares equal to the key without it', async () => {
    await expect(
      app.app.get(InboxService).receive({ source: 'orders', idempotencyKey: 'abc ', payload: 1 }),
    ).rejects.toBeInstanceOf(InvalidMessageError);
    await expect(
      app.app.get(OutboxService).enqueue({ destination: 'sink', key: 'k ', payload: 1 }),
    ).rejects.toBeInstanceOf(InvalidMessageError);
  });
});
