import { Logger } from '@nestjs/common';
import { register } from 'prom-client';
import type { DataSource } from 'typeorm';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it, type MockInstance, vi } from 'vitest';
import { OutboxService, type QueueBoxModuleOptions } from '../../../lib/index.js';
import { OUTBOX_UNKNOWN_DESTINATION_MESSAGES } from '../../../lib/engine/metrics/queuebox.metrics.js';
import { createTestSchema, describeWithDatabase, openDataSource, testDatabase } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { outboxRows, rowsNotInState } from '../../fixtures/inbox-rows.js';
import { counterValue } from '../../fixtures/metrics.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const TICKS = 'queuebox_loop_ticks_total';

/** Outbox options of a replica: quick polls and samples, few attempts (an old replica's claim of a row it cannot publish ends dead at once). */
const outbox = {
  pollIntervalMs: 50,
  batchSize: 10,
  concurrency: 10,
  maxAttempts: 2,
  backoff: { initialDelayMs: 10, maxDelayMs: 50 },
} as const;

function replica(destinations: QueueBoxModuleOptions['destinations'], workers = true): QueueBoxModuleOptions {
  return { destinations, outbox, workers: { enabled: workers, metricsIntervalMs: 100 } };
}

/** The warnings logged about destinations a replica does not have (their text names the gauge). */
function unknownDestinationWarnings(warn: MockInstance<Logger['warn']>): string[] {
  return warn.mock.calls
    .map(([message]) => String(message))
    .filter((message) => message.includes(OUTBOX_UNKNOWN_DESTINATION_MESSAGES));
}

/** Every series of the registry: one per label set (a histogram's buckets included). */
async function seriesCount(): Promise<number> {
  const metrics = await register.getMetricsAsJSON();
  return metrics.reduce((n, metric) => n + (metric.values?.length ?? 0), 0);
}

/**
 * A rolling deploy that adds destination `y` (docs/guides/production.md, "Rolling deploys"):
 * replica A runs the old option set (destination `x`), replica B the new one (`x` and `y`), on
 * the same tables, at the same time. A never claims a `y` row: every `y` message is delivered by
 * B at its first claim, nothing is dead-lettered, and A reports the rows it leaves (a gauge, one
 * warning).
 */
