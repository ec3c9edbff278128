import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OutboxService, signMessage } from '../../lib/index.js';
import { createTestSchema } from '../fixtures/database.js';
import { HttpReceiver, waitFor } from '../fixtures/http-receiver.js';
import { inboxRows } from '../fixtures/inbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../fixtures/queuebox-app.js';

const SECRET = 'a-shared-secret';

/** Service A's outbox → B's HTTP intake → B's relay → a sink. */
describe('end to end over HTTP', () => {
  const sink = new HttpReceiver();
  let a: TestApp;
  let b: TestApp;
  let schemaB: string;
  let intake: string;

  beforeAll(async () => {
    const sinkUrl = await sink.start();
    schemaB = await createTestSchema(inject('pgUrl'));
    b = await startQueueBoxApp(
      inject('pgUrl'),
      schemaB,
      {
        intake: { path: 'inbox' },
        destinations: { sink: { type: 'http', url: `${sinkUrl}/sink` } },
        inbox: { sources: { 'service-a': { secret: SECRET }, open: {} }, maxPayloadBytes: 1_000, relay: { routes: { 'service-a': { destination: 'sink' } }, pollIntervalMs: 100 } },
        outbox: { pollIntervalMs: 100 },
      },
      { listen: true },
    );
    intake = `${b.url}/inbox`;
    a = await startQueueBoxApp(inject('pgUrl'), await createTestSchema(inject('pgUrl')), {
      destinations: { 'service-b': { type: 'http', url: `${intake}/service-a`, secret: SECRET } },
      outbox: { pollIntervalMs: 100 },
    });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await sink.stop();
  });

  it('delivers every message to the sink, in order per key, with the intake storing each once', async () => {
    const outbox = a.app.get(OutboxService);
    const sent = [];
    for (let seq = 0; seq < 10; seq++) {
      sent.push(await a.dataSource.transaction((manager) => outbox.enqueue({ destination: 'service-b', key: `order-${seq % 2}`, payload: { seq } }, { manager })));
    }
    await sink.waitFor(() => sink.requests.length >= 10, 20_000);
    const rows = await inboxRows(b.dataSource, schemaB);
    expect(rows.map((row) => row.idempotency_key).sort()).toEqual(sent.map((message) => message.messageId).sort());
    for (const key of ['order-0', 'order-1']) {
      const seqs = sink.requests.filter((request) => request.headers['x-queuebox-key'] === key).map((request) => JSON.parse(request.body).seq);
      expect(seqs, key).toEqual([...seqs].sort((p, q) => p - q));
    }
    // Each sink delivery is one inbox row's forward: distinct message ids, no duplicates here.
    expect(new Set(sink.requests.map((request) => request.headers['x-message-id'])).size).toBe(sink.requests.length);
  });

  const post = (source: string, body: string, headers: Record<string, string>) =>
    fetch(`${intake}/${source}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });

  it('answers 2xx for a new and a duplicate delivery, so a sender stops retrying', async () => {
    const body = JSON.stringify({ hello: 'world' });
    const headers = { 'x-message-id': 'dup-1', 'x-queuebox-signature': signMessage(SECRET, 'dup-1', body, Math.floor(Date.now() / 1000)) };
    const first = await post('service-a', body, headers);
    const second = await post('service-a', body, headers);
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ status: 'duplicate' });
  });

  it('refuses a forged or replayed signature, a missing id, an oversize body and an unknown source, storing nothing', async () => {
    const before = (await inboxRows(b.dataSource, schemaB)).length;
    const body = JSON.stringify({ transfer: 100 });
    const now = Math.floor(Date.now() / 1000);
    const forged = await post('service-a', body, { 'x-message-id': 'f-1', 'x-queuebox-signature': signMessage('wrong-secret', 'f-1', body, now) });
    const tampered = await post('service-a', JSON.stringify({ transfer: 1_000_000 }), { 'x-message-id': 'f-2', 'x-queuebox-signature': signMessage(SECRET, 'f-2', body, now) });
    const replayed = await post('service-a', body, { 'x-message-id': 'f-3', 'x-queuebox-signature': signMessage(SECRET, 'f-3', body, now - 3_600) });
    const unsigned = await post('service-a', body, { 'x-message-id': 'f-4' });
    const missingId = await post('open', body, {});
    const oversize = await post('open', JSON.stringify({ big: 'x'.repeat(2_000) }), { 'x-message-id': 'f-5' });
    const unknown = await post('stranger', body, { 'x-message-id': 'f-6' });
    const notJson = await post('open', '{not json', { 'x-message-id': 'f-7' });
    expect([forged.status, tampered.status, replayed.status, unsigned.status]).toEqual([401, 401, 401, 401]);
    expect(missingId.status).toBe(400);
    expect(oversize.status).toBe(413);
    expect(unknown.status).toBe(404);
    expect(notJson.status).toBe(400);
    expect(await inboxRows(b.dataSource, schemaB)).toHaveLength(before);
  });

  it('stores an unsigned message of a source without a secret, with its aggregate', async () => {
    const response = await post('open', JSON.stringify({ n: 1 }), { 'x-message-id': 'open-1', 'x-queuebox-key': 'agg-9' });
    expect(response.status).toBe(202);
    await waitFor(async () => (await inboxRows(b.dataSource, schemaB)).some((row) => row.idempotency_key === 'open-1' && row.aggregate_key === 'agg-9'), 2_000);
  });
});
