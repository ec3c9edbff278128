import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { claimStatement, invertedColumn } from './claim.sql.js';
import { INBOX_CLAIM_COLUMNS } from '../schema-columns.js';
import { DB_NOW, qualified } from './postgres-names.js';

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
 * The relay claim (claim.sql.ts) over the routed sources ($7), always after the relay claim lock
 * (claim-lock.sql.ts), which closes the window between two concurrent claims of one key. At most
 * one row per (source, key), the oldest unfinished; NULL keys are unordered.
 */
export const claimInbox = (t: ResolvedTableNames): string =>
  claimStatement(
    t,
    'relay',
    `${INBOX_CLAIM_COLUMNS.map((column) => `m.${column}`).join(', ')},
          ${invertedColumn(t, 'relay', 'm')} AS inverted`,
  );

/** Backlog and oldest pending age (seconds, database clock) per source. */
export const inboxBacklog = (t: ResolvedTableNames): string => /* sql */ `
SELECT source AS label, count(*)::integer AS pending,
       EXTRACT(EPOCH FROM ${DB_NOW} - min(received_at))::float8 AS oldest_age_seconds
FROM ${qualified(t, 'inbox')}
WHERE state = 'pending'
GROUP BY source`;
