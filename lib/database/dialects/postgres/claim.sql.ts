import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { ClaimComponent } from '../../sql-dialect.interface.js';
import { CLAIMERS } from '../../../shared/queuebox.claimers.js';
import { ASYNC_COMMIT_CTE, asyncCommitCte } from './async-commit.sql.js';
import { DB_NOW, qualified } from './postgres-names.js';
import { PER_ROW, WINDOW_ONLY } from './plan-fences.sql.js';

/*
 * The claim, one statement for the outbox, the relay and pull workers (contributing/claim-sql.md,
 * "The claim", "Only the claimer's streams", "Planned once"). Its cost is bounded by its parameters:
 *
 *   candidates = heads of up to $3 keys walked from a cursor     (walk: one index probe per key)
 *              ∪ the oldest row of each key among the $4 oldest keyed pending rows    (window)
 *              ∪ the $1 oldest due unordered rows of each stream, $1 in all
 *              ∪ the $1 retried or reclaimed rows of each stream first due
 *              ∪ (pull) the $1 rows of the source whose lease ended
 *
 * then the heads of their key among them, locked FOR UPDATE SKIP LOCKED and marked processing.
 *
 *   $1 batch  $2 lease ms  $3 keys to walk  $4 window rows  $5 cursor stream  $6 cursor key
 *   $7 text[] the claimer's streams  $8 (outbox) boolean: `asyncMarks`
 *
 * Rows of other streams are never claimed nor read beyond the window (rolling deploys). The first
 * result row carries the progress even when nothing was claimed. Every plan-shaping parameter goes
 * through `unplanned()` and candidates are joined by `id = ANY (ARRAY(…))`, so the generic plan is
 * kept after five executions (planning costs about 1 ms, more than a small claim).
 */

/**
 * Parameter `$n` hidden from the planner in a one-row subquery (an InitPlan), so custom plans estimate
 * as the generic one does and PostgreSQL's plan cache keeps the generic plan.
 */
const unplanned = (n: number, type: 'integer' | 'text' | 'text[]'): string => `(SELECT $${n}::${type})`;
const BATCH = unplanned(1, 'integer');
const WALK_KEYS = unplanned(3, 'integer');
const WINDOW_ROWS = unplanned(4, 'integer');
const CURSOR_STREAM = unplanned(5, 'text');
const CURSOR_KEY = unplanned(6, 'text');
const STREAMS = `${unplanned(7, 'text[]')}::text[]`;

const MARK_CLAIMED = `state = 'processing',
    claim_token = gen_random_uuid(),
    claimed_at = ${DB_NOW},
    lease_expires_at = ${DB_NOW} + $2::integer * interval '1 millisecond',
    attempts = m.attempts + 1`;

/** Whether claimed row `m` is older than a finished row of its key (a late commit); first claims only. */
export const invertedColumn = (t: ResolvedTableNames, kind: ClaimComponent, m: string): string => {
  const stream = CLAIMERS[kind].table.stream;
  const done = `'${CLAIMERS[kind].table.done}', 'dead'`;
  return `(${m}.attempts = 1 AND ${m}.last_error IS NULL AND ${m}.ordering_key IS NOT NULL
          AND EXISTS (SELECT 1 FROM ${qualified(t, CLAIMERS[kind].table.name)} AS y
                      WHERE y.state IN (${done}) AND y.ordering_key IS NOT NULL
                        AND y.${stream} = ${m}.${stream} AND y.ordering_key = ${m}.ordering_key AND y.id > ${m}.id))`;
};

/**
 * A scan per stream of $7, on an index that leads with the stream. NOTE: the stream is matched as a
 * range (`>= AND <=`, equal under the deterministic collation) and ordered first: with `=`, the
 * generic plan dropped it from the order and chose a primary-key scan filtering other streams out,
 * reading the whole table for an empty stream.
 */
function perStream(
  kind: ClaimComponent,
  select: (filter: string, leading: string) => string,
  {
    streams = `unnest(${STREAMS}) AS s(${CLAIMERS[kind].table.stream})`,
    limit = '',
  }: { streams?: string; limit?: string } = {},
): string {
  const stream = CLAIMERS[kind].table.stream;
  return `(SELECT s_rows.* FROM ${streams} CROSS JOIN LATERAL (${select(sameStream(stream), `x.${stream}, `)}) AS s_rows${limit})`;
}

const sameStream = (stream: string): string => ` AND x.${stream} >= s.${stream} AND x.${stream} <= s.${stream}`;

/**
 * The unordered rows: the `$1` oldest due rows of each stream, locked as read, streams in the order
 * of their oldest row, `$1` in all, so a claim locks about a batch whatever its number of streams.
 */
