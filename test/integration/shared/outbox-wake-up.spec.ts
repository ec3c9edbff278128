import { afterAll, beforeAll, expect, it } from 'vitest';
import { OutboxService } from '../../../lib/index.js';
import { OutboxPoller } from '../../../lib/features/outbox/outbox-poller.js';
import { WakeUpHub } from '../../../lib/engine/wakeup/wake-up.hub.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/**
 * Poll intervals here are a minute: only a wake-up can deliver within the test's time. Wake-ups
 * within one process; across replicas (LISTEN/NOTIFY, PostgreSQL only): pg/outbox-wake-up-notify.spec.ts.
 */
describeWithDatabase('outbox: wake-ups instead of polling', () => {
  const receiver = new HttpReceiver();
  const apps: TestApp[] = [];
  let url: string;

  beforeAll(async () => {
    url = await receiver.start();
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await receiver.stop();
  });

  const delivered = (n: string) => receiver.requests.some((request) => JSON.parse(request.body).n === n);

  /**
   * Each test has an app of its own, on a schema of its own, so that it runs alone (`-t`) as it
   * runs after the others. Returned once its start-up poll has run: from then on its poller
   * sleeps a minute unless woken.
   */
  const startWorker = async () => {
    const app = await startQueueBoxApp(await createTestSchema(), {
      destinations: { sink: { type: 'http', url: `${url}/sink` } },
      outbox: { pollIntervalMs: 60_000 },
    });
    apps.push(app);
    await waitFor(() => app.app.get(OutboxPoller).status.lastTickAt !== undefined, 10_000, 'the first poll');
    return app;
  };

  it('wakes the poller of this process when the enqueuing transaction commits, not before', async () => {
    const app = await startWorker();
    const wakes: string[] = [];
    app.app.get(WakeUpHub).subscribe('outbox', () => wakes.push('woken'));
    const outbox = app.app.get(OutboxService);
    await app.dataSource.transaction(async (manager) => {
      await outbox.enqueue({ destination: 'sink', payload: { n: 'local' } }, { manager });
      // A wake-up now would find nothing to claim and leave the row a minute behind.
      expect(wakes).toEqual([]);
    });
    expect(wakes).toEqual(['woken']);
    await receiver.waitFor(() => delivered('local'));
  });

  it('wakes at the outermost commit only: not when a savepoint is released, never after a rollback', async () => {
    const app = await startWorker();
    const wakes: string[] = [];
    const unsubscribe = app.app.get(WakeUpHub).subscribe('outbox', () => wakes.push('woken'));
    const outbox = app.app.get(OutboxService);
    try {
      await app.dataSource.transaction(async (manager) => {
        // A nested transaction is a savepoint; releasing it makes nothing visible to other sessions.
        await manager.transaction((inner) =>
          outbox.enqueue({ destination: 'sink', payload: { n: 'savepoint' } }, { manager: inner }),
        );
        expect(wakes).toEqual([]);
      });
      expect(wakes).toEqual(['woken']);
      await expect(
        app.dataSource.transaction(async (manager) => {
          await manager.transaction((inner) =>
            outbox.enqueue({ destination: 'sink', payload: { n: 'rolled back' } }, { manager: inner }),
          );
          throw new Error('business failure');
        }),
      ).rejects.toThrow('business failure');
      // A later commit on the same pooled connection must not wake for the rolled-back rows.
      await app.dataSource.transaction((manager) => manager.query('SELECT 1'));
      expect(wakes).toEqual(['woken']);
      // A savepoint rolled back inside a transaction that commits: the rows written before it still wake.
      await app.dataSource.transaction(async (manager) => {
        await outbox.enqueue({ destination: 'sink', payload: { n: 'kept' } }, { manager });
        await manager.transaction(() => Promise.reject(new Error('inner failure'))).catch(() => undefined);
      });
      expect(wakes).toEqual(['woken', 'woken']);
      // Only a wake-up delivers within the test's time: both committed messages arrive.
      await receiver.waitFor(() => ['savepoint', 'kept'].every((n) => delivered(n)));
    } finally {
      unsubscribe();
    }
  });
});
