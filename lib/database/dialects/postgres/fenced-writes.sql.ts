import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { ClaimComponent, QueueBoxTable } from '../../sql-dialect.interface.js';
import { ASYNC_COMMIT_CTE, asyncCommitCte } from './async-commit.sql.js';
import { fence } from './fence.sql.js';
import { PER_ROW } from './plan-fences.sql.js';
import { DB_NOW, qualified } from './postgres-names.js';
import { CLAIMERS, QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';

/*
 * Fenced writes: ONE statement returning the changed ids; an empty result means the claim was lost.
 * Only the UPDATE's row lock: a concurrent claim or reclaim serializes on it and the loser re-checks
 * the fence on the winner's version.
 */

/** $1 id, $2 token, $3 lease ms. */
export const renew = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET lease_expires_at = ${DB_NOW} + $3::integer * interval '1 millisecond'
WHERE ${fence('m', '$1::bigint', '$2::uuid')}
RETURNING m.id`;

function completionParts(t: ResolvedTableNames, kind: ClaimComponent, claimColumns: readonly string[]) {
  const others = claimColumns.filter((column) => column !== 'id');
  const { name, stream, done } = CLAIMERS[kind].table;
  return {
    table: qualified(t, name),
    stream,
    done,
    others,
    nulls: others.map((column) => `NULL AS ${column}`).join(', '),
    durability: CLAIMERS[kind].asyncMarks ? asyncCommitCte(5) : '',
  };
}

/**
 * $1 bigint[] ids, $2 uuid[] tokens (same order), $3 lease ms, $4 boolean hand-off; outbox: $5
 * boolean asynchronous commit. Marks the rows finished, each fenced by its own token, and — when $4
 * — claims each finished keyed row's next row in the same statement, if it is due and none of its key
 * is in flight. One snapshot, one commit: exactly one row of the key is `processing` at every moment.
 * Rows come back as `done` (kept their claim) and `claimed` (handed on; `inverted` on a late commit).
 *
 * With $5 (the outbox's autocommit marks only) `synchronous_commit` is set off inside the statement,
 * since autocommit has no SET LOCAL before it. A crash can lose the last marks: those rows are
 * reclaimed and published again (docs/concepts/delivery-semantics.md, "Asynchronous sent marks").
 */
export const completeMany = (t: ResolvedTableNames, kind: ClaimComponent, claimColumns: readonly string[]): string => {
  const { table, stream, done, others, nulls, durability } = completionParts(t, kind, claimColumns);
  return /* sql */ `
WITH ${durability}done AS (
  UPDATE ${table} AS m
  SET state = '${done}', finished_at = ${DB_NOW}, lease_expires_at = NULL
  FROM unnest($1::bigint[], $2::uuid[]) AS c(id, token)${durability ? `, ${ASYNC_COMMIT_CTE}` : ''}
  WHERE ${fence('m', 'c.id', 'c.token')}
  RETURNING m.id, m.${stream}, m.ordering_key
),
successor AS (
  SELECT DISTINCT ON (n.id) n.id, done.id AS after_id
  FROM done CROSS JOIN LATERAL (
    SELECT x.id FROM ${table} AS x
    WHERE x.state = 'pending' AND x.ordering_key IS NOT NULL AND x.${stream} = done.${stream} AND x.ordering_key = done.ordering_key
    ORDER BY x.id LIMIT 1) AS n
  WHERE $4::boolean AND done.ordering_key IS NOT NULL
),
handed AS (
  UPDATE ${table} AS h
  SET state = 'processing', claim_token = gen_random_uuid(), claimed_at = ${DB_NOW},
      lease_expires_at = ${DB_NOW} + $3::integer * interval '1 millisecond', attempts = h.attempts + 1
  FROM successor
  WHERE h.id = successor.id AND h.state = 'pending' AND h.next_attempt_at <= ${DB_NOW}
    AND NOT EXISTS (SELECT 1 FROM ${table} AS p
                    WHERE p.state = 'processing' AND p.${stream} = h.${stream} AND p.ordering_key = h.ordering_key
                      AND p.id NOT IN (SELECT d.id FROM done AS d) ${PER_ROW})
  RETURNING h.id, ${others.map((column) => `h.${column}`).join(', ')}, (h.attempts = 1 AND h.last_error IS NULL AND h.id < successor.after_id) AS inverted
)
SELECT 'done' AS outcome, d.id, ${nulls}, NULL::boolean AS inverted FROM done AS d
UNION ALL
SELECT 'claimed' AS outcome, handed.* FROM handed`;
};

/**
 * The one-row form of {@link completeMany}: same parameters and rows, written for one row (fence by
 * primary key, scalar successor). A backlogged key marks one row at a time; this costs about a tenth
 * less per mark (docs/benchmark.md, "The single key's floor").
 */
export const completeOne = (t: ResolvedTableNames, kind: ClaimComponent, claimColumns: readonly string[]): string => {
  const { table, stream, done, others, nulls, durability } = completionParts(t, kind, claimColumns);
  return /* sql */ `
WITH ${durability}done AS (
  UPDATE ${table} AS m
  SET state = '${done}', finished_at = ${DB_NOW}, lease_expires_at = NULL${
    durability
      ? `
  FROM ${ASYNC_COMMIT_CTE}`
      : ''
  }
  WHERE ${fence('m', '($1::bigint[])[1]', '($2::uuid[])[1]')}
  RETURNING m.id, m.${stream}, m.ordering_key
),
handed AS (
  UPDATE ${table} AS h
  SET state = 'processing', claim_token = gen_random_uuid(), claimed_at = ${DB_NOW},
      lease_expires_at = ${DB_NOW} + $3::integer * interval '1 millisecond', attempts = h.attempts + 1
  FROM done
  WHERE $4::boolean AND done.ordering_key IS NOT NULL
    AND h.id = (SELECT x.id FROM ${table} AS x
                WHERE x.state = 'pending' AND x.ordering_key IS NOT NULL AND x.${stream} = done.${stream} AND x.ordering_key = done.ordering_key
                ORDER BY x.id LIMIT 1)
    AND h.state = 'pending' AND h.next_attempt_at <= ${DB_NOW}
    AND NOT EXISTS (SELECT 1 FROM ${table} AS p
                    WHERE p.state = 'processing' AND p.${stream} = h.${stream} AND p.ordering_key = h.ordering_key
                      AND p.id <> done.id ${PER_ROW})
  RETURNING h.id, ${others.map((column) => `h.${column}`).join(', ')}, (h.attempts = 1 AND h.last_error IS NULL AND h.id < done.id) AS inverted
)
SELECT 'done' AS outcome, d.id, ${nulls}, NULL::boolean AS inverted FROM done AS d
UNION ALL
SELECT 'claimed' AS outcome, handed.* FROM handed`;
};

/**
 * $1 bigint[] ids, $2 uuid[] tokens, $3 lease ms. Renews a group of claims, each fenced by its own
 * token; a row held by another transaction is skipped, never waited for. Returns each locked row with
 * `renewed` (false: the claim was lost).
 */
export const renewMany = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
WITH mine AS (
  SELECT l.id FROM ${qualified(t, table)} AS l WHERE l.id = ANY($1::bigint[]) FOR UPDATE SKIP LOCKED
),
renewed AS (
  UPDATE ${qualified(t, table)} AS m
  SET lease_expires_at = ${DB_NOW} + $3::integer * interval '1 millisecond'
  FROM unnest($1::bigint[], $2::uuid[]) AS c(id, token)
  WHERE m.id IN (SELECT mine.id FROM mine) AND ${fence('m', 'c.id', 'c.token')}
  RETURNING m.id
)
SELECT mine.id, renewed.id IS NOT NULL AS renewed FROM mine LEFT JOIN renewed ON renewed.id = mine.id`;

/** $1 id, $2 token, $3 delay ms, $4 error. Stays the oldest unfinished row of its key (FIFO across retries). */
export const retry = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL,
    next_attempt_at = ${DB_NOW} + $3::integer * interval '1 millisecond', last_error = $4
WHERE ${fence('m', '$1::bigint', '$2::uuid')}
RETURNING m.id`;

/** $1 id, $2 token, $3 error. A dead row is finished: later rows of its key proceed. */
export const deadLetter = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
UPDATE ${qualified(t, table)} AS m
SET state = 'dead', finished_at = ${DB_NOW}, lease_expires_at = NULL, last_error = $3
WHERE ${fence('m', '$1::bigint', '$2::uuid')}
RETURNING m.id`;

/**
 * $1 max rows; inbox: $2 text[] the sources to reclaim (the relay's routes). Returns expired claims
 * to `pending`. SKIP LOCKED, and the expiry is re-checked on the newest version: a renewal that
 * committed first wins, and two reclaiming replicas cannot deadlock.
 */
export const reclaimExpired = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
WITH expired AS (
  SELECT e.id FROM ${qualified(t, table)} AS e
  WHERE e.state = 'processing' AND e.lease_expires_at <= ${DB_NOW}${QUEUEBOX_TABLES[table].reclaimByStream ? ' AND e.source = ANY($2::text[])' : ''}
  LIMIT $1
  FOR UPDATE SKIP LOCKED
)
UPDATE ${qualified(t, table)} AS m
SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL
FROM expired
WHERE m.id = expired.id AND m.state = 'processing' AND m.lease_expires_at <= ${DB_NOW}
RETURNING m.id`;
