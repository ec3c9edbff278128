import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource, QueryRunner } from 'typeorm';
import { OutboxService, StatementTimeoutError } from '../../../lib/index.js';
import { createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { backendsWaitingOnLock } from '../../fixtures/backends.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { APP_POOL_SIZE as POOL_SIZE, startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

const APPLICATION_NAME = 'queuebox-locked-db';

/**
 * A database locked for longer than `statementTimeoutMs` (issue 28, part 4). Another session holds
 * an ACCESS EXCLUSIVE lock on the outbox table; every statement of QueueBox's on it waits, and
 * fails at the client deadline. The server must give up too: were the abandoned backends left
 * waiting on the lock while the pool opened new connections in their place, the backends of the
 * app would grow past its pool size with every round of deadlines (seen on 8db1303: 8 → 16 → 24 →
 * 32 with a pool of 8), until the server ran out of connections for every application on it.
 */
describe('a locked database: statements past their deadline end on the server too', () => {
  let schema: string;
  let app: TestApp;
  let observer: DataSource;
  let locker: QueryRunner;

  /** The app's backends, as the server counts them. */
  const backends = async (): Promise<number> =>
    Number(
      (
        (await observer.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`, [
          APPLICATION_NAME,
        ])) as { n: number }[]
      )[0].n,
    );

  beforeAll(async () => {
    schema = await createTestSchema();
    observer = await openDataSource(schema, 2);
    // Workers on: the poller's claims and the LISTEN connection hold pool places too.
    app = await startQueueBoxApp(
      schema,
      {
        statementTimeoutMs: 1_000,
        outbox: { pollIntervalMs: 100 },
        destinations: { sink: { type: 'http', url: 'http://127.0.0.1:9/unused' } },
      },
      { applicationName: APPLICATION_NAME },
    );
  });
  afterAll(async () => {
    if (locker && !locker.isReleased) await locker.rollbackTransaction().catch(() => undefined);
    await locker?.release();
    await app?.close();
    await observer?.destroy();
    await testDatabase().dropSchema(schema);
  });

  it('keeps the backends it holds within its pool size while the table stays locked, and works once the lock is gone', async () => {
    const outbox = app.app.get(OutboxService);
    await outbox.enqueue({ destination: 'sink', payload: { n: 'before' } });

    locker = observer.createQueryRunner();
    await locker.startTransaction();
    await locker.query(`LOCK TABLE ${testDatabase().table(schema, 'outbox')} IN ACCESS EXCLUSIVE MODE`);

    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) most = Math.max(most, await backends());
    })();
    // Rounds of enqueues that fill the pool, each waiting on the lock until its deadline.
    let timedOut = 0;
    for (let round = 0; round < 4; round += 1) {
      const results = await Promise.allSettled(
        Array.from({ length: POOL_SIZE }, (_, n) => outbox.enqueue({ destination: 'sink', payload: { round, n } })),
      );
      for (const result of results) {
        expect(result.status).toBe('rejected');
        if (result.status === 'rejected' && result.reason instanceof StatementTimeoutError) timedOut += 1;
      }
    }
    sampling = false;
    await sampler;
    expect(timedOut).toBeGreaterThanOrEqual(3 * POOL_SIZE);
    expect(most).toBeLessThanOrEqual(POOL_SIZE);
    // The abandoned statements ended on the server: no backend of the app still waits on the lock.
    await waitFor(
      async () => (await backendsWaitingOnLock(observer, APPLICATION_NAME)) === 0,
      20_000,
      'no backend of the app waiting on the lock',
    );

    await locker.commitTransaction();
    await outbox.enqueue({ destination: 'sink', payload: { n: 'after' } });
    // None of the timed-out enqueues was written behind the caller's back once the lock went.
    const stored = (await observer.query(
      `SELECT payload::jsonb->>'n' AS n FROM ${testDatabase().table(schema, 'outbox')} ORDER BY id`,
    )) as { n: string | null }[];
    expect(stored.map((row) => row.n)).toEqual(['before', 'after']);
  });
});
