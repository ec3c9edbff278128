import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OutboxService } from '../../../lib/index.js';
import { createTestSchema } from '../../fixtures/database.js';
import { HttpReceiver } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/** Poll intervals here are a minute: only a wake-up can deliver within the test's time. */
describe('outbox: wake-ups instead of polling', () => {
  const receiver = new HttpReceiver();
  const apps: TestApp[] = [];
  let url: string;
  let schema: string;

  beforeAll(async () => {
    url = await receiver.start();
    schema = await createTestSchema(inject('pgUrl'));
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await receiver.stop();
  });

  const start = async (workers: boolean) => {
    const app = await startQueueBoxApp(inject('pgUrl'), schema, {
      workers: { enabled: workers },
      destinations: { sink: { type: 'http', url: `${url}/sink` } },
      outbox: { pollIntervalMs: 60_000 },
    });
    apps.push(app);
    return app;
  };

  it('wakes the poller of this process when the enqueuing transaction commits, not before', async () => {
    const app = await start(true);
    // Let the first (start-up) poll pass; from now on the poller sleeps a minute.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const outbox = app.app.get(OutboxService);
    await app.dataSource.transaction(async (manager) => {
      await outbox.enqueue({ destination: 'sink', payload: { n: 'local' } }, { manager });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.requests).toHaveLength(0);
    });
    await receiver.waitFor(() => receiver.requests.length === 1, 5_000);
  });

  it('wakes another replica through LISTEN/NOTIFY when an API-only replica enqueues', async () => {
    const api = await start(false);
    const before = receiver.requests.length;
    await api.dataSource.transaction((manager) => api.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 'remote' } }, { manager }));
    await receiver.waitFor(() => receiver.requests.length === before + 1, 5_000);
    expect(JSON.parse(receiver.requests.at(-1)!.body)).toEqual({ n: 'remote' });
  });
});
