import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, qualified } from './postgres-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';

/**
 * $1 window (ms), $2 limit. Rows in flight whose lease ends within the window by the database
 * clock (or already ended, waiting for the reclaim step), soonest first. No locks: a report.
 */
export const claimsAtRisk = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
SELECT x.id, x.${QUEUEBOX_TABLES[table].stream} AS stream, x.ordering_key, x.attempts, x.claimed_at, x.lease_expires_at,
       (EXTRACT(EPOCH FROM x.lease_expires_at - ${DB_NOW}) * 1000)::float8 AS expires_in_ms
FROM ${qualified(t, table)} AS x
WHERE x.state = 'processing' AND x.lease_expires_at <= ${DB_NOW} + $1::integer * interval '1 millisecond'
ORDER BY x.lease_expires_at, x.id
LIMIT $2`;
