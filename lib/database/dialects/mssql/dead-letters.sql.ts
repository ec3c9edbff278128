import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, guidOut, jsonIds, qualified, timeOut } from './mssql-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';
import { ARRIVAL_COLUMN } from '../table-names.js';

const LISTED: Record<QueueBoxTable, string> = {
  outbox: `${guidOut('x.message_id')} AS message_id, x.destination`,
  inbox: 'x.source, x.idempotency_key',
};

const INSPECTED: Record<QueueBoxTable, string> = {
  outbox: `${guidOut('x.message_id')} AS message_id, x.destination AS stream, CAST(NULL AS nvarchar(200)) AS idempotency_key`,
  inbox: 'CAST(NULL AS char(36)) AS message_id, x.source AS stream, x.idempotency_key',
};

/** A `datetimeoffset` parameter as UTC `datetime2(3)`: SWITCHOFFSET first, or the offset is dropped. */
const utc = (parameter: string): string => `CAST(SWITCHOFFSET(${parameter}, '+00:00') AS datetime2(3))`;

/**
 * Dead rows after keyset @0 (exclusive), matching @2 stream, @3 error text, @4 since, @5 before (NULL
 * matches all; @1 is the limit). CHARINDEX, not LIKE: the text matches literally, `%`, `_`, `[` included.
 */
const deadMatching = (table: QueueBoxTable): string => `x.state = 'dead' AND x.id > @0
  AND (@2 IS NULL OR x.${QUEUEBOX_TABLES[table].stream} = @2)
  AND (@3 IS NULL OR CHARINDEX(LOWER(@3), LOWER(x.last_error)) > 0)
  AND (@4 IS NULL OR x.finished_at >= ${utc('@4')})
  AND (@5 IS NULL OR x.finished_at < ${utc('@5')})`;

const deadChunk = (t: ResolvedTableNames, table: QueueBoxTable): string =>
  `SELECT TOP (@1) x.id FROM ${qualified(t, table)} AS x WHERE ${deadMatching(table)} ORDER BY x.id`;

/** @0 after id, @1 limit (int), @2–@5 the filter. Dead rows, oldest first, keyset-paged on `dead_ix`. */
export const listDead = (
  t: ResolvedTableNames,
  table: QueueBoxTable,
): string => /* sql */ `SELECT TOP (@1) x.id, ${LISTED[table]}, x.ordering_key,
       x.attempts, x.last_error, ${timeOut('x.finished_at')} AS finished_at
FROM ${qualified(t, table)} AS x
WHERE ${deadMatching(table)}
ORDER BY x.id;`;

export const listDeadOutbox = (t: ResolvedTableNames): string => listDead(t, 'outbox');
export const listDeadInbox = (t: ResolvedTableNames): string => listDead(t, 'inbox');

/** @0 id (bigint), @1 with the payload (bit). One dead row in full; no row when not dead. */
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

/** @0 JSON array of ids. Replays rows still `dead` (no claim, so no fence); others are not returned. Output: `id`. */
export const replayDead = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `UPDATE m
SET ${REPLAYED}
OUTPUT inserted.id
FROM ${qualified(t, table)} AS m
WHERE m.state = 'dead' AND m.id IN (${jsonIds('@0')});`;

/**
 * @0 after id, @1 chunk size, @2–@5 the filter. The next @1 dead rows get a fresh start; `state = 'dead'`
 * is re-checked on the locked row, so a concurrent replay or discard wins. Output: `id`.
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
