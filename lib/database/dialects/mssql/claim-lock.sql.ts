/*
 * The claim lock, taken by every SQL Server claim (outbox, relay and pull: the lock is mandatory
 * here). It must be its own request, first in the claim's READ COMMITTED transaction: the claim
 * request then starts after the previous claimer committed, so its claims are visible as
 * `processing` and anti-join (B) holds; under READ_COMMITTED_SNAPSHOT the claim's statement
 * snapshots are taken after the lock was granted. Owned by the transaction, never the session: a
 * client timeout (an attention) cannot leave it held on a pooled connection, because the client's
 * rollback, XACT_ABORT or the end of the session releases it, and COMMIT of the short claim
 * transaction does after the claim.
 */

/**
 * @0 resource (nvarchar(255)): `lockResource` or `pullLockResource` (mssql-names.ts). Waits up to
 * 10 s. Output: ONE row `granted` (int), the return code of `sp_getapplock`: 0 granted, 1 granted
 * after a wait, -1 timed out, -2 cancelled, -3 deadlock victim, -999 invalid call (no open
 * transaction). Nothing is thrown here: on a negative code the caller rolls the claim transaction
 * back (a -3 does not roll it back by itself) and reports an empty claim.
 */
export const claimLock = (): string => /* sql */ `SET NOCOUNT ON;
DECLARE @granted int;
EXEC @granted = sys.sp_getapplock @Resource = @0, @LockMode = N'Exclusive', @LockOwner = N'Transaction', @LockTimeout = 10000;
SELECT @granted AS granted;`;
