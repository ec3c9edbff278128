import { strictestLimits } from '../database/dialects/dialect-registry.js';

/**
 * Limits that more than one part of QueueBox enforces. One place, so that options, enqueue,
 * receive, the intake and pull claims agree. Those the databases set are the strictest of the
 * registered ones (each dialect's profile says its own): values are checked before the database
 * is known, and must hold on each.
 */

/**
 * Longest ordering key, aggregate key, idempotency key, source and destination name, in
 * characters: they are index keys on every database (200 on both today).
 */
export const MAX_KEY_LENGTH = strictestLimits.keyLength;

/**
 * Longest interval in milliseconds (leases, delays, back-off) the statements add to the database
 * clock: an int on both databases today (24.8 days).
 */
export const MAX_INTERVAL_MS = strictestLimits.intervalMs;

/** A day in milliseconds: the upper bound of poll intervals and timeouts. */
export const DAY_MS = 86_400_000;
