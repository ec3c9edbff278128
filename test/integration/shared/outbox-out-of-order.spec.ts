import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { OutboxService } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, openDataSource } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { rowsNotInState } from '../../fixtures/inbox-rows.js';
import { ProcessingMonitor } from '../../fixtures/processing-monitor.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

// Without the claim lock (PostgreSQL only: SQL Server always takes it), a late commit is an order
// inversion: pg/order-inversions.spec.ts.
describeWithDatabase('outbox: producers of one key committing out of id order', () => {
  const receiver = new HttpReceiver();
  const apps: TestApp[] = [];
  let url: string;
  let schema: string;
  let monitor: DataSource;

  beforeEach(async () => {
    url = await receiver.start();
    receiver.requests.length = 0;
    schema = await createTestSchema();
    monitor = await openDataSource(schema, 2);
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await monitor.destroy();
    await receiver.stop();
  });

  const start = async (claimLock: boolean) => {
    const app = await startQueueBoxApp(schema, {
      destinations: { sink: { type: 'http', url: `${url}/sink` } },
      outbox: { claimLock, pollIntervalMs: 20, batchSize: 5 },
    });
    apps.push(app);
    return app;
  };

  const unsent = () => rowsNotInState(monitor, schema, 'outbox', 'sent');

  // The window itself is replayed step by step in pg/claim-lock.spec.ts; this is the same
  // guarantee under load, through the poller.
  it('with the claim lock on, three replicas never have two rows of a key in flight', async () => {
    for (let i = 0; i < 3; i++) await start(true);
    const sampler = new ProcessingMonitor(monitor, schema, 'outbox');
    // Six producers per key take an id, hold their transaction open 0-40 ms, then commit: commit
    // order differs from id order all the time.
    const keys = ['A', 'B', 'C', 'D'];
    await Promise.all(
      Array.from({ length: 120 }, async (_, n) => {
        const app = apps[n % apps.length];
        await app.dataSource.transaction(async (manager) => {
          await app.app
            .get(OutboxService)
            .enqueue({ destination: 'sink', key: keys[n % keys.length], payload: { n } }, { manager });
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
        });
      }),
    );
    await waitFor(async () => (await unsent()) === 0, 30_000, 'all sent');
    await sampler.stop();
    expect(receiver.requests).toHaveLength(120);
    expect(sampler.samples).toBeGreaterThan(0);
    expect(sampler.violations).toEqual([]);
  });
});
