import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, guidOut, jsonIds, qualified, timeOut } from './mssql-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';
import { ARRIVAL_COLUMN } from '../table-names.js';

/** What names a dead row besides its id and key, in a listing: its message id or idempotency key, and its stream. */
const LISTED: Record<QueueBoxTable, string> = {
  outbox: `${guidOut('x.message_id')} AS message_id, x.destination`,
  inbox: 'x.source, x.idempotency_key',
};

/** The same, inspected: both identities (one a typed NULL) and the stream under one name. */
const INSPECTED: Record<QueueBoxTable, string> = {
  outbox: `${guidOut('x.message_id')} AS message_id, x.destination AS stream, CAST(NULL AS nvarchar(200)) AS idempotency_key`,
  inbox: 'CAST(NULL AS char(36)) AS message_id, x.source AS stream, x.idempotency_key',
};

/**
 * A `datetimeoffset` parameter as the UTC `datetime2(3)` of the time columns: SWITCHOFFSET first,
 * because a plain conversion keeps the local time of the offset and drops the offset.
 */
const utc = (parameter: string): string => `CAST(SWITCHOFFSET(${parameter}, '+00:00') AS datetime2(3))`;

/**
 * The dead rows of a filter after a keyset position, on row `x`: @0 after id (bigint, exclusive;
 * 0 for the start), @2 destination or source (nvarchar(200)), @3 part of the last error
 * (nvarchar(max), case-insensitive), @4 dead at or after, @5 dead before (datetimeoffset); a NULL
 * parameter matches every row. (@1 is the limit.) CHARINDEX, not LIKE: the operator's text is
 * matched literally, `%`, `_` and `[` included.
 */
const deadMatching = (table: QueueBoxTable): string => `x.state = 'dead' AND x.id > @0
  AND (@2 IS NULL OR x.${QUEUEBOX_TABLES[table].stream} = @2)
  AND (@3 IS NULL OR CHARINDEX(LOWER(@3), LOWER(x.last_error)) > 0)
  AND (@4 IS NULL OR x.finished_at >= ${utc('@4')})
  AND (@5 IS NULL OR x.finished_at < ${utc('@5')})`;

/** The first @1 dead rows of the filter, oldest first: the `id` subquery of a chunk. */
const deadChunk = (t: ResolvedTableNames, table: QueueBoxTable): string =>
  `SELECT TOP (@1) x.id FROM ${qualified(t, table)} AS x WHERE ${deadMatching(table)} ORDER BY x.id`;

/**
 * @0 after id, @1 limit (int), @2–@5 the filter (`deadMatching`). Dead rows, oldest first,
 * keyset-paged by id on `dead_ix`. No hints: a listing at READ COMMITTED. Output: outbox `id,
 * message_id, destination, ordering_key, attempts, last_error, finished_at`; inbox `id, source,
 * idempotency_key, ordering_key, attempts, last_error, finished_at`.
 */
export const listDead = (
  t: ResolvedTableNames,
  table: QueueBoxTable,
): string => /* sql */ `SELECT TOP (@1) x.id, ${LISTED[table]}, x.ordering_key,
       x.attempts, x.last_error, ${timeOut('x.finished_at')} AS finished_at
FROM ${qualified(t, table)} AS x
WHERE ${deadMatching(table)}
ORDER BY x.id;`;

/** The outbox's listing and the inbox's: two statements, whose rows differ. */
export const listDeadOutbox = (t: ResolvedTableNames): string => listDead(t, 'outbox');
export const listDeadInbox = (t: ResolvedTableNames): string => listDead(t, 'inbox');

/**
 * @0 id (bigint), @1 with the payload (bit). One dead row in full; no row when it is not dead (or
 * gone). The payload is read only when asked for. Output: `id, message_id, stream,
 * idempotency_key, ordering_key, attempts, last_error, headers, created_at, finished_at, payload`.
 */
export const inspectDead = (
  t: ResolvedTableNames,
  table: QueueBoxTable,
): string => /* sql */ `SELECT x.id, ${INSPECTED[table]},
       x.ordering_key, x.attempts, x.last_error, x.headers, ${timeOut(`x.${ARRIVAL_COLUMN[table]}`)} AS created_at,
       ${timeOut('x.finished_at')} AS finished_at, CASE WHEN @1 = 1 THEN x.payload END AS payload
FROM ${qualified(t, table)} AS x
WHERE x.id = @0 AND x.state = 'dead';`;

/** What a replay writes: pending now, attempts back to 0, the last error kept for reference. */
const REPLAYED = `state = 'pending', attempts = 0, next_attempt_at = ${DB_NOW}, finished_at = NULL, claim_token = NULL`;

/**
 * @0 JSON array of ids. Gives dead rows a fresh start (`REPLAYED`). Only `dead` rows change (no
 * claim exists on them, so no fence): a row that is not dead, or no longer exists, is left alone
 * and not returned. Output: `id`.
 */
export const replayDead = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `UPDATE m
SET ${REPLAYED}
OUTPUT inserted.id
FROM ${qualified(t, table)} AS m
WHERE m.state = 'dead' AND m.id IN (${jsonIds('@0')});`;

/**
 * @0 after id, @1 chunk size, @2–@5 the filter. One chunk of a replay by filter: the next @1 dead
 * rows of the filter in id order get a fresh start; `state = 'dead'` is checked again on the row
 * the UPDATE locks, so a row a concurrent replay or discard changed first is skipped. Output: `id`.
 */
export const replayDeadMatching = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `UPDATE m
SET ${REPLAYED}
OUTPUT inserted.id
FROM ${qualified(t, table)} AS m
WHERE m.state = 'dead' AND m.id IN (${deadChunk(t, table)});`;

/** @0 JSON array of ids. Deletes dead rows; others are left alone and not returned. Output: `id`. */
export const discardDead = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `DELETE m
OUTPUT deleted.id
FROM ${qualified(t, table)} AS m
WHERE m.state = 'dead' AND m.id IN (${jsonIds('@0')});`;

/** @0 after id, @1 chunk size, @2–@5 the filter. One chunk of a discard by filter. Output: `id`. */
export const discardDeadMatching = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `DELETE m
OUTPUT deleted.id
FROM ${qualified(t, table)} AS m
WHERE m.state = 'dead' AND m.id IN (${deadChunk(t, table)});`;
