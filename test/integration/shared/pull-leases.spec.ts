import { Injectable } from '@nestjs/common';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import {
  CLAIMS_LOST_TOTAL,
  ClaimLostError,
  InboxService,
  PullService,
  PullWorker,
  PullWorkerHost,
  type InboxMessage,
  type PullContext,
} from '../../../lib/index.js';
import { PullWorkerExplorer } from '../../../lib/features/pull/pull-worker.explorer.js';
import { describeWithDatabase, createTestSchema, testDatabase } from '../../fixtures/database.js';
import { untilLeaseEnded, untilLeaseOutlived } from '../../fixtures/db-clock.js';
import { Gate } from '../../fixtures/gate.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows } from '../../fixtures/inbox-rows.js';
import { counterValue } from '../../fixtures/metrics.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import type { Queryable } from '../../fixtures/test-database.js';

let schema: string;
/**
 * A lease of 3 s, renewed every second: 2 s of margin for a renewal on a loaded machine, and for a
 * second claim to run while the first one's lease still holds.
 */
const LEASE_MS = 3_000;
/** The first attempt of a message waits here (abortable) until the test opens it; later attempts are quick. */
let firstAttempt = new Gate();
const started: string[] = [];
const aborted: string[] = [];

/** The handlers' business table: what each attempt wrote, in its transaction. */
const createLedger = (db: Queryable) =>
  testDatabase().createTable(db, schema, 'ledger', { idempotency_key: 'text', attempt: 'int' });
const record = (db: Queryable, idempotencyKey: string, attempt: number) =>
  testDatabase().insertInto(db, schema, 'ledger', { idempotency_key: idempotencyKey, attempt });

@PullWorker('ledger', { leaseMs: LEASE_MS, pollIntervalMs: 50 })
@Injectable()
class LedgerWorker extends PullWorkerHost {
  async handle(message: InboxMessage, { manager, signal }: PullContext): Promise<void> {
    await record(manager, message.idempotencyKey, message.attempt);
    signal.addEventListener('abort', () => aborted.push(`${message.idempotencyKey}#${message.attempt}`));
    started.push(`${message.idempotencyKey}#${message.attempt}`);
    if (message.attempt === 1) await firstAttempt.wait(signal);
  }
}

