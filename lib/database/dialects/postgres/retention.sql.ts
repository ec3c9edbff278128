import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { DB_NOW, qualified } from './postgres-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';

/**
 * $1 age in ms, $2 max rows. Deletes finished rows (`sent`/`processed`, or `dead`) that finished
 * longer ago than the age, by the database clock, a bounded chunk at a time, oldest ids first:
 * finished rows are the front of the table, so the scan of the primary key finds them without an
 * index of its own (dead rows come from `dead_ix`). The outer WHERE repeats the state and age so
 * that they are re-checked on the newest row version: a dead row replayed meanwhile is pending
 * again and is not deleted.
 */
export const purgeFinished = (t: ResolvedTableNames, table: QueueBoxTable, state: 'done' | 'dead'): string => {
  const literal = state === 'done' ? QUEUEBOX_TABLES[table].done : 'dead';
  const older = `finished_at < ${DB_NOW} - $1::bigint * interval '1 millisecond'`;
  return /* sql */ `
DELETE FROM ${qualified(t, table)} AS m
WHERE m.state = '${literal}' AND m.${older}
  AND m.id IN (SELECT f.id FROM ${qualified(t, table)} AS f WHERE f.state = '${literal}' AND f.${older} ORDER BY f.id LIMIT $2)
RETURNING m.id`;
};
