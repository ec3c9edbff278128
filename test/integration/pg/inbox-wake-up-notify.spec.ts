import { Injectable } from '@nestjs/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboxService, PullWorker, PullWorkerHost, type InboxMessage } from '../../../lib/index.js';
import { InboxRelay } from '../../../lib/features/inbox/inbox-relay.js';
import { OutboxPoller } from '../../../lib/features/outbox/outbox-poller.js';
import { PullWorkerExplorer } from '../../../lib/features/pull/pull-worker.explorer.js';
import { createTestSchema } from '../../fixtures/database.js';
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
 * PostgreSQL only: rows received in an API-only replica wake the worker replica through
 * LISTEN/NOTIFY (SQL Server has none: its replicas poll; wake-ups within one process are in
 * shared/inbox-wake-up.spec.ts). Poll intervals are a minute: only a wake-up can get the rows
 * through within the test's time.
 */
describe('inbox relay and pull workers wake on new rows, across replicas', () => {
  const apps: TestApp[] = [];
  let schema: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    const options = {
      destinations: { sink: { type: 'custom' as const, publisher: RecordingPublisher } },
      inbox: { relay: { routes: { orders: { destination: 'sink' } }, pollIntervalMs: 60_000 } },
      outbox: { pollIntervalMs: 60_000 },
    };
    apps.push(await startQueueBoxApp(schema, options, [RecordingPublisher, TicketsWorker]));
    apps.push(
      await startQueueBoxApp(schema, { ...options, workers: { enabled: false } }, [RecordingPublisher, TicketsWorker]),
    );
    // The start-up polls have run: from now on every loop sleeps a minute unless woken.
    const [worker] = apps;
    const loops = [
      worker.app.get(OutboxPoller),
      worker.app.get(InboxRelay),
      ...worker.app.get(PullWorkerExplorer).workers,
    ];
    await waitFor(() => loops.every((loop) => loop.status.lastTickAt !== undefined), 10_000, 'the start-up polls');
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  it('relays and pulls rows received in this process and in an API-only replica', async () => {
    const [worker, api] = apps;
    await worker.app.get(InboxService).receive({ source: 'orders', idempotencyKey: 'o-local', payload: 1 });
    await api.app.get(InboxService).receive({ source: 'orders', idempotencyKey: 'o-remote', payload: 2 });
    await api.app.get(InboxService).receive({ source: 'tickets', idempotencyKey: 't-remote', payload: 3 });
    await waitFor(
      async () => (await inboxRows(worker.dataSource, schema)).every((row) => row.state === 'processed'),
      5_000,
      'all processed',
    );
    expect(handled).toEqual(['t-remote']);
    // The relay's outbox rows were published too: the outbox woke after the forward committed.
    await waitFor(
      () => worker.app.get(RecordingPublisher).published.length === 2,
      5_000,
      'forwarded messages published',
    );
  });
});
