import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboxService } from '../../../lib/index.js';
import { OutboxPoller } from '../../../lib/outbox/outbox-poller.js';
import { createTestSchema } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/**
 * PostgreSQL only: wake-ups across replicas through LISTEN/NOTIFY (SQL Server has none: its
 * replicas poll). Poll intervals here are a minute: only a wake-up can deliver within the test's time.
 */
describe('outbox: wake-ups of other replicas', () => {
  const receiver = new HttpReceiver();
  const apps: TestApp[] = [];
  let url: string;
  let schema: string;

  beforeAll(async () => {
    url = await receiver.start();
    schema = await createTestSchema();
    // The worker replica; its start-up poll has run: from now on it sleeps a minute unless woken.
    const worker = await start(true);
    await waitFor(() => worker.app.get(OutboxPoller).status.lastTickAt !== undefined, 10_000, 'the first poll');
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await receiver.stop();
  });

  const delivered = (n: string) => receiver.requests.some((request) => JSON.parse(request.body).n === n);

  async function start(workers: boolean, coalesceMs?: number) {
    const app = await startQueueBoxApp(schema, {
      workers: { enabled: workers },
      destinations: { sink: { type: 'http', url: `${url}/sink` } },
      outbox: { pollIntervalMs: 60_000, notify: { coalesceMs } },
    });
    apps.push(app);
    return app;
  }

  it('wakes another replica through LISTEN/NOTIFY when an API-only replica enqueues', async () => {
    const api = await start(false);
    const before = receiver.requests.length;
    await api.dataSource.transaction((manager) => api.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 'remote' } }, { manager }));
    await receiver.waitFor(() => delivered('remote'), 5_000);
    expect(receiver.requests.length).toBe(before + 1);
  });

  it('sends the wake-up still waiting in the coalescing window when the sending replica shuts down', async () => {
    // A window of a minute: without the flush at shutdown, the second wake-up would come only
    // after the replica is gone, and the worker would find the message a poll interval later.
    const api = await start(false, 60_000);
    const before = receiver.requests.length;
    const outbox = api.app.get(OutboxService);
    await outbox.enqueue({ destination: 'sink', payload: { n: 'first' } });
    await receiver.waitFor(() => delivered('first'), 5_000);
    await outbox.enqueue({ destination: 'sink', payload: { n: 'last' } });
    await api.close();
    apps.splice(apps.indexOf(api), 1);
    await receiver.waitFor(() => delivered('last'), 5_000);
    expect(receiver.requests.length).toBe(before + 2);
  });
});