describeWithDatabase('pull leases', () => {
  const apps: TestApp[] = [];
  const start = async (workers: boolean) => {
    const app = await startQueueBoxApp(schema, { workers: { enabled: workers } }, [LedgerWorker]);
    apps.push(app);
    return app;
  };
  const ledger = (app: TestApp) =>
    testDatabase().selectFrom(app.dataSource, schema, 'ledger', ['idempotency_key', 'attempt']);

  beforeEach(async () => {
    schema = await createTestSchema();
    firstAttempt = new Gate();
    started.length = 0;
    aborted.length = 0;
    const setup = await start(false);
    await createLedger(setup.dataSource);
  });
  afterEach(async () => {
    firstAttempt.open();
    vi.restoreAllMocks();
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it('a handler slower than leaseMs keeps its claim through renewals', async () => {
    const app = await start(true);
    const { id } = await app.app.get(InboxService).receive({ source: 'ledger', idempotencyKey: 'slow', payload: {} });
    await waitFor(() => started.includes('slow#1'), 10_000, 'the handler started');
    // The handler ends only once it has outlived the lease of its claim, by the database clock.
    await untilLeaseOutlived(app.dataSource, schema, id, 'inbox');
    firstAttempt.open();
    await waitFor(async () => (await inboxRows(app.dataSource, schema))[0].state === 'processed', 10_000, 'processed');
    expect((await inboxRows(app.dataSource, schema))[0].attempts).toBe(1);
    expect(await ledger(app)).toEqual([{ idempotency_key: 'slow', attempt: 1 }]);
    expect(aborted).toEqual([]);
  });

  it('a handler whose renewal fails sees its signal abort, its change rolls back, and another worker takes the row once', async () => {
    const lostBefore = await counterValue(CLAIMS_LOST_TOTAL, { component: 'pull' });
    const first = await start(true);
    vi.spyOn(first.app.get(ClaimRepository, { strict: false }), 'renewMany').mockRejectedValue(
      new Error('connection to the database lost'),
    );
    await first.app.get(InboxService).receive({ source: 'ledger', idempotencyKey: 'blocked', payload: {} });
    await waitFor(() => aborted.includes('blocked#1'), 10_000, 'first handler aborted');

    await start(true);
    await waitFor(
      async () => (await inboxRows(first.dataSource, schema))[0].state === 'processed',
      20_000,
      'processed by the second worker',
    );
    expect(await ledger(first)).toEqual([{ idempotency_key: 'blocked', attempt: 2 }]);
    expect((await inboxRows(first.dataSource, schema))[0].attempts).toBe(2);
    expect(await counterValue(CLAIMS_LOST_TOTAL, { component: 'pull' })).toBe(lostBefore + 1);
  });

  it('a silent client’s claim expires, another claim takes the row in one statement, and the late complete commits nothing', async () => {
    const a = await start(false);
    const b = await start(false);
    await a.app.get(InboxService).receive({ source: 'ledger', idempotencyKey: 'silent', payload: { n: 1 } });
    const mine = await a.app.get(PullService).claim('ledger', { leaseMs: LEASE_MS });
    expect(mine).not.toBeNull();
    // Before expiry nobody else can take it.
    expect(await b.app.get(PullService).claim('ledger', { leaseMs: 60_000 })).toBeNull();
    await untilLeaseEnded(a.dataSource, schema, mine!.id, 'inbox');
    const theirs = await b.app.get(PullService).claim('ledger', { leaseMs: 60_000 });
    expect(theirs).toMatchObject({ id: mine!.id, attempt: 2 });
    expect(theirs!.claim.token).not.toBe(mine!.claim.token);

    const late = a.dataSource.transaction(async (manager) => {
      await record(manager, 'silent', 1);
      await a.app.get(PullService).complete(mine!, { manager });
    });
    await expect(late).rejects.toBeInstanceOf(ClaimLostError);
    await expect(a.app.get(PullService).renew(mine!)).rejects.toBeInstanceOf(ClaimLostError);
    expect(await ledger(a)).toEqual([]);

    await b.dataSource.transaction(async (manager) => {
      await record(manager, 'silent', 2);
      await b.app.get(PullService).complete(theirs!, { manager });
    });
    expect(await ledger(b)).toEqual([{ idempotency_key: 'silent', attempt: 2 }]);
    expect((await inboxRows(b.dataSource, schema))[0].state).toBe('processed');
  });

  it('retry and dead-letter through the API are fenced and keep the error', async () => {
    const app = await start(false);
    const pull = app.app.get(PullService);
    await app.app.get(InboxService).receive({ source: 'ledger', idempotencyKey: 'api', payload: {} });
    const first = (await pull.claim('ledger', { leaseMs: 60_000 }))!;
    await pull.retry(first, { delayMs: 0, error: 'try later' });
    await expect(pull.retry(first, { delayMs: 0 })).rejects.toBeInstanceOf(ClaimLostError);
    const second = (await pull.claim('ledger', { leaseMs: 60_000 }))!;
    await pull.deadLetter(second, { reason: 'poison message' });
    const rows = (await inboxRows(app.dataSource, schema)).map(({ state, last_error, attempts }) => ({
      state,
      last_error,
      attempts,
    }));
    expect(rows).toEqual([{ state: 'dead', last_error: 'poison message', attempts: 2 }]);
    await expect(pull.claim('ledger', { leaseMs: 5 })).rejects.toMatchObject({ field: 'leaseMs' });
  });
});

describeWithDatabase('pull workers at shutdown', () => {
  it('stop claiming and let a running handler finish within the shutdown timeout', async () => {
    schema = await createTestSchema();
    slowGate = new Gate();
    const app = await startQueueBoxApp(schema, { outbox: { shutdownTimeoutMs: 5_000 } }, [SlowLedgerWorker]);
    await createLedger(app.dataSource);
    const inbox = app.app.get(InboxService);
    await inbox.receive({ source: 'slow-ledger', idempotencyKey: 'first', payload: {} });
    await waitFor(() => slowStarted.length === 1, 5_000, 'handler started');
    // An API-only replica stores the second message once shutdown has begun: a worker that still
    // claimed would take it (its wake-up reaches this replica), one that stopped leaves it pending.
    const check = await startQueueBoxApp(schema, { workers: { enabled: false } });
    try {
      // The handler ends only once the claiming loop has ended, while shutdown waits for it: a loop
      // that went on claiming never reaches 'stopped', and a completion that claimed the next row
      // would take 'second' once the gate opens.
      const [worker] = app.app.get(PullWorkerExplorer).workers;
      const closing = app.close();
      await waitFor(() => worker.status.state === 'stopped', 10_000, 'the claiming loop to end');
      await check.app.get(InboxService).receive({ source: 'slow-ledger', idempotencyKey: 'second', payload: {} });
      slowGate.open();
      await closing;
      const rows = await inboxRows(check.dataSource, schema);
      expect(rows.map((row) => [row.idempotency_key, row.state])).toEqual([
        ['first', 'processed'],
        ['second', 'pending'],
      ]);
      expect(await testDatabase().selectFrom(check.dataSource, schema, 'ledger', ['idempotency_key'])).toEqual([
        { idempotency_key: 'first' },
      ]);
    } finally {
      await check.close();
    }
  });
});

const slowStarted: string[] = [];
let slowGate = new Gate();

/** Waits for the test's gate and ignores the shutdown signal: it is allowed to finish within the timeout. */
@PullWorker('slow-ledger', { pollIntervalMs: 50 })
@Injectable()
class SlowLedgerWorker extends PullWorkerHost {
  async handle(message: InboxMessage, { manager }: PullContext): Promise<void> {
    slowStarted.push(message.idempotencyKey);
    await slowGate.wait();
    await record(manager, message.idempotencyKey, message.attempt);
  }
}