function unkeyedRows(t: ResolvedTableNames, kind: ClaimComponent): string {
  const table = qualified(t, CLAIMERS[kind].table.name);
  const stream = CLAIMERS[kind].table.stream;
  const byOldest = `(SELECT s.${stream} FROM unnest(${STREAMS}) AS s(${stream})
      ORDER BY CASE WHEN cardinality(${STREAMS}) > 1 THEN (SELECT x.id FROM ${table} AS x
                WHERE x.state = 'pending' AND x.ordering_key IS NULL${sameStream(stream)} AND x.next_attempt_at <= ${DB_NOW}
                ORDER BY x.${stream}, x.id LIMIT 1) END) AS s`;
  // Locked here, not only in `cand`: an unordered row needs no head-of-key check, and two claims
  // running at once would otherwise both pick the same oldest rows, the second skip them all in
  // `cand` and come back empty (claims then take turns instead of running side by side).
  return perStream(
    kind,
    (filter, leading) => `SELECT u.id FROM (SELECT x.id FROM ${table} AS x
    WHERE x.state = 'pending' AND x.ordering_key IS NULL${filter} AND x.next_attempt_at <= ${DB_NOW} ORDER BY ${leading}x.id LIMIT ${BATCH}
    FOR UPDATE OF x SKIP LOCKED) AS u`,
    { streams: byOldest, limit: ` LIMIT ${BATCH}` },
  );
}

/** The inbox's walk within source $5: up to `$3` next keys, one probe of `key_pending_ix` each. */
function sourceWalk(t: ResolvedTableNames): string {
  const table = qualified(t, 'inbox');
  const after = (key: string, step: string) => `SELECT k.source, k.ordering_key, ${step} FROM ${table} AS k
    WHERE k.state = 'pending' AND k.ordering_key IS NOT NULL AND k.source = ${CURSOR_STREAM} AND k.ordering_key > ${key}
    ORDER BY k.ordering_key LIMIT 1`;
  return `walk (stream, ordering_key, step) AS (
  (${after(CURSOR_KEY, '1')})
  UNION ALL
  SELECT n.* FROM walk CROSS JOIN LATERAL (${after('walk.ordering_key', 'walk.step + 1')}) AS n
  WHERE walk.step < ${WALK_KEYS}
)`;
}

/**
 * The outbox's walk over (destination, key) pairs of $7 from the cursor: the next key of the current
 * destination (one probe of `key_pending_ix`), or a hop to the next destination of $7 (no table
 * read). Other destinations are never entered. The cursor is step 0: at the start ('') its probe
 * finds nothing and the walk hops to the first destination.
 */
function destinationWalk(t: ResolvedTableNames): string {
  const table = qualified(t, 'outbox');
  return `walk (stream, ordering_key, step, walked, found) AS (
  SELECT ${CURSOR_STREAM}, ${CURSOR_KEY}, 0, 0, false
  UNION ALL
  SELECT n.stream, n.ordering_key, walk.step + 1, walk.walked + n.found::integer, n.found
  FROM walk CROSS JOIN LATERAL (
    (SELECT k.destination AS stream, k.ordering_key, true AS found FROM ${table} AS k
     WHERE k.state = 'pending' AND k.ordering_key IS NOT NULL AND k.destination = walk.stream AND k.ordering_key > walk.ordering_key
     ORDER BY k.ordering_key LIMIT 1)
    UNION ALL
    (SELECT d.destination, ''::text, false
     FROM (SELECT (${STREAMS})[coalesce(array_position(${STREAMS}, walk.stream), 0) + 1] AS destination) AS d
     WHERE d.destination IS NOT NULL)
    LIMIT 1) AS n
  WHERE walk.walked < ${WALK_KEYS}
)`;
}

/**
 * The conditions that make candidate `o` claimable: its state, and for a keyed row, that it is the
 * head of its key. (A) no older pending row of its key; (B) no row of its key in flight. The pull
 * claim also takes a row whose lease ended: then (A) also looks at older processing rows (an expired
 * one goes first) and (B) only at live leases of other rows (B').
 */
function claimable(t: ResolvedTableNames, kind: ClaimComponent): string {
  const table = qualified(t, CLAIMERS[kind].table.name);
  const stream = CLAIMERS[kind].table.stream;
  const sameKey = (alias: string) => `${alias}.${stream} = o.${stream} AND ${alias}.ordering_key = o.ordering_key`;
  const olderPending = `NOT EXISTS (SELECT 1 FROM ${table} AS b
                      WHERE b.state = 'pending' AND b.ordering_key IS NOT NULL AND ${sameKey('b')} AND b.id < o.id ${PER_ROW})`;
  if (!CLAIMERS[kind].claimsExpired) {
    const state = `o.state = 'pending' AND o.next_attempt_at <= ${DB_NOW} AND o.${stream} = ANY(${STREAMS})`;
    return `${state}
    AND (o.ordering_key IS NULL OR (${olderPending}
      AND NOT EXISTS (SELECT 1 FROM ${table} AS p WHERE p.state = 'processing' AND ${sameKey('p')} ${PER_ROW})))`;
  }
  return `o.source = ANY(${STREAMS})
    AND (   (o.state = 'pending' AND o.next_attempt_at <= ${DB_NOW})
         OR (o.state = 'processing' AND o.lease_expires_at <= ${DB_NOW}))
    AND (o.ordering_key IS NULL OR (${olderPending}
      AND NOT EXISTS (SELECT 1 FROM ${table} AS p
                      WHERE p.state = 'processing' AND ${sameKey('p')}
                        AND (p.id < o.id OR (p.id <> o.id AND p.lease_expires_at > ${DB_NOW})) ${PER_ROW})))`;
}

