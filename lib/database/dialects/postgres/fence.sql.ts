import { DB_NOW } from './postgres-names.js';

/**
 * The claim fence (docs/concepts/claims-and-leases.md, "The fence"): the row, still `processing`, still under the
 * caller's token, and a lease that the database clock says has not ended. Every finishing
 * write embeds it, so the check and the write are one atomic step: the UPDATE re-evaluates it
 * on the newest row version under the row lock.
 */
export function fence(alias: string, idExpr: string, tokenExpr: string): string {
  return /* sql */ `${alias}.id = ${idExpr} AND ${alias}.state = 'processing' AND ${alias}.claim_token = ${tokenExpr} AND ${alias}.lease_expires_at > ${DB_NOW}`;
}
