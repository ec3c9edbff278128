import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DataSource, QueryRunner } from 'typeorm';
import type { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import {
  INBOX_RELAY_ORDER_INVERSIONS_TOTAL,
  InboxService,
  LOOP_TICKS_TOTAL,
  OUTBOX_ORDER_INVERSIONS_TOTAL,
  OutboxService,
  QueueBoxEvents,
  type QueueBoxEventMap,
} from '../../../lib/index.js';
import { LOOP_CONCURRENCY } from '../../../lib/engine/metrics/queuebox.metrics.js';
import type { Claim } from '../../../lib/shared/interfaces/claim.interface.js';
import { createTestSchema, openDataSource, testDatabase } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { rowsNotInState } from '../../fixtures/inbox-rows.js';
import { counterValue, hasSeries } from '../../fixtures/metrics.js';
import { claimOutbox, claimPull, insertInboxRow, insertRows, repositoryFor } from '../../fixtures/outbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/*
 * PostgreSQL only: order inversions (a claim of a row older than a finished row of its key, a
 * producer having committed late) are detected where the claim lock is optional. On SQL Server
 * the claim lock is always taken and `inverted` is a constant false (contributing/mssql-sql.md,
 * "Where each guarantee comes from"), so these expectations do not apply there.
 */
describe('claim repository: order inversions', () => {
  let schema: string;
  let a: DataSource;
  let b: DataSource;
  let repoA: ClaimRepository;
  let repoB: ClaimRepository;

  beforeAll(async () => {
    schema = await createTestSchema();
    a = await openDataSource(schema);
    b = await openDataSource(schema);
    repoA = repositoryFor(a, schema).repository;
    repoB = repositoryFor(b, schema).repository;
  });
  beforeEach(async () => {
    await testDatabase().truncate(a, schema, ['outbox']);
  });
  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
  });

  const claimOf = (row: { id: string; token: string }, leaseMs: number): Claim => ({
    component: 'outbox',
    id: String(row.id),
    token: row.token,
    leaseMs,
  });

  it('a claim that takes a row older than a finished row of its key is flagged as an inversion', async () => {
    // Producer P inserts first but commits last: its row becomes visible after a younger one was sent.
    const producer = a.createQueryRunner();
    await producer.connect();
    await producer.startTransaction();
    const [older] = await insertRows(a, schema, ['k'], producer);
    const [younger] = await insertRows(b, schema, ['k']);
    const [first] = await claimOutbox(repoB, 10, 60_000);
    expect(String(first.id)).toBe(younger);
    expect(first.inverted).toBe(false);
    expect(await repoB.complete(claimOf(first, 60_000))).toBe('ok');
    await producer.commitTransaction();
    await producer.release();
    const [late] = await claimOutbox(repoB, 10, 60_000);
    expect(String(late.id)).toBe(older);
    expect(late.inverted).toBe(true);
  });

  it('a replayed dead row claimed after younger rows of its key were sent is not an inversion', async () => {
    const [older, younger] = await insertRows(a, schema, ['k', 'k']);
    const [first] = await claimOutbox(repoA, 10, 60_000);
    expect(await repoA.deadLetter(claimOf(first, 60_000), 'poison')).toBe('ok');
    const [second] = await claimOutbox(repoA, 10, 60_000);
    expect(String(second.id)).toBe(younger);
    expect(await repoA.complete(claimOf(second, 60_000))).toBe('ok');
    const { runner, dialect } = repositoryFor(a, schema);
    expect(await runner.run(dialect.replayDead('outbox', [older]))).toEqual([older]);
    const [replayed] = await claimOutbox(repoA, 10, 60_000);
    expect([String(replayed.id), replayed.inverted]).toEqual([older, false]);
  });

  it('a pull claim of a row older than a processed row of its aggregate is flagged as an inversion', async () => {
    const insert = (key: string, runner?: QueryRunner) =>
      insertInboxRow(a, schema, { source: 'src', idempotencyKey: key, key: 'agg' }, runner);
    const producer = a.createQueryRunner();
    await producer.connect();
    await producer.startTransaction();
    const older = await insert('older', producer);
    const younger = await insert('younger');
    const [first] = await claimPull(repoB, 'src', 10, 60_000);
    expect([String(first.id), first.inverted]).toEqual([younger, false]);
    expect(await repoB.complete({ component: 'pull', id: String(first.id), token: first.token, leaseMs: 60_000 })).toBe(
      'ok',
    );
    await producer.commitTransaction();
    await producer.release();
    const [late] = await claimPull(repoB, 'src', 10, 60_000);
    expect([String(late.id), late.inverted]).toEqual([older, true]);
  });
});