export function claimStatement(t: ResolvedTableNames, kind: ClaimComponent, returning: string): string {
  const table = qualified(t, CLAIMERS[kind].table.name);
  const stream = CLAIMERS[kind].table.stream;
  // The window alone states WINDOW_ONLY: it reads `keyed_pending_ix`, which no other lookup can.
  const windowScan = (filter = '', leading = ''): string => `SELECT x.id, x.${stream}, x.ordering_key FROM ${table} AS x
    WHERE x.state = 'pending' AND x.ordering_key IS NOT NULL AND x.${WINDOW_ONLY}${filter} ORDER BY ${leading}x.id LIMIT ${WINDOW_ROWS}`;
  // The outbox's window is the oldest keyed rows of the whole table (one range of `keyed_pending_ix`,
  // $4 rows), of which other destinations' rows are dropped: they may fill it, never make it read more.
  const together = CLAIMERS[kind].walk === 'together';
  const keyedWindow = together
    ? `(SELECT w.* FROM (${windowScan()}) AS w WHERE w.destination = ANY(${STREAMS}))`
    : perStream(kind, windowScan);
  const unkeyed = unkeyedRows(t, kind);
  const retried = perStream(
    kind,
    (filter, leading) => `SELECT x.id FROM ${table} AS x
    WHERE x.state = 'pending' AND x.attempts > 0${filter} AND x.next_attempt_at <= ${DB_NOW} ORDER BY ${leading}x.next_attempt_at LIMIT ${BATCH}`,
  );
  const expired = CLAIMERS[kind].claimsExpired
    ? `
  UNION ALL ${perStream(kind, (filter) => `SELECT x.id FROM ${table} AS x WHERE x.state = 'processing'${filter} AND x.lease_expires_at <= ${DB_NOW} LIMIT ${BATCH}`)}`
    : '';
  // The outbox's own claim may commit without waiting for its WAL flush, as its sent marks do: a
  // claim a crash undoes leaves its row pending, and a message published under it is published again.
  const durability = CLAIMERS[kind].asyncMarks ? asyncCommitCte(8) : '';
  const windowSize = together
    ? `(SELECT count(*) FROM keyed_window)`
    : `(SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM keyed_window GROUP BY source) AS per_source)`;
  const walked = together
    ? { keys: ' WHERE walk.found', last: 'WHERE walk.found ', count: 'last.walked' }
    : { keys: '', last: '', count: 'last.step' };
  return /* sql */ `
WITH RECURSIVE ${together ? destinationWalk(t) : sourceWalk(t)},
keyed_window AS ${keyedWindow},
candidates AS (
  SELECT h.id FROM walk CROSS JOIN LATERAL (
    SELECT x.id FROM ${table} AS x
    WHERE x.state = 'pending' AND x.ordering_key IS NOT NULL AND x.${stream} = walk.stream AND x.ordering_key = walk.ordering_key
    ORDER BY x.id LIMIT 1) AS h${walked.keys}
  UNION ALL (SELECT DISTINCT ON (w.${stream}, w.ordering_key) w.id FROM keyed_window AS w ORDER BY w.${stream}, w.ordering_key, w.id)
  UNION ALL ${unkeyed}
  UNION ALL ${retried}${expired}
),
cand AS (
  SELECT o.id FROM ${table} AS o
  WHERE o.id = ANY (ARRAY(SELECT c.id FROM candidates AS c))
    AND ${claimable(t, kind)}
  ORDER BY o.id
  LIMIT ${BATCH}
  FOR UPDATE OF o SKIP LOCKED
),
${durability}claimed AS (
  UPDATE ${table} AS m
  SET ${MARK_CLAIMED}${
    durability
      ? `
  FROM ${ASYNC_COMMIT_CTE}`
      : ''
  }
  WHERE m.id = ANY (ARRAY(SELECT cand.id FROM cand))
  RETURNING ${returning}
),
progress AS (
  SELECT ${windowSize}::integer AS window_rows, last.stream AS cursor_stream, last.ordering_key AS cursor_key, coalesce(${walked.count}, 0)::integer AS walked
  FROM (SELECT 1) AS one LEFT JOIN (SELECT * FROM walk ${walked.last}ORDER BY step DESC LIMIT 1) AS last ON true
)
SELECT progress.*, claimed.* FROM progress LEFT JOIN claimed ON true`;
}
