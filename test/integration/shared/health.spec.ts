import { Injectable } from '@nestjs/common';
import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import { QueueBoxHealthIndicator, QueueBoxHealthModule } from '../../../lib/surfaces/health/index.js';
import { INBOX_BACKLOG_MESSAGES, PullWorker, PullWorkerHost } from '../../../lib/index.js';
import { hasSeries } from '../../fixtures/metrics.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

@PullWorker('audit', { pollIntervalMs: 50 })
@Injectable()
class AuditWorker extends PullWorkerHost {
  async handle(): Promise<void> {}
}

describeWithDatabase('health indicator', () => {
  let schema: string;
  let app: TestApp | undefined;

  beforeAll(async () => {
    schema = await createTestSchema();
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await app?.close();
    app = undefined;
  });

  const start = (workers: boolean) =>
    startQueueBoxApp(
      schema,
      { workers: { enabled: workers, metricsIntervalMs: 100 }, outbox: { pollIntervalMs: 10 } },
      { imports: [QueueBoxHealthModule], providers: [AuditWorker] },
    );

  it('reports every loop up while they run', async () => {
    app = await start(true);
    const indicator = app.app.get(QueueBoxHealthIndicator);
    await waitFor(() => indicator.isHealthy().queuebox.status === 'up', 5_000, 'up');
    const result = indicator.isHealthy();
    expect(Object.keys(result.queuebox)).toEqual(expect.arrayContaining(['status', 'outbox', 'pull:audit']));
    // Pull workers sample the backlog gauges of their sources.
    await waitFor(() => hasSeries(INBOX_BACKLOG_MESSAGES, { source: 'audit' }), 5_000, 'pull backlog sampled');
  });

  it('reports down when a loop keeps failing', async () => {
    app = await start(true);
    vi.spyOn(app.app.get(ClaimRepository, { strict: false }), 'claimOutbox').mockRejectedValue(
      new Error('database unreachable'),
    );
    const indicator = app.app.get(QueueBoxHealthIndicator);
    await waitFor(() => indicator.isHealthy().queuebox.status === 'down', 10_000, 'down');
    expect(indicator.isHealthy().queuebox.outbox).toMatchObject({ healthy: false, state: 'running' });
  });

  it('reports an API-only replica as up', async () => {
    app = await start(false);
    expect(app.app.get(QueueBoxHealthIndicator).isHealthy()).toEqual({
      queuebox: { status: 'up', workers: 'disabled' },
    });
  });
});
