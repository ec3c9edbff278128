import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { READ_COMMITTED, SKIP_HINTS, qualified } from './mssql-names.js';

/** The column a table's rows are grouped by: the destination (outbox) or the source (inbox). */
const STREAM: Readonly<Record<QueueBoxTable, string>> = { outbox: 'destination', inbox: 'source' };

/**
 * No parameters. Dead rows per destination (outbox) or source (inbox), for an operator's status;
 * like the backlog gauges it never waits (a row held right now, being replayed, is skipped).
 * Output: `label`, `dead` (int).
 */
export const deadCounts = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `${READ_COMMITTED}
SELECT x.${STREAM[table]} AS label, COUNT(*) AS dead
FROM ${qualified(t, table)} AS x ${SKIP_HINTS}
WHERE x.state = 'dead'
GROUP BY x.${STREAM[table]}
ORDER BY x.${STREAM[table]};`;
