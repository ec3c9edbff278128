import { Injectable } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DataSource } from 'typeorm';
import {
  InboxService,
  OutboxService,
  PullWorker,
  PullWorkerHost,
  type InboxMessage,
  type PullContext,
} from '../../../lib/index.js';
import { createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import type { PostgresTestDatabase } from '../../fixtures/postgres-test-database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/** Errors that reached the process unhandled: an `error` event without a listener ends a Node.js process. */
const unhandled: unknown[] = [];
const recordUnhandled = (error: unknown): void => void unhandled.push(error);

let schema: string;

/** A pull worker whose handler waits for a row lock the test holds: its transaction stays open until the test lets go. */
@PullWorker('locks', {
  leaseMs: 2_000,
  pollIntervalMs: 50,
  maxAttempts: 100,
  backoff: { initialDelayMs: 50, maxDelayMs: 100 },
})
@Injectable()
class LockWaitingWorker extends PullWorkerHost {
  async handle(message: InboxMessage, { manager }: PullContext): Promise<void> {
    await manager.query(`SELECT id FROM "${schema}".gate WHERE id = 1 FOR UPDATE`);
    await manager.query(`INSERT INTO "${schema}".effects (idempotency_key) VALUES ($1) ON CONFLICT DO NOTHING`, [
      message.idempotencyKey,
    ]);
  }
}

/**
 * Item 12 of issue 19: a replica ended on an unhandled node-postgres `error` event (57P01,
 * "terminating connection due to administrator command"). Every database session of the app is
 * terminated by another connection at three moments: while a pooled connection is checked out
 * and nobody listens on it, while the LISTEN connection is set up, and inside a transaction. The
 * process must survive each (no unhandled error), and the loops must keep working afterwards.
 */
describe('backends terminated by pg_terminate_backend: the process survives and the loops go on', () => {
  const receiver = new HttpReceiver();
  const applicationName = `qb-term-${Math.random().toString(16).slice(2, 10)}`;
  let app: TestApp;
  let admin: DataSource;

  const sessions = async (filter: string, params: unknown[] = []): Promise<number[]> =>
    (
      (await admin.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND ${filter}`, [
        applicationName,
        ...params,
      ])) as { pid: number }[]
    ).map((row) => row.pid);
  const terminate = async (pids: number[]): Promise<void> => {
    await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    // Until the server has ended them: no wait by the clock.
    await waitFor(
      async () =>
        (await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1)', [pids]))[0].n === 0,
      10_000,
      'the terminated sessions to end',
    );
  };

  beforeAll(async () => {
    process.on('uncaughtException', recordUnhandled);
    const url = await receiver.start();
    schema = await createTestSchema();
    admin = await openDataSource(schema, 3);
    await admin.query(`CREATE TABLE "${schema}".gate (id int PRIMARY KEY)`);
    await admin.query(`INSERT INTO "${schema}".gate VALUES (1)`);
    await admin.query(`CREATE TABLE "${schema}".effects (idempotency_key text PRIMARY KEY)`);
    await (testDatabase() as PostgresTestDatabase).grantToApplication(schema, ['gate', 'effects']);
    app = await startQueueBoxApp(
      schema,
      {
        destinations: { sink: { type: 'http', url } },
        outbox: { pollIntervalMs: 60_000, claimTimeoutMs: 2_000, backoff: { initialDelayMs: 50, maxDelayMs: 100 } },
        inbox: { sources: { locks: {} } },
      },
      { applicationName, providers: [LockWaitingWorker] },
    );
  });
  afterEach(() => expect(unhandled).toEqual([]));
  afterAll(async () => {
    process.off('uncaughtException', recordUnhandled);
    await app?.close();
    await admin?.destroy();
    await receiver.stop();
  });

  /** The outbox loop still claims: a message enqueued now is delivered (the minute-long poll rules out anything but a wake-up). */
  const outboxStillDelivers = async (): Promise<void> => {
    const before = receiver.requests.length;
    for (let attempt = 0; ; attempt += 1) {
      try {
        await app.app.get(OutboxService).enqueue({ destination: 'sink', payload: { attempt } });
        break;
      } catch (error) {
        // The first statement after a termination may meet a dead pooled connection.
        if (attempt >= 20) throw error;
      }
    }
    await receiver.waitFor(() => receiver.requests.length > before, 20_000);
  };

  it('survives a termination while a pooled connection is checked out and has no listener of its user yet', async () => {
    // The moment TypeORM leaves open: pg-pool has removed its own listener when it hands a client
    // out, and the query runner adds its listener only later. A client checked out of the pool
    // directly stands for that moment, for as long as the test needs.
    const pool = (app.dataSource.driver as unknown as { master: { connect(): Promise<CheckedOut> } }).master;
    interface CheckedOut {
      processID: number;
      once(event: 'end', listener: () => void): void;
      release(error?: Error): void;
    }
    const client = await pool.connect();
    const ended = new Promise<void>((resolve) => client.once('end', resolve));
    await terminate([client.processID]);
    await ended;
    client.release(new Error('terminated'));
    expect(unhandled).toEqual([]);
    await outboxStillDelivers();
  });

  it('survives terminations of the LISTEN connection as it is set up, and listens again', async () => {
    for (let round = 0; round < 3; round += 1) {
      let listening: number[] = [];
      await waitFor(
        async () => (listening = await sessions(`query LIKE 'LISTEN %'`)).length > 0,
        15_000,
        'a LISTEN session',
      );
      await terminate(listening);
    }
    await waitFor(
      async () => (await sessions(`query LIKE 'LISTEN %'`)).length > 0,
      15_000,
      'the LISTEN session to come back',
    );
    await outboxStillDelivers();
  });

  it('survives a termination inside a pull transaction, and the worker claims again', async () => {
    const runner = admin.createQueryRunner();
    await runner.startTransaction();
    try {
      await runner.query(`SELECT id FROM "${schema}".gate WHERE id = 1 FOR UPDATE`);
      await app.app.get(InboxService).receive({ source: 'locks', idempotencyKey: 'first', payload: {} });
      // The handler's transaction waits on the gate's row lock.
      let waiting: number[] = [];
      await waitFor(
        // A row lock is waited for on the holder's transaction id: any lock not granted to the app is this one.
        async () => (waiting = await sessions(`pid IN (SELECT pid FROM pg_locks WHERE NOT granted)`)).length > 0,
        15_000,
        'the handler to wait on the gate',
      );
      await terminate(waiting);
    } finally {
      await runner.commitTransaction();
      await runner.release();
    }
    await app.app.get(InboxService).receive({ source: 'locks', idempotencyKey: 'second', payload: {} });
    await waitFor(
      async () => (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".effects`))[0].n === 2,
      20_000,
      'both effects',
    );
    await outboxStillDelivers();
  });
});
