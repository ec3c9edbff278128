import type { ChaosTables } from './chaos-names.js';

/**
 * The checks, from the outside: what producers committed (their business rows), what the intake
 * sender was told was stored, what the sink received and what the pull worker did, compared
 * with each other; QueueBox's tables only for "nothing stuck" and the audit trigger's rows.
 * One row of integer counters.
 */
export const chaosChecks = (t: ChaosTables): string => /* sql */ `
WITH accepted AS (
  SELECT path, business_id, count(*) AS n, count(DISTINCT message_id) AS ids FROM ${t.deliveries} WHERE status < 300 GROUP BY path, business_id
),
first_arrival AS (
  SELECT path, business_id, min(arrival) AS first FROM ${t.deliveries} GROUP BY path, business_id
),
direct_order AS (
  SELECT f.first, lag(f.first) OVER (PARTITION BY o.key ORDER BY o.lane, o.seq) AS previous
  FROM ${t.orders} AS o JOIN first_arrival AS f ON f.path = 'direct' AND f.business_id = o.business_id
),
relayed_order AS (
  SELECT f.first, lag(f.first) OVER (PARTITION BY d.key ORDER BY d.lane, d.seq) AS previous
  FROM ${t.fed} AS d JOIN first_arrival AS f ON f.path = 'relayed' AND f.business_id = d.business_id
  WHERE d.source = 'feed'
),
pulled_order AS (
  SELECT e.effect_seq AS first, lag(e.effect_seq) OVER (PARTITION BY d.key ORDER BY d.lane, d.seq) AS previous
  FROM ${t.fed} AS d JOIN ${t.effects} AS e ON e.business_id = d.business_id
  WHERE d.source = 'jobs'
),
forwards AS (
  SELECT payload::jsonb ->> 'id' AS business_id FROM ${t.outbox} WHERE destination = 'relayed'
)
SELECT
  (SELECT count(*) FROM ${t.orders})::integer AS committed,
  (SELECT count(*) FROM ${t.attempts} AS a WHERE NOT EXISTS (SELECT 1 FROM ${t.orders} AS o WHERE o.business_id = a.business_id))::integer AS "rolledBack",
  (SELECT count(*) FROM ${t.fed})::integer AS fed,
  (SELECT count(*) FROM accepted)::integer AS delivered,
  (SELECT coalesce(sum(n - 1), 0) FROM accepted)::integer AS duplicates,
  (SELECT coalesce(sum(duplicate_answers), 0) FROM ${t.fed})::integer AS "intakeDuplicates",
  (SELECT count(*) FROM ${t.effects})::integer AS effects,
  ((SELECT count(*) FROM ${t.orders} AS o WHERE NOT EXISTS (SELECT 1 FROM accepted AS a WHERE a.path = 'direct' AND a.business_id = o.business_id))
   + (SELECT count(*) FROM ${t.fed} AS d WHERE d.source = 'feed' AND NOT EXISTS (SELECT 1 FROM accepted AS a WHERE a.path = 'relayed' AND a.business_id = d.business_id))
   + (SELECT count(*) FROM ${t.fed} AS d WHERE d.source = 'jobs' AND NOT EXISTS (SELECT 1 FROM ${t.effects} AS e WHERE e.business_id = d.business_id)))::integer AS lost,
  ((SELECT count(*) FROM first_arrival AS f WHERE f.path = 'direct' AND NOT EXISTS (SELECT 1 FROM ${t.orders} AS o WHERE o.business_id = f.business_id))
   + (SELECT count(*) FROM first_arrival AS f WHERE f.path = 'relayed' AND NOT EXISTS (SELECT 1 FROM ${t.fed} AS d WHERE d.business_id = f.business_id AND d.source = 'feed')))::integer AS "rolledBackDelivered",
  ((SELECT count(*) FROM direct_order WHERE previous > first)
   + (SELECT count(*) FROM relayed_order WHERE previous > first)
   + (SELECT count(*) FROM pulled_order WHERE previous > first))::integer AS "orderViolations",
  (SELECT coalesce(sum(effects - 1), 0) FROM ${t.effects})::integer AS "doubleEffects",
  (SELECT count(*) FROM (SELECT business_id FROM forwards GROUP BY business_id HAVING count(*) > 1) AS twice)::integer AS "doubleForwards",
  ((SELECT count(*) FROM ${t.outbox} WHERE state <> 'sent') + (SELECT count(*) FROM ${t.inbox} WHERE state <> 'processed'))::integer AS stuck,
  ((SELECT count(*) FROM ${t.audit} WHERE late)
   + (SELECT count(*) FROM ${t.audit} AS w WHERE w.landed_late AND EXISTS (
        SELECT 1 FROM ${t.audit} AS o WHERE o.tbl = w.tbl AND o.row_id = w.row_id AND o.id < w.id
          AND o.kind IN ('reclaim', 'steal') AND o.old_lease = w.old_lease)))::integer AS "lateFencedWrites",
  (SELECT count(*) FROM ${t.audit} WHERE landed_late)::integer AS "landedAfterLease",
  (SELECT count(*) FROM ${t.audit} WHERE early)::integer AS "stolenLeases",
  (SELECT count(*) FROM ${t.audit})::integer AS "auditedWrites"`;

/**
 * The fenced writes that reached their row after the lease although they began in time, by kind:
 * how many, and how long the longest waited between its start and the row (information).
 */
export const landedLateSummary = (t: ChaosTables): string => /* sql */ `
SELECT tbl, kind, count(*)::integer AS n,
       round(max(extract(epoch FROM at - statement_at)) * 1000)::integer AS "maxWaitMs",
       round(max(extract(epoch FROM at - old_lease)) * 1000)::integer AS "maxPastLeaseMs"
FROM ${t.audit} WHERE landed_late GROUP BY tbl, kind ORDER BY tbl, kind`;

/** A few of the audit's flagged rows, for the report of a failed run. */
export const flaggedAuditRows = (t: ChaosTables): string => /* sql */ `
SELECT tbl, row_id, kind, old_state, new_state, old_lease, at, statement_at FROM ${t.audit} WHERE late OR early ORDER BY id LIMIT 20`;

/** $1 timestamptz: the first fenced finish of a row after that moment (a crash-restart's recovery). */
export const firstFinishAfter = (t: ChaosTables): string => /* sql */ `
SELECT min(at) AS first FROM ${t.audit} WHERE kind = 'finish' AND at > $1`;
