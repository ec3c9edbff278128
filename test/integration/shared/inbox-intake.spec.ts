import { Logger } from '@nestjs/common';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { INBOX_MESSAGES_RECEIVED_TOTAL } from '../../../lib/index.js';
import { describeWithDatabase, createTestSchema, testDatabase } from '../../fixtures/database.js';
import { inboxRows } from '../../fixtures/inbox-rows.js';
import { counterValue } from '../../fixtures/metrics.js';
import { startQueueBoxApp, type TestApp } from '../../fixtures/queuebox-app.js';
import { standardWebhookHeaders, testSecret } from '../../fixtures/webhook-secrets.js';
import { webhookSignatures } from '../../../lib/shared/signatures/webhook-signature.js';
import { coveredHeadersText } from '../../../lib/shared/signatures/covered-headers.js';
import { decodeWebhookSecret } from '../../../lib/shared/signatures/webhook-secret.js';

const SIGNED = testSecret('intake signed source');
const LIMIT = 4_096;

/** Headers QueueBox's publisher would send: Standard Webhooks plus X-QueueBox-Signature over the key and trace context. */
function queueBoxHeaders(
  secret: string,
  id: string,
  body: string,
  extra: Record<string, string>,
): Record<string, string> {
  const key = (decodeWebhookSecret(secret) as { key: Buffer }).key;
  const headers = { ...standardWebhookHeaders(secret, id, body), ...extra };
  return {
    ...headers,
    'x-queuebox-signature': webhookSignatures(
      [key],
      id,
      Number(headers['webhook-timestamp']),
      coveredHeadersText(headers),
    ),
  };
}

/**
 * POSTs headers and the first 10 bytes of a 1000-byte body, then stalls: only an answer given
 * before the whole body is read can arrive. Resolves with it once the server has also closed the
 * connection (a connection left open would hold the server's socket and buffers).
 */
async function stalledPost(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; connection?: string; text: string }> {
  const request = httpRequest(new URL(url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '1000', ...headers },
  });
  request.on('error', () => undefined);
  const answered = new Promise<IncomingMessage>((resolve) => request.on('response', resolve));
  const closed = new Promise<void>((resolve) => request.on('socket', (socket) => socket.on('close', () => resolve())));
  request.write('{"a":"0123');
  const response = await answered;
  let text = '';
  for await (const chunk of response) text += String(chunk);
  await closed;
  return { status: response.statusCode ?? 0, connection: response.headers.connection, text };
}

