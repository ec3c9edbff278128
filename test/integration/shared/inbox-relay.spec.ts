import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import { InboxService } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, openDataSource } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows, outboxRows } from '../../fixtures/inbox-rows.js';
import { ProcessingMonitor } from '../../fixtures/processing-monitor.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

const AGGREGATES = 30;
const PER_AGGREGATE = 6;

describeWithDatabase('inbox relay: three relays, 30 aggregates, interleaved arrivals', () => {
  const apps: TestApp[] = [];
  let schema: string;
  let check: DataSource;

  beforeAll(async () => {
    schema = await createTestSchema();
    for (let i = 0; i < 3; i++) {
      apps.push(
        await startQueueBoxApp(
          schema,
          {
            destinations: { downstream: { type: 'custom', publisher: RecordingPublisher } },
            inbox: {
              relay: {
                routes: { orders: { destination: 'downstream' } },
                pollIntervalMs: 100,
                batchSize: 8,
                concurrency: 8,
              },
            },
            outbox: { pollIntervalMs: 100 },
          },
          [RecordingPublisher],
        ),
      );
    }
    check = await openDataSource(schema, 3);
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
    await check?.destroy();
  });

  it('forwards each aggregate in arrival order, one at a time, exactly one outbox row per inbox row', async () => {
    const monitor = new ProcessingMonitor(check, schema, 'inbox');
    // Each aggregate's messages arrive in order; aggregates interleave, across the three instances.
    await Promise.all(
      Array.from({ length: AGGREGATES }, async (_, a) => {
        for (let seq = 0; seq < PER_AGGREGATE; seq++) {
          const inbox = apps[(a + seq) % apps.length].app.get(InboxService);
          await inbox.receive({
            source: 'orders',
            idempotencyKey: `a${a}-m${seq}`,
            key: `agg-${a}`,
            payload: { a, seq },
          });
        }
      }),
    );
    await waitFor(
      async () => (await inboxRows(check, schema)).every((row) => row.state === 'processed'),
      30_000,
      'every inbox row processed',
    );
    await monitor.stop();

    const inbox = await inboxRows(check, schema);
    const outbox = await outboxRows(check, schema);
    expect(inbox).toHaveLength(AGGREGATES * PER_AGGREGATE);
    expect(outbox).toHaveLength(inbox.length);
    expect(new Set(outbox.map((row) => row.payload))).toEqual(new Set(inbox.map((row) => row.payload)));
    for (let a = 0; a < AGGREGATES; a++) {
      const forwarded = outbox
        .filter((row) => row.ordering_key === `agg-${a}`)
        .map((row) => JSON.parse(row.payload).seq);
      expect(forwarded, `agg-${a}`).toEqual(Array.from({ length: PER_AGGREGATE }, (_, seq) => seq));
    }
    expect(monitor.samples).toBeGreaterThan(0);
    expect(monitor.violations).toEqual([]);
  });
});
