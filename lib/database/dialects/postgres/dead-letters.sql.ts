import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, qualified } from './postgres-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';

/** What names a dead row besides its id and key, in a listing: its message id or idempotency key, and its stream. */
const LISTED: Record<QueueBoxTable, string> = {
  outbox: 'x.message_id, x.destination',
  inbox: 'x.source, x.idempotency_key',
};

/** The same, inspected: both identities (one NULL) and the stream under one name, then the key. */
const INSPECTED: Record<QueueBoxTable, { identity: string; createdAt: string }> = {
  outbox: {
    identity: 'x.message_id, x.destination AS stream, NULL::text AS idempotency_key',
    createdAt: 'x.created_at',
  },
  inbox: {
    identity: 'NULL::uuid AS message_id, x.source AS stream, x.idempotency_key',
    createdAt: 'x.received_at AS created_at',
  },
};

/**
 * The dead rows of a filter after a keyset position, on row `x`: $1 after id (exclusive; 0 for
 * the start), $3 destination or source, $4 part of the last error (case-insensitive), $5 dead at
 * or after, $6 dead before; a NULL parameter matches every row. ($2 is the limit.) `strpos`, not
 * LIKE: the operator's text is matched literally, `%` and `_` included.
 */
const deadMatching = (table: QueueBoxTable): string => `x.state = 'dead' AND x.id > $1::bigint
  AND ($3::text IS NULL OR x.${QUEUEBOX_TABLES[table].stream} = $3::text)
  AND ($4::text IS NULL OR strpos(lower(x.last_error), lower($4::text)) > 0)
  AND ($5::timestamptz IS NULL OR x.finished_at >= $5::timestamptz)
  AND ($6::timestamptz IS NULL OR x.finished_at < $6::timestamptz)`;

/** The first $2 dead rows of the filter (`deadMatching`), oldest first: the `id` subquery of a chunk. */
const deadChunk = (t: ResolvedTableNames, table: QueueBoxTable): string =>
  `SELECT x.id FROM ${qualified(t, table)} AS x WHERE ${deadMatching(table)} ORDER BY x.id LIMIT $2`;

/**
 * $1 after id, $2 limit, $3–$6 the filter (`deadMatching`). Dead rows, oldest first, keyset-paged
 * by id on `dead_ix`. No locks: a listing.
 */
export const listDead = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
SELECT x.id, ${LISTED[table]}, x.ordering_key,
       x.attempts, x.last_error, x.finished_at
FROM ${qualified(t, table)} AS x
WHERE ${deadMatching(table)}
ORDER BY x.id
LIMIT $2`;

/** The outbox's listing and the inbox's: two statements, whose rows differ. */
export const listDeadOutbox = (t: ResolvedTableNames): string => listDead(t, 'outbox');
export const listDeadInbox = (t: ResolvedTableNames): string => listDead(t, 'inbox');

/**
 * $1 id, $2 boolean: with the payload. One dead row in full; no row when it is not dead (or gone).
 * The payload is read only when asked for: it can be large, and a listing never needs it.
 */
export const inspectDead = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
SELECT x.id, ${INSPECTED[table].identity},
       x.ordering_key, x.attempts, x.last_error, x.headers, ${INSPECTED[table].createdAt}, x.finished_at,
       CASE WHEN $2::boolean THEN x.payload END AS payload
FROM ${qualified(t, table)} AS x
WHERE x.id = $1::bigint AND x.state = 'dead'`;

/** What a replay writes: pending now, attempts back to 0, the last error kept for reference. */
const REPLAYED = `state = 'pending', attempts = 0, next_attempt_at = ${DB_NOW}, finished_at = NULL, claim_token = NULL`;

/**
 * $1 bigint[] ids. Gives dead rows a fresh start (`REPLAYED`). Only `dead` rows change (no claim
 * exists on them, so no fence): a row that is not dead, or no longer exists, is left alone and not
 * returned.
 */
export const replayDead = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET ${REPLAYED}
WHERE m.id = ANY($1::bigint[]) AND m.state = 'dead'
RETURNING m.id`;

/**
 * $1 after id, $2 chunk size, $3–$6 the filter. One chunk of a replay by filter: the next $2 dead
 * rows of the filter in id order get a fresh start. The UPDATE re-checks `state = 'dead'` on each
 * row it locks, so a row that a concurrent replay or discard changed first is skipped.
 */
export const replayDeadMatching = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET ${REPLAYED}
WHERE m.id IN (${deadChunk(t, table)}) AND m.state = 'dead'
RETURNING m.id`;

/** $1 bigint[] ids. Deletes dead rows; others are left alone and not returned. */
export const discardDead = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
DELETE FROM ${qualified(t, table)} AS m
WHERE m.id = ANY($1::bigint[]) AND m.state = 'dead'
RETURNING m.id`;

/** $1 after id, $2 chunk size, $3–$6 the filter. One chunk of a discard by filter. */
export const discardDeadMatching = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
DELETE FROM ${qualified(t, table)} AS m
WHERE m.id IN (${deadChunk(t, table)}) AND m.state = 'dead'
RETURNING m.id`;
