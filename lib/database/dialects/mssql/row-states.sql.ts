import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { jsonIds, qualified, READ_COMMITTED, SKIP_HINTS } from './mssql-names.js';

/**
 * @0 JSON array of ids. The state of each listed row that exists, in id order. A report: it never
 * waits (READPAST), so a row held right now is missing from one answer and back in the next.
 * Output: `id, state, attempts`.
 */
export const rowStates = (t: ResolvedTableNames, table: QueueBoxTable): string => /* sql */ `${READ_COMMITTED}
SELECT x.id, x.state, x.attempts
FROM ${qualified(t, table)} AS x ${SKIP_HINTS}
WHERE x.id IN (${jsonIds('@0')})
ORDER BY x.id;`;
