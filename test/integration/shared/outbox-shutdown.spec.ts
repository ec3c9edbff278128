import { afterAll, beforeAll, expect, it } from 'vitest';
import { OUTBOX_MESSAGES_RECLAIMED_TOTAL, OutboxService } from '../../../lib/index.js';
import { OutboxPoller } from '../../../lib/features/outbox/outbox-poller.js';
import { counterValue } from '../../fixtures/metrics.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { Gate } from '../../fixtures/gate.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { rowState } from '../../fixtures/outbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

describeWithDatabase('outbox: shutdown with a publish in flight', () => {
  const receiver = new HttpReceiver();
  let url: string;
  let schema: string;
  let restarted: TestApp | undefined;
  /** Holds the answer to a publish until the test opens it. */
  let gate = new Gate();

  beforeAll(async () => {
    url = await receiver.start();
    schema = await createTestSchema();
  });
  afterAll(async () => {
    gate.open();
    await restarted?.close();
    await receiver.stop();
  });

  const options = () => ({
    destinations: { sink: { type: 'http' as const, url: `${url}/sink`, timeoutMs: 30_000 } },
    // A lease of 3 s, renewed every second: 2 s of margin for a renewal on a loaded machine.
    outbox: { claimTimeoutMs: 3_000, shutdownTimeoutMs: 300, pollIntervalMs: 100 },
  });

  it('leaves the row processing past shutdownTimeoutMs; a restarted instance reclaims and sends it', async () => {
    // The first publish is never answered while the test runs (shutdown must not wait for it); the next one is at once.
    receiver.reply = () => (receiver.requests.length === 1 ? { status: 200, until: gate.wait() } : { status: 200 });
    const first = await startQueueBoxApp(schema, options());
    const { id, messageId } = await first.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 1 } });
    await receiver.waitFor(() => receiver.requests.length === 1);

    // Returns although the publish still hangs: a close that waited for it would never end.
    await first.close();
    restarted = await startQueueBoxApp(schema, { ...options(), workers: { enabled: false } });
    expect((await rowState(restarted.dataSource, schema, id)).state).toBe('processing');
    await restarted.close();

    const reclaimedBefore = await counterValue(OUTBOX_MESSAGES_RECLAIMED_TOTAL);
    restarted = await startQueueBoxApp(schema, options());
    await waitFor(
      async () => (await rowState(restarted!.dataSource, schema, id)).state === 'sent',
      20_000,
      'row sent after restart',
    );
    expect(await counterValue(OUTBOX_MESSAGES_RECLAIMED_TOTAL)).toBe(reclaimedBefore + 1);
    expect(receiver.requests.map((request) => request.headers['x-message-id'])).toEqual([messageId, messageId]);
    await restarted.close();
    restarted = undefined;
  });

  it('waits for a publish that ends within shutdownTimeoutMs and marks it sent', async () => {
    receiver.requests.length = 0;
    gate = new Gate();
    receiver.reply = () => ({ status: 200, until: gate.wait() });
    const app = await startQueueBoxApp(schema, {
      ...options(),
      outbox: { ...options().outbox, shutdownTimeoutMs: 20_000 },
    });
    const { id } = await app.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 2 } });
    await receiver.waitFor(() => receiver.requests.length === 1);
    // The publish ends only once shutdown has begun (claiming stopped), while shutdown waits for it.
    const poller = app.app.get(OutboxPoller);
    const closing = app.close();
    await waitFor(() => poller.status.state !== 'running', 10_000, 'shutdown to begin');
    gate.open();
    await closing;
    const check = await startQueueBoxApp(schema, { ...options(), workers: { enabled: false } });
    expect((await rowState(check.dataSource, schema, id)).state).toBe('sent');
    await check.close();
  });
});
