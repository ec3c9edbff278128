import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { qualified } from './postgres-names.js';

/** The column a table's rows are grouped by: the destination (outbox) or the source (inbox). */
const STREAM: Readonly<Record<QueueBoxTable, string>> = { outbox: 'destination', inbox: 'source' };

/**
 * No parameters. Dead rows per destination (outbox) or source (inbox), for an operator's status:
 * read through the finished-rows index (`state IN ('sent', 'dead')`). Output: `label`, `dead`.
 */
export const deadCounts = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
SELECT ${STREAM[table]} AS label, count(*)::integer AS dead
FROM ${qualified(t, table)}
WHERE state = 'dead'
GROUP BY ${STREAM[table]}
ORDER BY ${STREAM[table]}`;
