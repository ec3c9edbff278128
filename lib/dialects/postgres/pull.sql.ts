import type { ResolvedTableNames } from '../../options/resolved-options.interface.js';
import { inverted, markClaimed } from './claim-update.sql.js';
import { INBOX_CLAIM_COLUMNS } from './inbox.sql.js';
import { DB_NOW, qualified } from './postgres-names.js';

/**
 * $1 source, $2 batch size, $3 lease ms. The pull claim (no separate reclaim step; see
 * docs/internals/claim-sql.md, "The pull claim"): takes
 * a `pending` row that is due, or a `processing` row whose lease expired, in one statement,
 * FOR UPDATE SKIP LOCKED, no claim lock by default. An expired `processing` row is still the
 * head of its aggregate in (A); only a live lease blocks in (B'), which excludes the candidate
 * itself. A re-claim of an expired row is race-free: if the owner's renewal or completion
 * committed first, the newest version no longer matches (EvalPlanQual) and drops out; if the
 * owner is writing it now, it is locked and skipped.
 *
 * `inverted` flags a row older than a row of its aggregate already claimed or finished (the
 * out-of-order-commit window; queuebox_pull_order_inversions_total).
 */
export const claimPull = (t: ResolvedTableNames): string => /* sql */ `
WITH cand AS (
  SELECT i.id
  FROM ${qualified(t, 'inbox')} AS i
  WHERE i.source = $1
    AND i.state IN ('pending', 'processing')
    AND (   (i.state = 'pending' AND i.next_attempt_at <= ${DB_NOW})
         OR (i.state = 'processing' AND i.lease_expires_at <= ${DB_NOW}))
    AND NOT EXISTS (SELECT 1 FROM ${qualified(t, 'inbox')} AS b
                    WHERE b.source = i.source AND b.ordering_key = i.ordering_key AND b.id < i.id
                      AND b.state IN ('pending', 'processing'))
    AND NOT EXISTS (SELECT 1 FROM ${qualified(t, 'inbox')} AS p
                    WHERE p.source = i.source AND p.ordering_key = i.ordering_key
                      AND p.state = 'processing' AND p.lease_expires_at > ${DB_NOW} AND p.id <> i.id)
  ORDER BY i.id
  LIMIT $2
  FOR UPDATE OF i SKIP LOCKED
)
${markClaimed(t, 'inbox', '$3', `${INBOX_CLAIM_COLUMNS},
          ${inverted(t, 'inbox')}`)}`;
