import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a signature was refused, or `ok`. @publicApi */
export type SignatureCheck = 'ok' | 'missing' | 'malformed' | 'expired' | 'mismatch';

/** Most `v1,…` entries a signature header may list (rotation needs two or three). */
const MAX_SIGNATURES = 8;
const TIMESTAMP = /^[0-9]{1,12}$/;

/**
 * Standard Webhooks signatures of one request: for each key, `v1,` and the base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<content>`, space-separated. `content` is hashed as the bytes it is: the raw
 * body, never a decoded and re-encoded text.
 */
export function webhookSignatures(keys: readonly Buffer[], id: string, timestamp: number, content: Buffer | string): string {
  return keys.map((key) => `v1,${digest(key, id, timestamp, content).toString('base64')}`).join(' ');
}

/**
 * Checks a signature header against every key, in constant time per comparison: `ok` when any
 * `v1` signature matches any key (so that secrets can be rotated without downtime). The
 * timestamp must be within `toleranceSeconds` of `nowSeconds`, either way.
 */
export function checkWebhookSignatures(
  keys: readonly Buffer[],
  id: string,
  timestampHeader: string | undefined,
  signatureHeader: string | undefined,
  content: Buffer | string,
  nowSeconds: number,
  toleranceSeconds: number,
): SignatureCheck {
  if (!timestampHeader || !signatureHeader) return 'missing';
  if (!TIMESTAMP.test(timestampHeader)) return 'malformed';
  const entries = signatureHeader.split(' ').filter((entry) => entry.length > 0);
  if (entries.length === 0 || entries.length > MAX_SIGNATURES) return 'malformed';
  const given = entries.flatMap((entry) => {
    const [version, signature] = entry.split(',', 2);
    return version === 'v1' && signature ? [Buffer.from(signature, 'base64')] : [];
  });
  if (given.length === 0) return 'malformed';
  const timestamp = Number(timestampHeader);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return 'expired';
  for (const key of keys) {
    const expected = digest(key, id, timestamp, content);
    if (given.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected))) return 'ok';
  }
  return 'mismatch';
}

function digest(key: Buffer, id: string, timestamp: number, content: Buffer | string): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(content).digest();
}
