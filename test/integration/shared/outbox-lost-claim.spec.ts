import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { ClaimRepository } from '../../../lib/engine/claim.repository.js';
import { CLAIMS_LOST_TOTAL, OutboxService } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { untilLeaseOutlived } from '../../fixtures/db-clock.js';
import { Gate } from '../../fixtures/gate.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { counterValue } from '../../fixtures/metrics.js';
import { rowState } from '../../fixtures/outbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

/**
 * A lease of 3 s, renewed every second: 2 s of margin for a renewal on a loaded machine. Publishes
 * are held by a gate until the condition the test is about holds, never for a guessed time.
 */
const LEASE_MS = 3_000;

describeWithDatabase('outbox: a publish that outlives its lease', () => {
  const receiver = new HttpReceiver();
  const apps: TestApp[] = [];
  let url: string;
  let schema: string;
  let gate: Gate;

  const start = async (concurrency: number) => {
    const app = await startQueueBoxApp(schema, {
      destinations: { sink: { type: 'http', url: `${url}/sink`, timeoutMs: 20_000 } },
      outbox: { claimTimeoutMs: LEASE_MS, pollIntervalMs: 100, concurrency },
    });
    apps.push(app);
    return app;
  };

  beforeEach(async () => {
    url = await receiver.start();
    receiver.requests.length = 0;
    schema = await createTestSchema();
    gate = new Gate();
  });
  afterEach(async () => {
    gate.open();
    vi.restoreAllMocks();
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await receiver.stop();
  });

  it('without renewal is reclaimed and published again by another instance; the old owner’s mark is fenced out, logged and counted', async () => {
    // The first publish is answered only after the new owner sent the row; later ones at once.
    receiver.reply = () => (receiver.requests.length === 1 ? { status: 200, until: gate.wait() } : { status: 200 });
    const errorLog = vi.spyOn(Logger.prototype, 'error');
    const lostBefore = await counterValue(CLAIMS_LOST_TOTAL, { component: 'outbox' });

    // The old owner: one publish slot (so it cannot claim the row again itself) and a renewal that
    // never reaches the database, like a process that stalls.
    const oldOwner = await start(1);
    vi.spyOn(oldOwner.app.get(ClaimRepository, { strict: false }), 'renewMany').mockResolvedValue([]);
    const { id, messageId } = await oldOwner.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 1 } });
    await receiver.waitFor(() => receiver.requests.length === 1);

    const newOwner = await start(10);
    await receiver.waitFor(() => receiver.requests.length === 2);
    const sentBy = await waitForState(newOwner, id, 'sent');

    // The old owner's publish returns now; its fenced mark must change nothing.
    gate.open();
    await waitFor(
      async () => (await counterValue(CLAIMS_LOST_TOTAL, { component: 'outbox' })) === lostBefore + 1,
      10_000,
      'claim loss counted',
    );
    expect(receiver.requests.map((request) => request.headers['x-message-id'])).toEqual([messageId, messageId]);
    expect(await rowState(newOwner.dataSource, schema, id)).toMatchObject({
      state: 'sent',
      claim_token: sentBy.claim_token,
      attempts: 2,
    });
    expect(
      errorLog.mock.calls.some(([entry]) =>
        JSON.stringify(entry).includes('its claim was lost before it was marked sent'),
      ),
    ).toBe(true);
  });

  it('with renewal keeps its claim: one publish, no loss', async () => {
    receiver.reply = () => ({ status: 200, until: gate.wait() });
    const lostBefore = await counterValue(CLAIMS_LOST_TOTAL, { component: 'outbox' });
    const owner = await start(1);
    // A second instance runs reclaim steps all along; it must find nothing expired.
    await start(10);
    const { id } = await owner.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 2 } });
    await receiver.waitFor(() => receiver.requests.length === 1);
    // The publish is answered only once it has outlived the lease of its claim.
    await untilLeaseOutlived(owner.dataSource, schema, id);
    gate.open();
    await waitForState(owner, id, 'sent');
    expect(receiver.requests).toHaveLength(1);
    expect(await rowState(owner.dataSource, schema, id)).toMatchObject({ attempts: 1 });
    expect(await counterValue(CLAIMS_LOST_TOTAL, { component: 'outbox' })).toBe(lostBefore);
  });

  async function waitForState(app: TestApp, id: string, state: string, timeoutMs = 20_000) {
    let row = await rowState(app.dataSource, schema, id);
    await waitFor(
      async () => (row = await rowState(app.dataSource, schema, id)).state === state,
      timeoutMs,
      `row ${id} ${state}`,
    );
    return row;
  }
});
