import { Injectable, Logger } from '@nestjs/common';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { DataSource } from 'typeorm';
import {
  InboxService,
  type InboxMessage,
  LEASE_ADVISED_SECONDS,
  LEASE_RENEWALS_TOTAL,
  LeaseAdvisor,
  type LeaseAdvice,
  PullWorker,
  PullWorkerHost,
  QueueBoxEvents,
} from '../../../lib/index.js';
import { QueueBoxHealthIndicator, QueueBoxHealthModule } from '../../../lib/surfaces/health/index.js';
import { createTestSchema, describeWithDatabase, openDataSource } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { counterValue } from '../../fixtures/metrics.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { rowsNotInState } from '../../fixtures/inbox-rows.js';

/** Renewed every second: 2 s of margin for a renewal on a loaded machine (a lost claim would change the advice). */
const LEASE_MS = 3_000;
let schema: string;
let check: DataSource;

/**
 * Works on each row until the database shows its lease renewed at least a whole lease after its
 * claim (lease_expires_at − claimed_at ≥ 2 leases): every row uses more than its lease, kept by
 * renewals. No sleeps: the condition is the row's own lease in the database.
 */
@PullWorker('slow', { leaseMs: LEASE_MS, concurrency: 5, pollIntervalMs: 50 })
@Injectable()
class SlowWorker extends PullWorkerHost {
  async handle(message: InboxMessage): Promise<void> {
    await waitFor(
      async () => {
        const [row] = await check.query(
          `SELECT extract(epoch FROM lease_expires_at - claimed_at) * 1000 >= $2 AS renewed FROM "${schema}".queuebox_inbox_messages WHERE id = $1`,
          [message.id, 2 * LEASE_MS],
        );
        return row.renewed === true;
      },
      20_000,
      'a whole lease of renewals',
    );
  }
}

describeWithDatabase('lease advisor: work that uses most of its lease', () => {
  let app: TestApp;
  const advice: LeaseAdvice[] = [];
  const warn = vi.spyOn(Logger.prototype, 'warn');

  beforeAll(async () => {
    schema = await createTestSchema();
    check = await openDataSource(schema, 3);
    app = await startQueueBoxApp(
      schema,
      { inbox: { sources: { slow: {} } } },
      { imports: [QueueBoxHealthModule], providers: [SlowWorker] },
    );
    app.app.get(QueueBoxEvents).on('lease.advice', (event) => void advice.push(event));
  });
  afterAll(async () => {
    await app?.close();
    await check?.destroy();
    warn.mockRestore();
  });

  it('records utilization and renewals, advises a longer leaseMs once, on the gauge, the event and the log', async () => {
    const inbox = app.app.get(InboxService);
    for (let n = 0; n < 10; n++) await inbox.receive({ source: 'slow', idempotencyKey: `m-${n}`, payload: { n } });
    await waitFor(
      async () => (await rowsNotInState(check, schema, 'inbox', 'processed')) === 0,
      30_000,
      'every row processed',
    );
    await waitFor(() => advice.length > 0, 5_000, 'the lease.advice event');

    const [given] = app.app.get(LeaseAdvisor).advice;
    expect(given).toMatchObject({
      component: 'pull',
      stream: 'slow',
      option: "@PullWorker('slow', { leaseMs })",
      leaseMs: LEASE_MS,
      reason: 'utilization',
      claimsLost: 0,
    });
    expect(given.samples).toBeGreaterThanOrEqual(5);
    expect(given.utilization.p95).toBeGreaterThanOrEqual(1);
    // Twice the p99 processing time, in whole seconds.
    expect(given.recommendedLeaseMs).toBeGreaterThanOrEqual(2 * LEASE_MS);
    expect(given.recommendedLeaseMs % 1000).toBe(0);
    expect(await counterValue(LEASE_ADVISED_SECONDS, { component: 'pull', source: 'slow' })).toBe(
      given.recommendedLeaseMs / 1000,
    );
    // Each row was renewed at least three times.
    expect(await counterValue(LEASE_RENEWALS_TOTAL, { component: 'pull', source: 'slow' })).toBeGreaterThanOrEqual(30);
    expect(advice).toHaveLength(1);
    // Health stays up, with the advice as a degraded detail.
    const health = app.app.get(QueueBoxHealthIndicator).isHealthy().queuebox;
    expect(health.status).toBe('up');
    expect(health.degraded).toEqual([
      expect.objectContaining({
        level: 'degraded',
        kind: 'lease-advice',
        subject: 'pull:slow',
        limit: given.recommendedLeaseMs,
      }),
    ]);
    const warnings = warn.mock.calls.filter(([line]) => String(line).includes('set @PullWorker'));
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0][0])).toMatch(
      /^pull slow: work regularly uses most of its lease \(p50 \d+%, p95 \d+%, p99 \d+% of 3000 ms over the last \d+ rows\); set @PullWorker\('slow', \{ leaseMs \}\) to \d+000 ms/,
    );
  });
});