describe('outbox: producers of one key committing out of id order, without the claim lock', () => {
  const receiver = new HttpReceiver();
  let app: TestApp;
  let url: string;
  let schema: string;
  let monitor: DataSource;

  beforeEach(async () => {
    url = await receiver.start();
    receiver.requests.length = 0;
    schema = await createTestSchema();
    monitor = await openDataSource(schema, 2);
  });
  afterEach(async () => {
    await app?.close();
    await monitor.destroy();
    await receiver.stop();
  });

  const unsent = () => rowsNotInState(monitor, schema, 'outbox', 'sent');

  it('with the claim lock off, a late-committed older row is counted as an order inversion', async () => {
    app = await startQueueBoxApp(schema, {
      destinations: { sink: { type: 'http', url: `${url}/sink` } },
      outbox: { claimLock: false, pollIntervalMs: 20, batchSize: 5 },
    });
    const outbox = app.app.get(OutboxService);
    const before = await counterValue(OUTBOX_ORDER_INVERSIONS_TOTAL);
    const producer = app.dataSource.createQueryRunner();
    await producer.connect();
    await producer.startTransaction();
    await outbox.enqueue({ destination: 'sink', key: 'K', payload: { seq: 'older' } }, { manager: producer.manager });
    await outbox.enqueue({ destination: 'sink', key: 'K', payload: { seq: 'younger' } });
    await receiver.waitFor(() => receiver.requests.length === 1);
    await waitFor(async () => (await unsent()) === 0, 10_000, 'younger sent');
    await producer.commitTransaction();
    await producer.release();
    await waitFor(async () => (await unsent()) === 0 && receiver.requests.length === 2, 10_000, 'older sent');
    expect(receiver.requests.map((request) => JSON.parse(request.body).seq)).toEqual(['younger', 'older']);
    expect(await counterValue(OUTBOX_ORDER_INVERSIONS_TOTAL)).toBe(before + 1);
  });
});

describe('relay: receives of one key committing out of id order', () => {
  const receiver = new HttpReceiver();
  let app: TestApp;
  let schema: string;
  let monitor: DataSource;

  beforeEach(async () => {
    const url = await receiver.start();
    receiver.requests.length = 0;
    schema = await createTestSchema();
    monitor = await openDataSource(schema, 2);
    app = await startQueueBoxApp(schema, {
      destinations: { sink: { type: 'http', url: `${url}/sink` } },
      outbox: { pollIntervalMs: 20 },
      inbox: { sources: { orders: {} }, relay: { routes: { orders: { destination: 'sink' } }, pollIntervalMs: 20 } },
    });
  });
  afterEach(async () => {
    await app?.close();
    await monitor.destroy();
    await receiver.stop();
  });

  const unprocessed = () => rowsNotInState(monitor, schema, 'inbox', 'processed');

  it('counts a late-committed older message the relay forwards after a younger one as an order inversion, under its name', async () => {
    // The relay's claim lock keeps two rows of a key out of flight together; it cannot make the receives commit in id order.
    const inbox = app.app.get(InboxService);
    const inversions: QueueBoxEventMap['order.inversion'][] = [];
    app.app.get(QueueBoxEvents).on('order.inversion', (event) => void inversions.push(event));
    const before = await counterValue(INBOX_RELAY_ORDER_INVERSIONS_TOTAL, { source: 'orders' });
    const producer = app.dataSource.createQueryRunner();
    await producer.connect();
    await producer.startTransaction();
    const older = await inbox.receive(
      { source: 'orders', idempotencyKey: 'older', key: 'K', payload: { seq: 'older' } },
      { manager: producer.manager },
    );
    await inbox.receive({ source: 'orders', idempotencyKey: 'younger', key: 'K', payload: { seq: 'younger' } });
    await waitFor(
      async () => (await unprocessed()) === 0 && receiver.requests.length === 1,
      10_000,
      'younger relayed and sent',
    );
    await producer.commitTransaction();
    await producer.release();
    await waitFor(
      async () => (await unprocessed()) === 0 && receiver.requests.length === 2,
      10_000,
      'older relayed and sent',
    );
    expect(receiver.requests.map((request) => JSON.parse(request.body).seq)).toEqual(['younger', 'older']);
    expect(await counterValue(INBOX_RELAY_ORDER_INVERSIONS_TOTAL, { source: 'orders' })).toBe(before + 1);
    await waitFor(() => inversions.length === 1, 5_000, 'order.inversion emitted');
    expect(inversions).toEqual([{ component: 'relay', id: older.id, stream: 'orders', key: 'K' }]);
    // The relay's one public name, on its loop's metrics too.
    expect(await counterValue(LOOP_TICKS_TOTAL, { loop: 'relay' })).toBeGreaterThan(0);
    expect(await hasSeries(LOOP_CONCURRENCY, { component: 'relay' })).toBe(true);
  });
});
