import { Injectable, Logger } from '@nestjs/common';
import { EventEmitterModule, OnEvent } from '@nestjs/event-emitter';
import { register } from 'prom-client';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { DataSource } from 'typeorm';
import { QueueBoxEventEmitterModule } from '../../../lib/surfaces/event-emitter/index.js';
import {
  ClaimLostError,
  InboxService,
  type InboxMessage,
  LEASE_RENEWALS_TOTAL,
  LEASE_UTILIZATION_RATIO,
  OutboxService,
  type PullContext,
  PullService,
  PullWorker,
  PullWorkerHost,
  QueueBoxEvents,
  type QueueBoxEventMap,
  type QueueBoxEventName,
} from '../../../lib/index.js';
import { createTestSchema, describeWithDatabase, openDataSource } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { outboxRows } from '../../fixtures/inbox-rows.js';
import { counterValue } from '../../fixtures/metrics.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

let schema: string;
let check: DataSource;

/** Fails every attempt; one attempt allowed: dead-lettered at once. */
@PullWorker('doomed', { maxAttempts: 1, pollIntervalMs: 50 })
@Injectable()
class DoomedWorker extends PullWorkerHost {
  async handle(): Promise<void> {
    throw new Error('never works');
  }
}

/**
 * On its first attempt, another worker takes the row (its claim token changes in the database),
 * and the handler waits until the renewal finds the claim lost and aborts its signal.
 */
// A lease of 3 s: the renewal (after a second) finds the new token long before the lease could end.
@PullWorker('stolen', { leaseMs: 3_000, pollIntervalMs: 50 })
@Injectable()
class StolenWorker extends PullWorkerHost {
  async handle(message: InboxMessage, { signal }: PullContext): Promise<void> {
    if (message.attempt > 1) return;
    await check.query(`UPDATE "${schema}".queuebox_inbox_messages SET claim_token = gen_random_uuid() WHERE id = $1`, [
      message.id,
    ]);
    await waitFor(() => signal.aborted, 10_000, 'the renewal to find the claim lost');
    throw signal.reason;
  }
}

/** What `@nestjs/event-emitter` handlers received through the bridge. */
const bridged: { event: string; payload: unknown }[] = [];

@Injectable()
class BridgeListener {
  @OnEvent('queuebox.relay.forwarded')
  forwarded(payload: unknown): void {
    bridged.push({ event: 'queuebox.relay.forwarded', payload });
  }

  @OnEvent('queuebox.message.dead-lettered')
  dead(payload: unknown): void {
    bridged.push({ event: 'queuebox.message.dead-lettered', payload });
  }
}

