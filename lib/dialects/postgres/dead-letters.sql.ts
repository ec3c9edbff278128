import type { ResolvedTableNames } from '../../options/resolved-options.interface.js';
import type { ClaimTable } from '../sql-dialect.interface.js';
import { DB_NOW, qualified } from './postgres-names.js';

/**
 * $1 after id (exclusive; 0 for the start), $2 limit. Dead rows, oldest first, keyset-paged by
 * id (the finished-rows index narrows them to finished states).
 */
export const listDead = (t: ResolvedTableNames, table: ClaimTable): string => /* sql */ `
SELECT id, ${table === 'outbox' ? 'message_id, destination, ordering_key' : 'source, idempotency_key, ordering_key'},
       attempts, last_error, finished_at
FROM ${qualified(t, table)}
WHERE state = 'dead' AND id > $1::bigint
ORDER BY id
LIMIT $2`;

/**
 * $1 bigint[] ids. Gives dead rows a fresh start: pending now, attempts back to 0, the last
 * error kept for reference. Only `dead` rows change (no claim exists on them, so no fence): a
 * row that is not dead, or no longer exists, is left alone and not returned.
 */
export const replayDead = (t: ResolvedTableNames, table: ClaimTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET state = 'pending', attempts = 0, next_attempt_at = ${DB_NOW}, finished_at = NULL, claim_token = NULL
WHERE m.id = ANY($1::bigint[]) AND m.state = 'dead'
RETURNING m.id`;
