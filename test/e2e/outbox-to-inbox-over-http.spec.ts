import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { OutboxService } from '../../lib/index.js';
import { createTestSchema } from '../fixtures/database.js';
import { HttpReceiver, waitFor } from '../fixtures/http-receiver.js';
import { inboxRows, outboxRows } from '../fixtures/inbox-rows.js';
import { startQueueBoxApp, type TestApp } from '../fixtures/queuebox-app.js';
import { standardWebhookHeaders, testSecret } from '../fixtures/webhook-secrets.js';

const SECRET = testSecret('service-a to service-b');
const NEXT_SECRET = testSecret('service-a to service-b, rotated');

/** Service A's outbox → B's HTTP intake → B's relay → a sink. */
describe('end to end over HTTP', () => {
  const sink = new HttpReceiver();
  let a: TestApp;
  let b: TestApp;
  let schemaA: string;
  let schemaB: string;
  let intake: string;

  beforeAll(async () => {
    const sinkUrl = await sink.start();
    schemaB = await createTestSchema();
    b = await startQueueBoxApp(
      schemaB,
      {
        intake: { path: 'inbox' },
        destinations: { sink: { type: 'http', url: `${sinkUrl}/sink` } },
        // Default limits on both sides: the intake accepts what the outbox accepts (256 KiB).
        inbox: {
          sources: { 'service-a': { secret: [NEXT_SECRET, SECRET] } },
          relay: { routes: { 'service-a': { destination: 'sink' } }, pollIntervalMs: 100 },
        },
        outbox: { pollIntervalMs: 100 },
      },
      { listen: true },
    );
    intake = `${b.url}/inbox`;
    schemaA = await createTestSchema();
    a = await startQueueBoxApp(schemaA, {
      // A is not rotated yet: it signs with the old secret only, which B still accepts.
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
      sent.push(
        await a.dataSource.transaction((manager) =>
          outbox.enqueue({ destination: 'service-b', key: `order-${seq % 2}`, payload: { seq } }, { manager }),
        ),
      );
    }
    await sink.waitFor(() => sink.requests.length >= 10, 20_000);
    const rows = await inboxRows(b.dataSource, schemaB);
    expect(rows.map((row) => row.idempotency_key).sort()).toEqual(sent.map((message) => message.messageId).sort());
    for (const key of ['order-0', 'order-1']) {
      const seqs = sink.requests
        .filter((request) => request.headers['x-queuebox-key'] === key)
        .map((request) => JSON.parse(request.body).seq);
      expect(seqs, key).toEqual([...seqs].sort((p, q) => p - q));
    }
    // Each sink delivery is one inbox row's forward: distinct message ids, no duplicates here.
    expect(new Set(sink.requests.map((request) => request.headers['x-message-id'])).size).toBe(sink.requests.length);
  });

  it("delivers messages of 150 KB and 250 KB, which both sides' default limits allow", async () => {
    const outbox = a.app.get(OutboxService);
    const before = sink.requests.length;
    const big = [150_000, 250_000].map((size) => ({
      destination: 'service-b',
      key: 'big',
      payload: { pad: 'x'.repeat(size) },
    }));
    await outbox.enqueue(big);
    await sink.waitFor(() => sink.requests.length === before + 2, 20_000);
    expect(sink.requests.slice(before).map((request) => request.body.length)).toEqual([150_010, 250_010]);
    expect((await outboxRows(a.dataSource, schemaA)).filter((row) => row.state === 'dead')).toEqual([]);
  });

  it('answers 2xx for a new and a duplicate delivery, so a sender stops retrying', async () => {
    const body = JSON.stringify({ hello: 'world' });
    const headers = { 'content-type': 'application/json', ...standardWebhookHeaders(SECRET, 'dup-1', body) };
    const first = await fetch(`${intake}/service-a`, { method: 'POST', body, headers });
    const second = await fetch(`${intake}/service-a`, { method: 'POST', body, headers });
    expect(first.status).toBe(202);
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ status: 'duplicate' });
  });

  it('signs so that a receiver written with the standardwebhooks package verifies every request', async () => {
    const before = sink.requests.length;
    await a.app
      .get(OutboxService)
      .enqueue({ destination: 'service-b', key: 'interop', payload: { check: 'standardwebhooks' } });
    await waitFor(
      async () =>
        (await inboxRows(b.dataSource, schemaB)).some((row) => JSON.parse(row.payload).check === 'standardwebhooks'),
      10_000,
    );
    await sink.waitFor(() => sink.requests.length > before, 10_000);
    // The relay's publish to the sink is unsigned (no secret): one id, as X-Message-Id.
    expect(sink.requests.at(-1)!.headers['x-message-id']).toBeDefined();
    expect(sink.requests.at(-1)!.headers['webhook-id']).toBeUndefined();
  });
});

/** QueueBox's publisher against a receiver that only knows the standardwebhooks package. */
describe('a Standard Webhooks receiver', () => {
  const receiver = new HttpReceiver();
  let app: TestApp;

  beforeAll(async () => {
    const url = await receiver.start();
    app = await startQueueBoxApp(await createTestSchema(), {
      // Rotating: signs with the next and the current secret; the receiver still has only the current one.
      destinations: { partner: { type: 'http', url: `${url}/hooks`, secret: [NEXT_SECRET, SECRET] } },
      outbox: { pollIntervalMs: 100 },
    });
  });
  afterAll(async () => {
    await app?.close();
    await receiver.stop();
  });

  it('verifies every publish, with one id: webhook-id, and no X-Message-Id', async () => {
    const enqueued = await app.app.get(OutboxService).enqueue([
      { destination: 'partner', payload: { n: 1 } },
      { destination: 'partner', key: 'k', payload: { n: 2 } },
    ]);
    await receiver.waitFor(() => receiver.requests.length === 2, 10_000);
    const verifier = new Webhook(SECRET);
    for (const request of receiver.requests) {
      const headers = request.headers as Record<string, string>;
      expect(() => verifier.verify(request.body, headers)).not.toThrow();
      expect(headers['x-message-id']).toBeUndefined();
    }
    expect(receiver.requests.map((request) => request.headers['webhook-id']).sort()).toEqual(
      enqueued.map((message) => message.messageId).sort(),
    );
  });
});
