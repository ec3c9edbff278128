import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { claimStatement, invertedColumn } from './claim.sql.js';
import { OUTBOX_CLAIM_COLUMNS } from '../schema-columns.js';
import { DB_NOW, qualified } from './postgres-names.js';

/**
 * $1 message id, $2 destination, $3 key, $4 headers (JSON), $5 payload. The form of most
 * enqueues: one message, due at once (`next_attempt_at` takes its default, the database clock).
 * A plain VALUES insert parses and plans in half the time of the unnest form.
 */
export const insertOutboxOne = (t: ResolvedTableNames): string => /* sql */ `
INSERT INTO ${qualified(t, 'outbox')} (message_id, destination, ordering_key, headers, payload)
VALUES ($1, $2, $3, $4::jsonb, $5)
RETURNING id, message_id`;

/**
 * $1 uuid[] message ids, $2 text[] destinations, $3 text[] keys, $4 text[] headers (JSON),
 * $5 text[] payloads, $6 int[] delays (ms). Runs in the caller's transaction; no lock beyond
 * the inserted rows.
 */
export const insertOutbox = (t: ResolvedTableNames): string => /* sql */ `
INSERT INTO ${qualified(t, 'outbox')} (message_id, destination, ordering_key, headers, payload, next_attempt_at)
SELECT u.message_id, u.destination, u.ordering_key, u.headers::jsonb, u.payload,
       ${DB_NOW} + u.delay_ms * interval '1 millisecond'
FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[])
  AS u(message_id, destination, ordering_key, headers, payload, delay_ms)
RETURNING id, message_id`;

/**
 * `insert` (one of the two above, whose parameters end at `$last`) that also sends the wake-up
 * NOTIFY, delivered with the caller's commit (and never on a rollback): `$last + 1` channel,
 * `$last + 2` sender. Only the write that opens a coalescing window sends it (notify.sql.ts): a
 * transaction that notified takes a database-wide lock at commit, so most producers must not.
 */
export const withCommitNotify = (insert: string, last: number): string => /* sql */ `
WITH inserted AS (${insert.trim()}),
woken AS (SELECT pg_notify($${last + 1}, $${last + 2}))
SELECT inserted.id, inserted.message_id FROM inserted CROSS JOIN woken`;

/**
 * The outbox claim (claim.sql.ts): autocommit, FOR UPDATE SKIP LOCKED on the candidates, no claim
 * lock by default (docs/concepts/claims-and-leases.md, "Locks"). At most one row per key and
 * destination, the oldest unfinished; unordered rows freely. `inverted` flags a late commit
 * (queuebox_outbox_order_inversions_total).
 */
export const claimOutbox = (t: ResolvedTableNames): string =>
  claimStatement(
    t,
    'outbox',
    `${OUTBOX_CLAIM_COLUMNS.map((column) => `m.${column}`).join(', ')},
          ${invertedColumn(t, 'outbox', 'm')} AS inverted`,
  );

/** Backlog and oldest pending age (seconds, database clock) per destination. */
export const outboxBacklog = (t: ResolvedTableNames): string => /* sql */ `
SELECT destination AS label, count(*)::integer AS pending,
       EXTRACT(EPOCH FROM ${DB_NOW} - min(created_at))::float8 AS oldest_age_seconds
FROM ${qualified(t, 'outbox')}
WHERE state = 'pending'
GROUP BY destination`;
