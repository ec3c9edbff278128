import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { coveredHeadersText } from '../../lib/shared/signatures/covered-headers.js';
import { decodeWebhookSecret } from '../../lib/shared/signatures/webhook-secret.js';
import { checkWebhookSignatures, webhookSignatures } from '../../lib/shared/signatures/webhook-signature.js';
import { testSecret } from '../fixtures/webhook-secrets.js';

const keyOf = (secret: string): Buffer => {
  const decoded = decodeWebhookSecret(secret);
  if ('problem' in decoded) throw new Error(decoded.problem);
  return decoded.key;
};

describe('Standard Webhooks signatures', () => {
  const secret = testSecret('one');
  const now = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ amount: 42 });

  it('are what the standardwebhooks package computes, in both directions', () => {
    const ours = webhookSignatures([keyOf(secret)], 'msg_1', now, body);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(now), 'webhook-signature': ours };
    expect(new Webhook(secret).verify(body, headers)).toEqual({ amount: 42 });
    const theirs = new Webhook(secret).sign('msg_2', new Date(now * 1000), body);
    expect(checkWebhookSignatures([keyOf(secret)], 'msg_2', String(now), theirs, Buffer.from(body), now, 300)).toBe(
      'ok',
    );
  });

  it('sign with every secret and accept any, so secrets rotate without downtime', () => {
    const [next, current] = [testSecret('next'), testSecret('current')];
    const header = webhookSignatures([keyOf(next), keyOf(current)], 'm', now, body);
    expect(header.split(' ')).toHaveLength(2);
    // A receiver that still has only the current secret accepts the request …
    expect(() =>
      new Webhook(current).verify(body, {
        'webhook-id': 'm',
        'webhook-timestamp': String(now),
        'webhook-signature': header,
      }),
    ).not.toThrow();
    // … and an intake that already has both accepts a sender that still signs with the current one.
    const old = webhookSignatures([keyOf(current)], 'm', now, body);
    expect(checkWebhookSignatures([keyOf(next), keyOf(current)], 'm', String(now), old, body, now, 300)).toBe('ok');
  });

  it('refuse tampering, another message, another secret, a stale or future timestamp, and malformed headers', () => {
    const key = keyOf(secret);
    const header = webhookSignatures([key], 'm1', now, body);
    const check = (
      id: string,
      content: string,
      at = now,
      signature: string | undefined = header,
      timestamp: string | undefined = String(now),
    ) => checkWebhookSignatures([key], id, timestamp, signature, content, at, 300);
    expect(check('m1', body)).toBe('ok');
    expect(check('m1', JSON.stringify({ amount: 43 }))).toBe('mismatch');
    expect(check('m2', body)).toBe('mismatch');
    expect(checkWebhookSignatures([keyOf(testSecret('other'))], 'm1', String(now), header, body, now, 300)).toBe(
      'mismatch',
    );
    expect(check('m1', body, now + 301)).toBe('expired');
    expect(check('m1', body, now - 301)).toBe('expired');
    expect(checkWebhookSignatures([key], 'm1', String(now), undefined, body, now, 300)).toBe('missing');
    expect(checkWebhookSignatures([key], 'm1', undefined, header, body, now, 300)).toBe('missing');
    expect(check('m1', body, now, header, 'soon')).toBe('malformed');
    expect(check('m1', body, now, 'v2,abc')).toBe('malformed');
    expect(check('m1', body, now, Array(9).fill(header).join(' '))).toBe('malformed');
  });

  it('are decoded strictly: a valid signature with characters around it is malformed, not the signature', () => {
    const key = keyOf(secret);
    const signature = webhookSignatures([key], 'm1', now, body).slice('v1,'.length);
    // Node's lenient base64 stops at the padding and skips what it does not know: each of these
    // decodes to the valid signature's bytes.
    for (const altered of [
      `${signature}junk`,
      `${signature}=`,
      ` ${signature.slice(0, 20)}\n${signature.slice(20)}`,
      `${signature.slice(0, 20)}*${signature.slice(20)}`,
    ]) {
      expect(Buffer.from(altered, 'base64').equals(Buffer.from(signature, 'base64')), altered).toBe(true);
      expect(checkWebhookSignatures([key], 'm1', String(now), `v1,${altered}`, body, now, 300), altered).toBe(
        'malformed',
      );
      // Next to a valid entry, the altered one is only skipped.
      expect(
        checkWebhookSignatures([key], 'm1', String(now), `v1,${altered} v1,${signature}`, body, now, 300),
        altered,
      ).toBe('ok');
    }
  });

  it('are computed over the raw bytes: two byte strings that decode to one text do not share a signature', () => {
    const key = keyOf(secret);
    // Both are invalid UTF-8; a lenient decoder turns each into "\uFFFD".
    const [a, b] = [Buffer.from([0x7b, 0xff, 0x7d]), Buffer.from([0x7b, 0xfe, 0x7d])];
    expect(a.toString('utf8')).toBe(b.toString('utf8'));
    const signature = webhookSignatures([key], 'm', now, a);
    expect(checkWebhookSignatures([key], 'm', String(now), signature, a, now, 300)).toBe('ok');
    expect(checkWebhookSignatures([key], 'm', String(now), signature, b, now, 300)).toBe('mismatch');
  });
});

describe('decodeWebhookSecret', () => {
  it('accepts whsec_ secrets of 24 to 64 bytes and never repeats the secret in its reason', () => {
    expect('key' in decodeWebhookSecret(testSecret('x'))).toBe(true);
    for (const bad of [
      'plain-text-secret',
      'whsec_',
      'whsec_not base64!',
      `whsec_${Buffer.alloc(16).toString('base64')}`,
      `whsec_${Buffer.alloc(65).toString('base64')}`,
      42,
    ]) {
      const result = decodeWebhookSecret(bad);
      expect('problem' in result, String(bad)).toBe(true);
      if ('problem' in result && typeof bad === 'string' && bad.length > 6)
        expect(result.problem).not.toContain(bad.slice(6));
    }
  });
});

describe('coveredHeadersText', () => {
  it('lists the covered headers present, in a fixed order, so that adding or changing one changes the text', () => {
    expect(coveredHeadersText({ traceparent: 't', 'x-queuebox-key': 'k', other: 'o' })).toBe(
      'x-queuebox-key:k\ntraceparent:t',
    );
    expect(coveredHeadersText({ 'x-queuebox-key': 'k' })).not.toBe(coveredHeadersText({ 'x-queuebox-key': 'k2' }));
    expect(coveredHeadersText({})).toBe('');
  });
});
