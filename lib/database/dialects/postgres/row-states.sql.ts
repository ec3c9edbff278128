import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { qualified } from './postgres-names.js';

/** $1 bigint[] ids. The state of each listed row that exists, in id order. No locks: a report. */
export const rowStates = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `
SELECT x.id, x.state, x.attempts
FROM ${qualified(t, table)} AS x
WHERE x.id = ANY($1::bigint[])
ORDER BY x.id`;
