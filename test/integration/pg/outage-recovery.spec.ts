import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { QueueBoxAdmin } from '../../../lib/index.js';
import { PrivateCluster, postgresBinDir } from '../../../chaos/private-cluster.js';
import { freePort } from '../../../tools/embedded-postgres.js';
import { createQueueBoxSchema } from '../../../tools/queuebox-schema.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

const binDir = postgresBinDir();
const POLL_INTERVAL_MS = 1_000;

/**
 * After an outage the loops come back when the database does (issue 28, part 4). A failed tick
 * backs off `interval × 2^errors` (2 s, 4 s, 8 s, … 30 s), and on 8db1303 nothing cut that short:
 * a database back after a few seconds waited for the loop's next attempt (1.1–1.5 s median, up
 * to 3.9 s in the chaos run's restarts, and far longer after a longer outage). Now the loop
 * resumes once the database answers again, within a probe interval.
 *
 * A cluster of the test's own, crashed and started again (`pg_ctl stop -m immediate`, then
 * `start`); one claim lane (a fixed pace), so that no second lane retries on its own schedule;
 * skipped without PostgreSQL's server programs (CHAOS_PG_BIN, or Debian's in
 * /usr/lib/postgresql/15/bin).
 */
describe.skipIf(!binDir)('after a database outage, the loops resume when the database answers again', () => {
  let cluster: PrivateCluster;
  let app: TestApp;
  const publisher = new RecordingPublisher();
  const schema = 'recovery';

  beforeAll(async () => {
    cluster = new PrivateCluster(binDir!, await freePort());
    await cluster.init();
    await cluster.start();
    await createQueueBoxSchema(cluster.url, schema, 'queuebox_test_migrations');
    app = await startQueueBoxApp(
      schema,
      {
        statementTimeoutMs: 2_000,
        outbox: { pollIntervalMs: POLL_INTERVAL_MS, batchSize: 10, concurrency: 10 },
        destinations: { sink: { type: 'custom', publisher: RecordingPublisher } },
      },
      { url: cluster.url, providers: [{ provide: RecordingPublisher, useValue: publisher }] },
    );
  });
  afterAll(async () => {
    await app?.close();
    await cluster?.destroy();
  });

  it('delivers a row written after the restart before the outbox loop would have ended its error back-off', async () => {
    const admin = app.app.get(QueueBoxAdmin);
    const outboxErrors = (): number => admin.loops().find((loop) => loop.name === 'outbox')!.consecutiveErrors;

    await cluster.crash();
    // Three failed ticks in a row: the loop now backs off interval × 2^3 = 8 s.
    await waitFor(() => outboxErrors() >= 3, 30_000, 'three failed outbox ticks');
    const backoffEndsAt = Date.now() + POLL_INTERVAL_MS * 2 ** 3;
    await cluster.start();
    // Written with a connection of the test's own: no wake-up, the loop must find it itself.
    const writer = await new DataSource({ type: 'postgres', url: cluster.url, extra: { max: 1 } }).initialize();
    try {
      await writer.query(
        `INSERT INTO "${schema}".queuebox_outbox_messages (message_id, destination, payload) VALUES (gen_random_uuid(), 'sink', '{"n":1}')`,
      );
    } finally {
      await writer.destroy();
    }
    await waitFor(() => publisher.published.length > 0, 60_000, 'the row written after the restart to be published');
    expect(Date.now()).toBeLessThan(backoffEndsAt);
  });
});
