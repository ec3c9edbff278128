import { Injectable } from '@nestjs/common';
import { afterEach, expect, it, vi } from 'vitest';
import { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import {
  type HealthFinding,
  QueueBoxHealthIndicator,
  QueueBoxHealthModule,
  type QueueBoxHealthOptions,
} from '../../../lib/surfaces/health/index.js';
import { InboxService, OutboxService, PullWorker, PullWorkerHost } from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

@PullWorker('doomed', { maxAttempts: 1, pollIntervalMs: 50 })
@Injectable()
class DoomedWorker extends PullWorkerHost {
  async handle(): Promise<void> {
    throw new Error('never works');
  }
}

type Health = { status: string; degraded?: HealthFinding[]; down?: HealthFinding[]; outbox?: { healthy: boolean } };

describeWithDatabase('health thresholds', () => {
  let app: TestApp | undefined;
  let schema: string;
  afterEach(async () => {
    await app?.close();
    app = undefined;
    vi.restoreAllMocks();
  });

  const start = async (options: QueueBoxHealthOptions, outbox: { pollIntervalMs?: number } = {}) => {
    schema = await createTestSchema();
    app = await startQueueBoxApp(
      schema,
      {
        destinations: { sink: { type: 'http', url: 'http://127.0.0.1:9/unused' } },
        workers: { metricsIntervalMs: 100 },
        outbox,
        inbox: { sources: { doomed: {} } },
      },
      { imports: [QueueBoxHealthModule.forRoot(options)], providers: [DoomedWorker] },
    );
    const indicator = app.app.get(QueueBoxHealthIndicator);
    const health = (): Health => indicator.isHealthy().queuebox as unknown as Health;
    // Up once every loop has ticked.
    await waitFor(() => health().status === 'up', 5_000, 'up');
    return health;
  };

  it('oldest pending age: degraded past degradedAfterMs, down past downAfterMs (sampled, database clock)', async () => {
    const health = await start({ oldestPendingAge: { degradedAfterMs: 1_000, downAfterMs: 3_600_000 } });
    // Delayed an hour: pending, never claimed, aging.
    const { id } = await app!.app.get(OutboxService).enqueue({ destination: 'sink', payload: {}, delayMs: 3_600_000 });
    await waitFor(
      () => health().degraded?.some((finding) => finding.kind === 'oldest-pending-age') === true,
      10_000,
      'degraded',
    );
    expect(health()).toMatchObject({
      status: 'up',
      degraded: [{ level: 'degraded', kind: 'oldest-pending-age', subject: 'outbox:sink', limit: 1_000 }],
    });
    await app!.dataSource.query(
      `UPDATE "${schema}".queuebox_outbox_messages SET created_at = now() - interval '2 hours' WHERE id = $1`,
      [id],
    );
    await waitFor(() => health().status === 'down', 10_000, 'down');
    const [finding] = health().down!;
    expect(finding).toMatchObject({
      level: 'down',
      kind: 'oldest-pending-age',
      subject: 'outbox:sink',
      limit: 3_600_000,
    });
    expect(finding.observed).toBeGreaterThanOrEqual(7_200_000);
  });

  it('dead letters in the window: degraded at degradedAt, down at downAt', async () => {
    const health = await start({ deadLetters: { windowMs: 3_600_000, degradedAt: 1, downAt: 2 } });
    const inbox = app!.app.get(InboxService);
    expect(health().status).toBe('up');
    await inbox.receive({ source: 'doomed', idempotencyKey: 'd-1', payload: {} });
    await waitFor(() => (health().degraded?.length ?? 0) > 0, 10_000, 'degraded');
    expect(health()).toMatchObject({ status: 'up', degraded: [{ kind: 'dead-letters', observed: 1, limit: 1 }] });
    await inbox.receive({ source: 'doomed', idempotencyKey: 'd-2', payload: {} });
    await waitFor(() => health().status === 'down', 10_000, 'down');
    expect(health().down).toEqual([expect.objectContaining({ kind: 'dead-letters', observed: 2, limit: 2 })]);
  });

  it('a loop not ticking: degraded after degradedAfterIntervals, down after downAfterIntervals', async () => {
    const health = await start(
      { stalledLoop: { degradedAfterIntervals: 2, downAfterIntervals: 40, minStaleMs: 0 } },
      { pollIntervalMs: 50 },
    );
    expect(health().degraded).toBeUndefined();
    const repository = app!.app.get(ClaimRepository, { strict: false });
    const claim = repository.claimOutbox.bind(repository);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The next claim hangs (as on a stuck connection): the loop stops ticking, nothing in flight.
    vi.spyOn(repository, 'claimOutbox').mockImplementation(async (...args) => {
      await gate;
      return claim(...args);
    });
    let seen: Health | undefined;
    const outboxStalled = (report: Health) =>
      report.degraded?.find((finding) => finding.kind === 'stalled-loop' && finding.subject === 'outbox');
    await waitFor(() => outboxStalled((seen = health())) !== undefined, 5_000, 'degraded');
    // Degraded, not down: the indicator stays up.
    expect(seen!.status).toBe('up');
    expect(outboxStalled(seen!)).toMatchObject({ level: 'degraded', limit: 100 });
    await waitFor(() => health().status === 'down', 10_000, 'down');
    expect(health().outbox).toMatchObject({ healthy: false });
    release();
    await waitFor(() => health().status === 'up', 5_000, 'up again');
  });
});
