/*
 * The claim locks (outbox and pull `claimLock`, and the relay's, always taken). A lock
 * must be its own statement, before the claim, in the claim's transaction: the claim statement's
 * snapshot is then taken after the previous claimer committed, so its claims are visible as
 * `processing` and anti-join (B) holds. Taken inside the claim statement it would not help (the
 * snapshot predates the wait). COMMIT of the short claim transaction releases it, so it is held
 * for the claim only. The wait is bounded like SQL Server's 10 s application lock. Why a lock in
 * the claim statement would not help: contributing/claim-sql.md, "The out-of-order commit window".
 */

export const claimLockTimeout = (): string => /* sql */ `SET LOCAL lock_timeout = '10s'`;

/**
 * $1 lock name. Two-key form: QueueBox's own namespace in the advisory-lock key space. Returns
 * one row, `granted`: the lock either is taken or the wait ends in a `lock_timeout` error.
 */
export const claimLock = (): string =>
  /* sql */ `SELECT true AS granted FROM pg_advisory_xact_lock(hashtext('queuebox'), hashtext($1)) AS l`;
