import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresNotifyTransport, wakeChannel } from '../../../lib/database/dialects/postgres/notify-transport.js';
import { OutboxService } from '../../../lib/index.js';
import { resolveOptions } from '../../../lib/config/options/resolve-options.js';
import { OutboxPoller } from '../../../lib/features/outbox/outbox-poller.js';
import { createTestSchema, openDataSource } from '../../fixtures/database.js';
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
    await api.dataSource.transaction((manager) =>
      api.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 'remote' } }, { manager }),
    );
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

  /** Listens on the outbox's wake-up channel from a connection of its own; returns what arrives. */
  async function listen(): Promise<{ notifications: string[]; roundTrip(): Promise<void>; close(): Promise<void> }> {
    const dataSource: DataSource = await openDataSource(schema, 1);
    const runner = dataSource.createQueryRunner();
    const client = (await runner.connect()) as {
      on(event: 'notification', listener: (message: { payload?: string }) => void): void;
    };
    const notifications: string[] = [];
    client.on('notification', (message) => notifications.push(message.payload ?? ''));
    await runner.query(`LISTEN "${wakeChannel(resolveOptions({ schema }).tables, 'outbox')}"`);
    return {
      notifications,
      // Notifications committed before it arrive before its answer.
      roundTrip: async () => void (await runner.query('SELECT 1')),
      close: async () => {
        await runner.release();
        await dataSource.destroy();
      },
    };
  }

  it('the enqueue that opens a window carries the NOTIFY to its own commit: none before the commit, one with it, no NOTIFY transaction of its own', async () => {
    const api = await start(false, 60_000);
    const listener = await listen();
    const sends = vi.spyOn(PostgresNotifyTransport.prototype, 'send');
    try {
      const before = receiver.requests.length;
      const runner = api.dataSource.createQueryRunner();
      await runner.startTransaction();
      try {
        await api.app
          .get(OutboxService)
          .enqueue({ destination: 'sink', payload: { n: 'carried' } }, { manager: runner.manager });
        await listener.roundTrip();
        expect(listener.notifications).toEqual([]);
        await runner.commitTransaction();
      } finally {
        await runner.release();
      }
      await receiver.waitFor(() => delivered('carried'), 5_000);
      await listener.roundTrip();
      expect(listener.notifications).toHaveLength(1);
      expect(sends).not.toHaveBeenCalled();
      expect(receiver.requests.length).toBe(before + 1);
    } finally {
      sends.mockRestore();
      await listener.close();
    }
  });

  it('a leading enqueue that rolls back sends nothing, and the next commit still wakes the other replica, with one notification', async () => {
    const api = await start(false, 300);
    const listener = await listen();
    try {
      const before = receiver.requests.length;
      const outbox = api.app.get(OutboxService);
      await api.dataSource
        .transaction(async (manager) => {
          await outbox.enqueue({ destination: 'sink', payload: { n: 'rolled back' } }, { manager });
          throw new Error('the business change failed');
        })
        .catch(() => undefined);
      await outbox.enqueue({ destination: 'sink', payload: { n: 'after the rollback' } });
      await receiver.waitFor(() => delivered('after the rollback'), 5_000);
      await listener.roundTrip();
      expect(listener.notifications).toHaveLength(1);
      expect(delivered('rolled back')).toBe(false);
      expect(receiver.requests.length).toBe(before + 1);
    } finally {
      await listener.close();
    }
  });
});
