import { Injectable } from '@nestjs/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OutboxService, type OutboxMessage, type OutboxPublisher } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

/** A destination that is down until the test lets it answer. */
@Injectable()
class StalledPublisher implements OutboxPublisher {
  readonly started: string[] = [];
  private release!: () => void;
  readonly released = new Promise<void>((resolve) => (this.release = resolve));

  async publish(message: OutboxMessage): Promise<void> {
    this.started.push(message.messageId);
    await this.released;
  }

  letThrough(): void {
    this.release();
  }
}

/** Order is per (destination, key): a key's messages to one destination do not wait for another destination. */
describeWithDatabase('outbox: ordering scope', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startQueueBoxApp(
      await createTestSchema(),
      {
        destinations: {
          billing: { type: 'custom', publisher: StalledPublisher },
          shipping: { type: 'custom', publisher: RecordingPublisher },
        },
        outbox: { pollIntervalMs: 50 },
      },
      [StalledPublisher, RecordingPublisher],
    );
  });
  afterAll(async () => {
    app.app.get(StalledPublisher).letThrough();
    await app?.close();
  });

  it('publishes a key’s message to shipping while its older message to billing is still in flight, and keeps order within each destination', async () => {
    const outbox = app.app.get(OutboxService);
    const billing = app.app.get(StalledPublisher);
    const shipping = app.app.get(RecordingPublisher);
    const [firstBilling] = await outbox.enqueue([
      { destination: 'billing', key: 'order-7', payload: { n: 1 } },
      { destination: 'shipping', key: 'order-7', payload: { n: 2 } },
      { destination: 'billing', key: 'order-7', payload: { n: 3 } },
      { destination: 'shipping', key: 'order-7', payload: { n: 4 } },
    ]);
    await waitFor(() => shipping.published.length === 2, 5_000, 'both shipping messages');
    expect(shipping.published.map((message) => JSON.parse(message.payload).n)).toEqual([2, 4]);
    // Billing is still stuck on its first message: its second waits behind it.
    expect(billing.started).toEqual([firstBilling.messageId]);
    billing.letThrough();
    await waitFor(() => billing.started.length === 2, 5_000, 'the second billing message');
  });
});
