import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { OUTBOX_ORDER_INVERSIONS_TOTAL, OutboxService } from '../../../lib/index.js';
import { createTestSchema, openDataSource } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { counterValue } from '../../fixtures/metrics.js';
import { ProcessingMonitor } from '../../fixtures/processing-monitor.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

describe('outbox: producers of one key committing out of id order', () => {
  const receiver = new HttpReceiver();
  const apps: TestApp[] = [];
  let url: string;
  let schema: string;
  let monitor: DataSource;

  beforeEach(async () => {
    url = await receiver.start();
    receiver.requests.length = 0;
    schema = await createTestSchema(inject('pgUrl'));
    monitor = await openDataSource(inject('pgUrl'), schema, 2);
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await monitor.destroy();
    await receiver.stop();
  });

  const start = async (claimLock: boolean) => {
    const app = await startQueueBoxApp(inject('pgUrl'), schema, {
      destinations: { sink: { type: 'http', url: `${url}/sink` } },
      outbox: { claimLock, pollIntervalMs: 20, batchSize: 5 },
    });
    apps.push(app);
    return app;
  };

  const unsent = async () => (await monitor.query(`SELECT count(*)::int AS n FROM "${schema}".queuebox_outbox_messages WHERE state <> 'sent'`))[0].n;

  it('with the claim lock off, a late-committed older row is counted as an order inversion', async () => {
    const app = await start(false);
    const outbox = app.app.get(OutboxService);
    const before = await counterValue(OUTBOX_ORDER_INVERSIONS_TOTAL);
    const producer = app.dataSource.createQueryRunner();
    await producer.connect();
    await producer.startTransaction();
    await outbox.enqueue({ destination: 'sink', key: 'K', payload: { seq: 'older' } }, { manager: producer.manager });
    await outbox.enqueue({ destination: 'sink', key: 'K', payload: { seq: 'younger' } });
    await receiver.waitFor(() => receiver.requests.length === 1);
    await waitFor(async () => (await unsent()) === 0, 10_000, 'younger sent');
    await producer.commitTransaction();
    await producer.release();
    await waitFor(async () => (await unsent()) === 0 && receiver.requests.length === 2, 10_000, 'older sent');
    expect(receiver.requests.map((request) => JSON.parse(request.body).seq)).toEqual(['younger', 'older']);
    expect(await counterValue(OUTBOX_ORDER_INVERSIONS_TOTAL)).toBe(before + 1);
  });

  // The window itself is replayed step by step in claim-lock.spec.ts; this is the same
  // guarantee under load, through the poller.
  it('with the claim lock on, three replicas never have two rows of a key in flight', async () => {
    for (let i = 0; i < 3; i++) await start(true);
    const sampler = new ProcessingMonitor(monitor, `"${schema}".queuebox_outbox_messages`, 'ordering_key');
    // Six producers per key take an id, hold their transaction open 0-40 ms, then commit: commit
    // order differs from id order all the time.
    const keys = ['A', 'B', 'C', 'D'];
    await Promise.all(
      Array.from({ length: 120 }, async (_, n) => {
        const app = apps[n % apps.length];
        await app.dataSource.transaction(async (manager) => {
          await app.app.get(OutboxService).enqueue({ destination: 'sink', key: keys[n % keys.length], payload: { n } }, { manager });
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
        });
      }),
    );
    await waitFor(async () => (await unsent()) === 0, 30_000, 'all sent');
    await sampler.stop();
    expect(receiver.requests).toHaveLength(120);
    expect(sampler.violations).toEqual([]);
  });
});
