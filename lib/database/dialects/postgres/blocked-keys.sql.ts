import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, qualified, sameScope } from './postgres-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';
import { ARRIVAL_COLUMN } from '../table-names.js';

/**
 * $1 limit. The keys whose head row fails: `retrying`, the oldest unfinished row of its key is
 * pending after a failed claim (it holds every younger row back); `dead`, the oldest row of its
 * key that is not done is dead (younger rows went on without it). Oldest heads first; `waiting`
 * counts the pending rows behind each head, for the heads returned only. No locks: a report.
 */
export const blockedKeys = (t: ResolvedTableNames, table: QueueBoxTable): string => {
  const tbl = qualified(t, table);
  const head = (
    reason: string,
    state: string,
    before: string,
  ) => `SELECT x.id, x.${QUEUEBOX_TABLES[table].stream} AS stream, x.ordering_key, '${reason}' AS reason,
         x.attempts, x.last_error, x.${ARRIVAL_COLUMN[table]} AS created_at
  FROM ${tbl} AS x
  WHERE ${state} AND x.ordering_key IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM ${tbl} AS b WHERE b.state IN (${before}) AND ${sameScope(table, 'b', 'x')} AND b.id < x.id)`;
  return /* sql */ `
WITH heads AS (
  (${head('retrying', `x.state = 'pending' AND x.attempts > 0`, `'pending', 'processing'`)})
  UNION ALL
  (${head('dead', `x.state = 'dead'`, `'pending', 'processing', 'dead'`)})
  ORDER BY id
  LIMIT $1
)
SELECT h.id, h.stream, h.ordering_key, h.reason, h.attempts, h.last_error,
       EXTRACT(EPOCH FROM ${DB_NOW} - h.created_at)::float8 AS age_seconds,
       (SELECT count(*)::integer FROM ${tbl} AS w
        WHERE w.state = 'pending' AND w.${QUEUEBOX_TABLES[table].stream} = h.stream AND w.ordering_key = h.ordering_key AND w.id > h.id) AS waiting
FROM heads AS h
ORDER BY h.id`;
};
