import type { ChaosTables } from './chaos-names.js';

/*
 * The negative controls' own outbox loops: hand-written SQL on QueueBox's outbox table, run by a
 * control replica instead of QueueBox's poller (never a switch inside the library). Each is
 * wrong in exactly one way, which the checks must catch.
 */

const MARK_CLAIMED = `state = 'processing', claim_token = gen_random_uuid(), claimed_at = statement_timestamp(),
    lease_expires_at = statement_timestamp() + $2::integer * interval '1 millisecond', attempts = m.attempts + 1`;

/**
 * no-fence: claims like QueueBox does (a key's oldest row, one row of a key in flight), $1 rows,
 * lease $2 ms. Its finishing writes below ignore the token and the lease.
 */
export const claimHeads = (t: ChaosTables): string => /* sql */ `
UPDATE ${t.outbox} AS m SET ${MARK_CLAIMED}
WHERE m.id IN (
  SELECT o.id FROM ${t.outbox} AS o
  WHERE o.state = 'pending' AND o.next_attempt_at <= statement_timestamp()
    AND NOT EXISTS (SELECT 1 FROM ${t.outbox} AS p
                    WHERE p.destination = o.destination AND p.ordering_key = o.ordering_key
                      AND (p.state = 'processing' OR (p.state = 'pending' AND p.id < o.id)))
  ORDER BY o.id LIMIT $1 FOR UPDATE SKIP LOCKED)
RETURNING m.id, m.claim_token, m.message_id, m.destination, m.ordering_key, m.payload`;

/** no-order: claims the $1 newest pending rows, whatever their key; lease $2 ms. Its writes are fenced. */
export const claimNewest = (t: ChaosTables): string => /* sql */ `
UPDATE ${t.outbox} AS m SET ${MARK_CLAIMED}
WHERE m.id IN (
  SELECT o.id FROM ${t.outbox} AS o WHERE o.state = 'pending' AND o.next_attempt_at <= statement_timestamp()
  ORDER BY o.id DESC LIMIT $1 FOR UPDATE SKIP LOCKED)
RETURNING m.id, m.claim_token, m.message_id, m.destination, m.ordering_key, m.payload`;

/** no-fence: $1 id. Marks the row sent by its id alone. */
export const markSentUnfenced = (t: ChaosTables): string => /* sql */ `
UPDATE ${t.outbox} SET state = 'sent', finished_at = statement_timestamp(), lease_expires_at = NULL WHERE id = $1`;

/** no-fence: $1 id. Back to pending by its id alone. */
export const retryUnfenced = (t: ChaosTables): string => /* sql */ `
UPDATE ${t.outbox} SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL,
  next_attempt_at = statement_timestamp() + interval '100 milliseconds' WHERE id = $1`;

const FENCE = `id = $1 AND state = 'processing' AND claim_token = $2 AND lease_expires_at > statement_timestamp()`;

/** no-order: $1 id, $2 token. Fenced. */
export const markSentFenced = (t: ChaosTables): string => /* sql */ `
UPDATE ${t.outbox} SET state = 'sent', finished_at = statement_timestamp(), lease_expires_at = NULL WHERE ${FENCE}`;

/** no-order: $1 id, $2 token. Fenced. */
export const retryFenced = (t: ChaosTables): string => /* sql */ `
UPDATE ${t.outbox} SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL,
  next_attempt_at = statement_timestamp() + interval '100 milliseconds' WHERE ${FENCE}`;

/** Both controls: returns expired claims to pending (as QueueBox's reclaim step does), so that a killed replica's rows are not stuck. */
export const reclaimExpired = (t: ChaosTables): string => /* sql */ `
UPDATE ${t.outbox} SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL
WHERE state = 'processing' AND lease_expires_at <= statement_timestamp()`;
