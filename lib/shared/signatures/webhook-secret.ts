import { decodeBase64Strictly } from './base64.js';

/** The prefix of a Standard Webhooks secret; the rest is the key, base64-encoded. @publicApi */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Fewest key bytes accepted: 192 bits, the floor the Standard Webhooks specification sets. */
const MIN_KEY_BYTES = 24;
/** Most key bytes accepted: a longer HMAC-SHA256 key is hashed down anyway. */
const MAX_KEY_BYTES = 64;

/**
 * The key bytes of a `whsec_<base64>` secret, or why it is refused. Never includes the secret in
 * the reason.
 */
export function decodeWebhookSecret(secret: unknown): { key: Buffer } | { problem: string } {
  if (typeof secret !== 'string' || !secret.startsWith(WEBHOOK_SECRET_PREFIX)) {
    return {
      problem: `a Standard Webhooks secret: "${WEBHOOK_SECRET_PREFIX}" followed by ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} random bytes in base64`,
    };
  }
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  const key = decodeBase64Strictly(encoded) ?? Buffer.alloc(0);
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    return {
      problem: `"${WEBHOOK_SECRET_PREFIX}" followed by ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes in base64 (this one decodes to ${key.length})`,
    };
  }
  return { key };
}
