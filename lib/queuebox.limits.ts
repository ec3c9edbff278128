/**
 * Limits that more than one part of QueueBox enforces. One place, so that options, enqueue,
 * receive, the intake and pull claims agree.
 */

/**
 * Longest ordering key, aggregate key, idempotency key, source and destination name, in
 * characters: they are index keys on both databases (SQL Server's index keys are at most 1,700
 * bytes, and `(source, ordering_key, id)` holds two of them).
 */
export const MAX_KEY_LENGTH = 200;

/**
 * Longest interval in milliseconds (leases, delays, back-off): an int, because SQL Server's
 * `DATEADD(millisecond, …)` takes one (24.8 days).
 */
export const MAX_INTERVAL_MS = 2_147_483_647;

/** A day in milliseconds: the upper bound of poll intervals and timeouts. */
export const DAY_MS = 86_400_000;
