import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature scheme shared by the HTTP publisher and the HTTP intake:
 * `X-QueueBox-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<message id>.<body>">`.
 * The timestamp bounds replays; the message id binds the signature to one message.
 * @publicApi
 */
export function signMessage(secret: string, messageId: string, body: string, unixSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${messageId}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/** Why a signature was refused, or `ok`. @publicApi */
export type SignatureCheck = 'ok' | 'missing' | 'malformed' | 'expired' | 'mismatch';

/** Verifies a signature header in constant time, refusing timestamps outside `toleranceSeconds`. @publicApi */
export function verifyMessageSignature(
  secret: string,
  messageId: string,
  body: string,
  header: string | undefined,
  nowSeconds: number,
  toleranceSeconds: number,
): SignatureCheck {
  if (!header) return 'missing';
  const parts = new Map(header.split(',').map((part) => part.trim().split('=', 2) as [string, string]));
  const timestamp = Number(parts.get('t'));
  const given = parts.get('v1');
  if (!Number.isInteger(timestamp) || !given || !/^[0-9a-f]{64}$/.test(given)) return 'malformed';
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return 'expired';
  const expected = signMessage(secret, messageId, body, timestamp).split('v1=')[1];
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex')) ? 'ok' : 'mismatch';
}
