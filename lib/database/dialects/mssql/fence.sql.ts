import { DB_NOW } from './mssql-names.js';

/**
 * The claim fence (docs/concepts/claims-and-leases.md, "The fence"): the row, still `processing`,
 * still under the caller's token, and a lease that the database clock says has not ended. Every
 * finishing write embeds it in the WHERE of its one UPDATE, so the check and the write are one
 * atomic step: SQL Server reads the target rows of an UPDATE under update locks, on the newest
 * committed version, in both READ COMMITTED modes (with and without READ_COMMITTED_SNAPSHOT), and
 * waits for a concurrent writer of the row first.
 */
export function fence(alias: string, idExpr: string, tokenExpr: string): string {
  return /* sql */ `${alias}.id = ${idExpr} AND ${alias}.state = 'processing' AND ${alias}.claim_token = ${tokenExpr} AND ${alias}.lease_expires_at > ${DB_NOW}`;
}
