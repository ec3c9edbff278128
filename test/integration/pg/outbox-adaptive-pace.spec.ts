import { Injectable } from '@nestjs/common';
import { afterEach, expect, it } from 'vitest';
import { type OutboxMessage, type OutboxPublisher, PublishFailedError, QueueBoxAdmin } from '../../../lib/index.js';
import { LOOP_BATCH_SIZE, LOOP_CONCURRENCY } from '../../../lib/engine/metrics/queuebox.metrics.js';
import { OUTBOX_PACE_BOUNDS } from '../../../lib/config/options/pace-bounds.js';
import { createTestSchema, describeWithDatabase, openDataSource, testDatabase } from '../../fixtures/database.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { counterValue } from '../../fixtures/metrics.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

/** A destination that refuses every message, retryably. */
@Injectable()
class RefusingPublisher implements OutboxPublisher {
  refused = 0;

  async publish(_message: OutboxMessage): Promise<void> {
    this.refused++;
    throw new PublishFailedError('the destination refuses everything', { retryable: true });
  }
}

const KEYS = 20;
const ROWS_PER_KEY = 100;
const UNORDERED_ROWS = 40_000;

/**
 * A deep backlog: unordered rows, and `KEYS` keys of `ROWS_PER_KEY` rows each whose payload is
 * the row's place in its key (ids ascend with it), interleaved with the unordered ones.
 */
async function seedBacklog(schema: string, unordered: number, perKey: number): Promise<number> {
  const table = testDatabase().table(schema, 'outbox');
  const db = await openDataSource(schema, 1);
  await db.query(
    `INSERT INTO ${table} (message_id, destination, ordering_key, payload)
     SELECT gen_random_uuid(), 'sink', CASE WHEN keyed THEN 'k' || (g / 4) % $2::int END, CASE WHEN keyed THEN ((g / 4 - 1) / $2::int)::text ELSE '0' END
     FROM generate_series(1, $1::int) g, LATERAL (SELECT g % 4 = 0 AND g / 4 <= $2::int * $3::int AS keyed) k ORDER BY g`,
    [unordered + KEYS * perKey, KEYS, perKey],
  );
  await db.destroy();
  return unordered + KEYS * perKey;
}

async function outboxLoop(app: TestApp) {
  const loop = app.app
    .get(QueueBoxAdmin)
    .loops()
    .find((candidate) => candidate.name === 'outbox');
  if (!loop) throw new Error('no outbox loop');
  return loop;
}

/** The outbox's concurrency and batch adapt to the load when neither option is set (docs/reference/options.md, "Adaptive pace"). */
describeWithDatabase('outbox: adaptive pace', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('grows the concurrency above its start under a deep backlog and a fast destination, and keeps each key in order', async () => {
    const schema = await createTestSchema();
    const total = await seedBacklog(schema, UNORDERED_ROWS, ROWS_PER_KEY);
    app = await startQueueBoxApp(
      schema,
      { destinations: { sink: { type: 'custom', publisher: RecordingPublisher } } },
      [RecordingPublisher],
    );
    const start = OUTBOX_PACE_BOUNDS.concurrency.start;

    const started = await outboxLoop(app);
    expect(started.concurrency).toBeLessThanOrEqual(start);
    await waitFor(
      async () => ((await outboxLoop(app!)).concurrency ?? 0) > start,
      30_000,
      'the outbox concurrency above its start',
    );
    const grown = await outboxLoop(app);
    expect(grown.concurrency).toBeLessThanOrEqual(OUTBOX_PACE_BOUNDS.concurrency.max);
    expect(grown.batchSize).toBe(Math.min(OUTBOX_PACE_BOUNDS.batchSize.max, Math.floor(grown.concurrency! / 2)));
    // The gauges follow the pace (they are set when it changes: read them between two changes).
    await waitFor(
      async () =>
        (await counterValue(LOOP_CONCURRENCY, { component: 'outbox' })) > start &&
        (await counterValue(LOOP_BATCH_SIZE, { component: 'outbox' })) > start / 2,
      10_000,
      'the gauges above the start',
    );

    const publisher = app.app.get(RecordingPublisher);
    await waitFor(() => publisher.published.length >= total, 60_000, 'every row published');
    // Each key's rows were published in the order they were written, each once.
    const seen = new Map<string, number>();
    for (const message of publisher.published) {
      if (message.key === null) continue;
      const place = Number(message.payload);
      expect(place, `key ${message.key}`).toBe((seen.get(message.key) ?? -1) + 1);
      seen.set(message.key, place);
    }
    expect([...seen.values()]).toEqual(Array.from({ length: KEYS }, () => ROWS_PER_KEY - 1));
  });

  it('falls back to the floor when every publish fails', async () => {
    const schema = await createTestSchema();
    const options = {
      destinations: { sink: { type: 'custom' as const, publisher: RefusingPublisher } },
      // Each row fails once here: its retry waits past the test.
      outbox: { maxAttempts: 100, backoff: { initialDelayMs: 600_000, maxDelayMs: 600_000 } },
    };
    await seedBacklog(schema, 30_000, 0);
    app = await startQueueBoxApp(schema, options, [RefusingPublisher]);

    const floor = OUTBOX_PACE_BOUNDS.concurrency.min;
    await waitFor(
      async () => (await outboxLoop(app!)).concurrency === floor,
      30_000,
      'the outbox concurrency at its floor',
    );
    expect((await outboxLoop(app)).batchSize).toBe(OUTBOX_PACE_BOUNDS.batchSize.min);
    expect(await counterValue(LOOP_CONCURRENCY, { component: 'outbox' })).toBe(floor);
    expect(app.app.get(RefusingPublisher).refused).toBeGreaterThan(0);
  });
});