describeWithDatabase('events: typed in-process hooks, and the @nestjs/event-emitter bridge', () => {
  const receiver = new HttpReceiver();
  const seen: { event: QueueBoxEventName; payload: unknown }[] = [];
  const error = vi.spyOn(Logger.prototype, 'error');
  let app: TestApp;
  let events: QueueBoxEvents;

  const emitted = <E extends QueueBoxEventName>(event: E): QueueBoxEventMap[E][] =>
    seen.filter((entry) => entry.event === event).map((entry) => entry.payload as QueueBoxEventMap[E]);

  beforeAll(async () => {
    const url = await receiver.start();
    schema = await createTestSchema();
    check = await openDataSource(schema, 3);
    app = await startQueueBoxApp(
      schema,
      {
        destinations: { sink: { type: 'http', url } },
        // A lease of 3 s, renewed every second: 2 s of margin for a renewal on a loaded machine.
        outbox: { pollIntervalMs: 50, claimTimeoutMs: 3_000 },
        inbox: {
          sources: { orders: {}, doomed: {}, stolen: {}, api: {} },
          relay: { routes: { orders: { destination: 'sink' } }, pollIntervalMs: 50 },
        },
      },
      {
        imports: [EventEmitterModule.forRoot(), QueueBoxEventEmitterModule],
        providers: [DoomedWorker, StolenWorker, BridgeListener],
      },
    );
    events = app.app.get(QueueBoxEvents);
    events.onAny((event, payload) => void seen.push({ event, payload }));
  });
  afterAll(async () => {
    await app?.close();
    await receiver.stop();
    await check?.destroy();
    error.mockRestore();
  });

  it('message.dead-lettered: a pulled message out of attempts, also on EventEmitter2 as queuebox.message.dead-lettered', async () => {
    const { id } = await app.app.get(InboxService).receive({ source: 'doomed', idempotencyKey: 'd-1', payload: {} });
    await waitFor(() => emitted('message.dead-lettered').length > 0, 10_000, 'message.dead-lettered');
    expect(emitted('message.dead-lettered')).toEqual([
      { component: 'pull', id, stream: 'doomed', attempt: 1, error: 'Error: never works' },
    ]);
    await waitFor(
      () => bridged.some((entry) => entry.event === 'queuebox.message.dead-lettered'),
      5_000,
      'the bridged event',
    );
  });

  it('claim.lost: a renewal finds that another worker took the row', async () => {
    const { id } = await app.app.get(InboxService).receive({ source: 'stolen', idempotencyKey: 's-1', payload: {} });
    await waitFor(() => emitted('claim.lost').some((lost) => lost.id === id), 10_000, 'claim.lost');
    expect(emitted('claim.lost').find((lost) => lost.id === id)).toEqual({
      component: 'pull',
      id,
      stream: 'stolen',
      during: 'work',
    });
  });

  it('the PullService API reports as pull workers do: dead letters and lost claims as events, each finished claim to the lease advisor', async () => {
    const inbox = app.app.get(InboxService);
    const pull = app.app.get(PullService);
    const utilized = async (): Promise<number> => {
      const { values } = (await register.getSingleMetric(LEASE_UTILIZATION_RATIO)!.get()) as {
        values: { metricName?: string; labels: Record<string, unknown>; value: number }[];
      };
      return (
        values.find(
          (value) =>
            value.metricName === `${LEASE_UTILIZATION_RATIO}_count` &&
            value.labels.component === 'pull' &&
            value.labels.source === 'api',
        )?.value ?? 0
      );
    };
    const dead = await inbox.receive({ source: 'api', idempotencyKey: 'a-1', payload: {} });
    const stolen = await inbox.receive({ source: 'api', idempotencyKey: 'a-2', payload: {} });
    const [first, second] = await pull.claimBatch('api', { leaseMs: 60_000, max: 2 });
    expect([first.id, second.id].sort()).toEqual([dead.id, stolen.id].sort());
    const [doomed, taken] = first.id === dead.id ? [first, second] : [second, first];
    await pull.renew(doomed);
    expect(await counterValue(LEASE_RENEWALS_TOTAL, { component: 'pull', source: 'api' })).toBe(1);
    await pull.deadLetter(doomed, { reason: 'refused by the client' });
    await check.query(`UPDATE "${schema}".queuebox_inbox_messages SET claim_token = gen_random_uuid() WHERE id = $1`, [
      taken.id,
    ]);
    await expect(app.dataSource.transaction((manager) => pull.complete(taken, { manager }))).rejects.toBeInstanceOf(
      ClaimLostError,
    );
    await waitFor(
      () => emitted('claim.lost').some((lost) => lost.id === taken.id),
      5_000,
      'claim.lost of the API call',
    );
    expect(emitted('message.dead-lettered').filter((event) => event.stream === 'api')).toEqual([
      { component: 'pull', id: dead.id, stream: 'api', attempt: 1, error: 'refused by the client' },
    ]);
    expect(emitted('claim.lost').find((lost) => lost.id === taken.id)).toEqual({
      component: 'pull',
      id: taken.id,
      stream: 'api',
      during: 'finish',
    });
    // Both claims ended: two readings of how much of their lease the work used.
    expect(await utilized()).toBe(2);
  });

  it('rows.reclaimed: an outbox row whose lease expired goes back to pending', async () => {
    const outbox = app.app.get(OutboxService);
    // Committed already claimed, by a worker that died: the poller never sees it pending.
    const { id } = await app.dataSource.transaction(async (manager) => {
      const enqueued = await outbox.enqueue({ destination: 'sink', payload: { reclaim: true } }, { manager });
      await manager.query(
        `UPDATE "${schema}".queuebox_outbox_messages SET state = 'processing', claim_token = gen_random_uuid(), claimed_at = now() - interval '1 hour', lease_expires_at = now() - interval '1 minute', attempts = 1 WHERE id = $1`,
        [enqueued.id],
      );
      return enqueued;
    });
    await waitFor(() => emitted('rows.reclaimed').length > 0, 10_000, 'rows.reclaimed');
    expect(emitted('rows.reclaimed')).toEqual([{ table: 'outbox', count: 1 }]);
    await waitFor(
      async () => (await outboxRows(check, schema)).find((row) => row.id === id)?.state === 'sent',
      10_000,
      'the reclaimed row sent',
    );
  });

  it('relay.forwarded, with listeners that throw or never settle: the relay goes on, the errors are logged', async () => {
    events.on('relay.forwarded', () => {
      throw new Error('listener bug');
    });
    events.on('relay.forwarded', () => new Promise(() => undefined));
    events.on('relay.forwarded', async () => Promise.reject(new Error('async listener bug')));
    const inbox = app.app.get(InboxService);
    const first = await inbox.receive({ source: 'orders', idempotencyKey: 'o-1', payload: { n: 1 } });
    const second = await inbox.receive({ source: 'orders', idempotencyKey: 'o-2', payload: { n: 2 } });
    await waitFor(() => emitted('relay.forwarded').length === 2, 10_000, 'relay.forwarded twice');
    // Messages without a key are forwarded in parallel: in either order.
    expect([...emitted('relay.forwarded')].sort((p, q) => p.idempotencyKey.localeCompare(q.idempotencyKey))).toEqual([
      { id: first.id, source: 'orders', idempotencyKey: 'o-1' },
      { id: second.id, source: 'orders', idempotencyKey: 'o-2' },
    ]);
    await waitFor(
      () => bridged.filter((entry) => entry.event === 'queuebox.relay.forwarded').length === 2,
      5_000,
      'bridged twice',
    );
    const failures = error.mock.calls
      .filter(([line]) => line === 'QueueBox event listener failed')
      .map(([, fields]) => fields as { event?: string; error?: string });
    expect(failures.map((fields) => [fields.event, fields.error])).toEqual(
      expect.arrayContaining([
        ['relay.forwarded', 'Error: listener bug'],
        ['relay.forwarded', 'Error: async listener bug'],
      ]),
    );
  });

  it('order.inversion: a row committed after a younger row of its key was sent', async () => {
    const outbox = app.app.get(OutboxService);
    const producer = app.dataSource.createQueryRunner();
    await producer.connect();
    await producer.startTransaction();
    const older = await outbox.enqueue(
      { destination: 'sink', key: 'k-1', payload: { n: 1 } },
      { manager: producer.manager },
    );
    const younger = await outbox.enqueue({ destination: 'sink', key: 'k-1', payload: { n: 2 } });
    await waitFor(
      async () => (await outboxRows(check, schema)).find((row) => row.id === younger.id)?.state === 'sent',
      10_000,
      'the younger row sent',
    );
    await producer.commitTransaction();
    await producer.release();
    await waitFor(() => emitted('order.inversion').length > 0, 10_000, 'order.inversion');
    expect(emitted('order.inversion')).toEqual([{ component: 'outbox', id: older.id, stream: 'sink', key: 'k-1' }]);
  });
});
