import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodeBase64Strictly } from './base64.js';

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
export function webhookSignatures(
  keys: readonly Buffer[],
  id: string,
  timestamp: number,
  content: Buffer | string,
): string {
  return keys.map((key) => `v1,${digest(key, id, timestamp, content).toString('base64')}`).join(' ');
}

/** What the signature headers of a request hold, read without the body. */
export type SignatureHeaders =
  { problem: Exclude<SignatureCheck, 'ok' | 'mismatch'> } | { timestamp: number; signatures: Buffer[] };

/**
 * Reads a timestamp and a signature header, and checks what can be checked without the content:
 * both present, the timestamp a number within `toleranceSeconds` of `nowSeconds`, and at least one
 * `v1` entry in canonical base64. The intake runs this before it reads a body, so that a request
 * that cannot be signed never makes it buffer one.
 */
export function readSignatureHeaders(
  timestampHeader: string | undefined,
  signatureHeader: string | undefined,
  nowSeconds: number,
  toleranceSeconds: number,
): SignatureHeaders {
  if (!timestampHeader || !signatureHeader) return { problem: 'missing' };
  if (!TIMESTAMP.test(timestampHeader)) return { problem: 'malformed' };
  const entries = signatureHeader.split(' ').filter((entry) => entry.length > 0);
  if (entries.length === 0 || entries.length > MAX_SIGNATURES) return { problem: 'malformed' };
  const signatures = entries.flatMap((entry) => {
    const [version, signature] = entry.split(',', 2);
    const bytes = version === 'v1' && signature ? decodeBase64Strictly(signature) : undefined;
    return bytes ? [bytes] : [];
  });
  if (signatures.length === 0) return { problem: 'malformed' };
  const timestamp = Number(timestampHeader);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { problem: 'expired' };
  return { timestamp, signatures };
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
  const read = readSignatureHeaders(timestampHeader, signatureHeader, nowSeconds, toleranceSeconds);
  if ('problem' in read) return read.problem;
  for (const key of keys) {
    const expected = digest(key, id, read.timestamp, content);
    if (
      read.signatures.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected))
    )
      return 'ok';
  }
  return 'mismatch';
}

function digest(key: Buffer, id: string, timestamp: number, content: Buffer | string): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(content).digest();
}
