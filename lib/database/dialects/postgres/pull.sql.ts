import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import { claimStatement, invertedColumn } from './claim.sql.js';
import { INBOX_CLAIM_COLUMNS } from '../schema-columns.js';

/**
 * The pull claim (claim.sql.ts) of one source ($7 holds it): a `pending` row that is due, or a
 * `processing` row whose lease ended, in one statement, with no separate reclaim step
 * (contributing/claim-sql.md, "The pull claim"). A re-claim of an expired row is race-free: if
 * the owner's renewal or completion committed first, the newest version no longer matches and
 * drops out; if the owner is writing it now, it is locked and skipped. `inverted` flags a late
 * commit (queuebox_pull_order_inversions_total).
 */
export const claimPull = (t: ResolvedTableNames): string =>
  claimStatement(
    t,
    'pull',
    `${INBOX_CLAIM_COLUMNS.map((column) => `m.${column}`).join(', ')},
          ${invertedColumn(t, 'pull', 'm')} AS inverted`,
  );