/** The HTTP intake's answers: what it stores, what it refuses, and that a refusal stores nothing. */
describeWithDatabase('inbox: the HTTP intake', () => {
  let app: TestApp;
  let schema: string;
  let intake: string;

  beforeAll(async () => {
    schema = await createTestSchema();
    app = await startQueueBoxApp(
      schema,
      {
        intake: { path: 'inbox' },
        inbox: { maxPayloadBytes: LIMIT, sources: { signed: { secret: SIGNED }, open: { unsigned: true } } },
      },
      { listen: true },
    );
    intake = `${app.url}/inbox`;
  });
  afterAll(async () => {
    await app?.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const post = (source: string, body: string | Buffer<ArrayBuffer>, headers: Record<string, string>) =>
    fetch(`${intake}/${source}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const stored = async (id: string) =>
    (await inboxRows(app.dataSource, schema)).filter((row) => row.idempotency_key === id);

  it('stores a request signed by a third-party Standard Webhooks sender', async () => {
    const body = JSON.stringify({ from: 'standardwebhooks' });
    const response = await post('signed', body, standardWebhookHeaders(SIGNED, 'sw-1', body));
    expect(response.status).toBe(202);
    expect(await stored('sw-1')).toMatchObject([{ source: 'signed', ordering_key: null, payload: body }]);
  });

  it('refuses a key or trace context the signature does not cover, and one that was swapped after signing', async () => {
    const body = JSON.stringify({ n: 1 });
    // A valid Standard Webhooks signature replayed with a key added: the key is not covered.
    const keyAdded = await post('signed', body, {
      ...standardWebhookHeaders(SIGNED, 'cov-1', body),
      'x-queuebox-key': 'victim',
    });
    expect(keyAdded.status).toBe(401);
    // A request signed with key A, replayed with key B.
    const signed = queueBoxHeaders(SIGNED, 'cov-2', body, { 'x-queuebox-key': 'a' });
    const swapped = await post('signed', body, { ...signed, 'x-queuebox-key': 'b' });
    expect(swapped.status).toBe(401);
    expect(await stored('cov-1')).toEqual([]);
    expect(await stored('cov-2')).toEqual([]);
    // The original is stored with its key.
    expect((await post('signed', body, signed)).status).toBe(202);
    expect(await stored('cov-2')).toMatchObject([{ ordering_key: 'a' }]);
  });

  it('keeps trace headers only when the signature covers them', async () => {
    const body = JSON.stringify({ n: 2 });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect((await post('signed', body, { ...standardWebhookHeaders(SIGNED, 'tr-1', body), traceparent })).status).toBe(
      202,
    );
    expect((await post('signed', body, queueBoxHeaders(SIGNED, 'tr-2', body, { traceparent }))).status).toBe(202);
    const headersOf = async (id: string) => (await stored(id))[0].headers;
    expect(await headersOf('tr-1')).toEqual({});
    expect(await headersOf('tr-2')).toEqual({ traceparent });
  });

  it('accepts a body up to inbox.maxPayloadBytes whatever the platform parser limit, and answers a larger one with its own 413, counted', async () => {
    const within = JSON.stringify({ pad: 'x'.repeat(LIMIT - 20) });
    expect(Buffer.byteLength(within)).toBeLessThanOrEqual(LIMIT);
    expect((await post('open', within, { 'x-message-id': 'big-1' })).status).toBe(202);
    const rejectedBefore = await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: 'open', outcome: 'rejected' });
    const over = await post('open', JSON.stringify({ pad: 'x'.repeat(LIMIT) }), { 'x-message-id': 'big-2' });
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ status: 'rejected' });
    expect(await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: 'open', outcome: 'rejected' })).toBe(
      rejectedBefore + 1,
    );
    expect(await stored('big-2')).toEqual([]);
  });

  it('requires application/json in UTF-8, and a body that is valid UTF-8 JSON', async () => {
    const json = JSON.stringify({ a: 1 });
    const form = await fetch(`${intake}/open`, {
      method: 'POST',
      body: json,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-message-id': 'ct-1' },
    });
    const text = await fetch(`${intake}/open`, {
      method: 'POST',
      body: json,
      headers: { 'content-type': 'text/plain', 'x-message-id': 'ct-2' },
    });
    const latin1 = await post('open', json, {
      'content-type': 'application/json; charset=iso-8859-1',
      'x-message-id': 'ct-3',
    });
    const gzip = await post('open', json, { 'content-encoding': 'gzip', 'x-message-id': 'ct-4' });
    expect([form.status, text.status, latin1.status, gzip.status]).toEqual([415, 415, 415, 415]);
    const empty = await post('open', '', { 'x-message-id': 'ct-5' });
    const notUtf8 = await post('open', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), {
      'x-message-id': 'ct-6',
    });
    const notJson = await post('open', '{not json', { 'x-message-id': 'ct-7' });
    expect([empty.status, notUtf8.status, notJson.status]).toEqual([400, 400, 400]);
    expect(
      (await post('open', json, { 'content-type': 'application/json; charset=utf-8', 'x-message-id': 'ct-8' })).status,
    ).toBe(202);
    for (const id of ['ct-1', 'ct-2', 'ct-3', 'ct-4', 'ct-5', 'ct-6', 'ct-7']) expect(await stored(id), id).toEqual([]);
  });

  it('refuses forged, tampered, replayed and unsigned requests to a signed source', async () => {
    const body = JSON.stringify({ transfer: 100 });
    const forged = await post('signed', body, standardWebhookHeaders(testSecret('wrong'), 'f-1', body));
    const tampered = await post(
      'signed',
      JSON.stringify({ transfer: 1_000_000 }),
      standardWebhookHeaders(SIGNED, 'f-2', body),
    );
    const replayed = await post(
      'signed',
      body,
      standardWebhookHeaders(SIGNED, 'f-3', body, new Date(Date.now() - 3_600_000)),
    );
    const unsigned = await post('signed', body, { 'webhook-id': 'f-4' });
    const legacyId = await post('signed', body, { 'x-message-id': 'f-5' });
    expect([forged.status, tampered.status, replayed.status, unsigned.status]).toEqual([401, 401, 401, 401]);
    expect(legacyId.status).toBe(400);
    for (const id of ['f-1', 'f-2', 'f-3', 'f-4', 'f-5']) expect(await stored(id), id).toEqual([]);
  });

  it('refuses keys with control characters before they reach the database, and logs no payload', async () => {
    const error = vi.spyOn(Logger.prototype, 'error');
    const body = JSON.stringify({ marker: 'PAYLOAD-MARKER-1' });
    const tab = await post('open', body, { 'x-message-id': 'nul-1', 'x-queuebox-key': 'a\tb' });
    const unknownSource = await post('a%00b', body, { 'x-message-id': 'nul-2' });
    expect(tab.status).toBe(400);
    expect(unknownSource.status).toBe(404);
    expect(await stored('nul-1')).toEqual([]);
    expect(JSON.stringify(error.mock.calls)).not.toContain('PAYLOAD-MARKER-1');
  });

  it('answers an unknown source with a 404 that lists no source, counted once', async () => {
    const rejectedBefore = await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: '_other', outcome: 'rejected' });
    const response = await post('nope', JSON.stringify({ a: 1 }), { 'x-message-id': 'unknown-1' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ status: 'rejected', error: 'unknown source' });
    expect(await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: '_other', outcome: 'rejected' })).toBe(
      rejectedBefore + 1,
    );
    expect(await stored('unknown-1')).toEqual([]);
  });

  it('answers an unknown source before reading any of the body: a body that never ends still gets its 404', async () => {
    const answer = await stalledPost(`${intake}/nope`, { 'x-message-id': 'unknown-2' });
    expect(answer.status).toBe(404);
    expect(answer.connection).toBe('close');
    expect(JSON.parse(answer.text)).toEqual({ status: 'rejected', error: 'unknown source' });
  });

  it('answers missing, malformed or expired signature headers with 401 before reading any of the body', async () => {
    const body = JSON.stringify({ never: 'sent in full' });
    const valid = standardWebhookHeaders(SIGNED, 'stall-1', body);
    const cases: Record<string, Record<string, string>> = {
      'no signature headers': { 'webhook-id': 'stall-1' },
      'no timestamp': { 'webhook-id': 'stall-1', 'webhook-signature': valid['webhook-signature'] },
      'a malformed signature': { ...valid, 'webhook-signature': 'v1,not*base64' },
      'a malformed timestamp': { ...valid, 'webhook-timestamp': 'soon' },
      'an expired timestamp': standardWebhookHeaders(SIGNED, 'stall-1', body, new Date(Date.now() - 3_600_000)),
      'a key without its covering signature': { ...valid, 'x-queuebox-key': 'k' },
      'a malformed covering signature': { ...valid, 'x-queuebox-key': 'k', 'x-queuebox-signature': 'v1,' },
    };
    for (const [name, headers] of Object.entries(cases)) {
      const answer = await stalledPost(`${intake}/signed`, headers);
      expect([answer.status, answer.connection], name).toEqual([401, 'close']);
      expect(JSON.parse(answer.text), name).toMatchObject({ status: 'rejected' });
    }
    // A request with headers that may be signed is read on (its body is awaited, not refused).
    expect(await stored('stall-1')).toEqual([]);
  });

  it('answers a missing id or a wrong content type before reading any of the body', async () => {
    expect((await stalledPost(`${intake}/open`, {})).status).toBe(400);
    expect(
      (await stalledPost(`${intake}/open`, { 'content-type': 'text/plain', 'x-message-id': 'stall-2' })).status,
    ).toBe(415);
  });

  it('answers 500 when the database fails, logs no statement parameters, and counts it', async () => {
    const error = vi.spyOn(Logger.prototype, 'error');
    const failedBefore = await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: 'open', outcome: 'failed' });
    await testDatabase().renameTable(app.dataSource, schema, 'queuebox_inbox_messages', 'queuebox_inbox_away');
    let response: Response;
    try {
      response = await post('open', JSON.stringify({ marker: 'PAYLOAD-MARKER-2' }), { 'x-message-id': 'db-1' });
    } finally {
      await testDatabase().renameTable(app.dataSource, schema, 'queuebox_inbox_away', 'queuebox_inbox_messages');
    }
    expect(response.status).toBe(500);
    const answer = await response.json();
    expect(answer).toMatchObject({ status: 'rejected' });
    expect(JSON.stringify(answer)).not.toMatch(/queuebox_inbox|relation|object name|SELECT|INSERT/i);
    expect(await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: 'open', outcome: 'failed' })).toBe(
      failedBefore + 1,
    );
    expect(error).toHaveBeenCalled();
    expect(JSON.stringify(error.mock.calls)).not.toContain('PAYLOAD-MARKER-2');
  });
});

/** The intake's deadline for a body, on an app of its own with a short one. */
describeWithDatabase('inbox: the HTTP intake, a body that stalls', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startQueueBoxApp(
      await createTestSchema(),
      { intake: { path: 'inbox' }, inbox: { bodyTimeoutMs: 200, sources: { signed: { secret: SIGNED } } } },
      { listen: true },
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers 408 and closes the connection when the body of a signed request stops arriving', async () => {
    const body = JSON.stringify({ pad: 'x'.repeat(990) });
    const rejectedBefore = await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: 'signed', outcome: 'rejected' });
    const answer = await stalledPost(`${app.url}/inbox/signed`, standardWebhookHeaders(SIGNED, 'slow-1', body));
    expect([answer.status, answer.connection]).toEqual([408, 'close']);
    expect(JSON.parse(answer.text)).toEqual({
      status: 'rejected',
      error: 'the body did not arrive within 200 ms (inbox.bodyTimeoutMs)',
    });
    expect(await counterValue(INBOX_MESSAGES_RECEIVED_TOTAL, { source: 'signed', outcome: 'rejected' })).toBe(
      rejectedBefore + 1,
    );
  });
});
