import { afterAll, beforeAll, expect, it } from 'vitest';
import { InboxService, type InboxReceipt } from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase } from '../../fixtures/database.js';
import { inboxRows } from '../../fixtures/inbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/**
 * docs/guides/sql-server.md, "Waits for a live SQL Server" (locking): the inbox insert (INSERT …
 * WHERE NOT EXISTS under UPDLOCK, HOLDLOCK) under many concurrent receives of one key, from two
 * instances: exactly one row per key, and no receive fails (a deadlock victim, error 1205, or a
 * lock timeout would reject it).
 */
describeWithDatabase('SQL Server: concurrent receives of one idempotency key', () => {
  const apps: TestApp[] = [];
  let schema: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    for (let i = 0; i < 2; i++)
      apps.push(await startQueueBoxApp(schema, { workers: { enabled: false }, inbox: { sources: { orders: {} } } }));
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  /** Every receipt, or the reasons of the receives that failed. */
  function settle(results: PromiseSettledResult<InboxReceipt>[]): { receipts: InboxReceipt[]; failures: string[] } {
    return {
      receipts: results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])),
      failures: results.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : [])),
    };
  }

  async function expectOneRowPerKey(keys: string[], receipts: InboxReceipt[], perKey: number): Promise<void> {
    const rows = await inboxRows(apps[0].dataSource, schema);
    for (const key of keys) {
      const stored = rows.filter((row) => row.idempotency_key === key);
      expect(stored, key).toHaveLength(1);
      const ofKey = receipts.filter((receipt) => receipt.id === stored[0].id);
      expect(ofKey, key).toHaveLength(perKey);
      expect(
        ofKey.filter((receipt) => receipt.status === 'accepted'),
        key,
      ).toHaveLength(1);
    }
  }

  it('2×25 concurrent receives of each of three keys store one row per key, and none fails', async () => {
    const keys = ['c-1', 'c-2', 'c-3'];
    const results = await Promise.allSettled(
      Array.from({ length: 150 }, (_, i) =>
        apps[i % 2].app
          .get(InboxService)
          .receive({ source: 'orders', idempotencyKey: keys[i % 3], key: 'agg', payload: { i } }),
      ),
    );
    const { receipts, failures } = settle(results);
    expect(failures).toEqual([]);
    await expectOneRowPerKey(keys, receipts, 50);
  });

  it('the same inside callers’ transactions, with neighbouring keys received at the same time', async () => {
    // Adjacent keys share key ranges: the range lock of one receive may delay its neighbour's
    // until the caller commits, but never fails it.
    const keys = ['n-1', 'n-2', 'n-3', 'n-4'];
    const results = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => {
        const { app, dataSource } = apps[i % 2];
        return dataSource.transaction(async (manager) => {
          const receipt = await app
            .get(InboxService)
            .receive({ source: 'orders', idempotencyKey: keys[i % keys.length], payload: { i } }, { manager });
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
          return receipt;
        });
      }),
    );
    const { receipts, failures } = settle(results);
    expect(failures).toEqual([]);
    await expectOneRowPerKey(keys, receipts, 10);
  });
});
