import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, qualified, READ_COMMITTED, SKIP_HINTS, timeOut } from './mssql-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';

/**
 * @0 window (int, ms), @1 limit (int). Rows in flight whose lease ends within the window by the
 * database clock (or already ended, waiting for the reclaim step), soonest first. A report: it
 * never waits (READPAST). Output: `id, stream, ordering_key, attempts, claimed_at,
 * lease_expires_at, expires_in_ms` (float).
 */
export const claimsAtRisk = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `${READ_COMMITTED}
SELECT TOP (@1) x.id, x.${QUEUEBOX_TABLES[table].stream} AS stream, x.ordering_key, x.attempts,
       ${timeOut('x.claimed_at')} AS claimed_at, ${timeOut('x.lease_expires_at')} AS lease_expires_at,
       CAST(DATEDIFF_BIG(millisecond, ${DB_NOW}, x.lease_expires_at) AS float) AS expires_in_ms
FROM ${qualified(t, table)} AS x ${SKIP_HINTS}
WHERE x.state = 'processing' AND x.lease_expires_at <= DATEADD(millisecond, @0, ${DB_NOW})
ORDER BY x.lease_expires_at, x.id;`;
