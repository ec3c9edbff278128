import { afterAll, beforeAll, expect, it } from 'vitest';
import { OUTBOX_MESSAGES_RECLAIMED_TOTAL, OutboxService } from '../../../lib/index.js';
import { counterValue } from '../../fixtures/metrics.js';
import { describeWithDatabase, createTestSchema } from '../../fixtures/database.js';
import { HttpReceiver, waitFor } from '../../fixtures/http-receiver.js';
import { rowState } from '../../fixtures/outbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';

describeWithDatabase('outbox: shutdown with a publish in flight', () => {
  const receiver = new HttpReceiver();
  let url: string;
  let schema: string;
  let restarted: TestApp | undefined;

  beforeAll(async () => {
    url = await receiver.start();
    schema = await createTestSchema();
  });
  afterAll(async () => {
    await restarted?.close();
    await receiver.stop();
  });

  const options = () => ({
    destinations: { sink: { type: 'http' as const, url: `${url}/sink`, timeoutMs: 30_000 } },
    outbox: { claimTimeoutMs: 1_000, shutdownTimeoutMs: 300, pollIntervalMs: 100 },
  });

  it('leaves the row processing past shutdownTimeoutMs; a restarted instance reclaims and sends it', async () => {
    // The first publish hangs far beyond the shutdown timeout; the next one succeeds.
    receiver.reply = () => ({ status: 200, delayMs: receiver.requests.length === 1 ? 5_000 : 0 });
    const first = await startQueueBoxApp(schema, options());
    const { id, messageId } = await first.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 1 } });
    await receiver.waitFor(() => receiver.requests.length === 1);

    const closing = Date.now();
    await first.close();
    expect(Date.now() - closing).toBeLessThan(4_000);
    restarted = await startQueueBoxApp(schema, { ...options(), workers: { enabled: false } });
    expect((await rowState(restarted.dataSource, schema, id)).state).toBe('processing');
    await restarted.close();

    const reclaimedBefore = await counterValue(OUTBOX_MESSAGES_RECLAIMED_TOTAL);
    restarted = await startQueueBoxApp(schema, options());
    await waitFor(async () => (await rowState(restarted!.dataSource, schema, id)).state === 'sent', 10_000, 'row sent after restart');
    expect(await counterValue(OUTBOX_MESSAGES_RECLAIMED_TOTAL)).toBe(reclaimedBefore + 1);
    expect(receiver.requests.map((request) => request.headers['x-message-id'])).toEqual([messageId, messageId]);
    await restarted.close();
    restarted = undefined;
  });

  it('waits for a publish that ends within shutdownTimeoutMs and marks it sent', async () => {
    receiver.requests.length = 0;
    receiver.reply = () => ({ status: 200, delayMs: 150 });
    const app = await startQueueBoxApp(schema, { ...options(), outbox: { ...options().outbox, shutdownTimeoutMs: 5_000 } });
    const { id } = await app.app.get(OutboxService).enqueue({ destination: 'sink', payload: { n: 2 } });
    await receiver.waitFor(() => receiver.requests.length === 1);
    await app.close();
    const check = await startQueueBoxApp(schema, { ...options(), workers: { enabled: false } });
    expect((await rowState(check.dataSource, schema, id)).state).toBe('sent');
    await check.close();
  });
});
