import type { ResolvedTableNames } from '../interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../database/sql-dialect.interface.js';

/** The schema-qualified name of a QueueBox table, each part quoted by the dialect's `quote`. */
export function qualifiedTable(tables: ResolvedTableNames, table: QueueBoxTable, quote: (identifier: string) => string): string {
  const name = quote(tables[table]);
  return tables.schema ? `${quote(tables.schema)}.${name}` : name;
}

/** The state that finishes a row of a table. */
export function doneState(table: QueueBoxTable): 'sent' | 'processed' {
  return table === 'outbox' ? 'sent' : 'processed';
}
