import { decodeNothing } from '../decode-rows.js';
import { schemaSteps } from './schema-steps.js';
import type { SqlDialect, SqlStatement } from '../sql-dialect.interface.js';

/**
 * The statements that make QueueBox's tables, every schema step in order, as one-off statements
 * (not migrations): for a schema QueueBox makes for itself and drops afterwards — the testing
 * kit's fresh test schemas, a conformance run. Applications create their tables with the
 * migrations (queuebox/migrations).
 */
export function createTablesStatements(dialect: SqlDialect): SqlStatement<void>[] {
  return schemaSteps(dialect.type, dialect.tables).flatMap((step) =>
    step.up.map((sql) => ({ sql, params: [], decode: decodeNothing })),
  );
}
