import type { ResolvedTableNames } from '../../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../../sql-dialect.interface.js';
import { qualifiedTable } from '../table-names.js';
import { QUEUEBOX_TABLES } from '../../../shared/queuebox.claimers.js';

/**
 * Quotes a validated identifier (`IDENTIFIER` in options). Quoting keeps the case as given and
 * makes reserved words safe; validation is what keeps anything else out.
 */
export function quote(identifier: string): string {
  return `"${identifier}"`;
}

/** The quoted, schema-qualified name of a QueueBox table. */
export const qualified = (tables: ResolvedTableNames, table: QueueBoxTable): string =>
  qualifiedTable(tables, table, quote);

/** The database clock: when the current statement arrived (not `now()`, the transaction start). */
export const DB_NOW = 'statement_timestamp()';

/**
 * Rows `a` and `b` share an ordering scope: the key of an outbox destination, or the key of an
 * inbox source (docs/concepts/ordering.md). A NULL key never matches: such rows are unordered.
 */
export function sameScope(table: QueueBoxTable, a: string, b: string): string {
  const { stream } = QUEUEBOX_TABLES[table];
  return `${a}.${stream} = ${b}.${stream} AND ${a}.ordering_key = ${b}.ordering_key`;
}
