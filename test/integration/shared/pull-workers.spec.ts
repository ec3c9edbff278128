import { Injectable } from '@nestjs/common';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { InboxService, PullWorker, PullWorkerHost, type InboxMessage, type PullContext } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows } from '../../fixtures/inbox-rows.js';
import { ProcessingMonitor } from '../../fixtures/processing-monitor.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const AGGREGATES = 40;
const PER_AGGREGATE = 5;

/** Shared by the workers of both instances (one process): what is being handled right now. */
const inFlight = new Map<string, number>();
const violations: string[] = [];
let schema: string;

// The backoff outlasts the time the workers need to reach a failed row's younger siblings: without
// the claim's "oldest unfinished row only" rule, they would overtake it.
@PullWorker('payments', {
  leaseMs: 5_000,
  concurrency: 4,
  pollIntervalMs: 100,
  backoff: { initialDelayMs: 150, maxDelayMs: 300, jitter: 'none' },
  maxAttempts: 100,
})
@Injectable()
class PaymentsWorker extends PullWorkerHost {
  async handle(message: InboxMessage, { manager }: PullContext): Promise<void> {
    const aggregate = message.key!;
    const now = (inFlight.get(aggregate) ?? 0) + 1;
    inFlight.set(aggregate, now);
    if (now > 1) violations.push(`${now} messages of ${aggregate} handled at once`);
    try {
      const { seq } = message.payload as { seq: number };
      await testDatabase().insertInto(manager, schema, 'payments', {
        source: message.source,
        idempotency_key: message.idempotencyKey,
        aggregate,
        seq,
      });
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      // One attempt in ten fails after its insert: the insert must roll back with it.
      if (Math.random() < 0.1) throw new Error('payment provider hiccup');
    } finally {
      inFlight.set(aggregate, (inFlight.get(aggregate) ?? 1) - 1);
    }
  }
}

describeWithDatabase('pull workers: two instances, concurrency 4 each, 40 aggregates', () => {
  const apps: TestApp[] = [];
  let check: DataSource;

  beforeAll(async () => {
    schema = await createTestSchema();
    check = await openDataSource(schema, 3);
    await testDatabase().createTable(check, schema, 'payments', {
      source: 'text',
      idempotency_key: 'text',
      aggregate: 'text',
      seq: 'int',
    });
    for (let i = 0; i < 2; i++) {
      apps.push(await startQueueBoxApp(schema, { inbox: { sources: { payments: {} } } }, [PaymentsWorker]));
    }
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await check?.destroy();
  });

  it('processes every row exactly once in the business table, in order per aggregate, one at a time', async () => {
    const monitor = new ProcessingMonitor(check, schema, 'inbox');
    // Half the messages arrive in one burst (one transaction, aggregates interleaved), so that
    // every claim sees several pending rows of each aggregate; the rest trickle in through both
    // instances while the workers run.
    const { app, dataSource } = apps[0];
    await dataSource.transaction(async (manager) => {
      for (let seq = 0; seq < PER_AGGREGATE - 2; seq++) {
        for (let a = 0; a < AGGREGATES; a++) {
          await app
            .get(InboxService)
            .receive(
              { source: 'payments', idempotencyKey: `p${a}-${seq}`, key: `agg-${a}`, payload: { seq } },
              { manager },
            );
        }
      }
    });
    await Promise.all(
      Array.from({ length: AGGREGATES }, async (_, a) => {
        for (let seq = PER_AGGREGATE - 2; seq < PER_AGGREGATE; seq++) {
          await apps[(a + seq) % 2].app
            .get(InboxService)
            .receive({ source: 'payments', idempotencyKey: `p${a}-${seq}`, key: `agg-${a}`, payload: { seq } });
        }
      }),
    );
    await waitFor(
      async () => (await inboxRows(check, schema)).every((row) => row.state === 'processed'),
      30_000,
      'every row processed',
    );
    await monitor.stop();

    const payments = (await testDatabase().selectFrom(check, schema, 'payments', [
      'idempotency_key',
      'aggregate',
      'seq',
    ])) as { idempotency_key: string; aggregate: string; seq: number }[];
    expect(payments).toHaveLength(AGGREGATES * PER_AGGREGATE);
    expect(new Set(payments.map((payment) => payment.idempotency_key)).size).toBe(AGGREGATES * PER_AGGREGATE);
    for (let a = 0; a < AGGREGATES; a++) {
      expect(
        payments.filter((payment) => payment.aggregate === `agg-${a}`).map((payment) => payment.seq),
        `agg-${a}`,
      ).toEqual([0, 1, 2, 3, 4]);
    }
    const retried = (await inboxRows(check, schema)).filter((row) => row.attempts > 1);
    expect(retried.length).toBeGreaterThan(0);
    expect(violations).toEqual([]);
    expect(monitor.samples).toBeGreaterThan(0);
    expect(monitor.violations).toEqual([]);
  });
});
