import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, qualified } from './postgres-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';

/*
 * What is left to do, for a test's drain (queuebox/testing): per table and stream (destination or
 * source), the rows due now, the rows in flight, and the rows waiting for a later attempt. Takes
 * no locks and skips none: a row that a claim in progress holds is counted as it was before.
 */

const unfinished = (t: ResolvedTableNames, table: QueueBoxTable): string => {
  const { stream } = QUEUEBOX_TABLES[table];
  return /* sql */ `SELECT '${table}' AS table_name, ${stream} AS stream,
       count(*) FILTER (WHERE state = 'pending' AND next_attempt_at <= ${DB_NOW})::integer AS due,
       count(*) FILTER (WHERE state = 'processing')::integer AS in_flight,
       count(*) FILTER (WHERE state = 'pending' AND next_attempt_at > ${DB_NOW})::integer AS scheduled,
       (EXTRACT(EPOCH FROM min(next_attempt_at) FILTER (WHERE state = 'pending' AND next_attempt_at > ${DB_NOW}) - ${DB_NOW}) * 1000)::float8 AS next_due_in_ms
FROM ${qualified(t, table)}
WHERE state IN ('pending', 'processing')
GROUP BY ${stream}`;
};

/**
 * No parameters. Output: `table_name` (`outbox` | `inbox`), `stream`, `due`, `in_flight`,
 * `scheduled` (integers), `next_due_in_ms` (float; NULL when nothing is scheduled).
 */
export const pendingWork = (t: ResolvedTableNames): string =>
  `${unfinished(t, 'outbox')}\nUNION ALL\n${unfinished(t, 'inbox')}`;