describeWithDatabase('rolling deploy: replicas of two versions with different destinations', () => {
  const receiver = new HttpReceiver();
  const apps: TestApp[] = [];
  let schema: string;
  let monitor: DataSource | undefined;
  let url: string;
  let warn: MockInstance<Logger['warn']>;

  beforeAll(async () => {
    url = await receiver.start();
  });
  // Each test on a schema of its own, with replicas of its own: another test's replicas would
  // see its rows (and warn about them).
  beforeEach(async () => {
    schema = await createTestSchema();
    monitor = await openDataSource(schema, 2);
    warn = vi.spyOn(Logger.prototype, 'warn');
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await monitor?.destroy();
    warn.mockRestore();
  });
  afterAll(async () => {
    await receiver.stop();
  });

  async function start(options: QueueBoxModuleOptions): Promise<TestApp> {
    const app = await startQueueBoxApp(schema, options);
    apps.push(app);
    return app;
  }

  /** Enqueues `count` messages of `destination` through `app`, half keyed (over 5 keys), half unordered. */
  async function enqueue(app: TestApp, destination: string, tag: string, count: number): Promise<void> {
    const service = app.app.get(OutboxService);
    for (let seq = 0; seq < count; seq++) {
      await service.enqueue({
        destination,
        key: seq % 2 === 0 ? `${tag}-key-${seq % 5}` : undefined,
        payload: { tag, seq },
      });
    }
  }

  it('the old replica leaves the new destination’s rows pending and untouched; the new one delivers each of them at its first claim', async () => {
    const a = await start(replica({ x: { type: 'http', url: `${url}/a/x` } }));
    // The new version's web tier, taking requests before its workers run: `y` rows wait for a replica that has `y`.
    const web = await start(
      replica({ x: { type: 'http', url: `${url}/web/x` }, y: { type: 'http', url: `${url}/web/y` } }, false),
    );
    await enqueue(web, 'y', 'early', 20);
    // A claims on each tick (woken by the enqueues' notifications, else every 50 ms): the old
    // code claimed the `y` rows at its first one and dead-lettered them.
    const ticks = await counterValue(TICKS, { loop: 'outbox' });
    await waitFor(
      async () => (await counterValue(TICKS, { loop: 'outbox' })) >= ticks + 5,
      20_000,
      'five claims of replica A',
    );
    const early = await outboxRows(monitor!, schema);
    expect(early).toHaveLength(20);
    expect(
      early.map(({ state, attempts, claim_token, last_error }) => ({ state, attempts, claim_token, last_error })),
    ).toEqual(early.map(() => ({ state: 'pending', attempts: 0, claim_token: null, last_error: null })));
    // A reports them: the gauge counts them, one warning names the destination.
    await waitFor(
      async () => (await counterValue(OUTBOX_UNKNOWN_DESTINATION_MESSAGES)) === 20,
      20_000,
      'the gauge of rows A leaves',
    );
    expect(unknownDestinationWarnings(warn).filter((message) => message.includes('destination "y"'))).toHaveLength(1);

    // The new version's workers start; both versions run at once while both take traffic.
    const b = await start(replica({ x: { type: 'http', url: `${url}/b/x` }, y: { type: 'http', url: `${url}/b/y` } }));
    await Promise.all([enqueue(a, 'x', 'from-a', 30), enqueue(b, 'y', 'late', 30), enqueue(b, 'x', 'from-b', 30)]);
    await waitFor(
      async () => (await rowsNotInState(monitor!, schema, 'outbox', 'sent')) === 0,
      30_000,
      'every message sent',
    );

    const rows = await outboxRows(monitor!, schema);
    expect(rows.filter((row) => row.state !== 'sent')).toEqual([]);
    // No `y` row was ever claimed by A: each was sent at its first claim, without an error.
    const y = rows.filter((row) => row.destination === 'y');
    expect(y).toHaveLength(50);
    expect(y.filter((row) => row.attempts !== 1 || row.last_error !== null)).toEqual([]);
    // Every `y` message reached B's endpoint; A published nothing but `x`.
    const delivered = (prefix: string) =>
      new Set(receiver.requests.filter((request) => request.path.startsWith(prefix)).map((request) => request.body));
    const yBodies = new Set(y.map((row) => row.payload));
    expect([...yBodies].filter((body) => !delivered('/b/y').has(body))).toEqual([]);
    expect(receiver.requests.filter((request) => request.path.startsWith('/a/') && request.path !== '/a/x')).toEqual(
      [],
    );
    expect(rows.filter((row) => row.destination === 'x')).toHaveLength(60);
    // Nothing left for A to report, and still one warning about `y`.
    await waitFor(
      async () => (await counterValue(OUTBOX_UNKNOWN_DESTINATION_MESSAGES)) === 0,
      20_000,
      'the gauge back to 0',
    );
    expect(unknownDestinationWarnings(warn).filter((message) => message.includes('destination "y"'))).toHaveLength(1);
  });

  it('rows of 300 destinations a replica does not have add no metric series, and a bounded number of warnings', async () => {
    const c = await start(replica({ x: { type: 'http', url: `${url}/c/x` } }));
    // Its own destination's series exist first: a message of `x`, sent.
    await c.app.get(OutboxService).enqueue({ destination: 'x', key: 'k', payload: { n: 0 } });
    await waitFor(
      async () => (await rowsNotInState(monitor!, schema, 'outbox', 'sent')) === 0,
      20_000,
      'the first x message sent',
    );
    const before = await seriesCount();

    for (let i = 0; i < 300; i++)
      await testDatabase().seedOutbox(monitor!, schema, {
        key: i % 2 === 0 ? `k${i}` : null,
        count: 1,
        destination: `gone-${i}`,
      });
    await c.app.get(OutboxService).enqueue({ destination: 'x', key: 'k', payload: { n: 1 } });
    // Thirty claims: enough for the old code to claim every one of the 300 rows (batches of ten).
    const ticks = await counterValue(TICKS, { loop: 'outbox' });
    await waitFor(
      async () => (await counterValue(TICKS, { loop: 'outbox' })) >= ticks + 30,
      20_000,
      'thirty more claims',
    );
    const xSent = async () =>
      (await outboxRows(monitor!, schema)).filter((row) => row.destination === 'x' && row.state === 'sent').length;
    await waitFor(async () => (await xSent()) === 2, 20_000, 'the second x message sent');

    // The label values are bounded: no series names a destination the replica does not have.
    const labelled = (await register.getMetricsAsJSON()).flatMap((metric) =>
      metric.values.map((value) => String(value.labels.destination ?? '')),
    );
    expect(labelled.filter((destination) => destination.startsWith('gone-'))).toEqual([]);
    // (A loop's error counter may appear on a loaded machine; one series per destination never.)
    expect(await seriesCount()).toBeLessThanOrEqual(before + 3);
    const rows = await outboxRows(monitor!, schema);
    const gone = rows.filter((row) => row.destination.startsWith('gone-'));
    expect(gone.filter((row) => row.state !== 'pending' || row.attempts !== 0)).toEqual([]);
    // Reported: the gauge counts them, one warning per destination for the first twenty, then one line for the rest.
    await waitFor(
      async () => (await counterValue(OUTBOX_UNKNOWN_DESTINATION_MESSAGES)) === 300,
      20_000,
      'the gauge of the 300 rows',
    );
    const warnings = unknownDestinationWarnings(warn);
    expect(warnings).toHaveLength(21);
    expect(new Set(warnings).size).toBe(21);
  });
});
