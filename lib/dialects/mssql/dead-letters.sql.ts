import type { ResolvedTableNames } from '../../options/resolved-options.interface.js';
import type { ClaimTable } from '../sql-dialect.interface.js';
import { DB_NOW, guidOut, jsonIds, qualified, timeOut } from './mssql-names.js';

/**
 * @0 after id (exclusive; digits as nvarchar, '0' for the start), @1 limit (int). Dead rows,
 * oldest first, keyset-paged by id on `dead_ix`. Output: outbox `id, message_id, destination,
 * ordering_key, attempts, last_error, finished_at`; inbox `id, source, idempotency_key,
 * ordering_key, attempts, last_error, finished_at`.
 */
export const listDead = (t: ResolvedTableNames, table: ClaimTable): string => /* sql */ `SELECT TOP (@1) x.id, ${
  table === 'outbox' ? `${guidOut('x.message_id')} AS message_id, x.destination` : 'x.source, x.idempotency_key'
}, x.ordering_key,
       x.attempts, x.last_error, ${timeOut('x.finished_at')} AS finished_at
FROM ${qualified(t, table)} AS x
WHERE x.state = 'dead' AND x.id > CAST(@0 AS bigint)
ORDER BY x.id;`;

/**
 * @0 JSON array of ids. Gives dead rows a fresh start: pending now, attempts back to 0, the last
 * error kept for reference. Only `dead` rows change (no claim exists on them, so no fence): a row
 * that is not dead, or no longer exists, is left alone and not returned. Output: `id`.
 */
export const replayDead = (t: ResolvedTableNames, table: ClaimTable): string => /* sql */ `UPDATE m
SET state = 'pending', attempts = 0, next_attempt_at = ${DB_NOW}, finished_at = NULL, claim_token = NULL
OUTPUT inserted.id
FROM ${qualified(t, table)} AS m
WHERE m.state = 'dead' AND m.id IN (${jsonIds('@0')});`;
