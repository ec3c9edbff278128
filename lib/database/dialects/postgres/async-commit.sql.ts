/**
 * A `WITH` entry that makes the statement's own transaction commit without waiting for its WAL
 * flush when boolean parameter `$n` is true (`synchronous_commit` off, transaction-local): an
 * autocommit statement has no `SET LOCAL` before it. The statement's UPDATE must read
 * {@link ASYNC_COMMIT_CTE} (`FROM durability`), or the CTE never runs (an unreferenced SELECT in
 * `WITH` is not evaluated). Used by the outbox's claim and its sent marks (`outbox.asyncMarks`).
 */
export const asyncCommitCte = (n: number): string => `durability AS (
  SELECT CASE WHEN $${n}::boolean THEN set_config('synchronous_commit', 'off', true) END AS mode
),
`;

/** The name an UPDATE reads to make {@link asyncCommitCte} run. */
export const ASYNC_COMMIT_CTE = 'durability';
