/*
 * Forms that keep a statement's plan bounded whatever statistics it was planned on. The claim and the
 * completion are prepared once per connection and keep their generic plan; autovacuum's ANALYZE
 * replans them on the statistics of that moment, and a queue that is nearly empty then (the healthy
 * case) gets plans whose cost, once a backlog builds, grows with the backlog: in the soak, completions
 * of 3-10 s and claims of up to 30 s (contributing/claim-sql.md, "Plans that do not depend on statistics").
 */

/**
 * A term every row meets (attempts only grow from 0), in the predicate of each table's
 * `keyed_pending_ix` from schema version 4 and stated only by the claim's window, which reads that
 * index. The planner uses a partial index only for a query whose conditions imply its predicate, so no
 * other lookup of keyed pending rows (the walk, the head of a key, the anti-join, the hand-off's next
 * row) can read it in id order filtered by key: they probe `key_pending_ix`.
 */
export const WINDOW_ONLY = 'attempts >= 0';

/**
 * Ends a correlated `NOT EXISTS` subquery: PostgreSQL does not turn a subquery with OFFSET into a
 * join, so it runs once per outer row as a probe of its index by the outer row's key. As a join,
 * planned for the one outer row the statistics promised, it read the whole index for every row.
 */
export const PER_ROW = 'OFFSET 0';
