import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { claimStatement } from './claim.sql.js';

/**
 * The pull claim (claim.sql.ts) of one source (@4 and the one-element array @6 hold it), in the
 * claim transaction after the source's claim lock, which SQL Server always takes: a `pending` row
 * that is due, or a `processing` row whose lease ended, in one UPDATE, with no separate reclaim
 * step. A re-claim of an expired row is race-free: the candidate is read under an update lock on
 * its current committed version, so an owner's renewal or completion that committed first makes it
 * drop out, and one being written now holds the row, which is skipped. Parameters and output as
 * `claimStatement`.
 */
export const claimPull = (t: ResolvedTableNames): string => claimStatement(t, 'pull');
