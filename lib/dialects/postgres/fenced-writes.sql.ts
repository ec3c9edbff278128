import type { ResolvedTableNames } from '../../options/resolved-options.interface.js';
import type { ClaimTable } from '../sql-dialect.interface.js';
import { fence } from './fence.sql.js';
import { DB_NOW, doneState, qualified, sameScope } from './postgres-names.js';

/*
 * Fenced writes. Each is ONE statement that returns the ids it changed: an empty result means
 * the claim was lost and the caller writes nothing more for that row. No lock beyond the row
 * lock the UPDATE takes; a concurrent claim or reclaim of the row serializes on it and the
 * loser re-checks the fence on the winner's version.
 */

/** $1 id, $2 token, $3 lease ms. Extends the lease from the database clock. */
export const renew = (t: ResolvedTableNames, table: ClaimTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET lease_expires_at = ${DB_NOW} + $3::integer * interval '1 millisecond'
WHERE ${fence('m', '$1::bigint', '$2::uuid')}
RETURNING m.id`;

/** $1 id, $2 token. Keeps the token on the finished row (a commit-outcome check can read it). */
export const complete = (t: ResolvedTableNames, table: ClaimTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET state = '${doneState(table)}', finished_at = ${DB_NOW}, lease_expires_at = NULL
WHERE ${fence('m', '$1::bigint', '$2::uuid')}
RETURNING m.id`;

/**
 * $1 bigint[] ids, $2 uuid[] tokens (same order). Every row fenced by its own token.
 * `has_successor`: a younger pending row of the same key exists, which this completion may have
 * made claimable (one probe of the unfinished-rows index per keyed row); the caller wakes its
 * loop only then, instead of after every keyed row.
 */
export const completeMany = (t: ResolvedTableNames, table: ClaimTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET state = '${doneState(table)}', finished_at = ${DB_NOW}, lease_expires_at = NULL
FROM unnest($1::bigint[], $2::uuid[]) AS c(id, token)
WHERE ${fence('m', 'c.id', 'c.token')}
RETURNING m.id,
          EXISTS (SELECT 1 FROM ${qualified(t, table)} AS n
                  WHERE ${sameScope(table, 'n', 'm')} AND n.id > m.id AND n.state = 'pending') AS has_successor`;


/**
 * $1 id, $2 token, $3 delay ms, $4 error. Back to `pending`, due after the delay; the row stays
 * the oldest unfinished row of its key, so the key waits for it (FIFO across retries).
 */
export const retry = (t: ResolvedTableNames, table: ClaimTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL,
    next_attempt_at = ${DB_NOW} + $3::integer * interval '1 millisecond', last_error = $4
WHERE ${fence('m', '$1::bigint', '$2::uuid')}
RETURNING m.id`;

/** $1 id, $2 token, $3 error. A dead row is finished: later rows of its key proceed. */
export const deadLetter = (t: ResolvedTableNames, table: ClaimTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET state = 'dead', finished_at = ${DB_NOW}, lease_expires_at = NULL, last_error = $3
WHERE ${fence('m', '$1::bigint', '$2::uuid')}
RETURNING m.id`;

/**
 * $1 max rows; inbox: $2 text[] the sources to reclaim (the relay's routes: pull claims take
 * expired rows themselves and need no reclaim). Returns expired claims to `pending`
 * (docs/concepts/claims-and-leases.md, "Reclaim"). SKIP LOCKED: a row a worker is writing right now is skipped, never
 * waited for, and the expiry is re-checked on the newest version, so a renewal that committed
 * first wins. Two replicas reclaiming at once cannot deadlock.
 */
export const reclaimExpired = (t: ResolvedTableNames, table: ClaimTable): string => /* sql */ `
WITH expired AS (
  SELECT e.id FROM ${qualified(t, table)} AS e
  WHERE e.state = 'processing' AND e.lease_expires_at <= ${DB_NOW}${table === 'inbox' ? ' AND e.source = ANY($2::text[])' : ''}
  LIMIT $1
  FOR UPDATE SKIP LOCKED
)
UPDATE ${qualified(t, table)} AS m
SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL
FROM expired
WHERE m.id = expired.id AND m.state = 'processing' AND m.lease_expires_at <= ${DB_NOW}
RETURNING m.id`;
