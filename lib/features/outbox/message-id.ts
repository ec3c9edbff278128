import { randomUUID } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Time-ordered,
 * so message ids sort by creation and index well; random enough to be unique without
 * coordination between replicas.
 *
 * NOTE: the random bits come from `randomUUID()` (a version 4 UUID, served from Node's cached
 * entropy pool, several times faster than `randomBytes(16)`): its first 48 bits are replaced by
 * the time and its version nibble by 7; its variant bits are already the RFC's.
 */
export function uuidv7(now: number = Date.now()): string {
  const random = randomUUID();
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${random.slice(15)}`;
}
