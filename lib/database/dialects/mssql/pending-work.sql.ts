import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, READ_COMMITTED, qualified } from './mssql-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';

/*
 * What is left to do, for a test's drain (queuebox/testing): per table and stream (destination or
 * source), the rows due now, the rows in flight, and the rows waiting for a later attempt. No
 * READPAST: a row that a claim in progress holds is waited for and counted, never skipped (a drain
 * that skipped it could report "nothing due" while a claim is being written).
 */

const unfinished = (t: ResolvedTableNames, table: QueueBoxTable): string => {
  const { stream } = QUEUEBOX_TABLES[table];
  const scheduled = `x.state = 'pending' AND x.next_attempt_at > ${DB_NOW}`;
  return /* sql */ `SELECT N'${table}' AS table_name, x.${stream} AS stream,
       SUM(CASE WHEN x.state = 'pending' AND x.next_attempt_at <= ${DB_NOW} THEN 1 ELSE 0 END) AS due,
       SUM(CASE WHEN x.state = 'processing' THEN 1 ELSE 0 END) AS in_flight,
       SUM(CASE WHEN ${scheduled} THEN 1 ELSE 0 END) AS scheduled,
       CAST(DATEDIFF_BIG(millisecond, ${DB_NOW}, MIN(CASE WHEN ${scheduled} THEN x.next_attempt_at END)) AS float) AS next_due_in_ms
FROM ${qualified(t, table)} AS x
WHERE x.state IN ('pending', 'processing')
GROUP BY x.${stream}`;
};

/**
 * No parameters. Output: `table_name` (`outbox` | `inbox`), `stream`, `due`, `in_flight`,
 * `scheduled` (int), `next_due_in_ms` (float; NULL when nothing is scheduled).
 */
export const pendingWork = (t: ResolvedTableNames): string =>
  `${READ_COMMITTED}\n${unfinished(t, 'outbox')}\nUNION ALL\n${unfinished(t, 'inbox')};`;
