import type { ResolvedTableNames } from '../../options/resolved-options.interface.js';
import type { ClaimTable } from '../sql-dialect.interface.js';
import { DB_NOW, qualified, sameScope } from './postgres-names.js';

/**
 * The ordering rule of the outbox and relay claims, for candidate `c`: no older row of its scope
 * is unfinished (A: only the scope's oldest unfinished row, one per batch, FIFO across retries),
 * and no row of its scope is processing (B: covers rows committed out of id order once the
 * claim lock makes the earlier claim visible). Plain snapshot reads: they lock nothing and wait
 * for nobody. NULL keys never match: such rows are unordered.
 */
export const headOfScope = (t: ResolvedTableNames, table: ClaimTable, c: string): string => /* sql */ `NOT EXISTS (SELECT 1 FROM ${qualified(t, table)} AS b
                    WHERE ${sameScope(table, 'b', c)} AND b.id < ${c}.id AND b.state IN ('pending', 'processing'))
    AND NOT EXISTS (SELECT 1 FROM ${qualified(t, table)} AS p
                    WHERE ${sameScope(table, 'p', c)} AND p.state = 'processing')`;

/**
 * The write every claim ends with, on the rows its `cand` CTE locked: `processing`, a new random
 * token per row (gen_random_uuid is evaluated per row), the claim time and the lease from the
 * database clock, and one more attempt (counted at claim, so a message that kills its worker
 * still reaches its maximum).
 */
export const markClaimed = (t: ResolvedTableNames, table: ClaimTable, leaseParam: string, returning: string): string => /* sql */ `UPDATE ${qualified(t, table)} AS m
SET state = 'processing',
    claim_token = gen_random_uuid(),
    claimed_at = ${DB_NOW},
    lease_expires_at = ${DB_NOW} + ${leaseParam}::integer * interval '1 millisecond',
    attempts = m.attempts + 1
FROM cand
WHERE m.id = cand.id
RETURNING ${returning}`;

/**
 * Whether a claimed row `m` is older than a row of its ordering scope that was already claimed
 * or finished: the out-of-order-commit window of a lock-free claim. Only a first claim of a row
 * that never failed can be one (`m.attempts` already counts this claim): a retried or reclaimed
 * row is counted at most once, and a replayed dead row (attempts reset, last error kept) is a
 * decision of the operator, not an inversion. One probe of the `claimed` index (rows enter it at
 * their first claim).
 */
export const inverted = (t: ResolvedTableNames, table: ClaimTable): string =>
  /* sql */ `(m.attempts = 1 AND m.last_error IS NULL
          AND EXISTS (SELECT 1 FROM ${qualified(t, table)} AS y WHERE ${sameScope(table, 'y', 'm')} AND y.id > m.id AND y.attempts > 0)) AS inverted`;
