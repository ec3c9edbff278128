import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  InboxService,
  OutboxService,
  PullWorker,
  PullWorkerHost,
  type InboxMessage,
  type PullContext,
} from '../../lib/index.js';
import {
  drain,
  failNextPublishes,
  QueueBoxTestingModule,
  RecordingPublisher,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
} from '../../lib/surfaces/testing/index.js';

/*
 * The example of docs/guides/testing.md: a user's service tested with queuebox/testing, on an
 * embedded PostgreSQL of its own. In an application the imports read 'queuebox' and
 * 'queuebox/testing'.
 */

// --- the application under test -----------------------------------------------------------

/** Places orders: the order's event goes out through the outbox, in the order's transaction. */
@Injectable()
class OrderService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxService,
  ) {}

  async placeOrder(orderId: string, total: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      // (the order's own row would be saved here, with the same manager)
      await this.outbox.enqueue(
        { destination: 'billing', key: orderId, payload: { type: 'order.placed', orderId, total } },
        { manager },
      );
    });
  }
}

/** Payment confirmations, pulled from the inbox: each one sends `order.paid` in its transaction. */
@PullWorker('payments')
@Injectable()
class PaymentsWorker extends PullWorkerHost {
  constructor(private readonly outbox: OutboxService) {
    super();
  }

  async handle(message: InboxMessage, { manager }: PullContext): Promise<void> {
    const { orderId } = message.payload as { orderId: string };
    await this.outbox.enqueue(
      { destination: 'billing', key: orderId, payload: { type: 'order.paid', orderId } },
      { manager },
    );
  }
}

@Module({ providers: [OrderService, PaymentsWorker] })
class OrdersModule {}

// --- the test ------------------------------------------------------------------------------

describe('testing a service with queuebox/testing (docs/guides/testing.md)', () => {
  let postgres: EmbeddedPostgres;
  let moduleRef: TestingModule;
  let billing: RecordingPublisher;

  beforeAll(async () => {
    postgres = await startEmbeddedPostgres();
    moduleRef = await Test.createTestingModule({
      imports: [
        QueueBoxTestingModule.forRoot({
          url: postgres.url,
          queuebox: {
            // In production 'billing' is an HTTP destination; the test records what it would get.
            destinations: { billing: { type: 'custom', publisher: RecordingPublisher } },
            inbox: { sources: { payments: {} } },
            outbox: { backoff: { initialDelayMs: 20, maxDelayMs: 20, jitter: 'none' } },
          },
        }),
        OrdersModule,
      ],
      providers: [RecordingPublisher],
    }).compile();
    await moduleRef.init();
    billing = moduleRef.get(RecordingPublisher);
  }, 120_000);

  afterEach(() => billing.clear());

  afterAll(async () => {
    await moduleRef?.close();
    await postgres?.stop();
  });

  it('publishes the order event once the transaction commits', async () => {
    await moduleRef.get(OrderService).placeOrder('order-1', 42);
    await drain(moduleRef);
    expect(billing.payloads('billing')).toEqual([{ type: 'order.placed', orderId: 'order-1', total: 42 }]);
  });

  it('retries a publish that failed', async () => {
    failNextPublishes(moduleRef, 'billing', 2);
    await moduleRef.get(OrderService).placeOrder('order-2', 7);
    // includeScheduled: wait for the retries too (the backoff puts them a little later).
    await drain(moduleRef, { includeScheduled: true });
    expect(billing.published.map((message) => [message.key, message.attempt])).toEqual([['order-2', 3]]);
  });

  it('handles a pulled payment and sends the follow-up event', async () => {
    await moduleRef
      .get(InboxService)
      .receive({ source: 'payments', idempotencyKey: 'pay-1', key: 'order-3', payload: { orderId: 'order-3' } });
    await drain(moduleRef);
    expect(billing.payloads()).toEqual([{ type: 'order.paid', orderId: 'order-3' }]);
  });
});
