import { Injectable } from '@nestjs/common';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import {
  CLAIMS_LOST_TOTAL,
  DeadLetterService,
  InboxService,
  type InboxMessage,
  type InboxTransform,
} from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { Gate } from '../../fixtures/gate.js';
import { waitFor } from '../../fixtures/http-receiver.js';
import { inboxRows, outboxRows } from '../../fixtures/inbox-rows.js';
import { counterValue } from '../../fixtures/metrics.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { RecordingPublisher } from '../../fixtures/recording-publisher.js';

/** Holds the first forward of a process while the test keeps it shut. */
let firstForward: Gate;

/** The first forward of this process waits at the gate when `holdFirst`; the transform keeps the payload. */
@Injectable()
class GatedTransform implements InboxTransform {
  calls = 0;
  holdFirst = false;
  behaviour: 'forward' | 'throw' = 'forward';

  async transform(message: InboxMessage) {
    this.calls += 1;
    if (this.behaviour === 'throw') throw new Error(`cannot shape message ${message.id}`);
    if (this.calls === 1 && this.holdFirst) await firstForward.wait();
    return { headers: { 'x-forwarded-by': 'relay' } };
  }
}

describeWithDatabase('inbox relay: failures and lost claims', () => {
  const apps: TestApp[] = [];
  let schema: string;

  const start = (maxAttempts = 10) =>
    startQueueBoxApp(
      schema,
      {
        destinations: { downstream: { type: 'custom', publisher: RecordingPublisher } },
        inbox: {
          relay: {
            routes: { orders: { destination: 'downstream', transform: GatedTransform } },
            // A lease of 3 s, renewed every second: 2 s of margin for a renewal on a loaded machine.
            claimTimeoutMs: 3_000,
            pollIntervalMs: 100,
            concurrency: 1,
            maxAttempts,
            backoff: { initialDelayMs: 10, maxDelayMs: 20 },
          },
        },
      },
      [RecordingPublisher, GatedTransform],
    ).then((app) => (apps.push(app), app));

  beforeEach(async () => {
    schema = await createTestSchema();
    firstForward = new Gate();
  });
  afterEach(async () => {
    firstForward.open();
    vi.restoreAllMocks();
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it('a claim that expires during the forward rolls the forward back; the new owner forwards it once', async () => {
    const lostBefore = await counterValue(CLAIMS_LOST_TOTAL, { component: 'relay' });
    const oldOwner = await start();
    // The old owner's renewals never reach the database (a stalled process).
    vi.spyOn(oldOwner.app.get(ClaimRepository, { strict: false }), 'renewMany').mockResolvedValue([]);
    oldOwner.app.get(GatedTransform).holdFirst = true;
    const { id } = await oldOwner.app
      .get(InboxService)
      .receive({ source: 'orders', idempotencyKey: 'm-1', key: 'a', payload: { n: 1 } });
    await waitFor(() => oldOwner.app.get(GatedTransform).calls === 1, 5_000, 'old owner forwarding');

    const newOwner = await start();
    await waitFor(
      async () => (await inboxRows(newOwner.dataSource, schema)).every((row) => row.state === 'processed'),
      20_000,
      'row processed',
    );
    // The old owner's forward goes on only now, long after its lease ended: it must roll back.
    firstForward.open();
    await waitFor(
      async () => (await counterValue(CLAIMS_LOST_TOTAL, { component: 'relay' })) === lostBefore + 1,
      10_000,
      'loss counted',
    );

    const outbox = await outboxRows(newOwner.dataSource, schema);
    expect(outbox).toHaveLength(1);
    expect(JSON.parse(outbox[0].payload)).toEqual({ n: 1 });
    const [row] = await inboxRows(newOwner.dataSource, schema);
    expect(row).toMatchObject({ id, state: 'processed', attempts: 2 });
  });

  it('a transform that keeps failing is retried with backoff, then dead-lettered with its error', async () => {
    const app = await start(3);
    app.app.get(GatedTransform).behaviour = 'throw';
    await app.app.get(InboxService).receive({ source: 'orders', idempotencyKey: 'm-2', key: 'b', payload: { n: 2 } });
    await waitFor(async () => (await inboxRows(app.dataSource, schema))[0]?.state === 'dead', 10_000, 'row dead');
    const [row] = await inboxRows(app.dataSource, schema);
    expect(row.attempts).toBe(3);
    expect(row.last_error).toContain('cannot shape message');
    expect(await outboxRows(app.dataSource, schema)).toHaveLength(0);

    // Once the transform is fixed, replaying the dead row forwards it.
    const deadLetters = app.app.get(DeadLetterService);
    const [dead] = (await deadLetters.list('inbox')).items;
    expect(dead).toMatchObject({ source: 'orders', idempotencyKey: 'm-2', key: 'b', attempts: 3 });
    app.app.get(GatedTransform).behaviour = 'forward';
    expect(await deadLetters.replay('inbox', { ids: [dead.id] })).toMatchObject({ count: 1, ids: [dead.id] });
    await waitFor(
      async () => (await inboxRows(app.dataSource, schema))[0]?.state === 'processed',
      10_000,
      'replayed row processed',
    );
    expect(await outboxRows(app.dataSource, schema)).toHaveLength(1);
  });
});
