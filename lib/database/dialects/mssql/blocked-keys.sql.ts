import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, qualified, READ_COMMITTED, SKIP_HINTS } from './mssql-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';
import { ARRIVAL_COLUMN } from '../table-names.js';

/**
 * @0 limit (int). The keys whose head row fails: `retrying`, the oldest unfinished row of its key
 * is pending after a failed claim (it holds every younger row back); `dead`, the oldest row of its
 * key that is not done is dead. Oldest heads first; `waiting` counts the pending rows behind each
 * head returned. A report: it never waits (READPAST), so a row held right now may be missed.
 * Output: `id, stream, ordering_key, reason, attempts, last_error, age_seconds` (float), `waiting`.
 */
export const blockedKeys = (t: ResolvedTableNames, table: QueueBoxTable): string => {
  const tbl = qualified(t, table);
  const stream = QUEUEBOX_TABLES[table].stream;
  const head = (
    reason: string,
    state: string,
    before: string,
  ) => `SELECT x.id, x.${stream} AS stream, x.ordering_key, '${reason}' AS reason,
         x.attempts, x.last_error, x.${ARRIVAL_COLUMN[table]} AS created_at
  FROM ${tbl} AS x ${SKIP_HINTS}
  WHERE ${state} AND x.ordering_key IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM ${tbl} AS b ${SKIP_HINTS}
                    WHERE b.state IN (${before}) AND b.${stream} = x.${stream} AND b.ordering_key = x.ordering_key AND b.id < x.id)`;
  return /* sql */ `${READ_COMMITTED}
WITH heads AS (
  ${head('retrying', `x.state = 'pending' AND x.attempts > 0`, `'pending', 'processing'`)}
  UNION ALL
  ${head('dead', `x.state = 'dead'`, `'pending', 'processing', 'dead'`)}
)
SELECT TOP (@0) h.id, h.stream, h.ordering_key, h.reason, h.attempts, h.last_error,
       CAST(DATEDIFF_BIG(millisecond, h.created_at, ${DB_NOW}) AS float) / 1000 AS age_seconds,
       (SELECT COUNT(*) FROM ${tbl} AS w ${SKIP_HINTS}
        WHERE w.state = 'pending' AND w.${stream} = h.stream AND w.ordering_key = h.ordering_key AND w.id > h.id) AS waiting
FROM heads AS h
ORDER BY h.id;`;
};
