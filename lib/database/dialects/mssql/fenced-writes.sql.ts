import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { ClaimComponent, QueueBoxTable } from '../../sql-dialect.interface.js';
import {
  MARK_CLAIMED,
  candidateColumns,
  claimedNulls,
  claimedOut,
  claimedTable,
  olderPending,
  outputClaimedInto,
  sameKey,
} from './claim.sql.js';
import { CLAIMERS, QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';
import { fence } from './fence.sql.js';
import {
  DB_NOW,
  KEY_TYPE,
  OWN_TRANSACTION_BEGIN,
  OWN_TRANSACTION_COMMIT,
  READ_COMMITTED,
  SKIP_HINTS,
  UPDATE_HINTS,
  jsonIds,
  jsonKeys,
  qualified,
} from './mssql-names.js';

/*
 * Fenced writes: ONE UPDATE whose WHERE holds the fence (fence.sql.ts), returning the changed ids
 * through OUTPUT; an empty result means the claim was lost. Affected-row counts are never used
 * (SET NOCOUNT; mssql reports only the first statement's). Only row locks: a concurrent claim or
 * reclaim serializes on them and the loser re-checks the fence.
 */

/** The JSON arrays @0 (ids) and @1 (tokens, same order) joined pairwise, for a fence per row. */
const PAIRS = `INNER JOIN OPENJSON(@0) AS i ON m.id = CAST(i.value AS bigint)
INNER JOIN OPENJSON(@1) AS k ON k.[key] = i.[key]`;

const pairFence = fence('m', 'CAST(i.value AS bigint)', 'CAST(k.value AS uniqueidentifier)');

/** @0 id (bigint), @1 token (uniqueidentifier), @2 lease ms (int). Output: `id`, or no row when lost. */
export const renew = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `UPDATE m
SET lease_expires_at = DATEADD(millisecond, @2, ${DB_NOW})
OUTPUT inserted.id
FROM ${qualified(t, table)} AS m
WHERE ${fence('m', '@0', '@1')};`;

/**
 * @0 JSON array of ids, @1 JSON array of their tokens, @2 lease ms. Renews a group of claims without
 * waiting for any: rows are read under update locks with READPAST (a held row is skipped, neither
 * renewed nor reported), in a transaction the request opens. The fenced UPDATE carries the same hints,
 * so whatever the join order it never waits on a row the first read skipped. Output: `id`, `renewed` (bit).
 */
export const renewMany = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `SET NOCOUNT ON;
${READ_COMMITTED}
DECLARE @mine TABLE (id bigint NOT NULL PRIMARY KEY);
DECLARE @renewed TABLE (id bigint NOT NULL PRIMARY KEY);
${OWN_TRANSACTION_BEGIN}
INSERT INTO @mine (id)
SELECT l.id FROM ${qualified(t, table)} AS l ${UPDATE_HINTS}
WHERE l.id IN (${jsonIds('@0')});
UPDATE m
SET lease_expires_at = DATEADD(millisecond, @2, ${DB_NOW})
OUTPUT inserted.id INTO @renewed (id)
FROM ${qualified(t, table)} AS m ${UPDATE_HINTS}
${PAIRS}
WHERE m.id IN (SELECT mine.id FROM @mine AS mine) AND ${pairFence};
${OWN_TRANSACTION_COMMIT}
SELECT mine.id, CAST(CASE WHEN r.id IS NULL THEN 0 ELSE 1 END AS bit) AS renewed
FROM @mine AS mine
LEFT JOIN @renewed AS r ON r.id = mine.id;`;

/**
 * @0 JSON array of ids, @1 JSON array of tokens (same order), @2 hand-off lease ms (int), @3
 * hand-off (bit). The PostgreSQL completeMany: finish each fenced row and, when @3 = 1, claim its
 * key's next row. Finish and hand-off commit together: in the caller's transaction, or in one the
 * request opens (`OWN_TRANSACTION_BEGIN`).
 *
 * The successor is found with READPAST and claimed under the candidate hints: a row a claimer holds
 * is skipped, never waited for (that claimer may be waiting for the finished row's lock). A skipped
 * head may yield a younger row: the hand-off's own (A), an unhinted read, turns it down.
 *
 * Output: `outcome` ('done' | 'claimed'), the claim columns (typed NULLs on 'done' rows; `id`
 * always set), `inverted` (bit).
 */
export const completeMany = (t: ResolvedTableNames, kind: ClaimComponent): string => {
  const { name, stream, done } = CLAIMERS[kind].table;
  const table = qualified(t, name);
  return /* sql */ `SET NOCOUNT ON;
${READ_COMMITTED}
DECLARE @done TABLE (id bigint NOT NULL PRIMARY KEY, stream ${KEY_TYPE} NOT NULL, ordering_key ${KEY_TYPE} NULL);
DECLARE @successor TABLE (id bigint NOT NULL PRIMARY KEY, after_id bigint NOT NULL);
${claimedTable('@handed', kind)}
${OWN_TRANSACTION_BEGIN}
UPDATE m
SET state = '${done}', finished_at = ${DB_NOW}, lease_expires_at = NULL
OUTPUT inserted.id, inserted.${stream}, inserted.ordering_key INTO @done (id, stream, ordering_key)
FROM ${table} AS m
${PAIRS}
WHERE ${pairFence};
IF @3 = 1
BEGIN
  INSERT INTO @successor (id, after_id)
  SELECT n.id, MAX(d.id)
  FROM @done AS d
  CROSS APPLY (SELECT TOP (1) x.id FROM ${table} AS x ${SKIP_HINTS}
               WHERE x.state = 'pending' AND x.ordering_key IS NOT NULL AND x.${stream} = d.stream AND x.ordering_key = d.ordering_key
               ORDER BY x.id) AS n
  WHERE d.ordering_key IS NOT NULL
  GROUP BY n.id;
  WITH cand AS (
    SELECT ${candidateColumns(kind, 'h')}
    FROM ${table} AS h ${UPDATE_HINTS}
    WHERE h.id IN (SELECT s.id FROM @successor AS s)
      AND h.state = 'pending' AND h.next_attempt_at <= ${DB_NOW}
      AND ${olderPending(t, kind, 'h')}
      AND NOT EXISTS (SELECT 1 FROM ${table} AS p
                      WHERE p.state = 'processing' AND ${sameKey(kind, 'p', 'h')}
                        AND p.id NOT IN (SELECT d.id FROM @done AS d))
  )
  UPDATE cand
  ${MARK_CLAIMED('@2').replace(/\n/g, '\n  ')}
  ${outputClaimedInto('@handed', kind).replace(/\n/g, '\n  ')};
END;
${OWN_TRANSACTION_COMMIT}
SELECT 'done' AS outcome, d.id, ${claimedNulls(kind)}, CAST(NULL AS bit) AS inverted
FROM @done AS d
UNION ALL
SELECT 'claimed' AS outcome, ${claimedOut(kind, 'h')},
       CAST(CASE WHEN h.first_try = 1 AND h.id < s.after_id THEN 1 ELSE 0 END AS bit) AS inverted
FROM @handed AS h
INNER JOIN @successor AS s ON s.id = h.id;`;
};

/** @0 id, @1 token, @2 delay ms (int), @3 error (nvarchar(max)). Output: `id`, or no row when lost. */
export const retry = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `UPDATE m
SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL,
    next_attempt_at = DATEADD(millisecond, @2, ${DB_NOW}), last_error = @3
OUTPUT inserted.id
FROM ${qualified(t, table)} AS m
WHERE ${fence('m', '@0', '@1')};`;

/** @0 id, @1 token, @2 error. Later rows of its key proceed. Output: `id`, or no row when lost. */
export const deadLetter = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `UPDATE m
SET state = 'dead', finished_at = ${DB_NOW}, lease_expires_at = NULL, last_error = @2
OUTPUT inserted.id
FROM ${qualified(t, table)} AS m
WHERE ${fence('m', '@0', '@1')};`;

/**
 * @0 max rows (int); inbox: @1 JSON array of the sources to reclaim (the relay's routes). Returns
 * expired claims to `pending`. Candidates are read under update locks skipping held rows, and the
 * expiry is re-checked by the UPDATE: a renewal that committed first wins; no deadlock between replicas.
 */
export const reclaimExpired = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `${READ_COMMITTED}
WITH expired AS (
  SELECT TOP (@0) e.id, e.state, e.claim_token, e.claimed_at, e.lease_expires_at
  FROM ${qualified(t, table)} AS e ${UPDATE_HINTS}
  WHERE e.state = 'processing' AND e.lease_expires_at <= ${DB_NOW}${QUEUEBOX_TABLES[table].reclaimByStream ? `\n    AND e.source IN (${jsonKeys('@1')})` : ''}
)
UPDATE expired
SET state = 'pending', claim_token = NULL, claimed_at = NULL, lease_expires_at = NULL
OUTPUT inserted.id
WHERE expired.state = 'processing' AND expired.lease_expires_at <= ${DB_NOW};`;
