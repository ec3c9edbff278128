import type { ResolvedTableNames } from '../../options/resolved-options.interface.js';
import { headOfScope, markClaimed } from './claim-update.sql.js';
import { DB_NOW, qualified } from './postgres-names.js';

/** What the relay and pull claims return of an inbox row. */
export const INBOX_CLAIM_COLUMNS = 'm.id, m.source, m.idempotency_key, m.ordering_key, m.headers, m.payload, m.claim_token, m.attempts, m.received_at';

/**
 * $1 source, $2 idempotency key, $3 aggregate key, $4 headers (JSON), $5 payload. Stores a
 * received message once: a second insert of the same (source, idempotency_key) returns no row.
 * ON CONFLICT makes concurrent receives of one key wait for each other on the unique index, so
 * exactly one inserts, even inside longer caller transactions.
 */
export const insertInbox = (t: ResolvedTableNames): string => /* sql */ `
INSERT INTO ${qualified(t, 'inbox')} (source, idempotency_key, ordering_key, headers, payload)
VALUES ($1, $2, $3, $4::jsonb, $5)
ON CONFLICT (source, idempotency_key) DO NOTHING
RETURNING id`;

/** $1 source, $2 idempotency key. The row a duplicate receive refers to. */
export const findInbox = (t: ResolvedTableNames): string => /* sql */ `
SELECT id, state FROM ${qualified(t, 'inbox')} WHERE source = $1 AND idempotency_key = $2`;

/**
 * $1 batch size, $2 lease ms, $3 text[] sources the relay routes. The relay claim: same shape
 * as the outbox claim with the aggregate of a source as the ordering scope, run after the relay
 * claim lock (claim-lock.sql.ts), always taken: it closes the window between two
 * concurrent claims of one aggregate. NULL aggregates are unordered.
 */
export const claimInbox = (t: ResolvedTableNames): string => /* sql */ `
WITH cand AS (
  SELECT i.id
  FROM ${qualified(t, 'inbox')} AS i
  WHERE i.state = 'pending'
    AND i.next_attempt_at <= ${DB_NOW}
    AND i.source = ANY($3::text[])
    AND ${headOfScope(t, 'inbox', 'i')}
  ORDER BY i.id
  LIMIT $1
  FOR UPDATE OF i SKIP LOCKED
)
${markClaimed(t, 'inbox', '$2', INBOX_CLAIM_COLUMNS)}`;

/** Backlog and oldest pending age (seconds, database clock) per source. */
export const inboxBacklog = (t: ResolvedTableNames): string => /* sql */ `
SELECT source AS label, count(*)::integer AS pending,
       EXTRACT(EPOCH FROM ${DB_NOW} - min(received_at))::float8 AS oldest_age_seconds
FROM ${qualified(t, 'inbox')}
WHERE state = 'pending'
GROUP BY source`;
