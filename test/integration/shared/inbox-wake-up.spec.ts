import { Injectable } from '@nestjs/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { InboxService, PullWorker, PullWorkerHost, type InboxMessage } from '../../../lib/index.js';
import { InboxRelay } from '../../../lib/features/inbox/inbox-relay.js';
import { OutboxPoller } from '../../../lib/features/outbox/outbox-poller.js';
import { PullWorkerExplorer } from '../../../lib/features/pull/pull-worker.explorer.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows } from '../../fixtures/inbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

const handled: string[] = [];

@PullWorker('tickets', { pollIntervalMs: 60_000 })
@Injectable()
class TicketsWorker extends PullWorkerHost {
  async handle(message: InboxMessage): Promise<void> {
    handled.push(message.idempotencyKey);
  }
}

/**
 * Poll intervals are a minute: only a wake-up can get the rows through within the test's time.
 * Wake-ups within one process; across replicas (PostgreSQL only): pg/inbox-wake-up-notify.spec.ts.
 */
describeWithDatabase('inbox relay and pull workers wake on new rows of their process', () => {
  let app: TestApp;
  let schema: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    app = await startQueueBoxApp(
      schema,
      {
        destinations: { sink: { type: 'custom', publisher: RecordingPublisher } },
        inbox: { relay: { routes: { orders: { destination: 'sink' } }, pollIntervalMs: 60_000 } },
        outbox: { pollIntervalMs: 60_000 },
      },
      [RecordingPublisher, TicketsWorker],
    );
    // The start-up polls have run: from now on every loop sleeps a minute unless woken.
    const loops = [app.app.get(OutboxPoller), app.app.get(InboxRelay), ...app.app.get(PullWorkerExplorer).workers];
    await waitFor(() => loops.every((loop) => loop.status.lastTickAt !== undefined), 10_000, 'the start-up polls');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('relays and pulls rows received in this process', async () => {
    await app.app.get(InboxService).receive({ source: 'orders', idempotencyKey: 'o-local', payload: 1 });
    await app.app.get(InboxService).receive({ source: 'tickets', idempotencyKey: 't-local', payload: 2 });
    await waitFor(
      async () => (await inboxRows(app.dataSource, schema)).every((row) => row.state === 'processed'),
      5_000,
      'all processed',
    );
    expect(handled).toEqual(['t-local']);
    // The relay's outbox row was published too: the outbox woke after the forward committed.
    await waitFor(() => app.app.get(RecordingPublisher).published.length === 1, 5_000, 'forwarded message published');
  });
});
