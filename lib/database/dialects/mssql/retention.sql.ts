import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, READ_COMMITTED, SKIP_HINTS, qualified } from './mssql-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';

/**
 * The time `@0` ms before the database clock. The age is a `bigint` of up to 100 years, and
 * DATEADD takes an `int`: whole minutes, then the remaining milliseconds, each in range.
 */
const AGE_CUTOFF = `DATEADD(millisecond, -CAST(@0 % 60000 AS int), DATEADD(minute, -CAST(@0 / 60000 AS int), ${DB_NOW}))`;

/**
 * @0 age in ms (bigint), @1 max rows (int). Deletes finished rows (`sent`/`processed`, or `dead`)
 * that finished longer ago than the age, by the database clock, a bounded chunk at a time, oldest
 * ids first: finished rows are the front of the table, so the scan of the primary key finds them
 * (dead rows come from `dead_ix`). The chunk is picked without waiting (rows held right now are
 * skipped); the DELETE repeats the state and the age, which it evaluates on the current row under
 * its lock: a dead row replayed meanwhile is pending again and is not deleted. Output: `id` of
 * each deleted row.
 */
export const purgeFinished = (t: ResolvedTableNames, table: QueueBoxTable, state: 'done' | 'dead'): string => {
  const literal = state === 'done' ? QUEUEBOX_TABLES[table].done : 'dead';
  return /* sql */ `${READ_COMMITTED}
DELETE m
OUTPUT deleted.id
FROM ${qualified(t, table)} AS m
WHERE m.state = '${literal}' AND m.finished_at < ${AGE_CUTOFF}
  AND m.id IN (SELECT TOP (@1) f.id FROM ${qualified(t, table)} AS f ${SKIP_HINTS}
               WHERE f.state = '${literal}' AND f.finished_at < ${AGE_CUTOFF}
               ORDER BY f.id);`;
};
