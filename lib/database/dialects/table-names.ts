import type { ResolvedTableNames } from '../../shared/interfaces/table-names.interface.js';
import type { QueueBoxTable } from '../sql-dialect.interface.js';

/** The schema-qualified name of a QueueBox table, each part quoted by the dialect's `quote`. */
export function qualifiedTable(
  tables: ResolvedTableNames,
  table: QueueBoxTable,
  quote: (identifier: string) => string,
): string {
  const name = quote(tables[table]);
  return tables.schema ? `${quote(tables.schema)}.${name}` : name;
}

/** The column of a row's arrival: when an outbox row was created, when an inbox row was received. */
export const ARRIVAL_COLUMN: Readonly<Record<QueueBoxTable, 'created_at' | 'received_at'>> = {
  outbox: 'created_at',
  inbox: 'received_at',
};
